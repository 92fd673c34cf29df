// Data files of new fragments (write.h): WriteFragments, WriteColumnFile.
#include <algorithm>

#include <fmt/format.h>

#include "lance/file/file_writer.h"
#include "lance/file/lance_schema.h"
#include "lance/table/write.h"
#include "table/fragment_sink.h"
#include "table/legacy_fixups.h"
#include "table/unique_ids.h"

namespace lance::table {

namespace {

std::string NewDataFileName() {
  return fmt::format("{:016x}{:016x}.lance", internal::RandomU64(), internal::RandomU64());
}

Result<std::vector<int32_t>> LeafIds(const Schema& schema, file::FileVersion fv) {
  LANCE_ASSIGN_OR_RAISE(std::vector<file::LanceField> fields, file::LanceFieldsFromSchema(schema));
  return internal::ColumnFieldIds(fields, fv);
}

DataFileInfo DataFileEntry(const std::string& name, const std::vector<int32_t>& leaves,
                           file::FileVersion fv, int64_t size_bytes) {
  DataFileInfo df;
  df.path = name;
  df.fields = leaves;
  // As lance 12 records them: v1 files without column indices, as 0.2; 2.0 files as 2.0.
  if (!fv.is_v1()) {
    df.column_indices.resize(leaves.size());
    for (size_t i = 0; i < leaves.size(); ++i) df.column_indices[i] = static_cast<int32_t>(i);
  }
  df.major = fv.is_legacy() ? 2u : static_cast<uint32_t>(fv.major);
  df.minor = fv.is_legacy() ? 0u : static_cast<uint32_t>(fv.minor);
  df.size_bytes = static_cast<uint64_t>(size_bytes);
  return df;
}

}  // namespace

Result<file::FileVersion> WritableFileVersion(const std::string& v) {
  if (v == "2.1") return file::FileVersion{2, 1};
  if (v == "2.2") return file::FileVersion{2, 2};
  // Older storage versions get the files lance 12 writes there: 2.0 (footer 0.3) and legacy
  // v1 (footer 0.2).
  if (v == "2.0") return file::FileVersion{0, 3};
  if (v == "0.1" || v == "legacy") return file::FileVersion{0, 2};
  return Status::NotSupported("the dataset stores data files of version '{}'; lance-cpp writes "
                              "legacy (0.1), 2.0, 2.1 and 2.2 data files",
                              v);
}

Result<std::vector<FragmentInfo>> WriteFragments(StagedFiles& staged, const Manifest& manifest,
                                                 const SchemaPtr& schema,
                                                 const std::vector<RecordBatchPtr>& batches,
                                                 int64_t max_rows_per_file, ThreadPool* pool) {
  if (max_rows_per_file <= 0) {
    return Status::InvalidArgument("rows per fragment must be positive, got {}", max_rows_per_file);
  }
  LANCE_ASSIGN_OR_RAISE(file::FileVersion fv, WritableFileVersion(manifest.data_storage_version));
  LANCE_ASSIGN_OR_RAISE(std::vector<int32_t> leaves, LeafIds(*schema, fv));
  file::WriteOptions wo;
  wo.version = fv;
  wo.pool = pool;
  if (fv.is_v1()) {
    LANCE_ASSIGN_OR_RAISE(auto keyed, internal::ToDatasetDictionaries(manifest, schema, batches));
    return WriteFragments(staged, wo, schema, leaves, keyed, max_rows_per_file);
  }
  return WriteFragments(staged, wo, schema, leaves, batches, max_rows_per_file);
}

Result<std::vector<FragmentInfo>> WriteFragments(StagedFiles& staged, const file::WriteOptions& wo,
                                                 const SchemaPtr& schema,
                                                 const std::vector<int32_t>& leaves,
                                                 const std::vector<RecordBatchPtr>& batches,
                                                 int64_t max_rows_per_file) {
  LANCE_ASSIGN_OR_RAISE(auto sink, internal::FragmentSink::Make(staged, wo, schema, leaves, max_rows_per_file));
  for (const auto& batch : batches) LANCE_RETURN_NOT_OK(sink->Add(*batch));
  return sink->Finish();
}

namespace internal {

std::vector<int32_t> ColumnFieldIds(const std::vector<file::LanceField>& fields, file::FileVersion fv) {
  std::vector<int32_t> ids;
  for (const auto& f : fields) {
    const bool parent = fv.major != 0 && std::any_of(fields.begin(), fields.end(), [&](const file::LanceField& c) {
      return c.parent_id == f.id;
    });
    if (!parent) ids.push_back(f.id);
  }
  return ids;
}

Result<std::unique_ptr<FragmentSink>> FragmentSink::Make(StagedFiles& staged, file::WriteOptions options,
                                                         SchemaPtr schema, std::vector<int32_t> leaves,
                                                         int64_t max_rows_per_file) {
  if (max_rows_per_file <= 0) {
    return Status::InvalidArgument("rows per fragment must be positive, got {}", max_rows_per_file);
  }
  return std::unique_ptr<FragmentSink>(new FragmentSink(staged, std::move(options), std::move(schema),
                                                        std::move(leaves), max_rows_per_file));
}

FragmentSink::FragmentSink(StagedFiles& staged, file::WriteOptions options, SchemaPtr schema,
                           std::vector<int32_t> leaves, int64_t max_rows_per_file)
    : staged_(staged), options_(std::move(options)), schema_(std::move(schema)),
      leaves_(std::move(leaves)), max_rows_per_file_(max_rows_per_file) {}

FragmentSink::~FragmentSink() = default;

Status FragmentSink::FinishFile() {
  LANCE_ASSIGN_OR_RAISE(file::WriteSummary s, writer_->Finish());
  writer_.reset();
  if (s.num_columns != static_cast<int>(leaves_.size())) {
    return Status::Internal("data file {} has {} columns but the schema has {} leaf fields", name_,
                            s.num_columns, leaves_.size());
  }
  FragmentInfo frag;
  frag.files.push_back(DataFileEntry(name_, leaves_, options_.version, s.size_bytes));
  frag.physical_rows = static_cast<uint64_t>(s.num_rows);
  out_.push_back(std::move(frag));
  in_file_ = 0;
  return Status::OK();
}

Status FragmentSink::Add(const RecordBatch& batch) {
  if (batch.num_columns() != schema_->num_fields()) {
    return Status::InvalidArgument("a batch has {} columns, the schema {}", batch.num_columns(),
                                   schema_->num_fields());
  }
  int64_t off = 0;
  while (off < batch.num_rows()) {
    if (!writer_) {
      name_ = NewDataFileName();
      const std::string path = staged_.location().Path("data/" + name_);
      LANCE_ASSIGN_OR_RAISE(writer_, file::FileWriter::Open(staged_.store(), path, schema_, options_));
      staged_.Record(path);
    }
    const int64_t n = std::min(batch.num_rows() - off, max_rows_per_file_ - in_file_);
    std::vector<ArrayPtr> cols;
    for (const auto& c : batch.columns()) cols.push_back(n == batch.num_rows() ? c : c->Slice(off, n));
    RecordBatch part(schema_, n, std::move(cols));
    LANCE_RETURN_NOT_OK(writer_->Write(part));
    in_file_ += n;
    off += n;
    if (in_file_ == max_rows_per_file_) LANCE_RETURN_NOT_OK(FinishFile());
  }
  return Status::OK();
}

Result<std::vector<FragmentInfo>> FragmentSink::Finish() {
  if (writer_) LANCE_RETURN_NOT_OK(FinishFile());
  return std::move(out_);
}

}  // namespace internal

Result<DataFileInfo> WriteColumnFile(StagedFiles& staged, const Manifest& manifest,
                                     const RecordBatch& batch, ThreadPool* pool) {
  LANCE_ASSIGN_OR_RAISE(file::FileVersion fv, WritableFileVersion(manifest.data_storage_version));
  LANCE_ASSIGN_OR_RAISE(std::vector<int32_t> leaves, LeafIds(*batch.schema(), fv));
  file::WriteOptions wo;
  wo.version = fv;
  wo.pool = pool;
  const std::string name = NewDataFileName();
  const std::string path = staged.location().Path("data/" + name);
  LANCE_ASSIGN_OR_RAISE(auto writer, file::FileWriter::Open(staged.store(), path, batch.schema(), wo));
  staged.Record(path);
  LANCE_RETURN_NOT_OK(writer->Write(batch));
  LANCE_ASSIGN_OR_RAISE(file::WriteSummary s, writer->Finish());
  return DataFileEntry(name, leaves, fv, s.size_bytes);
}

}  // namespace lance::table
