#include "lance/table/snapshot.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "lance/core/thread_pool.h"
#include "lance/file/file_reader.h"
#include "lance/table/feature_flags.h"
#include "lance/table/tags.h"
#include "table/field_tree.h"

namespace lance::table {

namespace {

std::string Join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

}  // namespace

Result<std::shared_ptr<Snapshot>> Snapshot::Open(const std::string& uri, OpenOptions options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return Open(location, std::move(options));
}

Result<std::shared_ptr<Snapshot>> Snapshot::Open(std::shared_ptr<io::ObjectStore> store,
                                               std::string root, OpenOptions options) {
  return Open(TableLocation(std::move(store), std::move(root)), std::move(options));
}

Result<std::shared_ptr<Snapshot>> Snapshot::Open(const TableLocation& location, OpenOptions options) {
  if (options.version && options.tag) {
    return Status::InvalidArgument("open {}: give a version or a tag, not both", location.display());
  }
  OpenStats stats;
  std::optional<uint64_t> want = options.version;
  if (options.tag) {
    auto v = ResolveTag(location, *options.tag, &stats);
    if (!v.ok()) {
      return Status(v.status().code(), fmt::format("open {}: {}", location.display(), v.status().message()));
    }
    want = *v;
  }
  CommittedVersion version;
  if (want) {
    LANCE_ASSIGN_OR_RAISE(version, LoadVersion(location, *want, &stats));
  } else {
    LANCE_ASSIGN_OR_RAISE(std::optional<CommittedVersion> latest, LoadLatestVersion(location, &stats));
    if (!latest) {
      return Status::NotFound("{}: not a Lance dataset (no manifest in {}/_versions)",
                              location.display(), location.display());
    }
    version = std::move(*latest);
  }
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<Snapshot> ds, Open(location, std::move(version)));
  ds->stats_ = stats;
  return ds;
}

Result<std::shared_ptr<Snapshot>> Snapshot::Open(const TableLocation& location, CommittedVersion version) {
  std::shared_ptr<Snapshot> ds(new Snapshot());
  ds->readers_ = std::make_shared<ReaderCache>();
  ds->location_ = location;
  ds->manifest_path_ = std::move(version.path);
  ds->manifest_ = std::move(version.manifest);
  LANCE_RETURN_NOT_OK(CheckCanRead(ds->manifest_.reader_feature_flags,
                                   ds->manifest_.writer_feature_flags, ds->manifest_path_));
  for (const auto& f : ds->manifest_.fragments) {
    if (f.num_overlays() > 0) {
      return Status::NotSupported("{}: fragment {} has {} data overlay files, which lance-cpp "
                                  "cannot apply yet",
                                  ds->manifest_path_, f.id, f.num_overlays());
    }
  }
  return ds;
}

Result<std::vector<VersionInfo>> Snapshot::ListVersions() const { return table::ListVersions(location_); }

Result<std::pair<std::shared_ptr<io::ObjectStore>, std::string>> Snapshot::ResolveFile(
    std::optional<uint32_t> base_id, const std::string& dir, const std::string& name) const {
  if (!base_id) return std::make_pair(location_.store(), Join(Join(location_.root(), dir), name));
  for (const auto& b : manifest_.base_paths) {
    if (b.id != *base_id) continue;
    LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(b.path));
    const std::string p = b.is_dataset_root ? Join(Join(sp.path, dir), name) : Join(sp.path, name);
    return std::make_pair(sp.store, p);
  }
  return Status::Corruption("{}: base_id {} is not among the manifest's base paths",
                            manifest_path_, *base_id);
}

struct Snapshot::ReaderCache {
  std::mutex mu;
  // By (fragment index, file index, point reads).
  std::map<std::tuple<size_t, size_t, bool>, std::shared_ptr<const file::FileReader>> readers;
};

