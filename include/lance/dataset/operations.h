// Parameters and results of the dataset operations (dataset.h) that change rows or columns,
// and what each does. Every operation reads rows of the handle's version through the query
// layer and writes through the table layer's fragment writer and commit path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/table/commit.h"

namespace lance::dataset {

// UPDATE (Dataset::Update): `SET col = expr [, ...] WHERE filter`, as lance 12's Update in
// "rewrite rows" mode: the rows the filter selects (every live row for an empty filter) are
// read through the query layer, their new values computed (expressions over the row's old
// values, cast to the column's type), written as new fragments, and the old rows marked
// deleted (a fragment left empty is removed). With stable row ids the moved rows keep their
// ids. The commit rebases over concurrent deletes / updates of other rows and fails with a
// retryable CommitConflict when a concurrent commit changed one of the same rows.
// Errors: InvalidArgument (unknown or repeated column, bad expression, a null for a
// non-nullable column, a value that does not cast), NotSupported (2.0 datasets),
// CommitConflict.
struct UpdateParams {
  int64_t max_rows_per_file = 1024 * 1024;  // rows per new fragment
  table::CommitOptions commit;               // null handler: the handle's
};

struct UpdateResult {
  table::CommitInfo commit;  // a version even when no row matched, as lance 12 commits one
  uint64_t rows_updated = 0;
};
// --- merge-insert (Dataset::MergeInsert) ---------------------------------------------------
// Merge-insert (upsert), as lance 12's merge_insert.
//
// Source rows are joined to the dataset's rows on the key columns (`on`) with an in-memory
// hash join (the source side is hashed; the key columns of the handle's version are scanned once through the query layer, with
// _rowaddr). Then:
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
// The input has the dataset's columns, by name, in any order, with the dataset's types; it
// may lack columns other than the keys (a partial-schema source, as lance 12): an updated row
// keeps the dataset row's values of those columns, an inserted row gets nulls there (so with
// when_not_matched kInsert they must be nullable), and the update condition's `source.` names
// only the input's columns.
// Errors: InvalidArgument (schema mismatch, a missing key column or non-nullable column
// for inserts, unknown key column, ambiguous match, nulls in a
// non-nullable column, a condition that does not parse or bind or is not boolean, a condition
// given with the action it would qualify switched off), NotSupported (2.0 datasets),
// CommitConflict.
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
  table::CommitOptions commit;  // null handler: the handle's
};

struct MergeInsertResult {
  table::CommitInfo commit;  // a version even when nothing changed, as lance 12 commits one
  uint64_t rows_updated = 0;
  uint64_t rows_inserted = 0;
  uint64_t rows_deleted = 0;
};

// --- schema evolution (Dataset::AddColumns ... AlterColumnType) ----------------------------
// Schema evolution of Lance datasets: drop, rename and alter columns, add new columns.
//
// Dropping top-level columns, renaming and changing nullability rewrite no data: they
// commit a Project transaction carrying the new schema (field ids unchanged; data files keep
// the columns of dropped fields, which readers ignore, until compaction rewrites them).
// Adding columns writes one new data file per fragment holding only the new fields (fresh
// field ids, above every id any schema or data file of the dataset used) and commits a Merge
// transaction listing every fragment with its new file; existing data files are never
// rewritten. As lance 12 does. Dropping a field inside a struct rewrites that struct (see
// DropColumns).
//
// Paths name top-level columns ("score") or nested struct fields ("meta.source"; rename,
// nullability and drop). Every operation builds its transaction on the handle's version and commits through the commit loop of commit.h (a concurrent writer
// makes it rebase or fail with CommitConflict). Safe to call from several threads or processes.
// DropColumns: removes the fields `paths` (with their children) from the schema: top-level
// columns ("a") by a Project (nothing rewritten), fields inside structs ("s.c", "s.t.d") by
// rewriting each struct concerned without them (one new data file per fragment, new field ids
// for the struct and its remaining children, in its place in the schema; a Merge). lance 12
// drops nested fields by schema alone; this library's reader reads struct columns whole from
// their files, so it needs the narrower struct stored. Both commit in one transaction.
// Errors: InvalidArgument (unknown path, nothing would be left, the last child of a struct),
// NotSupported (a path through a list or map, 2.0 datasets when a struct must be rewritten),
// CommitConflict.
//
// AlterColumns: renames fields and/or changes their nullability. Making a field non-nullable
// scans it and refuses (InvalidArgument) when it holds a null. Errors: InvalidArgument
// (unknown path, a name already used by a sibling, an empty name), CommitConflict.
struct ColumnAlteration {
  std::string path;                   // the field to change
  std::optional<std::string> rename;  // its new name (same parent)
  std::optional<bool> nullable;       // new nullability
};

