// Newer sources hide older rows of the same primary key in the LSM searches (lsm_nearest.cc,
// lsm_text_search.cc): the keys a source holds, and the rows of an older source no newer one
// replaced.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/memwal/primary_key.h"

namespace lance::query::internal {

using KeySet = std::unordered_set<std::string>;

// Inserts the encoded key of every row of `batches` into `keys`.
Status AddKeys(const memwal::PrimaryKeyEncoder& enc, const std::vector<RecordBatchPtr>& batches, KeySet* keys);

// The rows of `rows` whose key is not in `newer`, ascending (all of them without an encoder:
// an append-only table); each kept row's encoded key appended to `kept_keys` when given.
Result<std::vector<int64_t>> UnreplacedRows(const memwal::PrimaryKeyEncoder* enc, const RecordBatch& rows,
                                            const KeySet& newer, std::vector<std::string>* kept_keys = nullptr);

// Rows `keep` (ascending) of `rows`: the batch itself when they are all of it.
Result<RecordBatchPtr> KeptRows(const RecordBatch& rows, const std::vector<int64_t>& keep);

}  // namespace lance::query::internal