Result<std::shared_ptr<const file::FileReader>> Snapshot::DataFileReader(size_t index, size_t file,
                                                                        bool point_reads) const {
  const auto key = std::make_tuple(index, file, point_reads);
  {
    std::lock_guard<std::mutex> lock(readers_->mu);
    auto it = readers_->readers.find(key);
    if (it != readers_->readers.end()) return it->second;
  }
  // Opened outside the lock (I/O); two threads racing on one file keep the first reader.
  if (index >= manifest_.fragments.size() || file >= manifest_.fragments[index].files.size()) {
    return Status::InvalidArgument("{}: no data file {} of fragment {} ({} fragments)",
                                   manifest_path_, file, index, manifest_.fragments.size());
  }
  const FragmentInfo& frag = manifest_.fragments[index];
  const DataFileInfo& df = frag.files[file];
  LANCE_ASSIGN_OR_RAISE(auto loc, ResolveFile(df.base_id, "data", df.path));
  // Local files are memory-mapped by Get() (and memory objects are already in memory): the
  // reader then slices pages out of the mapping instead of a pread and a copy per range
  // (a 1000-row take issues thousands). Other stores read only the ranges a read needs.
  auto open = [&]() -> Result<std::unique_ptr<file::FileReader>> {
    const std::string_view scheme = loc.first->scheme();
    if ((scheme != "file" && scheme != "memory") || (point_reads && scheme == "file")) {
      return file::FileReader::Open(loc.first, loc.second);
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, loc.first->Get(loc.second));
    return file::FileReader::Open(std::move(bytes));
  };
  auto opened = open();
  if (!opened.ok()) {
    return Status(opened.status().code(), fmt::format("fragment {}: {}: {}", frag.id, loc.second,
                                                      opened.status().message()));
  }
  std::shared_ptr<const file::FileReader> reader(std::move(*opened));
  // Every cheap invariant the manifest gives, before a row is trusted: another fragment's file
  // of the same row count would otherwise read as this fragment's rows.
  if (static_cast<uint64_t>(reader->num_rows()) != frag.physical_rows) {
    return Status::Corruption("fragment {}: data file {} has {} rows, the manifest says {}",
                              frag.id, df.path, reader->num_rows(), frag.physical_rows);
  }
  if (df.size_bytes != 0 && static_cast<uint64_t>(reader->size_bytes()) != df.size_bytes) {
    return Status::Corruption("fragment {}: data file {} is {} bytes, the manifest says {}",
                              frag.id, df.path, reader->size_bytes(), df.size_bytes);
  }
  for (int32_t c : df.column_indices) {
    if (c >= reader->num_columns()) {
      return Status::Corruption("fragment {}: the manifest reads column {} of data file {}, which "
                                "has {} columns", frag.id, c, df.path, reader->num_columns());
    }
  }
  std::lock_guard<std::mutex> lock(readers_->mu);
  return readers_->readers.emplace(key, std::move(reader)).first->second;
}

Result<std::vector<uint32_t>> Snapshot::DeletedRows(size_t index) const {
  if (index >= manifest_.fragments.size()) {
    return Status::InvalidArgument("{}: no fragment at index {}", manifest_path_, index);
  }
  const FragmentInfo& frag = manifest_.fragments[index];
  if (!frag.deletion) return std::vector<uint32_t>{};
  const std::string name = frag.deletion->FileName(frag.id);
  LANCE_ASSIGN_OR_RAISE(auto loc, ResolveFile(frag.deletion->base_id, "_deletions", name));
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, loc.first->Get(loc.second));
  LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> rows,
                        DecodeDeletionFile(bytes, frag.deletion->type, loc.second));
  if (!rows.empty() && rows.back() >= frag.physical_rows) {
    return Status::Corruption("{}: deleted row offset {} but fragment {} has {} rows", loc.second,
                              rows.back(), frag.id, frag.physical_rows);
  }
  return rows;
}

