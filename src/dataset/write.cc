// Dataset: create / append / overwrite, and the writes that forward to the table layer's
// operations, each built on the handle's version.
#include <fmt/format.h>

#include "dataset/guard.h"
#include "lance/dataset/dataset.h"
#include "lance/table/compaction.h"
#include "lance/table/indexes.h"
#include "lance/table/merge_insert.h"
#include "lance/table/schema_evolution.h"

namespace lance::dataset {

using internal::Guarded;

namespace {

// The input's rows (the table layer writes from batches in memory).
Result<std::vector<RecordBatchPtr>> Drain(RecordBatchReader& input) { return input.ReadAll(); }

Result<table::WriteResult> WriteAt(const table::TableLocation& location, RecordBatchReader& input,
                                   const table::WriteParams& params) {
  LANCE_ASSIGN_OR_RAISE(auto batches, Drain(input));
  return table::WriteDataset(location, input.schema(), batches, params);
}

}  // namespace

Result<std::shared_ptr<Dataset>> Dataset::Write(table::TableLocation location, RecordBatchReader& input,
                                                table::WriteParams params, OpenOptions options) {
  return Guarded("write", [&]() -> Result<std::shared_ptr<Dataset>> {
    if (!params.commit.handler) params.commit.handler = options.commit_handler;
    if (options.tag) return Status::InvalidArgument("write: a tag cannot be given to open the written version");
    LANCE_ASSIGN_OR_RAISE(auto written, WriteAt(location, input, params));
    options.version = written.commit.version;
    return OpenGuarded(std::move(location), std::move(options));
  });
}

Result<std::shared_ptr<Dataset>> Dataset::Write(const std::string& uri, RecordBatchReader& input,
                                                table::WriteParams params, OpenOptions options) {
  return Guarded("write", [&]() -> Result<std::shared_ptr<Dataset>> {
    LANCE_ASSIGN_OR_RAISE(auto location, table::TableLocation::FromUri(uri));
    return Write(std::move(location), input, std::move(params), std::move(options));
  });
}

Result<std::shared_ptr<Dataset>> Dataset::Write(std::shared_ptr<io::ObjectStore> store, std::string root,
                                                RecordBatchReader& input, table::WriteParams params,
                                                OpenOptions options) {
  return Guarded("write", [&]() -> Result<std::shared_ptr<Dataset>> {
    if (!store) return Status::InvalidArgument("write: the object store must not be null");
    return Write(table::TableLocation(std::move(store), std::move(root)), input, std::move(params),
                 std::move(options));
  });
}

namespace {

// Writes through a handle: on its version, with its commit handler.
table::WriteParams OnHandle(table::WriteParams params, table::WriteMode mode, uint64_t version,
                            const table::CommitOptions& commit) {
  params.mode = mode;
  params.read_version = version;
  if (!params.commit.handler) params.commit.handler = commit.handler;
  return params;
}

}  // namespace

Result<table::WriteResult> Dataset::Append(RecordBatchReader& input, table::WriteParams params) {
  return Guarded("append", [&]() -> Result<table::WriteResult> {
    table::WriteResult out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, WriteAt(location_, input,
                                         OnHandle(std::move(params), table::WriteMode::kAppend,
                                                  snap->version(), CommitOptions())));
      return out.commit.version;
    }));
    return out;
  });
}

Result<table::WriteResult> Dataset::Overwrite(RecordBatchReader& input, table::WriteParams params) {
  return Guarded("overwrite", [&]() -> Result<table::WriteResult> {
    table::WriteResult out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, WriteAt(location_, input,
                                         OnHandle(std::move(params), table::WriteMode::kOverwrite,
                                                  snap->version(), CommitOptions())));
      return out.commit.version;
    }));
    return out;
  });
}

// --- operations forwarded to the table layer -----------------------------------------------

Result<table::CommitInfo> Dataset::AddNullColumns(const SchemaPtr& schema) {
  return Guarded("add columns", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::AddNullColumns(location_, schema, CommitOptions()));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::DropColumns(const std::vector<std::string>& paths) {
  return Guarded("drop columns", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::DropColumns(location_, paths, CommitOptions()));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::AlterColumns(const std::vector<table::ColumnAlteration>& alterations) {
  return Guarded("alter columns", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::AlterColumns(location_, alterations, CommitOptions()));
      return out.version;
    }));
    return out;
  });
}

Result<MergeInsertResult> Dataset::MergeInsert(RecordBatchReader& input, MergeInsertParams params) {
  return Guarded("merge insert", [&]() -> Result<MergeInsertResult> {
    LANCE_ASSIGN_OR_RAISE(auto batches, Drain(input));
    if (!params.commit.handler) params.commit = CommitOptions();
    MergeInsertResult out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::MergeInsert(location_, input.schema(), batches, params));
      return out.commit.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::AddColumns(const std::vector<ColumnExpression>& columns) {
  return Guarded("add columns", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::AddColumns(location_, columns, CommitOptions()));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::AddColumnsFromData(RecordBatchReader& input) {
  return Guarded("add columns", [&]() -> Result<table::CommitInfo> {
    LANCE_ASSIGN_OR_RAISE(auto batches, Drain(input));
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::AddColumnsFromData(location_, input.schema(), batches,
                                                           CommitOptions()));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::AddColumnsJoined(RecordBatchReader& input,
                                                    const std::vector<std::string>& on) {
  return Guarded("add columns", [&]() -> Result<table::CommitInfo> {
    LANCE_ASSIGN_OR_RAISE(auto batches, Drain(input));
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::AddColumnsJoined(location_, input.schema(), batches, on,
                                                         CommitOptions()));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::AlterColumnType(const std::string& column, const std::string& type_name) {
  return Guarded("alter column type", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::AlterColumnType(location_, column, type_name, CommitOptions()));
      return out.version;
    }));
    return out;
  });
}

Result<CompactionResult> Dataset::Compact(CompactionOptions options) {
  return Guarded("compact", [&]() -> Result<CompactionResult> {
    if (!options.commit.handler) options.commit = CommitOptions();
    CompactionResult out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::CompactFiles(location_, options));
      return out.commit.version;
    }));
    return out;
  });
}

Result<index::scalar::CreatedIndex> Dataset::CreateScalarIndex(
    const std::string& column, index::scalar::CreateScalarIndexOptions options) {
  return Guarded("create index", [&]() -> Result<index::scalar::CreatedIndex> {
    if (!options.commit.handler) options.commit = CommitOptions();
    index::scalar::CreatedIndex out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, index::scalar::CreateScalarIndex(location_, column, options));
      return out.version;
    }));
    return out;
  });
}

Result<index::vector::IvfBuildSummary> Dataset::CreateVectorIndex(
    const std::string& column, index::vector::IvfBuildOptions options) {
  return Guarded("create vector index", [&]() -> Result<index::vector::IvfBuildSummary> {
    if (!options.commit.handler) options.commit = CommitOptions();
    if (options.pool == nullptr) options.pool = pool();
    index::vector::IvfBuildSummary out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, index::vector::CreateVectorIndex(location_, column, options));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::DropIndex(const std::string& name) {
  return Guarded("drop index", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::DropIndex(location_, name, CommitOptions()));
      return out.version;
    }));
    return out;
  });
}

}  // namespace lance::dataset
