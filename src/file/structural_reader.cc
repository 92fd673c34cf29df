// StructuralReader: the leaf columns of a 2.1+ field, whole or for selected rows, and the
// nested arrays built from their levels.
#include "file/structural_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "lance/core/bit_util.h"

namespace lance::file {

namespace {

using encoding::DataBlock;
using encoding::DataBlockPrototype;
using encoding::LayerSlots;

// One page's share of a take: the page-local rows and how they will be read.
struct PageTake {
  size_t page = 0;
  int64_t page_start = 0;
  std::vector<int64_t> rows;  // page-local, ascending, unique
  // Mini-block.
  std::shared_ptr<const MiniBlockPageIndex> index;
  size_t head_at = 0, head_count = 0;  // this page's ranges in the first fetch
  struct ChunkRun {
    size_t first, last;  // chunks, inclusive
  };
  std::vector<ChunkRun> chunk_runs;
  // Full-zip: runs of consecutive rows as [first, first + count).
  std::vector<std::pair<int64_t, int64_t>> row_runs;
  size_t data_at = 0, data_count = 0;  // this page's ranges in the second fetch
};

// The rows of each chunk run: chunks holding the starts of `rows`, extended over the chunks
// their last row continues into.
Status PlanChunkRuns(PageTake* take) {
  const auto& rows = take->index->rows;
  size_t c = 0;
  for (int64_t r : take->rows) {
    while (c < rows.size() && r >= rows[c].first_row + rows[c].num_starts) ++c;
    if (c == rows.size() || r < rows[c].first_row) {
      return Status::Corruption("row {} is in no chunk of the repetition index", r);
    }
    size_t e = c;
    if (r == rows[c].first_row + rows[c].num_starts - 1 && rows[c].has_trailer) {
      do {
        ++e;
        if (e == rows.size() || !rows[e].has_preamble) {
          return Status::Corruption("row {} continues past chunk {}", r, e - 1);
        }
      } while (rows[e].num_starts == 0 && rows[e].has_trailer);
    }
    auto& runs = take->chunk_runs;
    if (!runs.empty() && runs.back().last + 1 >= c) {
      runs.back().last = std::max(runs.back().last, e);
    } else {
      runs.push_back({c, e});
    }
  }
  return Status::OK();
}

}  // namespace

Result<LeafData> StructuralReader::TakeLeaf(int column, const DataType& leaf_type) const {
  LANCE_ASSIGN_OR_RAISE(DataBlock prototype, DataBlockPrototype(leaf_type));
  const auto& column_pages = (*pages)[static_cast<size_t>(column)];
  const std::vector<int64_t>& wanted = *selection;
  std::vector<PageTake> takes;
  {
    int64_t page_start = 0;
    auto w = wanted.begin();
    for (size_t p = 0; p < column_pages.size() && w != wanted.end(); ++p) {
      const int64_t page_end = page_start + column_pages[p].num_rows;
      if (*w < page_end) {
        PageTake t;
        t.page = p;
        t.page_start = page_start;
        for (; w != wanted.end() && *w < page_end; ++w) t.rows.push_back(*w - page_start);
        takes.push_back(std::move(t));
      }
      page_start = page_end;
    }
    if (w != wanted.end()) {
      return Status::Corruption("column {}: row {} past its pages", column, *w);
    }
  }
  auto range_of = [](const std::pair<uint64_t, uint64_t>& buf) {
    return io::Range{static_cast<int64_t>(buf.first), static_cast<int64_t>(buf.second)};
  };
  // First fetch: what locates the rows (uncached mini-block indexes, full-zip repetition
  // index entries) and whole pages of other layouts.
  std::vector<io::Range> head;
  for (PageTake& t : takes) {
    const PageMeta& pm = column_pages[t.page];
    t.head_at = head.size();
    auto context = [&](const Status& st) {
      return st.WithContext(fmt::format("column {} page {}", column, t.page));
    };
    if (pm.layout->has_mini_block_layout()) {
      t.index = page_index->Find(column, t.page);
      if (t.index) continue;
      const auto& mb = pm.layout->mini_block_layout();
      const size_t rep_buffer = mb.has_dictionary() ? 3 : 2;
      const size_t needed = rep_buffer + (mb.repetition_index_depth() > 0 ? 1 : 0);
      if (pm.buffers.size() < needed) {
        return context(Status::Corruption("mini-block page with {} buffers, needs {}",
                                          pm.buffers.size(), needed));
      }
      head.push_back(range_of(pm.buffers[0]));
      if (mb.has_dictionary()) head.push_back(range_of(pm.buffers[2]));
      if (mb.repetition_index_depth() > 0) head.push_back(range_of(pm.buffers[rep_buffer]));
    } else if (pm.layout->has_full_zip_layout()) {
      const auto& fz = pm.layout->full_zip_layout();
      for (int64_t r : t.rows) {
        if (!t.row_runs.empty() && t.row_runs.back().first + t.row_runs.back().second == r) {
          ++t.row_runs.back().second;
        } else {
          t.row_runs.emplace_back(r, 1);
        }
      }
      if (pm.buffers.empty()) return context(Status::Corruption("full-zip page without buffers"));
      const bool stride = fz.details_case() == pb21::FullZipLayout::kBitsPerValue && fz.bits_rep() == 0;
      if (stride) continue;
      if (pm.buffers.size() < 2) {
        return context(Status::Corruption("full-zip page without a repetition index"));
      }
      auto w = encoding::FullZipRepIndexWidth(pm.buffers[1].second, pm.num_rows);
      if (!w.ok()) return context(w.status());
      for (const auto& [first, count] : t.row_runs) {
        head.push_back({static_cast<int64_t>(pm.buffers[1].first) + first * *w, (count + 1) * *w});
      }
    } else {
      for (const auto& buf : pm.buffers) head.push_back(range_of(buf));
    }
    t.head_count = head.size() - t.head_at;
  }
  std::vector<BufferPtr> head_bufs;
  if (!head.empty()) {
    LANCE_ASSIGN_OR_RAISE(head_bufs, (*fetch)(head));
    if (head_bufs.size() != head.size()) return Status::IOError("lance file: short read");
  }
  // Second fetch: the chunks and rows.
  std::vector<io::Range> data;
  for (PageTake& t : takes) {
    const PageMeta& pm = column_pages[t.page];
    auto context = [&](const Status& st) {
      return st.WithContext(fmt::format("column {} page {}", column, t.page));
    };
    t.data_at = data.size();
    if (pm.layout->has_mini_block_layout()) {
      if (!t.index) {
        const auto& mb = pm.layout->mini_block_layout();
        size_t k = t.head_at;
        BufferPtr meta = head_bufs[k++];
        BufferPtr dictionary = mb.has_dictionary() ? head_bufs[k++] : nullptr;
        BufferPtr rep_index = mb.repetition_index_depth() > 0 ? head_bufs[k++] : nullptr;
        auto index = ParseMiniBlockPageIndex(pm, minor, std::move(meta), dictionary, rep_index);
        if (!index.ok()) return context(index.status());
        t.index = *index;
        page_index->Put(column, t.page, t.index);
      }
      auto st = PlanChunkRuns(&t);
      if (!st.ok()) return context(st);
      const auto& chunks = t.index->chunks;
      for (const auto& run : t.chunk_runs) {
        const uint64_t begin = chunks[run.first].offset;
        const uint64_t end = chunks[run.last].offset + chunks[run.last].size;
        data.push_back({static_cast<int64_t>(pm.buffers[1].first + begin),
                        static_cast<int64_t>(end - begin)});
      }
    } else if (pm.layout->has_full_zip_layout()) {
      const auto& fz = pm.layout->full_zip_layout();
      const uint64_t data_size = pm.buffers[0].second;
      for (size_t r = 0; r < t.row_runs.size(); ++r) {
        const auto [first, count] = t.row_runs[r];
        Result<encoding::ByteRange> br =
            t.head_count == 0
                ? encoding::FullZipFixedRowRange(fz, first, count, data_size)
                : encoding::FullZipIndexedRowRange(
                      head_bufs[t.head_at + r]->view(),
                      static_cast<int>(head[t.head_at + r].length / (count + 1)), count,
                      data_size);
        if (!br.ok()) return context(br.status());
        data.push_back({static_cast<int64_t>(pm.buffers[0].first + br->offset),
                        static_cast<int64_t>(br->size)});
      }
    }
    t.data_count = data.size() - t.data_at;
  }
  std::vector<BufferPtr> data_bufs;
  if (!data.empty()) {
    LANCE_ASSIGN_OR_RAISE(data_bufs, (*fetch)(data));
    if (data_bufs.size() != data.size()) return Status::IOError("lance file: short read");
  }
  // Decode: per page, the selected rows' levels and values, then their layers.
  LeafData out;
  out.values = DataBlock::EmptyLike(prototype);
  bool first = true;
  for (const PageTake& t : takes) {
    const PageMeta& pm = column_pages[t.page];
    auto context = [&](const Status& st) {
      return st.WithContext(fmt::format("column {} page {}", column, t.page));
    };
    encoding::PageInput in;
    in.layout = pm.layout.get();
    in.minor_version = minor;
    in.prototype = DataBlock::EmptyLike(prototype);
    encoding::DecodedPage selected;
    const int64_t* rows = t.rows.data();
    const size_t num_rows = t.rows.size();
    auto select = [&](const encoding::DecodedPage& run, int64_t first_row, bool preamble,
                      int64_t expected_starts) -> Status {
      if (selected.layers.empty()) selected.layers = run.layers;
      LANCE_ASSIGN_OR_RAISE(int64_t starts,
                            encoding::AppendSelectedRows(run, first_row, preamble, rows,
                                                         num_rows, &selected, &out.values));
      if (expected_starts >= 0 && starts != expected_starts) {
        return Status::Corruption("{} rows start in the decoded levels, the index says {}",
                                  starts, expected_starts);
      }
      return Status::OK();
    };
    if (pm.layout->has_mini_block_layout()) {
      const MiniBlockPageIndex& index = *t.index;
      const size_t word = pm.layout->mini_block_layout().has_large_chunk() ? 4 : 2;
      for (size_t r = 0; r < t.chunk_runs.size(); ++r) {
        const auto& run = t.chunk_runs[r];
        int64_t items = 0, starts = 0;
        for (size_t c = run.first; c <= run.last; ++c) {
          items += index.chunks[c].num_values;
          starts += index.rows[c].num_starts;
        }
        in.num_rows = starts;
        const std::string_view meta =
            index.meta->view().substr(run.first * word, (run.last - run.first + 1) * word);
        auto decoded = encoding::DecodeMiniBlockRun(
            in, meta, data_bufs[t.data_at + r]->view(), items,
            index.has_dictionary ? &index.dictionary : nullptr);
        if (!decoded.ok()) {
          return context(decoded.status().WithContext(fmt::format("chunk {}", run.first)));
        }
        auto st = select(*decoded, index.rows[run.first].first_row,
                         index.rows[run.first].has_preamble, starts);
        if (!st.ok()) return context(st.WithContext(fmt::format("chunk {}", run.first)));
      }
    } else if (pm.layout->has_full_zip_layout()) {
      for (size_t r = 0; r < t.row_runs.size(); ++r) {
        const auto [first_row, count] = t.row_runs[r];
        in.num_rows = count;
        in.full_zip_row_slice = true;
        in.buffers = {data_bufs[t.data_at + r]->view()};
        auto decoded = encoding::DecodePage(in);
        if (!decoded.ok()) return context(decoded.status());
        auto st = select(*decoded, first_row, false, count);
        if (!st.ok()) return context(st);
      }
    } else {
      in.num_rows = pm.num_rows;
      for (size_t k = 0; k < t.head_count; ++k) in.buffers.push_back(head_bufs[t.head_at + k]->view());
      auto decoded = encoding::DecodePage(in);
      if (!decoded.ok()) return context(decoded.status());
      auto st = select(*decoded, 0, false, -1);
      if (!st.ok()) return context(st);
    }
    auto layers = encoding::UnravelLevels(selected.layers, selected.rep, selected.def,
                                          static_cast<int64_t>(num_rows), selected.num_values);
    if (!layers.ok()) return context(layers.status());
    if (first) {
      out.layers = std::move(*layers);
      first = false;
    } else {
      if (layers->size() != out.layers.size()) {
        return context(Status::Corruption("{} layers, earlier pages have {}", layers->size(),
                                          out.layers.size()));
      }
      for (size_t j = 0; j < layers->size(); ++j) out.layers[j].Append((*layers)[j]);
    }
  }
  if (first) return Status::Corruption("column {}: no rows taken", column);
  return out;
}

Result<LeafData> StructuralReader::ReadLeaf(int column, const DataType& leaf_type,
                                            int64_t expected_rows) const {
  if (selection != nullptr) return TakeLeaf(column, leaf_type);
  LANCE_ASSIGN_OR_RAISE(DataBlock prototype, DataBlockPrototype(leaf_type));
  LeafData out;
  out.values = DataBlock::EmptyLike(prototype);
  bool first = true;
  int64_t rows = 0;
  const auto& column_pages = (*pages)[static_cast<size_t>(column)];
  const size_t fetched_column = static_cast<size_t>(column - first_column);
  if (column < first_column || fetched_column >= fetched->size()) {
    return Status::Corruption("column {} outside the field's columns", column);
  }
  if (column_pages.size() > 1) {
    // Every page decodes into one block: reserve it from the pages' item counts so that
    // appends never reallocate (capped by what the page bytes could expand to; it is only
    // a reservation, the counts are checked while decoding).
    int64_t values = 0, bytes = 0, page_bytes = 0;
    for (size_t p = 0; p < column_pages.size(); ++p) {
      const PageMeta& pm = column_pages[p];
      for (const auto& buf : (*fetched)[fetched_column][p]) page_bytes += buf->size();
      if (pm.layout->has_full_zip_layout()) {
        const auto& fz = pm.layout->full_zip_layout();
        values += static_cast<int64_t>(std::min<uint64_t>(fz.num_visible_items(), 1u << 30));
        // FSST-compressed text expands about 2-3x.
        const int64_t expand = fz.value_compression().has_fsst() ? 3 : 1;
        if (!(*fetched)[fetched_column][p].empty()) {
          bytes += expand * (*fetched)[fetched_column][p][0]->size();
        }
      } else if (pm.layout->has_mini_block_layout()) {
        values += static_cast<int64_t>(
            std::min<uint64_t>(pm.layout->mini_block_layout().num_items(), 1u << 30));
        if ((*fetched)[fetched_column][p].size() > 1) bytes += (*fetched)[fetched_column][p][1]->size();
      } else {
        values += std::min<int64_t>(pm.num_rows, 1 << 30);
      }
    }
    LANCE_RETURN_NOT_OK(out.values.Reserve(values, bytes, 64 * page_bytes + (1 << 20)));
  }
  for (size_t p = 0; p < column_pages.size(); ++p) {
    const PageMeta& pm = column_pages[p];
    encoding::PageInput in;
    in.layout = pm.layout.get();
    in.num_rows = pm.num_rows;
    in.minor_version = minor;
    in.prototype = DataBlock::EmptyLike(prototype);
    in.output = &out.values;
    for (const auto& buf : (*fetched)[fetched_column][p]) {
      in.buffers.emplace_back(reinterpret_cast<const char*>(buf->data()),
                              static_cast<size_t>(buf->size()));
    }
    if (column_pages.size() == 1) in.owners = (*fetched)[fetched_column][p];
    auto page = encoding::DecodePage(in);
    if (!page.ok()) {
      return page.status().WithContext(fmt::format("column {} page {}", column, p));
    }
    auto layers = encoding::UnravelLevels(page->layers, page->rep, page->def, pm.num_rows,
                                          page->num_values);
    if (!layers.ok()) {
      return layers.status().WithContext(fmt::format("column {} page {}", column, p));
    }
    if (first) {
      out.layers = std::move(*layers);
      first = false;
    } else {
      if (layers->size() != out.layers.size()) {
        return Status::Corruption("column {} page {}: {} layers, earlier pages have {}", column,
                                  p, layers->size(), out.layers.size());
      }
      for (size_t j = 0; j < layers->size(); ++j) out.layers[j].Append((*layers)[j]);
    }
    rows += pm.num_rows;
  }
  if (rows != expected_rows) {
    return Status::Corruption("column {}: pages hold {} rows, the file has {}", column, rows,
                              expected_rows);
  }
  if (first) {
    return Status::Corruption("column {} has no pages", column);
  }
  return out;
}

Result<ArrayPtr> StructuralReader::Build(const DataTypePtr& type, int depth, int* column,
                                         int64_t rows, LeafData* first_leaf_out) const {
  const TypeId id = type->id();
  if (id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kLargeList ||
      id == TypeId::kMap) {
    std::vector<ArrayPtr> children;
    LeafData first_leaf;
    bool have_first = false;
    for (const auto& f : type->fields()) {
      LeafData leaf;
      LANCE_ASSIGN_OR_RAISE(ArrayPtr child, Build(f->type(), depth + 1, column, rows, &leaf));
      if (!have_first) {
        first_leaf = std::move(leaf);
        have_first = true;
      }
      children.push_back(std::move(child));
    }
    if (!have_first) return Status::NotSupported("structs without fields");
    if (static_cast<int>(first_leaf.layers.size()) <= depth) {
      return Status::Corruption("leaf under {} has only {} layers", type->ToString(),
                                first_leaf.layers.size());
    }
    const LayerSlots& slots = first_leaf.layers[static_cast<size_t>(depth)];
    const bool want_list = id != TypeId::kStruct;
    if (slots.is_list != want_list) {
      return Status::Corruption("layer {} is {} but the type is {}", depth,
                                slots.is_list ? "a list" : "not a list", type->ToString());
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr valid, encoding::ValidityFromBytes(slots.validity, slots.length));
    ArrayPtr result;
    if (id == TypeId::kStruct) {
      for (const auto& c : children) {
        if (c->length != slots.length) {
          return Status::Corruption("struct {} has {} slots but a child has {}",
                                    type->ToString(), slots.length, c->length);
        }
      }
      result = Array::Make(type, slots.length, {valid}, std::move(children));
    } else {
      if (slots.offsets.back() != children[0]->length) {
        return Status::Corruption("list offsets end at {} but the child has {} values",
                                  slots.offsets.back(), children[0]->length);
      }
      BufferBuilder offsets;
      const bool large = id == TypeId::kLargeList;
      for (int64_t o : slots.offsets) {
        if (large) {
          LANCE_RETURN_NOT_OK(offsets.AppendValue<int64_t>(o));
        } else {
          if (o > INT32_MAX) return Status::Corruption("list offset {} exceeds int32", o);
          LANCE_RETURN_NOT_OK(offsets.AppendValue<int32_t>(static_cast<int32_t>(o)));
        }
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr off, offsets.Finish());
      result = Array::Make(type, slots.length, {valid, off}, std::move(children));
    }
    if (first_leaf_out) *first_leaf_out = std::move(first_leaf);
    return result;
  }
  // A leaf.
  LANCE_ASSIGN_OR_RAISE(LeafData leaf, ReadLeaf(*column, *type, rows));
  ++*column;
  if (static_cast<int>(leaf.layers.size()) != depth + 1) {
    return Status::Corruption("leaf column {} has {} layers at nesting depth {}", *column - 1,
                              leaf.layers.size(), depth);
  }
  const LayerSlots& slots = leaf.layers.back();
  if (slots.length != leaf.values.num_values) {
    return Status::Corruption("leaf column {}: {} slots but {} values", *column - 1,
                              slots.length, leaf.values.num_values);
  }
  ArrayPtr arr;
  if (id == TypeId::kNull) {
    LANCE_ASSIGN_OR_RAISE(arr, MakeArrayOfNulls(type, slots.length));
  } else {
    LANCE_ASSIGN_OR_RAISE(arr, encoding::DataBlockToArray(type, std::move(leaf.values),
                                                          slots.validity));
  }
  if (first_leaf_out) *first_leaf_out = std::move(leaf);
  return arr;
}

}  // namespace lance::file
