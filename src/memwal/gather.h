// Row gathering for routing: the rows of a batch at given positions, in the given order.
#pragma once

#include <cstdint>
#include <vector>

#include "lance/columnar/array.h"

namespace lance::memwal::internal {

// Rows `rows` (ascending or not, in bounds) of `batch`; runs of consecutive rows are sliced and
// the pieces concatenated. Errors: InvalidArgument for a row out of range.
Result<RecordBatchPtr> TakeRows(const RecordBatchPtr& batch, const std::vector<int64_t>& rows);

}  // namespace lance::memwal::internal
