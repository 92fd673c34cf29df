// The MemWAL system index of the base table (mem_wal.md "MemWAL Index"): one IndexMetadata
// named "__lance_mem_wal" with no fields, no fragment bitmap and no files, whose
// index_details (type URL "/lance.table.MemWalIndexDetails") hold the configuration and the
// global progress inline: sharding specs, maintained indexes, writer config defaults, merged
// generations per shard (updated atomically with merge commits), index catch-up, and optional
// shard snapshots.
//
// This header is the codec and the model; putting it into (and taking it out of) a base
// manifest's index section goes through the table layer. Plain values, pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/result.h"
#include "lance/memwal/sharding.h"
#include "lance/memwal/uuid.h"

namespace lance::memwal {

inline constexpr std::string_view kMemWalIndexName = "__lance_mem_wal";
inline constexpr std::string_view kMemWalDetailsTypeUrl = "/lance.table.MemWalIndexDetails";

struct MergedGeneration {
  Uuid shard_id;
  uint64_t generation = 0;

  friend bool operator==(const MergedGeneration&, const MergedGeneration&) = default;
};

struct IndexCatchup {
  std::string index_name;
  std::vector<MergedGeneration> caught_up_generations;

  friend bool operator==(const IndexCatchup&, const IndexCatchup&) = default;
};

struct MemWalIndexDetails {
  int64_t snapshot_ts_millis = 0;
  uint32_t num_shards = 0;
  std::optional<std::string> inline_snapshots;  // Lance file bytes, one row per shard
  std::vector<ShardingSpec> sharding_specs;
  std::vector<std::string> maintained_indexes;
  std::vector<MergedGeneration> merged_generations;
  std::vector<IndexCatchup> index_catchup;
  std::map<std::string, std::string> writer_config_defaults;
  std::string unknown_fields;  // serialized fields this implementation does not know

  // merged_generations[shard], 0 when the shard has merged nothing.
  uint64_t MergedGenerationOf(const Uuid& shard) const;
  // index_catchup of `index` for `shard`: nullopt when the index or the shard is absent (the
  // spec reads that as "caught up" for planning; the reference proto as "unknown, keep").
  std::optional<uint64_t> CaughtUpGenerationOf(std::string_view index, const Uuid& shard) const;
  // index_catchup after a merge of `generation` of `shard` into the base (call before moving
  // merged_generations): the merge's new fragments are outside every base index, so each
  // maintained index that was caught up (absent, or at the shard's merged generation) now covers
  // only up to that previous merged generation. A merge that wrote no rows (deletes only) leaves
  // a caught-up index caught up, at `generation`.
  void RecordMerge(const Uuid& shard, uint64_t generation, bool wrote_rows);
  // index_catchup after the maintained index `index` was rebuilt over every fragment of a base version whose
  // merged_generations were `covered`: per shard the index covers `covered`'s generation; a
  // shard it covers up to its current merged generation is dropped (the spec's "caught up").
  void RecordIndexRebuilt(std::string_view index, const std::vector<MergedGeneration>& covered);
  // The spec with `spec_id`, or null.
  const ShardingSpec* FindSpec(uint32_t spec_id) const;

  friend bool operator==(const MemWalIndexDetails&, const MemWalIndexDetails&) = default;
};

// What lancedb's setLsmWriteSpec commits for `spec` (num_shards = num_buckets for bucket, 1 for
// unsharded, unset for identity), with the given maintained indexes and defaults.
MemWalIndexDetails DetailsForSpec(ShardingSpec spec, std::vector<std::string> maintained_indexes,
                                  std::map<std::string, std::string> writer_config_defaults);

// Deterministic protobuf bytes (map entries sorted by key).
std::string EncodeMemWalIndexDetails(const MemWalIndexDetails& d);
// Errors: Corruption (undecodable protobuf, a shard id that is not 16 bytes).
Result<MemWalIndexDetails> DecodeMemWalIndexDetails(std::string_view bytes, std::string_view what);

// A MergedGeneration message alone: what an Update transaction lists in compacted_sstables
// (lance's CompactedSsTable has the same fields).
std::string EncodeMergedGeneration(const MergedGeneration& g);

// One line of JSON for tools and tests.
std::string MemWalIndexDetailsToJson(const MemWalIndexDetails& d);

}  // namespace lance::memwal