Result<std::vector<uint64_t>> Snapshot::RowIds(size_t index) const {
  if (index >= manifest_.fragments.size()) {
    return Status::InvalidArgument("{}: no fragment at index {}", manifest_path_, index);
  }
  const FragmentInfo& frag = manifest_.fragments[index];
  if (!(manifest_.reader_feature_flags & kFlagStableRowIds)) {
    std::vector<uint64_t> ids(frag.physical_rows);
    for (uint64_t i = 0; i < frag.physical_rows; ++i) ids[i] = (frag.id << 32) | i;
    return ids;
  }
  if (frag.has_external_row_ids()) {
    return Status::NotSupported("{}: fragment {} stores its row ids in an external file",
                                manifest_path_, frag.id);
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ids, DecodeRowIdSequence(frag.inline_row_ids));
  if (ids.size() != frag.physical_rows) {
    return Status::Corruption("{}: fragment {} has {} row ids for {} rows", manifest_path_, frag.id,
                              ids.size(), frag.physical_rows);
  }
  return ids;
}

Result<SchemaPtr> Snapshot::ProjectedSchema(const ScanOptions& options) const {
  std::vector<FieldPtr> fields;
  if (options.columns.empty()) {
    fields = manifest_.schema->fields();
  } else {
    for (const auto& name : options.columns) {
      FieldPtr f = manifest_.schema->GetFieldByName(name);
      if (!f) {
        return Status::InvalidArgument("{}: no column named '{}' in the dataset", location_.display(), name);
      }
      fields.push_back(f);
    }
  }
  if (options.with_row_id) fields.push_back(field("_rowid", uint64(), true));
  if (options.with_row_addr) fields.push_back(field("_rowaddr", uint64(), true));
  return ::lance::schema(std::move(fields), manifest_.schema->metadata());
}

