// The row and schema operations of lance::dataset::Dataset called by URI or location, for the
// tests of merge-insert, schema evolution and compaction (which open a handle at the latest
// version, run the operation on it, and check what it committed). Dataset-layer tests only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/record_batch_reader.h"
#include "lance/dataset/dataset.h"
#include "lance/dataset/operations.h"

namespace lance::table::evolve_test {

using dataset::ColumnAlteration;
using dataset::ColumnExpression;
using dataset::CompactionOptions;
using dataset::CompactionResult;
using dataset::MergeInsertParams;
using dataset::MergeInsertResult;
using dataset::WhenMatched;
using dataset::WhenNotMatched;
using dataset::WhenNotMatchedBySource;

inline Result<std::shared_ptr<dataset::Dataset>> OpenLatest(const TableLocation& location,
                                                            const CommitOptions& commit = {}) {
  dataset::OpenOptions o;
  o.commit_handler = commit.handler;
  if (commit.max_retries > 0) o.max_commit_retries = commit.max_retries;
  return dataset::Dataset::Open(location, o);
}
inline Result<std::shared_ptr<dataset::Dataset>> OpenLatest(const std::string& uri,
                                                            const CommitOptions& commit = {}) {
  LANCE_ASSIGN_OR_RAISE(auto location, TableLocation::FromUri(uri));
  return OpenLatest(location, commit);
}

template <typename Where>
Result<MergeInsertResult> MergeInsert(const Where& where, const SchemaPtr& schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const MergeInsertParams& params) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenLatest(where, params.commit));
  VectorRecordBatchReader input(schema, batches);
  return ds->MergeInsert(input, params);
}

template <typename Where>
Result<CommitInfo> AddColumns(const Where& where, const std::vector<ColumnExpression>& columns,
                              const CommitOptions& commit = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenLatest(where, commit));
  return ds->AddColumns(columns);
}

template <typename Where>
Result<CommitInfo> AddNullColumns(const Where& where, const SchemaPtr& schema,
                                  const CommitOptions& commit = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenLatest(where, commit));
  return ds->AddNullColumns(schema);
}

template <typename Where>
Result<CommitInfo> AddColumnsFromData(const Where& where, const SchemaPtr& schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const CommitOptions& commit = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenLatest(where, commit));
  VectorRecordBatchReader input(schema, batches);
  return ds->AddColumnsFromData(input);
}

template <typename Where>
Result<CommitInfo> AddColumnsJoined(const Where& where, const SchemaPtr& schema,
                                    const std::vector<RecordBatchPtr>& batches,
                                    const std::vector<std::string>& on,
                                    const CommitOptions& commit = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenLatest(where, commit));
  VectorRecordBatchReader input(schema, batches);
  return ds->AddColumnsJoined(input, on);
}

template <typename Where>
Result<CommitInfo> DropColumns(const Where& where, const std::vector<std::string>& paths,
                               const CommitOptions& commit = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenLatest(where, commit));
  return ds->DropColumns(paths);
}

template <typename Where>
Result<CommitInfo> AlterColumns(const Where& where, const std::vector<ColumnAlteration>& alterations,
                                const CommitOptions& commit = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenLatest(where, commit));
  return ds->AlterColumns(alterations);
}

template <typename Where>
Result<CommitInfo> AlterColumnType(const Where& where, const std::string& column,
                                   const std::string& type_name, const CommitOptions& commit = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenLatest(where, commit));
  return ds->AlterColumnType(column, type_name);
}

template <typename Where>
Result<CompactionResult> CompactFiles(const Where& where, const CompactionOptions& options = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenLatest(where, options.commit));
  return ds->Compact(options);
}

}  // namespace lance::table::evolve_test
