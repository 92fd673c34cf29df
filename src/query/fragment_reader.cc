#include "lance/query/fragment_reader.h"

#include <algorithm>

#include "lance/columnar/compute.h"
#include "lance/core/thread_pool.h"
#include "lance/file/file_reader.h"
#include "lance/table/feature_flags.h"
#include "lance/table/field_tree.h"

namespace lance::query {

namespace {

// Whether a row list is ascending and holds at least an eighth of the rows of its span.
bool DenseAscending(const std::vector<int64_t>& rows) {
  if (rows.size() < 64) return false;
  const int64_t span = rows.back() - rows.front() + 1;
  if (span <= 0 || static_cast<int64_t>(rows.size()) * 8 < span) return false;
  return std::adjacent_find(rows.begin(), rows.end(), std::greater_equal<int64_t>()) == rows.end();
}

}  // namespace

bool IsSystemColumn(const std::string& name) {
  return name == kRowIdColumn || name == kRowAddrColumn;
}

Result<std::shared_ptr<const FragmentReader>> FragmentReader::Open(
    std::shared_ptr<const table::Snapshot> snapshot, size_t index, ThreadPool* pool) {
  const auto& fragments = snapshot->manifest().fragments;
  if (index >= fragments.size()) {
    return Status::InvalidArgument("fragment index {} of {} fragments", index, fragments.size());
  }
  std::shared_ptr<FragmentReader> r(new FragmentReader());
  r->snapshot_ = std::move(snapshot);
  r->index_ = index;
  r->pool_ = pool;
  const table::FragmentInfo& frag = fragments[index];
  if (frag.deletion) {
    LANCE_ASSIGN_OR_RAISE(r->deleted_, r->snapshot_->DeletedRows(index));
    if (r->deleted_.size() != frag.physical_rows - frag.num_rows()) {
      return Status::Corruption("fragment {}: deletion file lists {} rows, the manifest says {}",
                                frag.id, r->deleted_.size(), frag.physical_rows - frag.num_rows());
    }
  }
  r->stable_ = (r->snapshot_->manifest().reader_feature_flags & table::kFlagStableRowIds) != 0;
  return std::shared_ptr<const FragmentReader>(std::move(r));
}

void FragmentReader::OpenDataFiles() const {
  for (size_t f = 0; f < fragment().files.size(); ++f) (void)snapshot_->DataFileReader(index_, f);
}

FragmentReader::~FragmentReader() {
  if (release_pages_ && snapshot_) snapshot_->ReleaseMappedPages(index_);
}

Result<const std::vector<uint64_t>*> FragmentReader::RowIds() const {
  std::call_once(row_ids_once_, [&] {
    if (!stable_) return;
    auto ids = snapshot_->RowIds(index_);
    if (ids.ok()) {
      row_ids_ = std::move(*ids);
    } else {
      row_ids_status_ = ids.status();
    }
  });
  LANCE_RETURN_NOT_OK(row_ids_status_);
  return &row_ids_;
}

const table::FragmentInfo& FragmentReader::fragment() const {
  return snapshot_->manifest().fragments[index_];
}

int64_t FragmentReader::DeletedIn(int64_t start, int64_t length) const {
  const auto lo = std::lower_bound(deleted_.begin(), deleted_.end(), static_cast<uint32_t>(start));
  const auto hi = std::lower_bound(lo, deleted_.end(), static_cast<uint32_t>(start + length));
  return hi - lo;
}

RowSelection FragmentReader::LiveRows(int64_t start, int64_t length) const {
  auto d = std::lower_bound(deleted_.begin(), deleted_.end(), static_cast<uint32_t>(start));
  const auto d_end = std::lower_bound(d, deleted_.end(), static_cast<uint32_t>(start + length));
  if (d == d_end) return RowSelection::Range(start, length);
  std::vector<int64_t> rows;
  rows.reserve(static_cast<size_t>(length - (d_end - d)));
  for (int64_t r = start; r < start + length; ++r) {
    if (d != d_end && static_cast<int64_t>(*d) == r) {
      ++d;
      continue;
    }
    rows.push_back(r);
  }
  return RowSelection::List(std::move(rows));
}

int64_t FragmentReader::NthLiveRow(int64_t n) const {
  // The deleted rows at or before the answer are those with at most n live rows before them:
  // deleted[j] - j live rows precede deleted row j.
  int64_t lo = 0, hi = static_cast<int64_t>(deleted_.size());
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (static_cast<int64_t>(deleted_[static_cast<size_t>(mid)]) - mid <= n) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return n + lo;
}

Result<FragmentReader::Source> FragmentReader::SourceOf(const Field& field) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, src] : sources_) {
      if (id == field.id()) return src;
    }
  }
  const table::FragmentInfo& frag = fragment();
  const table::FieldTree tree(snapshot_->manifest().fields);
  Source src;
  const int holding = tree.FileHolding(frag, field.id());
  if (holding >= 0) {
    LANCE_ASSIGN_OR_RAISE(auto reader,
                          snapshot_->DataFileReader(index_, static_cast<size_t>(holding)));
    const auto& fs = reader->schema()->fields();
    for (size_t k = 0; k < fs.size(); ++k) {
      if (fs[k]->id() == field.id()) src.field = static_cast<int>(k);
    }
    if (src.field < 0) {
      return Status::Corruption("fragment {}: data file {} lists field {} ('{}') but its schema "
                                "has no top-level field with that id",
                                frag.id, frag.files[static_cast<size_t>(holding)].path,
                                field.id(), field.name());
    }
    src.file = holding;
  }
  std::lock_guard<std::mutex> lock(mu_);
  sources_.emplace_back(field.id(), src);
  return src;
}