Result<RecordBatchPtr> Snapshot::ReadFragment(size_t index, const std::vector<int64_t>* rows,
                                             const ScanOptions& options,
                                             const SchemaPtr& out_schema, int64_t range_start,
                                             int64_t range_length,
                                             bool keep_dictionaries) const {
  const FragmentInfo& frag = manifest_.fragments[index];
  const bool ranged = !rows && range_length >= 0;
  if (ranged && (range_start < 0 ||
                 static_cast<uint64_t>(range_start + range_length) > frag.physical_rows)) {
    return Status::InvalidArgument("fragment {}: rows [{}, {}) are out of range ({} rows)", frag.id,
                                   range_start, range_start + range_length, frag.physical_rows);
  }
  const int64_t n = rows ? static_cast<int64_t>(rows->size())
                    : ranged ? range_length
                             : static_cast<int64_t>(frag.physical_rows);
  const int num_data = out_schema->num_fields() - (options.with_row_id ? 1 : 0) -
                       (options.with_row_addr ? 1 : 0);

  const internal::FieldTree tree(manifest_.fields);

  // Where each column lives: (data file, top-level field of that file), or no file (null).
  struct Source {
    int file = -1;
    int field = -1;
  };
  std::vector<Source> sources(static_cast<size_t>(num_data));
  for (int c = 0; c < num_data; ++c) {
    const FieldPtr& tf = out_schema->field(c);
    const int holding = tree.FileHolding(frag, tf->id());
    if (holding < 0) continue;
    const auto file_index = static_cast<size_t>(holding);
    LANCE_ASSIGN_OR_RAISE(auto reader, DataFileReader(index, file_index));
    int file_field = -1;
    const auto& fs = reader->schema()->fields();
    for (size_t k = 0; k < fs.size(); ++k) {
      if (fs[k]->id() == tf->id()) file_field = static_cast<int>(k);
    }
    if (file_field < 0) {
      return Status::Corruption("fragment {}: data file {} lists field {} ('{}') but its schema "
                                "has no top-level field with that id",
                                frag.id, frag.files[file_index].path, tf->id(), tf->name());
    }
    sources[static_cast<size_t>(c)] = {static_cast<int>(file_index), file_field};
  }
  // Columns decode independently: one task per column on the pool (safe to nest in a
  // chunked filter's tasks).
  std::vector<ArrayPtr> columns(static_cast<size_t>(num_data));
  std::vector<Status> errors(static_cast<size_t>(num_data));
  auto read_column = [&](int c) -> Status {
    const FieldPtr& tf = out_schema->field(c);
    const Source& src = sources[static_cast<size_t>(c)];
    ArrayPtr column;
    if (src.file >= 0) {
      LANCE_ASSIGN_OR_RAISE(auto reader, DataFileReader(index, static_cast<size_t>(src.file)));
      RecordBatchPtr batch;
      file::ReadOptions read_options;
      read_options.keep_dictionaries = keep_dictionaries;
      if (rows) {
        LANCE_ASSIGN_OR_RAISE(batch, reader->Take(*rows, {src.field}, read_options));
      } else if (ranged) {
        LANCE_ASSIGN_OR_RAISE(batch,
                              reader->ReadRange(range_start, range_length, {src.field}, read_options));
      } else {
        LANCE_ASSIGN_OR_RAISE(batch, reader->ReadAll({src.field}));
      }
      column = batch->column(0);
    } else {
      // A field no data file of this fragment holds (e.g. added later): all null.
      LANCE_ASSIGN_OR_RAISE(column, MakeArrayOfNulls(tf->type(), n));
    }
    const bool kept_dictionary = keep_dictionaries && column->type_id() == TypeId::kDictionary &&
                                 tf->type()->id() != TypeId::kDictionary &&
                                 column->type->dictionary_value_type()->Equals(*tf->type());
    if (!kept_dictionary && !column->type->Equals(*tf->type())) {
      return Status::NotSupported("fragment {}: column '{}' is stored as {} but the dataset "
                                  "schema says {}",
                                  frag.id, tf->name(), column->type->ToString(),
                                  tf->type()->ToString());
    }
    columns[static_cast<size_t>(c)] = std::move(column);
    return Status::OK();
  };
  if (num_data == 1) {
    LANCE_RETURN_NOT_OK(read_column(0));
  } else {
    ParallelFor(ThreadPool::Default(), num_data,
                [&](int64_t c) { errors[static_cast<size_t>(c)] = read_column(static_cast<int>(c)); });
    for (const Status& st : errors) LANCE_RETURN_NOT_OK(st);
  }
  if (options.with_row_id || options.with_row_addr) {
    // Written straight into the Arrow buffers (no zero-filled staging vector and copy: for a
    // whole-fragment scan these are 8 bytes per row, the size of an int64 column).
    auto make_u64 = [&](auto&& value_of) -> Result<ArrayPtr> {
      LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * static_cast<int64_t>(sizeof(uint64_t))));
      auto* out = reinterpret_cast<uint64_t*>(std::const_pointer_cast<Buffer>(buf)->mutable_data());
      for (int64_t i = 0; i < n; ++i) out[i] = value_of(i);
      return Array::Make(uint64(), n, {nullptr, buf});
    };
    auto offset_of = [&](int64_t i) -> uint64_t {
      return rows ? static_cast<uint64_t>((*rows)[static_cast<size_t>(i)])
                  : static_cast<uint64_t>(range_start + i);
    };
    const uint64_t high = frag.id << 32;
    const bool stable = (manifest_.reader_feature_flags & kFlagStableRowIds) != 0;
    // Without stable row ids a row's id is its address: one array serves both columns.
    ArrayPtr addrs;
    if (options.with_row_addr || !stable) {
      LANCE_ASSIGN_OR_RAISE(addrs, make_u64([&](int64_t i) { return high | offset_of(i); }));
    }
    if (options.with_row_id) {
      if (stable) {
        LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> all, RowIds(index));
        LANCE_ASSIGN_OR_RAISE(ArrayPtr a, make_u64([&](int64_t i) { return all[offset_of(i)]; }));
        columns.push_back(std::move(a));
      } else {
        columns.push_back(addrs);
      }
    }
    if (options.with_row_addr) columns.push_back(addrs);
  }
  if (keep_dictionaries) {
    // Columns read as dictionary arrays: the schema says so.
    std::vector<FieldPtr> fields = out_schema->fields();
    bool changed = false;
    for (int c = 0; c < num_data; ++c) {
      const auto& type = columns[static_cast<size_t>(c)]->type;
      if (!type->Equals(*fields[static_cast<size_t>(c)]->type())) {
        fields[static_cast<size_t>(c)] = fields[static_cast<size_t>(c)]->WithType(type);
        changed = true;
      }
    }
    if (changed) {
      return RecordBatch::Make(::lance::schema(std::move(fields), out_schema->metadata()), n,
                               std::move(columns));
    }
  }
  return RecordBatch::Make(out_schema, n, std::move(columns));
}

