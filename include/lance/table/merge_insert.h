// Merge-insert (upsert) into a Lance dataset, as lance 12's merge_insert.
//
// Source rows are joined to the dataset's rows on the key columns (`on`) with an in-memory
// hash join (the source side is hashed; the dataset's key columns are scanned once). Then:
//   * matched:               update all columns from the source row, do nothing, delete the
//                            dataset row, or fail;
//   * not matched (source):  insert the source row, or do nothing;
//   * not matched by source: delete the dataset row, or keep it.
// Both the update and the delete may be conditional, as lance 12's
// `when_matched_update_all(condition)` and `when_not_matched_by_source_delete(expr)`:
//   * when_matched_update_where is a filter over the joined pair, naming the dataset row's
//     columns `target.col` and the input row's `source.col` (an unqualified name is an error,
//     as lance 12 calls it ambiguous). A matched row whose condition is FALSE or NULL is left
//     as it is (neither rewritten nor deleted) and its input row is not inserted.
//   * when_not_matched_by_source_delete_where is a filter over the dataset row's own columns,
//     unqualified (lance 12 rejects `target.` there); only unmatched rows where it is TRUE are
//     deleted.
// Keys compare by value and type; a null key never matches. Two source rows matching the same
// dataset row is an error (the update would be ambiguous). Updated and inserted rows are
// written as new fragments; replaced and deleted rows are marked deleted; one Update
// transaction commits everything (rebased over concurrent deletes of other rows; a retryable
// CommitConflict when a concurrent commit changed one of the same rows). With stable row ids,
// updated rows keep their ids and inserted rows get new ones.
// Safe to call from several threads or processes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/table/location.h"
#include "lance/table/commit.h"

namespace lance::table {

// kDelete removes a matched dataset row (and inserts nothing for it); kFail fails the whole
// operation (InvalidArgument, nothing committed) when any dataset row matches, as lance 12's
// WhenMatched::Delete and WhenMatched::Fail.
enum class WhenMatched { kUpdateAll, kDoNothing, kDelete, kFail };
enum class WhenNotMatched { kInsert, kDoNothing };
enum class WhenNotMatchedBySource { kKeep, kDelete };

struct MergeInsertParams {
  std::vector<std::string> on;  // key columns (top-level), at least one
  WhenMatched when_matched = WhenMatched::kUpdateAll;
  WhenNotMatched when_not_matched = WhenNotMatched::kInsert;
  WhenNotMatchedBySource when_not_matched_by_source = WhenNotMatchedBySource::kKeep;
  // Empty: no condition. Requires when_matched == kUpdateAll.
  std::string when_matched_update_where;
  // Empty: no condition. Requires when_not_matched_by_source == kDelete.
  std::string when_not_matched_by_source_delete_where;
  int64_t max_rows_per_file = 1024 * 1024;
  CommitOptions commit;
};

struct MergeInsertResult {
  CommitInfo commit;  // version 0, attempts 0 when nothing changed (nothing committed)
  uint64_t rows_updated = 0;
  uint64_t rows_inserted = 0;
  uint64_t rows_deleted = 0;
};

// Merges `batches` (all of `schema`, which must have the dataset's columns, by name, in any
// order, with the dataset's types) into the dataset at `uri`.
// Errors: InvalidArgument (schema mismatch, unknown key column, ambiguous match, nulls in a
// non-nullable column, a condition that does not parse or bind or is not boolean, a condition
// given with the action it would qualify switched off), NotSupported (2.0 datasets), NotFound, CommitConflict.
Result<MergeInsertResult> MergeInsert(const std::string& uri, const SchemaPtr& schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const MergeInsertParams& params);
Result<MergeInsertResult> MergeInsert(const TableLocation& location, const SchemaPtr& schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const MergeInsertParams& params);

}  // namespace lance::table
