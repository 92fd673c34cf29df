// Create / append / overwrite (WriteDataset).
#include "lance/table/write.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lance/file/file_writer.h"
#include "lance/table/feature_flags.h"
#include "lance/table/schema_rules.h"
#include "lance/table/versions.h"
#include "table/durable_files.h"
#include "table/fragment_sink.h"
#include "table/legacy_fixups.h"

namespace lance::table {

namespace {

Result<file::FileVersion> ParseStorageVersion(const std::string& v) {
  if (v == "2.1") return file::FileVersion{2, 1};
  if (v == "2.2") return file::FileVersion{2, 2};
  // Into older datasets lance 12 writes files of their version (2.0: footer 0.3; legacy:
  // v1 files, footer 0.2).
  if (v == "2.0") return file::FileVersion{0, 3};
  if (v == "0.1" || v == "legacy") return file::FileVersion{0, 2};
  return Status::NotSupported("data storage version '{}' cannot be written (legacy, 2.0, 2.1 and "
                              "2.2 can)",
                              v);
}

// Position of each field among its siblings' parent, as a path of indices, for comparing
// two flattened schemas whose ids differ.
std::vector<int> ParentPositions(const std::vector<file::LanceField>& fields) {
  std::map<int32_t, int> pos;
  std::vector<int> out;
  for (size_t i = 0; i < fields.size(); ++i) {
    pos[fields[i].id] = static_cast<int>(i);
    out.push_back(fields[i].parent_id < 0 ? -1 : pos.count(fields[i].parent_id) ? pos[fields[i].parent_id] : -2);
  }
  return out;
}

// The ids of `dataset` fields matched to the input's flattened fields, in the input's order.
Result<std::vector<int32_t>> MatchSchema(const std::vector<file::LanceField>& dataset,
                                         const std::vector<file::LanceField>& input) {
  if (dataset.size() != input.size()) {
    return Status::InvalidArgument("the input has {} fields (flattened) but the dataset has {}; "
                                   "append needs the dataset's schema",
                                   input.size(), dataset.size());
  }
  const auto pd = ParentPositions(dataset), pi = ParentPositions(input);
  std::vector<int32_t> ids;
  for (size_t i = 0; i < dataset.size(); ++i) {
    if (dataset[i].name != input[i].name || dataset[i].logical_type != input[i].logical_type ||
        pd[i] != pi[i]) {
      return Status::InvalidArgument("input field {} is '{}' ({}) but the dataset has '{}' ({}) "
                                     "there; append needs the dataset's schema",
                                     i, input[i].name, input[i].logical_type, dataset[i].name,
                                     dataset[i].logical_type);
    }
    ids.push_back(dataset[i].id);
  }
  return ids;
}

// Puts the input's top-level columns in the order of the dataset's (`dataset`: its flattened
// fields), matching them by name. Errors: InvalidArgument naming the missing and the extra
// columns with their types.
// `order` gets the input column of each dataset column (empty when the order is the same).
Status InDatasetOrder(const std::vector<file::LanceField>& dataset, SchemaPtr* schema,
                      std::vector<int>* reorder) {
  const Schema& in = **schema;
  std::vector<int> order;
  std::vector<std::string> missing, extra;
  for (const auto& f : dataset) {
    if (f.parent_id >= 0) continue;
    const int c = in.GetFieldIndex(f.name);
    if (c < 0) missing.push_back(fmt::format("'{}' ({})", f.name, f.logical_type));
    order.push_back(c);
  }
  for (const auto& f : in.fields()) {
    const bool known = std::any_of(dataset.begin(), dataset.end(), [&](const file::LanceField& d) {
      return d.parent_id < 0 && d.name == f->name();
    });
    if (!known) extra.push_back(fmt::format("'{}' ({})", f->name(), f->type()->ToString()));
  }
  if (!missing.empty() || !extra.empty()) {
    std::string msg = "append: the input's columns do not match the dataset's";
    if (!missing.empty()) msg += fmt::format("; missing {}", fmt::join(missing, ", "));
    if (!extra.empty()) msg += fmt::format("; not in the dataset {}", fmt::join(extra, ", "));
    return Status::InvalidArgument("{}", msg);
  }
  bool same = true;
  for (size_t i = 0; i < order.size(); ++i) same = same && order[i] == static_cast<int>(i);
  if (same) return Status::OK();
  std::vector<FieldPtr> fields;
  for (int c : order) fields.push_back(in.field(c));
  *schema = ::lance::schema(std::move(fields), in.metadata());
  *reorder = std::move(order);
  return Status::OK();
}

}  // namespace

Result<WriteMode> WriteModeFromName(const std::string& name) {
  if (name == "create") return WriteMode::kCreate;
  if (name == "append") return WriteMode::kAppend;
  if (name == "overwrite") return WriteMode::kOverwrite;
  return Status::InvalidArgument("write mode '{}': expected create, append or overwrite", name);
}

namespace {

// What a write prepared before committing: its data files written (staged), the
// transaction's parts.
struct PreparedWrite {
  std::optional<CommittedVersion> latest;
  bool append = false;
  std::string dsv;
  std::vector<file::LanceField> fields;
  SchemaPtr schema;  // the input's, in the dataset's column order for appends
  std::vector<FragmentInfo> fragments;
};

// Checks `params` against the table at `loc` (if any) and writes the data files of the rows
// of `input`, batch by batch as they come, as `staged` files: everything WriteDataset does
// before its commit.
Result<PreparedWrite> PrepareWrite(const TableLocation& loc, StagedFiles& staged,
                                   RecordBatchReader& input, const WriteParams& params) {
  PreparedWrite pw;
  const SchemaPtr input_schema = input.schema();
  if (!input_schema) return Status::InvalidArgument("write: no schema");
  // The table's rules before anything is read or written (the commit checks again).
  LANCE_RETURN_NOT_OK(CheckTableSchema(*input_schema, fmt::format("{}: write", loc.display())));
  SchemaPtr schema = input_schema;
  std::vector<int> reorder;  // appends: the input column of each dataset column
  if (params.max_rows_per_file <= 0) {
    return Status::InvalidArgument("max_rows_per_file must be positive, got {}", params.max_rows_per_file);
  }
  if (params.read_version) {
    LANCE_ASSIGN_OR_RAISE(CommittedVersion base, LoadVersion(loc, *params.read_version));
    pw.latest = std::move(base);
  } else {
    LANCE_ASSIGN_OR_RAISE(pw.latest, LoadLatestVersion(loc));
  }
  const std::optional<CommittedVersion>& latest = pw.latest;
  if (latest && params.mode == WriteMode::kCreate) {
    return Status::AlreadyExists("{}: a dataset already exists (version {}); use mode append or "
                                 "overwrite",
                                 loc.display(), latest->version);
  }
  if (latest) {
    LANCE_RETURN_NOT_OK(CheckCanWrite(latest->manifest.reader_feature_flags,
                                      latest->manifest.writer_feature_flags, latest->path));
  }
  const bool append = params.mode == WriteMode::kAppend && latest.has_value();
  pw.append = append;
  std::string dsv = params.data_storage_version;
  if (append) {
    const std::string existing = latest->manifest.data_storage_version;
    if (!dsv.empty() && dsv != existing) {
      return Status::InvalidArgument("{}: the dataset stores data version {}; cannot append {} files",
                                     loc.root(), existing, dsv);
    }
    dsv = existing;
  } else if (dsv.empty()) {
    dsv = latest ? latest->manifest.data_storage_version : "2.2";
  }
  LANCE_ASSIGN_OR_RAISE(file::FileVersion fv, ParseStorageVersion(dsv));
  if (dsv == "legacy") dsv = "0.1";  // as lance 12 records it
  pw.dsv = dsv;

  // The schema written, with the dataset's field ids (append) or fresh ones.
  SchemaPtr file_schema;
  std::vector<file::LanceField>& fields = pw.fields;
  std::vector<int> non_nullable;  // top-level columns that must not hold nulls
  if (append) {
    const std::vector<file::LanceField>& dataset_fields = latest->manifest.fields;
    LANCE_RETURN_NOT_OK(InDatasetOrder(dataset_fields, &schema, &reorder));
    LANCE_ASSIGN_OR_RAISE(auto input_fields, file::LanceFieldsWithIds(*schema, nullptr));
    LANCE_ASSIGN_OR_RAISE(auto ids, MatchSchema(dataset_fields, input_fields));
    LANCE_ASSIGN_OR_RAISE(fields, file::LanceFieldsWithIds(*schema, &ids, &file_schema));
    for (int c = 0; c < schema->num_fields(); ++c) {
      for (const auto& df : dataset_fields) {
        if (df.id == file_schema->field(c)->id() && !df.nullable) non_nullable.push_back(c);
      }
    }
  } else {
    LANCE_ASSIGN_OR_RAISE(fields, file::LanceFieldsWithIds(*schema, nullptr, &file_schema));
    for (int c = 0; c < schema->num_fields(); ++c) {
      if (!schema->field(c)->nullable()) non_nullable.push_back(c);
    }
  }
  pw.schema = schema;
  if (fv.major == 0 || fv.minor < 2) {
    for (const auto& f : fields) {
      if (f.logical_type == "map") {
        return Status::NotSupported("field '{}': map columns need data storage version 2.2 (the "
                                    "dataset uses {})",
                                    f.name, dsv);
      }
    }
  }
  const std::vector<int32_t> leaves = internal::ColumnFieldIds(fields, fv);
  // Data files: one per fragment of at most max_rows_per_file rows, written as the input's
  // batches arrive (each checked first), so the write holds one batch at a time.
  file::WriteOptions wo;
  wo.version = fv;
  wo.compress = params.compress;
  wo.pool = params.pool;
  LANCE_ASSIGN_OR_RAISE(auto sink, internal::FragmentSink::Make(staged, wo, file_schema, leaves,
                                                                params.max_rows_per_file));
  for (;;) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, input.Next());
    if (!b) break;
    if (b->num_columns() != input_schema->num_fields()) {
      return Status::InvalidArgument("write: a batch has {} columns, the input's schema {}",
                                     b->num_columns(), input_schema->num_fields());
    }
    if (!reorder.empty()) {
      std::vector<ArrayPtr> cols;
      for (int c : reorder) cols.push_back(b->column(c));
      b = std::make_shared<RecordBatch>(schema, b->num_rows(), std::move(cols));
    }
    for (int c : non_nullable) {
      if (b->column(c)->null_count > 0) {
        return Status::InvalidArgument("field '{}' is not nullable but the input has nulls ({} in "
                                       "a batch of {} rows)",
                                       file_schema->field(c)->name(), b->column(c)->null_count,
                                       b->num_rows());
      }
    }
    // v1 files of a legacy dataset are read against the dictionaries its manifest stores.
    if (fv.is_v1() && latest) {
      LANCE_ASSIGN_OR_RAISE(auto keyed, internal::ToDatasetDictionaries(latest->manifest, file_schema, {b}));
      b = keyed.front();
    }
    LANCE_RETURN_NOT_OK(sink->Add(*b));
  }
  LANCE_ASSIGN_OR_RAISE(pw.fragments, sink->Finish());
  return pw;
}

