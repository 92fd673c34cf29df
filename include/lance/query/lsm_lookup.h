// Point lookups by primary key on a MemWAL table (mem_wal.md "Query Planning": shard pruning,
// bloom-filter and primary-key-index pruning of flushed generations):
//
//   memwal::LsmReadOptions o;                       // strong: the unflushed WAL tail too
//   LANCE_ASSIGN_OR_RAISE(auto rows, query::LsmLookup(store, root, *keys, o, &stats));
//
// `keys` holds the primary-key columns (by name, the table's types; other columns ignored).
// For each distinct key, newest source first, the first source holding it answers:
//   1. only the shards the key routes to under each shard's own sharding spec (a shard whose
//      spec cannot route the key from its key columns alone is searched for every key);
//   2. (strong) the shard's WAL tail after replay_after_wal_entry_position, newest entry first
//      -- or, for a shard of one of options.live_writers, that writer's MemTables (their key
//      index: key -> newest row), storage not read;
//   3. its unmerged flushed generations, newest first: a generation whose bloom_filter.bin says
//      "not present" is skipped unread; otherwise its `_pk_index/` BTree gives the candidate row
//      positions, and only those rows are taken (deleted older duplicates are skipped);
//   4. the base table, through the query layer's scan (a BTree on the key is used when there is
//      one) -- only for the keys no newer source held.
// A key whose newest row is a tombstone is absent, as is a key no source holds. The result has
// one row per found key, in the order of the keys' first appearance in `keys`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/lsm_read.h"

namespace lance::query {

struct LsmLookupStats {
  int64_t keys = 0;                  // distinct keys asked for
  int64_t found = 0;                 // keys with a visible row
  int64_t shards_searched = 0;       // shards at least one key routed to
  int64_t shards_pruned = 0;         // shards no key routes to (not read at all)
  int64_t tail_entries = 0;          // WAL entries read (strong)
  int64_t generations_skipped = 0;   // generations the bloom filters ruled out for every key
  int64_t generations_probed = 0;    // generations whose _pk_index was searched
  int64_t generation_rows_taken = 0; // rows taken from generations
  int64_t keys_from_tail = 0;        // keys answered (row or tombstone) by the WAL tail
  int64_t memtables = 0;             // live writers' MemTables searched (options.live_writers)
  int64_t keys_from_memtables = 0;   // keys answered by them (their key index)
  int64_t keys_from_generations = 0; // ... by a flushed generation
  int64_t keys_from_base = 0;        // keys looked up in the base table
};

// options.filter must be empty. Errors: InvalidArgument (a filter, a table without a primary key, `keys` lacking a key column or with
// another type, a column of options.columns the table lacks), Corruption, IOError.
Result<RecordBatchPtr> LsmLookup(const std::shared_ptr<io::ObjectStore>& store,
                                 const std::string& root, const RecordBatch& keys,
                                 const memwal::LsmReadOptions& options = {},
                                 LsmLookupStats* stats = nullptr);

}  // namespace lance::query