// AlterColumnType: changes the type of top-level column `column` to `type_name` (a CAST type
// of lance/expr, e.g. "bigint", "double", "string"): its values are cast (CAST rules; a value
// that does not convert fails the whole operation) and written as one new data file per
// fragment under a new field id, in a Merge transaction, as lance 12 does; name, position and
// nullability stay. Errors: InvalidArgument (unknown column or type, a value that does not
// cast), NotSupported (nested columns, 2.0 datasets), CommitConflict.
//
// AddColumns: columns computed from expressions over each fragment's rows (see
// lance/expr/ast.h), e.g. {"total", "price * quantity"}. Rows already deleted get nulls. The
// new fields are nullable. Errors: InvalidArgument (bad expression, name already used),
// NotSupported (2.0 datasets), CommitConflict.
struct ColumnExpression {
  std::string name;
  std::string expression;
};
// AddNullColumns: the fields of a schema as columns holding only nulls, without writing data:
// a Merge transaction with every fragment unchanged and the schema extended (fresh field ids),
// as lance 12's all-null add. Errors: InvalidArgument (no field, a name already used, a field
// anywhere in a new column's tree that is not nullable), NotSupported (a legacy 0.1 dataset,
// as lance 12), CommitConflict.
//
// AddColumnsFromData: the columns of the input, whose rows line up with the dataset's live
// rows in scan order (row i of the input belongs to the i-th row a full scan returns).
// Errors: InvalidArgument (row count differs from the dataset's, name already used),
// NotSupported, CommitConflict.
//
// AddColumnsJoined: the columns of the input other than the key columns `on` (top-level
// columns of both the input and the dataset), joined on them: each live dataset row gets the
// values of the input row whose keys equal its own (compared by value as canonical JSON, so an
// int32 key matches an int64 one), nulls when no input row has them; a null key matches
// nothing and input rows matching no dataset row are ignored. The new fields are nullable.
// Errors: InvalidArgument (a key column missing on either side, two input rows with the same
// key, no column besides the keys, a name already used), NotSupported, CommitConflict.

// --- compaction (Dataset::Compact) ---------------------------------------------------------
// Compaction of Lance datasets: merges runs of small fragments into fragments of up to
// `target_rows_per_fragment` rows and materializes deletions (rewrites fragments with many
// deleted rows without them), as lance 12's compact_files.
//
// Plan: fragments are taken in manifest order; a fragment is a candidate when it holds fewer
// live rows than the target or when more than `materialize_deletions_threshold` of its rows
// are deleted. Adjacent candidates form a group, closed once it reaches the target; a group
// of one fragment without deletions is left alone, and a group never mixes fragments covered
// by different sets of indexes. Each group's live rows are rewritten into new fragments and
// one Rewrite transaction replaces the groups.
// Stable row ids: rows keep their ids and their created-at / last-updated-at versions, and
// each index's fragment bitmap lists the new fragments instead of the old ones.
// Otherwise indexes are not remapped: their fragment bitmaps stay as they were, so readers
// (lance 12 included) mask the replaced fragments' rows out of index results and search the
// new fragments without the index until it is optimized (what lance 12 does for an index
// it does not remap).
// The commit is refused with a retryable CommitConflict when a concurrent commit deleted
// rows from, updated, or rewrote a fragment being compacted (transaction.md).
// Compact errors: InvalidArgument (target <= 0), NotSupported (2.0 datasets), CommitConflict.
struct CompactionOptions {
  int64_t target_rows_per_fragment = 1024 * 1024;
  bool materialize_deletions = true;
  double materialize_deletions_threshold = 0.1;  // fraction of deleted rows
  table::CommitOptions commit;  // null handler: the handle's
};

struct CompactionResult {
  table::CommitInfo commit;  // version 0, attempts 0 when there was nothing to compact
  uint64_t fragments_removed = 0;
  uint64_t fragments_added = 0;
  uint64_t rows_rewritten = 0;
  // Files the new version no longer references (data and deletion files of the removed
  // fragments) and data files it adds, as lance 12's CompactionMetrics count them.
  uint64_t files_removed = 0;
  uint64_t files_added = 0;
};

// Errors: InvalidArgument (target <= 0), NotSupported (2.0 datasets), NotFound,
// CommitConflict.
}  // namespace lance::dataset