Result<ArrayPtr> FragmentReader::ReadColumn(const Field& wanted, const RowSelection& rows,
                                            const FragmentReadOptions& options) const {
  const table::FragmentInfo& frag = fragment();
  FieldPtr field = snapshot_->schema()->GetFieldByName(wanted.name());
  if (!field || field->id() != wanted.id()) {
    return Status::InvalidArgument("fragment {}: no column '{}' in the dataset", frag.id,
                                   wanted.name());
  }
  LANCE_ASSIGN_OR_RAISE(Source src, SourceOf(*field));
  ArrayPtr column;
  if (src.file < 0) {
    // A field no data file of this fragment holds (e.g. added later): all null.
    LANCE_ASSIGN_OR_RAISE(column, MakeArrayOfNulls(field->type(), rows.size()));
    return column;
  }
  LANCE_ASSIGN_OR_RAISE(auto reader, snapshot_->DataFileReader(index_, static_cast<size_t>(src.file)));
  file::ReadOptions read_options;
  read_options.keep_dictionaries = options.keep_dictionaries;
  RecordBatchPtr batch;
  if (rows.is_range()) {
    LANCE_ASSIGN_OR_RAISE(batch, reader->ReadRange(rows.start(), rows.size(), {src.field}, read_options));
  } else if (const auto& list = rows.list(); !options.keep_dictionaries && DenseAscending(list)) {
    // Rows this dense decode every page they touch anyway: one ranged read of the span and
    // a gather beat a take that locates each row (a 10 % range through an index, a filter
    // keeping a tenth of the rows).
    LANCE_ASSIGN_OR_RAISE(auto span, reader->ReadRange(list.front(), list.back() - list.front() + 1,
                                                       {src.field}, read_options));
    std::vector<int64_t> at(list.size());
    for (size_t i = 0; i < list.size(); ++i) at[i] = list[i] - list.front();
    LANCE_ASSIGN_OR_RAISE(column, TakeArray(span->column(0), at));
  } else {
    LANCE_ASSIGN_OR_RAISE(batch, reader->Take(rows.list(), {src.field}, read_options));
  }
  if (!column) column = batch->column(0);
  const bool kept_dictionary = options.keep_dictionaries &&
                               column->type_id() == TypeId::kDictionary &&
                               field->type()->id() != TypeId::kDictionary &&
                               column->type->dictionary_value_type()->Equals(*field->type());
  if (!kept_dictionary && !column->type->Equals(*field->type())) {
    return Status::NotSupported("fragment {}: column '{}' is stored as {} but the dataset schema "
                                "says {}",
                                frag.id, field->name(), column->type->ToString(),
                                field->type()->ToString());
  }
  return column;
}

