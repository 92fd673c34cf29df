// FileReader's reads of an opened file: whole fields (ReadField / ReadAll), takes of rows
// (TakeField / Take / ReadRange), each dispatched to the decoder the field's pages need: the
// v1 reader, the 2.0 legacy pages, the structural reader (nested fields, leaves with levels)
// or the byte-range takes of leaves without levels. Opening is in file_open.cc.
#include "lance/file/file_reader.h"

#include <algorithm>
#include <functional>
#include <numeric>

#include <fmt/format.h>

#include "encoding/legacy.h"
#include "file/dictionary_fields.h"
#include "file/leaf_take.h"
#include "file/legacy_v1_reader.h"
#include "file/page_table.h"
#include "file/structural_reader.h"
#include "lance/columnar/compute.h"

namespace lance::file {

using encoding::DataBlock;
using encoding::DataBlockPrototype;

Result<ArrayPtr> FileReader::ReadField(int field_index) const {
  if (v1_) return v1_->ReadField(field_index);
  const FieldPtr& f = schema_->field(field_index);
  // A file without rows may have no pages at all (our writer writes none; there is nothing
  // to decode them into anyway).
  if (num_rows_ == 0) return MakeEmptyArray(f->type());
  LANCE_RETURN_NOT_OK(impl_->LoadField(field_index));
  const DataTypePtr type = StorageType(f->type());
  ArrayPtr out;
  const int first = impl_->first_column[static_cast<size_t>(field_index)];
  const int count = impl_->num_field_columns[static_cast<size_t>(field_index)];
  LANCE_ASSIGN_OR_RAISE(FetchedColumns fetched, impl_->FetchColumns(first, count));
  int column = first;
  if (version_.is_legacy()) {
    encoding::LegacyReader legacy;
    legacy.arrow_dictionary = f->type()->id() == TypeId::kDictionary;
    legacy.columns.resize(impl_->pages.size());
    for (int c = first; c < first + count; ++c) {
      const auto& col = impl_->pages[static_cast<size_t>(c)];
      for (size_t p = 0; p < col.size(); ++p) {
        encoding::LegacyPage lp;
        lp.encoding = col[p].legacy.get();
        lp.num_rows = col[p].num_rows;
        for (const auto& buf : fetched[static_cast<size_t>(c - first)][p]) {
          lp.buffers.emplace_back(reinterpret_cast<const char*>(buf->data()),
                                  static_cast<size_t>(buf->size()));
        }
        legacy.columns[static_cast<size_t>(c)].push_back(std::move(lp));
      }
    }
    LANCE_ASSIGN_OR_RAISE(out, legacy.ReadField(type, &column, num_rows_));
  } else {
    StructuralReader r{&impl_->pages, version_.minor, &fetched, first};
    LANCE_ASSIGN_OR_RAISE(out, r.Build(type, 0, &column, num_rows_, nullptr));
  }
  return RestoreDictionaries(f->type(), out);
}

Result<ArrayPtr> FileReader::TakeLevellessMiniBlock(int field_index, const WantedRows& wanted,
                                                    const std::vector<int64_t>* order,
                                                    bool keep_dictionaries) const {
  const FieldPtr& f = schema_->field(field_index);
  const DataTypePtr type = StorageType(f->type());
  const int column = impl_->first_column[static_cast<size_t>(field_index)];
  const auto& pages = impl_->pages[static_cast<size_t>(column)];
  // Dictionary indices are kept only for plain fields (not Arrow dictionary fields, which
  // RestoreDictionaries re-encodes) whose every page has a dictionary.
  bool dictionaries = keep_dictionaries && !HasDictionary(*f->type()) &&
                      type->id() != TypeId::kFixedSizeList;
  for (const auto& pm : pages) {
    dictionaries = dictionaries && pm.layout->mini_block_layout().has_dictionary();
  }
  LANCE_ASSIGN_OR_RAISE(DataBlock prototype, DataBlockPrototype(*type));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr arr,
                        TakeMiniBlockValues(impl_->fetch, &impl_->page_index, column, pages,
                                            version_.minor, wanted, order, prototype, type,
                                            dictionaries));
  if (dictionaries) return arr;
  return RestoreDictionaries(f->type(), arr);
}

