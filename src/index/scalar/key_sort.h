// Ordering training data as the reference's trainers do: values sorted in the index order
// (value.h), ties by row id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/index/scalar/scalar_index.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::index::scalar {

// The type of the training chunks (data.type, else the first chunk's). Errors:
// InvalidArgument (length mismatch with row_ids, chunks of different types, no type).
Result<DataTypePtr> TrainingValueType(const TrainingData& data);

// The values of `data` as one array. Errors: InvalidArgument (length mismatch with row_ids,
// chunks of different types, no type).
Result<ArrayPtr> ConcatTrainingValues(const TrainingData& data);

// Positions of `values` in index order, ties by row id (nulls first). Fixed-width keys are
// radix sorted on their order keys (below), byte strings compared on an 8-byte prefix first.
std::vector<int64_t> SortPermutation(const Array& values, const std::vector<uint64_t>& row_ids);

// True when `values` (fixed-width keys) is already in index order as it stands: no nulls, keys
// non-decreasing, row ids ascending (so ties are in row-id order). Checked in blocks, without a
// key per row: the sorted input (an id column) then needs no permutation at all.
bool InIndexOrder(const Array& values, const std::vector<uint64_t>& row_ids);
// The same over the chunks of `values` taken as one array.
bool InIndexOrder(const std::vector<ArrayPtr>& values, const std::vector<uint64_t>& row_ids);

// An order key (OrderKeys) with what travels with it (a row id or a position).
struct KeyRow {
  uint64_t key;
  uint64_t row;
};
// Sorts `v` by key, stable (equal keys keep their order): an LSD radix sort, 8 bits a pass,
// that skips the digits every key shares. With a pool (and enough keys) the two halves are
// sorted on two threads and merged.
void SortKeyRows(std::vector<KeyRow>& v, ThreadPool* pool = nullptr);
// Reorders each run of equal keys of sorted `v` by row where it is not in row order already.
void TiesByRow(std::vector<KeyRow>& v);

// Fills keys[i] with an unsigned integer whose order is the index order of element i of a
// fixed-width key array (value.h: ints by value, floats by total order, bools); the key of a
// null element is unspecified. Returns false, leaving keys unspecified, for byte strings.
bool OrderKeys(const Array& values, std::vector<uint64_t>* keys);
// Writes the values whose order keys are rows[i].key, i in [0, n), to dst (the type's byte
// width each), for the types whose key holds the value's bits exactly (integers, temporal
// types, float64). Returns false, writing nothing, for the others (bool, float16, float32:
// their keys go through double; byte strings).
bool ValuesFromOrderKeys(const DataType& type, const KeyRow* rows, int64_t n, uint8_t* dst);

// The smallest byte string greater than every string starting with `prefix` (LIKE 'p%' as a
// range); nullopt when there is none (prefix all 0xff).
std::optional<std::string> PrefixSuccessor(std::string prefix);

// The positions of `values` grouped by equal value (nulls are one group, the last), each
// group in position order, the others in the order of their first position; hashed on the
// order key or the bytes, so O(n) for any number of distinct values.
std::vector<std::vector<int64_t>> GroupEqualValues(const Array& values);

// The same grouping as one group number per position (nulls one group among the others,
// groups numbered in the order of their first position), with each group's first position
// and size: what a trainer needs to gather row ids in one pass over the positions.
struct ValueGroups {
  static constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> group_of;  // per position
  std::vector<int64_t> first;      // per group: its first position
  std::vector<int64_t> sizes;      // per group: its number of positions
};
ValueGroups GroupValues(const Array& values);
// out[g]: rows[i] for the positions i of group g, in position order, leaving out `skip`.
// REQUIRES: rows has groups.group_of.size() entries.
std::vector<std::vector<uint64_t>> GatherByGroup(const ValueGroups& groups, const uint64_t* rows,
                                                 uint64_t skip = UINT64_MAX);

// Schema metadata {key: value, ...} in the given order.
KeyValueMetadataPtr MakeMetadata(std::vector<std::pair<std::string, std::string>> pairs);

}  // namespace lance::index::scalar
