// Ordering training data as the reference's trainers do: values sorted in the index order
// (value.h), ties by row id.
#pragma once

#include <cstdint>
#include <vector>

#include "lance/index/scalar/scalar_index.h"

namespace lance::index::scalar {

// The values of `data` as one array. Errors: InvalidArgument (length mismatch with row_ids,
// chunks of different types, no type).
Result<ArrayPtr> ConcatTrainingValues(const TrainingData& data);

// Positions of `values` in index order (stable: ties keep row-id order).
std::vector<int64_t> SortPermutation(const Array& values, const std::vector<uint64_t>& row_ids);

// Schema metadata {key: value, ...} in the given order.
KeyValueMetadataPtr MakeMetadata(std::vector<std::pair<std::string, std::string>> pairs);

}  // namespace lance::index::scalar