Result<ArrayPtr> FileReader::TakeFieldRange(int field_index, int64_t start, int64_t length,
                                            bool keep_dictionaries) const {
  if (!v1_ && !version_.is_legacy() && length > 0) {
    LANCE_RETURN_NOT_OK(impl_->LoadField(field_index));
    const DataTypePtr type = StorageType(schema_->field(field_index)->type());
    const int column = impl_->first_column[static_cast<size_t>(field_index)];
    if (LevellessMiniBlock(*type, impl_->pages[static_cast<size_t>(column)])) {
      return TakeLevellessMiniBlock(field_index, WantedRows(start, length), nullptr,
                                    keep_dictionaries);
    }
  }
  std::vector<int64_t> rows(static_cast<size_t>(length));
  std::iota(rows.begin(), rows.end(), start);
  return TakeField(field_index, rows, keep_dictionaries, /*ascending=*/true);
}

Result<ArrayPtr> FileReader::TakeField(int field_index, const std::vector<int64_t>& rows,
                                       bool keep_dictionaries, bool ascending) const {
  if (v1_) return v1_->TakeField(field_index, rows);
  LANCE_RETURN_NOT_OK(impl_->LoadField(field_index));
  const FieldPtr& f = schema_->field(field_index);
  const DataTypePtr type = StorageType(f->type());
  const int column = impl_->first_column[static_cast<size_t>(field_index)];
  const auto& pages = impl_->pages[static_cast<size_t>(column)];
  // Columns of full-zip pages (with constant pages among them) and no lists: the rows'
  // bytes are read page by page at their stride or through the repetition index.
  bool full_zip = !version_.is_legacy() && !IsStructural(*type);
  bool any_full_zip = false;
  for (const auto& pm : pages) {
    if (!full_zip) break;
    const auto& layout = *pm.layout;
    any_full_zip |= layout.has_full_zip_layout();
    full_zip = (layout.has_constant_layout() && layout.constant_layout().num_rep_values() == 0) ||
               (layout.has_full_zip_layout() && layout.full_zip_layout().bits_rep() == 0);
  }
  full_zip = full_zip && any_full_zip;
  if (rows.empty()) return MakeEmptyArray(f->type());
  if (version_.is_legacy()) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr all, ReadField(field_index));
    return TakeArray(all, rows);
  }
  // Filtered scans and ranged reads pass ascending rows: they are used as they are (sorting
  // half a million of them again was ~10% of a filtered count; copying them, ~5%).
  std::vector<int64_t> sorted;
  if (!ascending) {
    sorted = rows;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  }
  const std::vector<int64_t>& wanted = ascending ? rows : sorted;
  if (LevellessMiniBlock(*type, pages)) {
    return TakeLevellessMiniBlock(field_index, WantedRows(wanted), ascending ? nullptr : &rows,
                                  keep_dictionaries);
  }
  if (!full_zip) {
    // Nested fields and mini-block / constant leaves with levels: every leaf column reads only
    // the chunks / rows holding the wanted rows (page indexes cached, one fetch per column for
    // the rest); the layers are rebuilt for those rows alone.
    StructuralReader r{&impl_->pages, version_.minor, nullptr, column};
    r.selection = &wanted;
    r.fetch = &impl_->fetch;
    r.page_index = &impl_->page_index;
    int next_column = column;
    LANCE_ASSIGN_OR_RAISE(ArrayPtr picked, r.Build(type, 0, &next_column,
                                                   static_cast<int64_t>(wanted.size()), nullptr));
    if (picked->length != static_cast<int64_t>(wanted.size())) {
      return Status::Corruption("took {} rows for {}", picked->length, wanted.size());
    }
    if (rows.size() != wanted.size() || !std::equal(rows.begin(), rows.end(), wanted.begin())) {
      std::vector<int64_t> positions(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        positions[i] = std::lower_bound(wanted.begin(), wanted.end(), rows[i]) - wanted.begin();
      }
      LANCE_ASSIGN_OR_RAISE(picked, TakeArray(picked, positions));
    }
    return RestoreDictionaries(f->type(), picked);
  }
  LANCE_ASSIGN_OR_RAISE(DataBlock prototype, DataBlockPrototype(*type));
  // Each page gives its wanted rows, in `wanted` order: the pieces are keyed by the position in
  // `wanted` of their first row (full-zip pages decode only those rows, all at once).
  std::vector<std::pair<int64_t, ArrayPtr>> pieces;
  int64_t page_start = 0;
  auto next_wanted = wanted.begin();
  for (size_t p = 0; p < pages.size(); page_start += pages[p].num_rows, ++p) {
    const PageMeta& pm = pages[p];
    const int64_t page_end = page_start + pm.num_rows;
    next_wanted = std::lower_bound(next_wanted, wanted.end(), page_start);
    if (next_wanted == wanted.end() || *next_wanted >= page_end) continue;
    const int64_t first_position = next_wanted - wanted.begin();
    auto context = [&](const Status& st) {
      return st.WithContext(fmt::format("field '{}' column {} page {}", f->name(), column, p));
    };
    encoding::PageInput in;
    in.layout = pm.layout.get();
    in.minor_version = version_.minor;
    in.prototype = DataBlock::EmptyLike(prototype);
    if (pm.layout->has_full_zip_layout()) {
      auto arr = TakeFullZipRows(impl_->fetch, pm, page_start, next_wanted, wanted.end(), in, type);
      if (!arr.ok()) return context(arr.status());
      pieces.emplace_back(first_position, std::move(*arr));
      continue;
    }
    std::vector<io::Range> ranges;
    for (const auto& [pos, len] : pm.buffers) {
      ranges.push_back({static_cast<int64_t>(pos), static_cast<int64_t>(len)});
    }
    LANCE_ASSIGN_OR_RAISE(std::vector<BufferPtr> bufs, impl_->fetch(ranges));
    for (const auto& b : bufs) in.buffers.emplace_back(b->view());
    in.num_rows = pm.num_rows;
    auto arr = DecodeLeafPage(in, type);
    if (!arr.ok()) return context(arr.status());
    std::vector<int64_t> local;
    for (auto it = next_wanted; it != wanted.end() && *it < page_end; ++it) local.push_back(*it - page_start);
    LANCE_ASSIGN_OR_RAISE(ArrayPtr picked, TakeArray(*arr, local));
    pieces.emplace_back(first_position, std::move(picked));
  }
  // One page held every wanted row, asked for in order (a ranged read inside a page): it is
  // the answer, with no per-row gather.
  if (&wanted == &rows && pieces.size() == 1 && pieces[0].second->length == static_cast<int64_t>(rows.size())) {
    return RestoreDictionaries(f->type(), pieces[0].second);
  }
  std::vector<int64_t> positions(rows.size());
  if (&wanted == &rows) {
    for (size_t i = 0; i < rows.size(); ++i) positions[i] = static_cast<int64_t>(i);
  } else {
    for (size_t i = 0; i < rows.size(); ++i) {
      positions[i] = std::lower_bound(wanted.begin(), wanted.end(), rows[i]) - wanted.begin();
    }
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr gathered, TakeChunked(pieces, positions, type));
  return RestoreDictionaries(f->type(), gathered);
}