// `prepared`, or its error after removing the data files it staged (no version references
// them; best effort: cleanup removes what is left).
Result<PreparedWrite> Prepared(const TableLocation& loc, StagedFiles& staged, Result<PreparedWrite> prepared) {
  if (!prepared.ok()) {
    for (const std::string& path : staged.paths()) (void)staged.store()->Delete(path);
    staged.Forget();
    // The directories the deleted files made (data/ of a create that failed) go too.
    (void)staged.store()->RemoveEmptyDirectories(loc.Path("data"));
  }
  return prepared;
}

}  // namespace

Result<WriteResult> WriteDataset(const std::string& uri, const SchemaPtr& schema,
                                 const std::vector<RecordBatchPtr>& batches,
                                 const WriteParams& params) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return WriteDataset(location, schema, batches, params);
}

Result<WriteResult> WriteDataset(const TableLocation& loc, const SchemaPtr& input_schema,
                                 const std::vector<RecordBatchPtr>& input_batches,
                                 const WriteParams& params) {
  VectorRecordBatchReader input(input_schema, input_batches);
  return WriteDataset(loc, input, params);
}

Result<WriteResult> WriteDataset(const std::string& uri, RecordBatchReader& input,
                                 const WriteParams& params) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return WriteDataset(location, input, params);
}