Result<ArrayPtr> FragmentReader::SystemColumn(bool row_id, const RowSelection& rows) const {
  // Written straight into the Arrow buffer: 8 bytes per row, as much as an int64 column.
  const int64_t n = rows.size();
  LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * static_cast<int64_t>(sizeof(uint64_t))));
  auto* out = reinterpret_cast<uint64_t*>(std::const_pointer_cast<Buffer>(buf)->mutable_data());
  const uint64_t high = id() << 32;
  const int64_t physical = physical_rows();
  auto check = [&](int64_t r) -> Status {
    if (r < 0 || r >= physical) {
      return Status::InvalidArgument("fragment {}: row {} outside its {} rows", id(), r, physical);
    }
    return Status::OK();
  };
  if (rows.is_range() && n > 0) {
    LANCE_RETURN_NOT_OK(check(rows.start()));
    LANCE_RETURN_NOT_OK(check(rows.start() + n - 1));
  }
  if (row_id) {
    LANCE_ASSIGN_OR_RAISE(const std::vector<uint64_t>* ids, RowIds());
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = rows[i];
      if (!rows.is_range()) LANCE_RETURN_NOT_OK(check(r));
      out[i] = (*ids)[static_cast<size_t>(r)];
    }
  } else if (rows.is_range()) {
    // (checked above; a plain loop the compiler vectorizes)
    const uint64_t first = high | static_cast<uint64_t>(rows.start());
    for (int64_t i = 0; i < n; ++i) out[i] = first + static_cast<uint64_t>(i);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = rows[i];
      LANCE_RETURN_NOT_OK(check(r));
      out[i] = high | static_cast<uint64_t>(r);
    }
  }
  return Array::Make(uint64(), n, {nullptr, buf});
}

Result<RecordBatchPtr> FragmentReader::Read(const SchemaPtr& columns, const RowSelection& rows,
                                            const FragmentReadOptions& options) const {
  const int n = columns->num_fields();
  std::vector<ArrayPtr> out(static_cast<size_t>(n));
  std::vector<Status> errors(static_cast<size_t>(n));
  std::vector<int> data;  // data columns, decoded in parallel
  // Without stable row ids a row's id is its address: one array serves both columns.
  ArrayPtr addresses, ids;
  for (int c = 0; c < n; ++c) {
    const std::string& name = columns->field(c)->name();
    if (!IsSystemColumn(name)) {
      data.push_back(c);
      continue;
    }
    const bool stable_id = name == kRowIdColumn && stable_;
    ArrayPtr& system = stable_id ? ids : addresses;
    if (!system) {
      LANCE_ASSIGN_OR_RAISE(system, SystemColumn(stable_id, rows));
    }
    out[static_cast<size_t>(c)] = system;
  }
  auto read = [&](int64_t k) {
    const int c = data[static_cast<size_t>(k)];
    auto col = ReadColumn(*columns->field(c), rows, options);
    if (col.ok()) {
      out[static_cast<size_t>(c)] = std::move(*col);
    } else {
      errors[static_cast<size_t>(c)] = col.status();
    }
  };
  // Columns decode independently: one task per column (safe to nest in a scan's tasks).
  if (data.size() == 1) {
    read(0);
  } else if (!data.empty()) {
    ParallelFor(pool_, static_cast<int64_t>(data.size()), read);
  }
  for (const Status& st : errors) LANCE_RETURN_NOT_OK(st);
  SchemaPtr schema = columns;
  if (options.keep_dictionaries) {
    // Columns read as dictionary arrays: the schema says so.
    std::vector<FieldPtr> fields = columns->fields();
    bool changed = false;
    for (int c : data) {
      const auto& type = out[static_cast<size_t>(c)]->type;
      if (!type->Equals(*fields[static_cast<size_t>(c)]->type())) {
        fields[static_cast<size_t>(c)] = fields[static_cast<size_t>(c)]->WithType(type);
        changed = true;
      }
    }
    if (changed) schema = ::lance::schema(std::move(fields), columns->metadata());
  }
  return std::make_shared<RecordBatch>(std::move(schema), rows.size(), std::move(out));
}

}  // namespace lance::query