int64_t FileReader::FieldBytes(int field_index) const {
  if (v1_) return v1_->FieldBytes(field_index);
  if (field_index < 0 || field_index >= schema_->num_fields()) return 0;
  if (!impl_->LoadField(field_index).ok()) return 0;
  const int first = impl_->first_column[static_cast<size_t>(field_index)];
  const int count = impl_->num_field_columns[static_cast<size_t>(field_index)];
  int64_t bytes = 0;
  for (int c = first; c < first + count; ++c) {
    for (const auto& page : impl_->pages[static_cast<size_t>(c)]) {
      for (const auto& [pos, len] : page.buffers) bytes += static_cast<int64_t>(len);
    }
  }
  return bytes;
}

Result<RecordBatchPtr> FileReader::ReadAll(const std::vector<int>& field_indices) const {
  std::vector<int> indices = field_indices;
  if (indices.empty()) {
    for (int i = 0; i < schema_->num_fields(); ++i) indices.push_back(i);
  }
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> arrays;
  for (int i : indices) {
    if (i < 0 || i >= schema_->num_fields()) {
      return Status::InvalidArgument("field index {} outside [0, {})", i, schema_->num_fields());
    }
    auto arr = ReadField(i);
    if (!arr.ok()) {
      return arr.status().WithContext(fmt::format("field '{}'", schema_->field(i)->name()));
    }
    if ((*arr)->length != num_rows_) {
      return Status::Corruption("field '{}' decoded {} rows, the file has {}",
                                schema_->field(i)->name(), (*arr)->length, num_rows_);
    }
    fields.push_back(schema_->field(i));
    arrays.push_back(std::move(*arr));
  }
  return RecordBatch::Make(::lance::schema(std::move(fields), schema_->metadata()), num_rows_,
                           std::move(arrays));
}

