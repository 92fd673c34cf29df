// Gathering rows and writing new data files for the row-rewriting operations (row_rewrite.h).
#include "table/row_rewrite.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lance/core/thread_pool.h"
#include "lance/file/file_reader.h"
#include "lance/file/file_writer.h"
#include "lance/file/lance_schema.h"
#include "lance/table/feature_flags.h"
#include "table/field_tree.h"
#include "lance/columnar/compute.h"
#include "table/proto/rowids.pb.h"

namespace lance::table::internal {

namespace {

std::string NewDataFileName() {
  return fmt::format("{:016x}{:016x}.lance", RandomU64(), RandomU64());
}

Result<file::FileVersion> FileVersionOf(const ::lance::table::pb::Manifest& m) {
  const std::string& v = m.data_format().version();
  if (v == "2.1") return file::FileVersion{2, 1};
  if (v == "2.2") return file::FileVersion{2, 2};
  return Status::NotSupported("the dataset stores data files of version '{}'; lance-cpp writes "
                              "2.1 and 2.2 data files only",
                              v);
}

// Lance ids of the fields that own a column in a 2.1+ file: the leaves of the flattened
// schema (a field without child fields), in pre-order.
Result<std::vector<int32_t>> LeafIds(const Schema& schema) {
  LANCE_ASSIGN_OR_RAISE(std::vector<file::LanceField> fields, file::LanceFieldsFromSchema(schema));
  std::vector<int32_t> leaves;
  for (const auto& f : fields) {
    const bool parent = std::any_of(fields.begin(), fields.end(), [&](const file::LanceField& c) {
      return c.parent_id == f.id;
    });
    if (!parent) leaves.push_back(f.id);
  }
  return leaves;
}

}  // namespace

Result<std::vector<int>> MatchColumnsByName(const Schema& dataset, const Schema& input,
                                            const std::string& what) {
  std::vector<int> out;
  std::vector<std::string> missing, extra;
  for (const auto& f : dataset.fields()) {
    const int c = input.GetFieldIndex(f->name());
    if (c < 0) missing.push_back(fmt::format("'{}' ({})", f->name(), f->type()->ToString()));
    out.push_back(c);
  }
  for (const auto& f : input.fields()) {
    if (dataset.GetFieldIndex(f->name()) < 0) {
      extra.push_back(fmt::format("'{}' ({})", f->name(), f->type()->ToString()));
    }
  }
  if (!missing.empty() || !extra.empty()) {
    std::string msg = fmt::format("{}: the input's columns do not match the dataset's", what);
    if (!missing.empty()) msg += fmt::format("; missing {}", fmt::join(missing, ", "));
    if (!extra.empty()) msg += fmt::format("; not in the dataset {}", fmt::join(extra, ", "));
    return Status::InvalidArgument("{}", msg);
  }
  for (int i = 0; i < dataset.num_fields(); ++i) {
    const auto& f = dataset.field(i);
    const auto& in = input.field(out[static_cast<size_t>(i)]);
    if (!SameStorageType(*in->type(), *f->type())) {
      return Status::InvalidArgument("{}: input column '{}' is {} but the dataset has {}", what,
                                     f->name(), in->type()->ToString(), f->type()->ToString());
    }
  }
  return out;
}

Status CheckWritableStorage(const ::lance::table::pb::Manifest& m) {
  return FileVersionOf(m).status();
}

Result<StoredVersion> LatestWritable(const TableLocation& loc, const std::string& uri) {
  LANCE_ASSIGN_OR_RAISE(auto latest, LoadLatest(loc));
  if (!latest) return Status::NotFound("{}: no dataset (no version in _versions/)", uri);
  LANCE_RETURN_NOT_OK(CheckCanWrite(latest->manifest.reader_feature_flags(),
                                    latest->manifest.writer_feature_flags(), latest->path));
  return std::move(*latest);
}

Result<std::shared_ptr<Snapshot>> OpenForRewrite(const TableLocation& loc, const StoredVersion& sv) {
  LANCE_RETURN_NOT_OK(CheckWritableStorage(sv.manifest));
  OpenOptions o;
  o.version = sv.version;
  return Snapshot::Open(loc.store, loc.root, o);
}

Result<std::vector<::lance::table::pb::DataFragment>> WriteFragments(
    const TableLocation& loc, const ::lance::table::pb::Manifest& m, const SchemaPtr& schema,
    const std::vector<RecordBatchPtr>& batches, int64_t max_rows_per_file) {
  if (max_rows_per_file <= 0) {
    return Status::InvalidArgument("rows per fragment must be positive, got {}", max_rows_per_file);
  }
  LANCE_ASSIGN_OR_RAISE(file::FileVersion fv, FileVersionOf(m));
  LANCE_ASSIGN_OR_RAISE(std::vector<int32_t> leaves, LeafIds(*schema));
  file::WriteOptions wo;
  wo.version = fv;
  return WriteFragmentFiles(loc, wo, schema, leaves, batches, max_rows_per_file);
}

Result<std::vector<::lance::table::pb::DataFragment>> WriteFragmentFiles(
    const TableLocation& loc, const file::WriteOptions& wo, const SchemaPtr& schema,
    const std::vector<int32_t>& leaves, const std::vector<RecordBatchPtr>& batches,
    int64_t max_rows_per_file) {
  if (max_rows_per_file <= 0) {
    return Status::InvalidArgument("rows per fragment must be positive, got {}", max_rows_per_file);
  }
  const file::FileVersion fv = wo.version;
  std::vector<::lance::table::pb::DataFragment> out;
  std::unique_ptr<file::FileWriter> writer;
  std::string name;
  int64_t in_file = 0;
  auto finish = [&]() -> Status {
    LANCE_ASSIGN_OR_RAISE(file::WriteSummary s, writer->Finish());
    writer.reset();
    if (s.num_columns != static_cast<int>(leaves.size())) {
      return Status::Internal("data file {} has {} columns but the schema has {} leaf fields", name,
                              s.num_columns, leaves.size());
    }
    ::lance::table::pb::DataFragment frag;
    auto* df = frag.add_files();
    df->set_path(name);
    for (size_t i = 0; i < leaves.size(); ++i) {
      df->add_fields(leaves[i]);
      df->add_column_indices(static_cast<int32_t>(i));
    }
    df->set_file_major_version(static_cast<uint32_t>(fv.major));
    df->set_file_minor_version(static_cast<uint32_t>(fv.minor));
    df->set_file_size_bytes(static_cast<uint64_t>(s.size_bytes));
    frag.set_physical_rows(static_cast<uint64_t>(s.num_rows));
    out.push_back(std::move(frag));
    in_file = 0;
    return Status::OK();
  };
  for (const auto& batch : batches) {
    if (batch->num_columns() != schema->num_fields()) {
      return Status::InvalidArgument("a batch has {} columns, the schema {}", batch->num_columns(),
                                     schema->num_fields());
    }
    int64_t off = 0;
    while (off < batch->num_rows()) {
      if (!writer) {
        name = NewDataFileName();
        LANCE_ASSIGN_OR_RAISE(writer, file::FileWriter::Open(loc.file_store(),
                                                             loc.Path("data/" + name), schema, wo));
        loc.Written(loc.Path("data/" + name));
      }
      const int64_t n = std::min(batch->num_rows() - off, max_rows_per_file - in_file);
      std::vector<ArrayPtr> cols;
      for (const auto& c : batch->columns()) cols.push_back(n == batch->num_rows() ? c : c->Slice(off, n));
      RecordBatch part(schema, n, std::move(cols));
      LANCE_RETURN_NOT_OK(writer->Write(part));
      in_file += n;
      off += n;
      if (in_file == max_rows_per_file) LANCE_RETURN_NOT_OK(finish());
    }
  }
  if (writer) LANCE_RETURN_NOT_OK(finish());
  return out;
}

Result<::lance::table::pb::DataFile> WriteColumnFile(const TableLocation& loc,
                                                 const ::lance::table::pb::Manifest& m,
                                                 const RecordBatch& batch) {
  LANCE_ASSIGN_OR_RAISE(file::FileVersion fv, FileVersionOf(m));
  LANCE_ASSIGN_OR_RAISE(std::vector<int32_t> leaves, LeafIds(*batch.schema()));
  file::WriteOptions wo;
  wo.version = fv;
  const std::string name = NewDataFileName();
  LANCE_ASSIGN_OR_RAISE(auto writer, file::FileWriter::Open(loc.file_store(),
                                                           loc.Path("data/" + name),
                                                           batch.schema(), wo));
  loc.Written(loc.Path("data/" + name));
  LANCE_RETURN_NOT_OK(writer->Write(batch));
  LANCE_ASSIGN_OR_RAISE(file::WriteSummary s, writer->Finish());
  ::lance::table::pb::DataFile df;
  df.set_path(name);
  for (size_t i = 0; i < leaves.size(); ++i) {
    df.add_fields(leaves[i]);
    df.add_column_indices(static_cast<int32_t>(i));
  }
  df.set_file_major_version(static_cast<uint32_t>(fv.major));
  df.set_file_minor_version(static_cast<uint32_t>(fv.minor));
  df.set_file_size_bytes(static_cast<uint64_t>(s.size_bytes));
  return df;
}

std::string RowIdSequenceOf(const std::vector<uint64_t>& ids) {
  ::lance::table::pb::RowIdSequence seq;
  std::string loose;  // little-endian u64 values not in a long run
  auto flush_loose = [&] {
    if (loose.empty()) return;
    seq.add_segments()->mutable_array()->mutable_u64_array()->set_values(loose);
    loose.clear();
  };
  size_t i = 0;
  while (i < ids.size()) {
    size_t j = i + 1;
    while (j < ids.size() && ids[j] == ids[j - 1] + 1) ++j;
    if (j - i >= 4) {
      flush_loose();
      auto* r = seq.add_segments()->mutable_range();
      r->set_start(ids[i]);
      r->set_end(ids[j - 1] + 1);
    } else {
      for (size_t k = i; k < j; ++k) {
        char b[8];
        std::memcpy(b, &ids[k], 8);
        loose.append(b, 8);
      }
    }
    i = j;
  }
  flush_loose();
  return seq.SerializeAsString();
}

Status AddUpdateDeletions(const TableLocation& loc, const Snapshot& ds, const StoredVersion& sv,
                          const std::vector<uint64_t>& addresses, CommitRequest* req) {
  std::map<uint64_t, std::vector<uint32_t>> by_fragment;
  for (uint64_t a : addresses) by_fragment[a >> 32].push_back(static_cast<uint32_t>(a & 0xffffffffu));
  auto* upd = req->txn.mutable_update();
  const Manifest& tm = ds.manifest();
  for (size_t i = 0; i < tm.fragments.size(); ++i) {
    const FragmentInfo& fr = tm.fragments[i];
    auto it = by_fragment.find(fr.id);
    if (it == by_fragment.end()) continue;
    LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> existing, ds.DeletedRows(i));
    std::vector<uint32_t> merged;
    std::set_union(existing.begin(), existing.end(), it->second.begin(), it->second.end(),
                   std::back_inserter(merged));
    const auto& pbf = sv.manifest.fragments(static_cast<int>(i));
    req->base_deletions[fr.id] =
        pbf.has_deletion_file() ? std::optional(pbf.deletion_file()) : std::nullopt;
    req->affected_rows[fr.id] = it->second;
    if (merged.size() >= fr.physical_rows) {
      upd->add_removed_fragment_ids(fr.id);
    } else {
      LANCE_ASSIGN_OR_RAISE(auto d, WriteDeletionFile(loc, fr.id, sv.version, merged));
      auto* uf = upd->add_updated_fragments();
      *uf = pbf;
      *uf->mutable_deletion_file() = d;
    }
  }
  return Status::OK();
}

