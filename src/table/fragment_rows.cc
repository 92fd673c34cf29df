// Whole-fragment reads for the operations that rewrite rows (fragment_rows.h).
#include "table/fragment_rows.h"

#include <cstring>

#include "lance/columnar/compute.h"
#include "lance/core/thread_pool.h"
#include "lance/file/file_reader.h"
#include "table/field_tree.h"

namespace lance::table::internal {

Result<std::optional<RecordBatchPtr>> ReadPhysicalRows(const Snapshot& ds, size_t index,
                                                       const std::vector<std::string>& names) {
  const Manifest& tm = ds.manifest();
  if (index >= tm.fragments.size()) {
    return Status::InvalidArgument("fragment index {} of {}", index, tm.fragments.size());
  }
  const FragmentInfo& frag = tm.fragments[index];
  if (frag.num_overlays() > 0) return std::optional<RecordBatchPtr>();
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

}  // namespace lance::table::internal
