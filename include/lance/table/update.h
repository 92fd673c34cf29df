// UPDATE of Lance datasets: `SET col = expr [, ...] WHERE filter`.
//
// As lance 12's Update operation in "rewrite rows" mode: the rows matching the filter are
// read, their new values computed (expressions over the row's old values, lance/expr), and
// they are written as new fragments; the old rows are marked deleted (deletion files of the
// fragments they lived in; a fragment left empty is removed). With stable row ids the moved
// rows keep their ids. The commit rebases over concurrent deletes/updates of other rows and
// fails with a retryable CommitConflict when a concurrent commit changed one of the same rows.
// Safe to call from several threads or processes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/result.h"
#include "lance/table/location.h"
#include "lance/table/commit.h"

namespace lance::table {

struct UpdateParams {
  int64_t max_rows_per_file = 1024 * 1024;  // rows per new fragment
  CommitOptions commit;
};

struct UpdateResult {
  CommitInfo commit;  // version 0, attempts 0 when no row matched (nothing committed)
  uint64_t rows_updated = 0;
};

// `assignments`: {column, expression} pairs; columns are top-level, each at most once.
// `where`: a filter (empty: every row). Values are cast to the column's type (CAST rules).
// Errors: InvalidArgument (unknown column, bad expression, a null for a non-nullable column,
// a value that does not cast), NotSupported (2.0 datasets), NotFound, CommitConflict.
Result<UpdateResult> UpdateRows(const std::string& uri,
                                const std::vector<std::pair<std::string, std::string>>& assignments,
                                const std::string& where, const UpdateParams& params = {});
Result<UpdateResult> UpdateRows(const TableLocation& location,
                                const std::vector<std::pair<std::string, std::string>>& assignments,
                                const std::string& where, const UpdateParams& params = {});

}  // namespace lance::table