Status AssignRowIds(std::vector<::lance::table::pb::DataFragment>* fragments,
                    const std::vector<uint64_t>& ids) {
  size_t pos = 0;
  for (auto& f : *fragments) {
    const size_t n = static_cast<size_t>(f.physical_rows());
    if (pos + n > ids.size()) {
      return Status::Internal("row ids: {} ids for more rows", ids.size());
    }
    f.set_inline_row_ids(RowIdSequenceOf(std::vector<uint64_t>(ids.begin() + static_cast<std::ptrdiff_t>(pos),
                                                               ids.begin() + static_cast<std::ptrdiff_t>(pos + n))));
    pos += n;
  }
  if (pos != ids.size()) return Status::Internal("row ids: {} ids for {} rows", ids.size(), pos);
  return Status::OK();
}

Result<std::optional<RecordBatchPtr>> ReadPhysicalRows(const Snapshot& ds, size_t index,
                                                       const std::vector<std::string>& names) {
  const Manifest& tm = ds.manifest();
  if (index >= tm.fragments.size()) {
    return Status::InvalidArgument("fragment index {} of {}", index, tm.fragments.size());
  }
  const FragmentInfo& frag = tm.fragments[index];
  if (frag.num_overlays > 0) return std::optional<RecordBatchPtr>();
  const auto physical = static_cast<int64_t>(frag.physical_rows);
  ScanOptions so;
  so.columns = names;
  LANCE_ASSIGN_OR_RAISE(SchemaPtr out_schema, ds.ProjectedSchema(so));
  const FieldTree tree(tm.fields);
  // Where each column is: (reader, field of its file); no reader = all null.
  struct Source {
    std::shared_ptr<const file::FileReader> reader;
    int field = -1;
  };
  std::vector<Source> sources(names.size());
  for (size_t c = 0; c < names.size(); ++c) {
    const FieldPtr& tf = out_schema->field(static_cast<int>(c));
    const int holding = tree.FileHolding(frag, tf->id());
    if (holding < 0) continue;
    const DataFileInfo* file = &frag.files[static_cast<size_t>(holding)];
    if (file->base_id.has_value()) return std::optional<RecordBatchPtr>();
    LANCE_ASSIGN_OR_RAISE(auto reader, ds.DataFileReader(index, static_cast<size_t>(holding)));
    const auto& fs = reader->schema()->fields();
    for (size_t k = 0; k < fs.size(); ++k) {
      if (fs[k]->id() == tf->id()) sources[c] = {reader, static_cast<int>(k)};
    }
    if (sources[c].field < 0) return std::optional<RecordBatchPtr>();
  }
  // Columns decode independently: one task per column on both cores.
  std::vector<ArrayPtr> columns(names.size());
  std::vector<Status> errors(names.size());
  ParallelFor(ThreadPool::Default(), static_cast<int64_t>(names.size()), [&](int64_t c) {
    const auto k = static_cast<size_t>(c);
    const DataTypePtr& type = out_schema->field(static_cast<int>(c))->type();
    if (!sources[k].reader) {
      auto nulls = MakeArrayOfNulls(type, physical);
      if (nulls.ok()) columns[k] = *nulls; else errors[k] = nulls.status();
      return;
    }
    auto batch = sources[k].reader->ReadAll({sources[k].field});
    if (batch.ok()) columns[k] = (*batch)->column(0); else errors[k] = batch.status();
  });
  for (size_t c = 0; c < names.size(); ++c) {
    LANCE_RETURN_NOT_OK(errors[c]);
    if (!columns[c]->type->Equals(*out_schema->field(static_cast<int>(c))->type()) ||
        columns[c]->length != physical) {
      return std::optional<RecordBatchPtr>();
    }
  }
  return std::optional<RecordBatchPtr>(
      std::make_shared<RecordBatch>(out_schema, physical, std::move(columns)));
}

