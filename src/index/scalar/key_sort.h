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

// Positions of `values` in index order, ties by row id (nulls first). Fixed-width keys are
// radix sorted on their order keys (below), byte strings compared on an 8-byte prefix first.
std::vector<int64_t> SortPermutation(const Array& values, const std::vector<uint64_t>& row_ids);

// Fills keys[i] with an unsigned integer whose order is the index order of element i of a
// fixed-width key array (value.h: ints by value, floats by total order, bools); the key of a
// null element is unspecified. Returns false, leaving keys unspecified, for byte strings.
bool OrderKeys(const Array& values, std::vector<uint64_t>* keys);

// The smallest byte string greater than every string starting with `prefix` (LIKE 'p%' as a
// range); nullopt when there is none (prefix all 0xff).
std::optional<std::string> PrefixSuccessor(std::string prefix);

// The positions of `values` grouped by equal value (nulls are one group), each group in
// position order, groups in the order of their first position; hashed on the order key or
// the bytes, so O(n) for any number of distinct values.
std::vector<std::vector<int64_t>> GroupEqualValues(const Array& values);

// Schema metadata {key: value, ...} in the given order.
KeyValueMetadataPtr MakeMetadata(std::vector<std::pair<std::string, std::string>> pairs);

}  // namespace lance::index::scalar