Result<WriteResult> WriteDataset(const TableLocation& loc, RecordBatchReader& input,
                                 const WriteParams& params) {
  StagedFiles staged(loc, params.commit.sync);
  LANCE_ASSIGN_OR_RAISE(PreparedWrite pw, Prepared(loc, staged, PrepareWrite(loc, staged, input, params)));
  const std::optional<CommittedVersion>& latest = pw.latest;
  uint64_t total = 0;
  for (const auto& f : pw.fragments) total += f.physical_rows;
  const size_t num_new = pw.fragments.size();

  Transaction txn;
  txn.read_version = latest ? latest->version : 0;
  if (pw.append) {
    Transaction::Append op;
    op.fragments = std::move(pw.fragments);
    txn.operation = std::move(op);
  } else {
    Transaction::Overwrite op;
    op.fragments = std::move(pw.fragments);
    op.schema = std::move(pw.fields);
    if (pw.schema->metadata()) {
      op.schema_metadata = pw.schema->metadata()->pairs();
      std::sort(op.schema_metadata.begin(), op.schema_metadata.end());
    }
    // A dataset this write creates starts with `create_config` (as lance 12's Create mode
    // records its auto-cleanup settings).
    if (!latest && params.mode != WriteMode::kOverwrite) op.config_upsert_values = params.create_config;
    op.data_storage_version = pw.dsv;
    op.new_table.naming = params.naming;
    op.new_table.enable_stable_row_ids = params.enable_stable_row_ids;
    txn.operation = std::move(op);
  }
  Result<CommitInfo> commit = CommitTransaction(loc, std::move(txn), params.commit, &staged);
  if (!commit.ok() && commit.status().IsCommitConflict() && !latest &&
      params.mode == WriteMode::kCreate) {
    // Another writer created the dataset first: running this create again can only say
    // AlreadyExists, so say it now (not "retryable").
    return Status::AlreadyExists("{}: a dataset already exists (another writer created it while "
                                 "this create ran); use mode append or overwrite",
                                 loc.display());
  }
  LANCE_ASSIGN_OR_RAISE(CommitInfo ci, std::move(commit));
  WriteResult out;
  out.rows_written = total;
  // The ids the commit assigned: the last fragments of the new version, in order.
  const auto& committed = ci.manifest->fragments;
  for (size_t i = committed.size() - num_new; i < committed.size(); ++i) {
    out.fragment_ids.push_back(committed[i].id);
  }
  out.commit = std::move(ci);
  return out;
}

Result<std::vector<FragmentInfo>> WriteUncommittedFragments(const TableLocation& loc,
                                                            const SchemaPtr& schema,
                                                            const std::vector<RecordBatchPtr>& batches,
                                                            const WriteParams& params) {
  StagedFiles staged(loc);
  VectorRecordBatchReader input(schema, batches);
  LANCE_ASSIGN_OR_RAISE(PreparedWrite pw, Prepared(loc, staged, PrepareWrite(loc, staged, input, params)));
  // Nothing commits these files, so they are made durable here.
  if (staged.unsynced_local()) {
    LANCE_RETURN_NOT_OK(internal::SyncFiles(*staged.unsynced_local(), staged.TakeUnsynced(), {loc.root()},
                                            params.commit.sync_pool));
  }
  return std::move(pw.fragments);
}

Result<std::vector<FragmentInfo>> WriteUncommittedFragments(const std::string& uri,
                                                            const SchemaPtr& schema,
                                                            const std::vector<RecordBatchPtr>& batches,
                                                            const WriteParams& params) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return WriteUncommittedFragments(location, schema, batches, params);
}

}  // namespace lance::table