Result<RecordBatchPtr> FileReader::ReadRange(int64_t start, int64_t length,
                                             const std::vector<int>& field_indices) const {
  if (start < 0 || length < 0 || start > num_rows_ || length > num_rows_ - start) {
    return Status::InvalidArgument("row range [{}, {}) outside the file's {} rows", start,
                                   start + length, num_rows_);
  }
  return ReadRange(start, length, field_indices, ReadOptions{});
}

Result<RecordBatchPtr> FileReader::Take(const std::vector<int64_t>& rows,
                                        const std::vector<int>& field_indices) const {
  return Take(rows, field_indices, ReadOptions{});
}

Result<RecordBatchPtr> FileReader::ReadRange(int64_t start, int64_t length,
                                             const std::vector<int>& field_indices,
                                             const ReadOptions& options) const {
  if (start < 0 || length < 0 || start > num_rows_ || length > num_rows_ - start) {
    return Status::InvalidArgument("row range [{}, {}) outside the file's {} rows", start,
                                   start + length, num_rows_);
  }
  std::vector<int> indices = field_indices;
  if (indices.empty()) {
    for (int i = 0; i < schema_->num_fields(); ++i) indices.push_back(i);
  }
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> columns;
  for (int i : indices) {
    if (i < 0 || i >= schema_->num_fields()) {
      return Status::InvalidArgument("field index {} outside [0, {})", i, schema_->num_fields());
    }
    FieldPtr f = schema_->field(i);
    auto arr = TakeFieldRange(i, start, length, options.keep_dictionaries);
    if (!arr.ok()) return arr.status().WithContext(fmt::format("field '{}'", f->name()));
    if (options.keep_dictionaries && !(*arr)->type->Equals(*f->type())) f = f->WithType((*arr)->type);
    fields.push_back(std::move(f));
    columns.push_back(std::move(*arr));
  }
  return RecordBatch::Make(::lance::schema(std::move(fields), schema_->metadata()), length,
                           std::move(columns));
}

Result<RecordBatchPtr> FileReader::Take(const std::vector<int64_t>& rows,
                                        const std::vector<int>& field_indices,
                                        const ReadOptions& options) const {
  // Ascending rows (filtered scans) are checked by their ends.
  const bool ascending =
      std::adjacent_find(rows.begin(), rows.end(), std::greater_equal<int64_t>()) == rows.end();
  if (ascending) {
    if (!rows.empty() && (rows.front() < 0 || rows.back() >= num_rows_)) {
      const int64_t r = rows.front() < 0 ? rows.front() : rows.back();
      return Status::InvalidArgument("row {} outside the file's {} rows", r, num_rows_);
    }
  } else {
    for (int64_t r : rows) {
      if (r < 0 || r >= num_rows_) {
        return Status::InvalidArgument("row {} outside the file's {} rows", r, num_rows_);
      }
    }
  }
  std::vector<int> indices = field_indices;
  if (indices.empty()) {
    for (int i = 0; i < schema_->num_fields(); ++i) indices.push_back(i);
  }
  std::vector<FieldPtr> fields;
  for (int i : indices) {
    if (i < 0 || i >= schema_->num_fields()) {
      return Status::InvalidArgument("field index {} outside [0, {})", i, schema_->num_fields());
    }
    fields.push_back(schema_->field(i));
  }
  // Fields one after another: taking them in parallel on the default pool cost more CPU
  // (30.7 vs 24.6 ms per 1000-row take of the 5 bench columns) and more wall time on the
  // shared 2-core machine; the reads of each field already run on the io pool.
  std::vector<ArrayPtr> columns;
  for (size_t k = 0; k < indices.size(); ++k) {
    auto arr = TakeField(indices[k], rows, options.keep_dictionaries, ascending);
    if (!arr.ok()) return arr.status().WithContext(fmt::format("field '{}'", fields[k]->name()));
    if (options.keep_dictionaries && !(*arr)->type->Equals(*fields[k]->type())) {
      fields[k] = fields[k]->WithType((*arr)->type);
    }
    columns.push_back(std::move(*arr));
  }
  return RecordBatch::Make(::lance::schema(std::move(fields), schema_->metadata()),
                           static_cast<int64_t>(rows.size()), std::move(columns));
}

}  // namespace lance::file