Result<std::vector<RecordBatchPtr>> ReadLiveRows(const Snapshot& ds,
                                                 const std::vector<size_t>& fragments,
                                                 bool with_row_id) {
  const Manifest& tm = ds.manifest();
  const SchemaPtr& schema = ds.schema();
  std::vector<std::string> names;
  for (const auto& f : schema->fields()) names.push_back(f->name());
  ScanOptions so;
  so.with_row_id = with_row_id;
  LANCE_ASSIGN_OR_RAISE(SchemaPtr out_schema, ds.ProjectedSchema(so));
  std::vector<uint64_t> scan_start(tm.fragments.size() + 1, 0);
  for (size_t i = 0; i < tm.fragments.size(); ++i) {
    scan_start[i + 1] = scan_start[i] + tm.fragments[i].num_rows();
  }
  std::vector<RecordBatchPtr> out;
  for (size_t i : fragments) {
    if (i >= tm.fragments.size()) {
      return Status::InvalidArgument("fragment index {} of {}", i, tm.fragments.size());
    }
    const FragmentInfo& frag = tm.fragments[i];
    const uint64_t live = frag.num_rows();
    if (live == 0) continue;
    LANCE_ASSIGN_OR_RAISE(auto physical, ReadPhysicalRows(ds, i, names));
    if (!physical) {
      ScanOptions fso = so;
      fso.offset = static_cast<int64_t>(scan_start[i]);
      fso.limit = static_cast<int64_t>(live);
      LANCE_ASSIGN_OR_RAISE(auto batches, ds.Scan(fso));
      out.insert(out.end(), batches.begin(), batches.end());
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> deleted, ds.DeletedRows(i));
    if (deleted.size() != frag.physical_rows - live) {
      return Status::Corruption("fragment {}: deletion file lists {} rows, the manifest says {}",
                                frag.id, deleted.size(), frag.physical_rows - live);
    }
    const RecordBatch& b = **physical;
    std::vector<ArrayPtr> cols(names.size() + (with_row_id ? 1 : 0));
    std::vector<Status> errors(names.size());
    ParallelFor(ThreadPool::Default(), static_cast<int64_t>(names.size()), [&](int64_t c) {
      const auto k = static_cast<size_t>(c);
      auto kept = DropElements(b.column(static_cast<int>(c)), deleted);
      if (kept.ok()) cols[k] = *kept; else errors[k] = kept.status();
    });
    for (const Status& st : errors) LANCE_RETURN_NOT_OK(st);
    if (with_row_id) {
      LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ids, ds.RowIds(i));
      LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(static_cast<int64_t>(live * 8)));
      auto* dst = reinterpret_cast<uint64_t*>(std::const_pointer_cast<Buffer>(buf)->mutable_data());
      size_t d = 0, o = 0;
      for (size_t r = 0; r < ids.size() && o < live; ++r) {
        if (d < deleted.size() && deleted[d] == r) {
          ++d;
          continue;
        }
        dst[o++] = ids[r];
      }
      cols.back() = Array::Make(uint64(), static_cast<int64_t>(live), {nullptr, buf});
    }
    out.push_back(std::make_shared<RecordBatch>(out_schema, static_cast<int64_t>(live), std::move(cols)));
  }
  return out;
}

std::vector<file::LanceField> LanceFieldsOf(const ::lance::table::pb::Manifest& m) {
  std::vector<file::LanceField> out;
  for (const auto& f : m.fields()) out.push_back(FieldFromProto(f));
  return out;
}

Result<CommitInfo> CommitRowUpdate(const TableLocation& loc, const Snapshot& ds,
                                   const StoredVersion& sv, std::vector<uint64_t> addresses,
                                   std::vector<::lance::table::pb::DataFragment> fragments,
                                   const CommitOptions& options) {
  CommitRequest req;
  req.txn.set_read_version(sv.version);
  req.txn.set_uuid(NewUuid());
  auto* upd = req.txn.mutable_update();
  std::sort(addresses.begin(), addresses.end());
  LANCE_RETURN_NOT_OK(AddUpdateDeletions(loc, ds, sv, addresses, &req));
  for (auto& f : fragments) *upd->add_new_fragments() = std::move(f);
  upd->set_update_mode(0);
  return Commit(loc, std::move(req), options);
}

}  // namespace lance::table::internal
