// The merged read of a MemWAL table as a plan (mem_wal.md "Query Planning"): an LsmMerge root
// over one source node per source the read selected, newest first --
//
//   LsmMerge(primary key, filter, offset / limit, shards pruned, generations skipped as merged)
//     LsmSource: WAL tail of shard S (strong consistency), entries in memory
//     LsmSource: MemTable of shard S (strong, a live writer of this process: options.
//       live_writers), its rows as of planning, through its in-memory index of a column
//       the filter constrains (or every key's newest row)
//     LsmSource: generation g of shard S      <- the generation's own plan (Project <- Filter
//       Project <- [Filter] <- ScalarIndexLookup / FragmentScan   or its maintained index)
//     ...
//     LsmSource: the base table, version v
//       Project <- ... (the base's plan, its indexes)
//
// Execution streams: each source is read in turn, newest first, and a row is kept when no
// newer source held its key (a set of the keys seen so far: the keys of the WAL tail and the
// unmerged generations, never their rows). A generation's filtered rows come from its own
// plan (its maintained BTREE answers the filter), then its key column is read whole to hide
// the older rows its other keys replace (a newer row that fails the filter still hides an
// older one that passes: last write wins before the filter). Tombstones hide their key and are
// never returned. Append-only tables (no primary key) concatenate every source. Offset and
// limit count the merged rows. A filter that pins the primary key plans point lookups
// instead (lsm_lookup.h), the LsmMerge node then says so and has no source nodes.
//
// Planning reads the metadata (base manifest, shard manifests, the WAL tail, the generations'
// manifests); a source that vanishes under a running reader (garbage collection after a merge
// the plan did not see) surfaces as NotFound from Next(), and query::LsmScan plans again.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/lsm_read.h"
#include "lance/memwal/memtable.h"
#include "lance/query/plan.h"
#include "lance/table/snapshot.h"

namespace lance::query {

// One source of a merged read. Its input (generations and the base) is the source's own plan,
// a Project root yielding the source's rows with the output columns, the key columns and
// (generations) `_tombstone`.
class LsmSourceNode final : public PlanNode {
 public:
  enum class Source { kWalTail, kMemTable, kGeneration, kBase };
  struct Spec {
    Source source = Source::kBase;
    std::string shard;            // shard id (tail, generation)
    uint64_t generation = 0;      // generation number (0 = the base)
    std::string path;             // generation directory, base URI
    uint64_t version = 0;         // the Lance version read (generation, base)
    int64_t rows = 0;             // rows the source holds (after deletion vectors)
    std::vector<uint64_t> wal_positions;       // tail: the entries' positions, oldest first
    std::vector<RecordBatchPtr> tail_batches;  // tail: the rows, WAL order
    PlanNodePtr keys;  // generation with a filter: the plan reading its key column whole
    std::string note;  // appended to the Explain line (e.g. the index catch-up gap)
    // MemTable: the live writer's MemTable, the rows of it the read sees (its num_rows() at
    // planning), and the in-memory index the filter is answered from (column empty: every
    // key's newest row; the filter is then tested on each).
    std::shared_ptr<const memwal::MemTable> memtable;
    int64_t memtable_upto = 0;
    std::string index_column;
    std::string index_name;
    std::vector<memwal::ValueRange> ranges;
    std::string ranges_text;  // the ranges as the filter gave them, for Explain
    // The Lance dataset read (generation, base): what an LSM nearest-neighbour search
    // (lsm_nearest.h) plans its per-source searches over.
    std::shared_ptr<const table::Snapshot> snapshot;
  };
  LsmSourceNode(Spec spec, PlanNodePtr rows);
  Kind kind() const override { return Kind::kLsmSource; }
  std::string name() const override { return "LsmSource"; }
  std::string Describe() const override;
  const Spec& spec() const { return spec_; }
  // The plan of its rows (null for the WAL tail).
  const PlanNodePtr& rows() const { return rows_; }

 private:
  Spec spec_;
  PlanNodePtr rows_;
};

// Root: the merged rows of its sources (inputs: LsmSourceNode, newest first), as batches of
// `schema`.
class LsmMergeNode final : public PlanNode {
 public:
  struct Spec {
    std::string table;                      // display path of the base
    SchemaPtr table_schema;                 // the base's (the key columns' types)
    std::vector<std::string> primary_key;   // empty: append-only, no dedup
    SchemaPtr schema;                       // output
    std::shared_ptr<const Filter> filter;   // over the table schema (tail rows, lookups)
    int64_t offset = 0;
    std::optional<int64_t> limit;
    memwal::Consistency consistency = memwal::Consistency::kStrong;
    int64_t shards = 0;                     // shards listed
    std::vector<std::string> shards_pruned; // not read: the filter routes elsewhere
    int64_t skipped_merged = 0;             // generations covered by merged_generations
    // Of those, read for the index catch-up gap (mem_wal.md "Index catch-up": a base index
    // the filter uses lags them; their own indexes answer for the base fragments it misses).
    int64_t catchup_generations = 0;
    // Point lookups instead of sources: the keys the filter pins (a batch of the key
    // columns), read through query::LsmLookup with these options.
    RecordBatchPtr point_keys;
    memwal::LsmReadOptions lookup;
    std::shared_ptr<io::ObjectStore> store;
    std::string root;
  };
  LsmMergeNode(Spec spec, std::vector<PlanNodePtr> sources);
  Kind kind() const override { return Kind::kLsmMerge; }
  std::string name() const override { return "LsmMerge"; }
  std::string Describe() const override;
  const Spec& spec() const { return spec_; }

 private:
  Spec spec_;
};

// Plans the merged read of the MemWAL table at `root` (options: consistency, columns, filter,
// offset, limit). Errors: InvalidArgument (an unknown column, a filter that does not bind, a
// negative offset or limit), NotFound (a source removed while planning), IOError, Corruption.
Result<Plan> PlanLsmScan(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                         const memwal::LsmReadOptions& options = {});

// Runs a plan PlanLsmScan made (Plan::Execute does the same without stats); `stats` (may be
// null) is filled as the reader runs: the planning counts at once, the row counts when the
// reader reaches its end.
Result<std::unique_ptr<RecordBatchReader>> ExecuteLsmScan(const Plan& plan, const ExecOptions& options,
                                                          std::shared_ptr<memwal::LsmReadStats> stats);

}  // namespace lance::query
