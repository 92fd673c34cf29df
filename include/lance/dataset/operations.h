// Parameters and results of the dataset operations (dataset.h) that change rows or columns.
// Update is dataset/'s own; merge-insert, add columns, alter types and compaction still run
// in table/ (their semantics are documented there) and share its types until they move up.
#pragma once

#include "lance/table/compaction.h"
#include "lance/table/merge_insert.h"
#include "lance/table/schema_evolution.h"
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
  table::CommitInfo commit;  // version 0, attempts 0 when no row matched (nothing committed)
  uint64_t rows_updated = 0;
};
using MergeInsertParams = table::MergeInsertParams;
using MergeInsertResult = table::MergeInsertResult;
using ColumnExpression = table::ColumnExpression;
using CompactionOptions = table::CompactionOptions;
using CompactionResult = table::CompactionResult;

}  // namespace lance::dataset
