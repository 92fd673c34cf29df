// k-nearest-neighbour search over a MemWAL table's LSM (mem_wal.md "Query Planning": vector
// search over base + flushed generations + the MemTable), as lance 12's
// query().nearestTo(...) over such a table answers:
//
//   * the sources are the merged read's (PlanLsmScan): each shard's WAL tail (strong
//     consistency: the MemTable's rows, from storage, so any process sees them), each unmerged
//     flushed generation, the base;
//   * each source is searched on its own: the WAL tail exactly (its newest row per key,
//     tombstones out), a generation through its maintained vector index (lance 12's flush
//     builds an IVF_HNSW_SQ in each; flat search where it has none; its deletion vector hides
//     its older duplicates), the base through its index; as lance 12 does, a source whose rows
//     newer sources may replace gives 2k candidates (k otherwise), and the base's candidates
//     are re-ranked by exact distance (refine factor 1, whatever factor the query gives)
//     whenever newer sources exist or the query asks to refine, so its distances compare with
//     the tail's;
//   * a candidate whose key a newer source holds (any row there: a tombstone or a row that
//     fails the filter included) is dropped, even when it is nearer than the newer row: last
//     write wins before the ranking. A source left with fewer than k survivors searches again,
//     deeper (up to k + the keys newer sources hold), where lance 12 comes up short;
//   * then one top k over every source's survivors, nearest first (ties: newer source first).
//
// Distances are each source's: exact for the tail and a refined base; a generation's are its
// index's (its SQ codes', as lance 12 reports them) unless its search is exact. Append-only
// tables (no primary key) drop nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/lsm_read.h"
#include "lance/query/nearest.h"

namespace lance::query {

struct LsmNearestStats {
  int64_t sources = 0;     // sources searched (WAL tails, generations, the base)
  int64_t candidates = 0;  // rows the per-source searches returned
  int64_t replaced = 0;    // of those, dropped because a newer source holds their key
  int64_t searches = 0;    // per-source searches run (a source whose candidates were replaced
                           // searches again, deeper)
  // A newer generation's keys are probed, never read: bloom filter tests, and _pk_index
  // searches of the keys its bloom filter may hold.
  int64_t bloom_tests = 0;
  int64_t pk_index_searches = 0;
};

// The k rows nearest `nearest.query` in `nearest.column` over the LSM of the MemWAL table at
// `root`: `options.columns` (default: the base schema's) then `_distance`, nearest first.
// `options.consistency` chooses the sources; `options.filter` (optional) is applied before the
// search in every source to the newest row of each key (a newer row failing it still hides an
// older one passing it); `options.offset` / `limit` must be unset (k is the limit).
// Errors: InvalidArgument (an unknown column, not a vector column, a bad query dimension, a
// filter that does not bind, offset / limit given, k = 0), IOError, Corruption.
Result<std::vector<RecordBatchPtr>> LsmNearest(const std::shared_ptr<io::ObjectStore>& store,
                                               const std::string& root, const memwal::LsmReadOptions& options,
                                               const NearestOptions& nearest, LsmNearestStats* stats = nullptr);

}  // namespace lance::query