Result<std::vector<RecordBatchPtr>> Snapshot::Scan(const ScanOptions& options) const {
  if (options.offset < 0) return Status::InvalidArgument("scan: negative offset {}", options.offset);
  if (options.limit && *options.limit < 0) {
    return Status::InvalidArgument("scan: negative limit {}", *options.limit);
  }
  if (options.batch_size < 0) {
    return Status::InvalidArgument("scan: negative batch size {}", options.batch_size);
  }
  LANCE_ASSIGN_OR_RAISE(SchemaPtr out_schema, ProjectedSchema(options));
  std::vector<RecordBatchPtr> out;
  std::set<uint64_t> selected;
  if (options.fragment_ids) selected.insert(options.fragment_ids->begin(), options.fragment_ids->end());
  auto skipped = [&](const FragmentInfo& frag) {
    return options.fragment_ids && selected.count(frag.id) == 0;
  };
  auto emit = [&](RecordBatchPtr b) {
    const int64_t n = b->num_rows();
    if (options.batch_size == 0 || n <= options.batch_size) {
      out.push_back(std::move(b));
      return;
    }
    for (int64_t start = 0; start < n; start += options.batch_size) {
      out.push_back(b->Slice(start, std::min(options.batch_size, n - start)));
    }
  };
  uint64_t skip = static_cast<uint64_t>(options.offset);
  uint64_t remaining = options.limit ? static_cast<uint64_t>(*options.limit)
                                     : std::numeric_limits<uint64_t>::max();
  for (size_t i = 0; i < manifest_.fragments.size() && remaining > 0; ++i) {
    const FragmentInfo& frag = manifest_.fragments[i];
    if (skipped(frag)) continue;
    const uint64_t live = frag.num_rows();
    if (skip >= live) {
      skip -= live;
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> deleted, DeletedRows(i));
    if (deleted.size() != frag.physical_rows - live) {
      return Status::Corruption("fragment {}: deletion file lists {} rows, the manifest says {}",
                                frag.id, deleted.size(), frag.physical_rows - live);
    }
    if (deleted.empty() && skip == 0 && remaining >= live) {
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, ReadFragment(i, nullptr, options, out_schema));
      emit(std::move(b));
      remaining -= live;
      continue;
    }
    std::vector<int64_t> rows;
    size_t d = 0;
    for (uint64_t r = 0; r < frag.physical_rows && remaining > 0; ++r) {
      if (d < deleted.size() && deleted[d] == r) {
        ++d;
        continue;
      }
      if (skip > 0) {
        --skip;
        continue;
      }
      rows.push_back(static_cast<int64_t>(r));
      --remaining;
    }
    if (rows.empty()) continue;
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, ReadFragment(i, &rows, options, out_schema));
    emit(std::move(b));
  }
  return out;
}

}  // namespace lance::table
