// Newer sources hide older rows of the same primary key in the LSM searches (lsm_nearest.cc,
// lsm_text_search.cc): the keys the newer sources hold, and the rows of an older source no newer
// one replaced.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/index/scalar/scalar_index.h"
#include "lance/memwal/bloom_filter.h"
#include "lance/memwal/primary_key.h"
#include "lance/table/snapshot.h"

namespace lance::query::internal {

using KeySet = std::unordered_set<std::string>;

// Inserts the encoded key of every row of `batches` into `keys`.
Status AddKeys(const memwal::PrimaryKeyEncoder& enc, const std::vector<RecordBatchPtr>& batches, KeySet* keys);

// The keys of the sources a search has read so far (newest first), which hide the rows of the
// older sources: unflushed rows (a WAL tail, a MemTable) as a set in memory; a flushed
// generation through its primary-key sidecars (mem_wal.md: the bloom filter, then the
// _pk_index BTree answer cross-generation membership), so its key column is never read whole
// -- unless it has no _pk_index, or a key is null, when its keys are read once and kept.
class NewerKeys {
 public:
  // `enc` null: an append-only table (no key replaces another).
  explicit NewerKeys(const memwal::PrimaryKeyEncoder* enc) : enc_(enc) {}
  // The keys of every row of `batches`.
  Status AddRows(const std::vector<RecordBatchPtr>& batches);
  // The keys of flushed generation `snapshot` of `rows` rows, its sidecars read now (the
  // key columns `pk` read if it has no _pk_index). Errors: a sidecar's (Corruption, IOError).
  Status AddGeneration(const std::shared_ptr<const table::Snapshot>& snapshot, int64_t rows,
                       const std::vector<std::string>& pk);
  bool empty() const { return bound_ == 0; }
  // At most this many distinct keys are held.
  uint64_t bound() const { return bound_; }
  // Whether a newer source holds the key of row `row` of `key_columns` (encoded as `key`).
  Result<bool> Holds(const std::vector<ArrayPtr>& key_columns, int64_t row, const std::string& key) const;
  // Sidecar probes made: bloom filter tests, and _pk_index searches (bloom positives).
  int64_t bloom_tests() const { return bloom_tests_; }
  int64_t index_searches() const { return index_searches_; }

 private:
  struct Generation {
    std::shared_ptr<const table::Snapshot> snapshot;
    std::optional<memwal::PrimaryKeyBloomFilter> bloom;  // none: every key goes to the index
    std::shared_ptr<index::scalar::ScalarIndex> pk_index;  // none: `whole` holds its keys
    std::vector<std::string> pk;
    mutable std::optional<KeySet> whole;
  };
  Status LoadWhole(const Generation& g) const;

  const memwal::PrimaryKeyEncoder* enc_;
  KeySet memory_;
  std::vector<Generation> generations_;
  uint64_t bound_ = 0;
  mutable int64_t bloom_tests_ = 0, index_searches_ = 0;
};

// The rows of `rows` whose key `newer` does not hold, ascending (all of them without an
// encoder: an append-only table); each kept row's encoded key appended to `kept_keys` when
// given.
Result<std::vector<int64_t>> UnreplacedRows(const memwal::PrimaryKeyEncoder* enc, const RecordBatch& rows,
                                            const NewerKeys& newer, std::vector<std::string>* kept_keys = nullptr);

// Rows `keep` (ascending) of `rows`: the batch itself when they are all of it.
Result<RecordBatchPtr> KeptRows(const RecordBatch& rows, const std::vector<int64_t>& keep);

}  // namespace lance::query::internal
