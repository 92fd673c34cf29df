// Ordering training data as the reference's trainers do: values sorted in the index order
// (value.h), ties by row id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/index/scalar/scalar_index.h"

namespace lance::index::scalar {

// The values of `data` as one array. Errors: InvalidArgument (length mismatch with row_ids,
// chunks of different types, no type).
Result<ArrayPtr> ConcatTrainingValues(const TrainingData& data);

// Positions of `values` in index order (stable: ties keep row-id order).
std::vector<int64_t> SortPermutation(const Array& values, const std::vector<uint64_t>& row_ids);

// The smallest byte string greater than every string starting with `prefix` (LIKE 'p%' as a
// range); nullopt when there is none (prefix all 0xff).
std::optional<std::string> PrefixSuccessor(std::string prefix);

// Schema metadata {key: value, ...} in the given order.
KeyValueMetadataPtr MakeMetadata(std::vector<std::pair<std::string, std::string>> pairs);

}  // namespace lance::index::scalar
