// LSM reads of a MemWAL table (mem_wal.md "Reader Consistency", "Query Planning"): the base
// table + every shard's flushed generations not yet merged (+ the unflushed WAL tail for
// strong consistency), last-write-wins by primary key.
//
// Freshness within a shard: the base is generation 0, flushed generation g ranks g, the WAL
// tail ranks above every flushed generation (in WAL order). Generations with
// g <= merged_generations[shard] are covered by the base and never read. Inside a generation
// the deletion vector already hid older duplicates; a key whose newest row is a tombstone is
// absent. Shards are disjoint by key (the sharding spec guarantees it), so the merge is one
// map over all shards. Append-only tables (no primary key) concatenate every source.
//
// Strong consistency here is from ANY process: the tail is read from storage (entries after
// replay_after_wal_entry_position, sentinels skipped), which holds every acknowledged write --
// a live writer's in-memory rows included, since it acknowledges only durable rows.
//
// The read itself is the query layer's (query::LsmScan, lance/query/lsm_scan.h: the sources
// read through its scanner, the filter and projection pushed into the base scan, the newer
// sources read through their own plans, newest first, deduplicated by a set of the keys seen:
// lance/query/lsm_plan.h); this header holds its options and what it counts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/index_details.h"
#include "lance/table/snapshot.h"

namespace lance::memwal {

class MemWalWriter;

enum class Consistency { kEventual, kStrong };

struct LsmReadOptions {
  Consistency consistency = Consistency::kStrong;
  std::vector<std::string> columns;  // output columns (empty: the base schema's)
  // A SQL-like condition over the table's columns (lance/expr), applied to each key's newest
  // row: a newer row that fails it hides an older one that passes. Pushed down into the base
  // scan (its scalar indexes answer it there). Empty: every visible row. Point lookups
  // (query::LsmLookup) do not take one.
  std::string filter;
  // Merged rows to skip, then at most `limit` (query::LsmScan / PlanLsmScan; in the merged
  // read's order: the WAL tail, the generations newest first, then the base).
  int64_t offset = 0;
  std::optional<int64_t> limit;
  // Let the base's and each generation's scalar indexes answer the filter (the query layer's
  // ScanOptions::use_index); false: every row of each source is filtered (the same rows).
  bool use_index = true;
  // Writers of this process (memwal_writer.h; the caller keeps them alive for the read): at
  // strong consistency the shard of each is read from its MemTables -- the rows acknowledged
  // so far, through the MemTables' in-memory indexes when the filter constrains an indexed
  // column (use_index) -- instead of replaying the shard's WAL tail from storage. A writer
  // fenced by a newer one (its epoch below the shard manifest's) is not used: its shard's tail
  // is read from storage. A reader in another process has none: it replays the WAL tail.
  std::vector<const MemWalWriter*> live_writers;
};

struct LsmReadStats {
  int64_t base_rows = 0;         // base rows the (filtered) base scan returned
  int64_t generations = 0;       // flushed generations read
  int64_t generation_rows = 0;   // their rows after deletion vectors
  int64_t skipped_merged = 0;    // generations covered by merged_generations
  int64_t tail_entries = 0;
  int64_t tail_rows = 0;
  // Live writers' MemTables read (live_writers), the candidate rows their in-memory indexes
  // (or key indexes) offered, and how many of them answered through an in-memory index.
  int64_t memtables = 0;
  int64_t memtable_candidates = 0;
  int64_t memtables_indexed = 0;
  int64_t result_rows = 0;
  // A filter that pins the primary key (`id = 5`, `id IN (1, 2)` as a top-level AND
  // conjunct, on every column of a composite key) is answered by point lookups of those keys
  // (query::LsmLookup): how many keys (0 on the scan path).
  int64_t point_keys = 0;
  // Shards not read at all: none of the pinned keys routes there (point lookups), or, on the
  // scan path, the filter pins the sharding spec's source columns (all of them key columns) to
  // values that route elsewhere (e.g. `a = 2` under bucket(a, 4) with primary key (a, b)).
  int64_t shards_pruned = 0;
};

// The MemWAL index details of a base version, NotFound when it has none.
Result<MemWalIndexDetails> ReadMemWalDetails(const table::Snapshot& base);

}  // namespace lance::memwal
