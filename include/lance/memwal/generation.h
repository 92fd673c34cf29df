// Flushed generations (mem_wal.md "Flushed MemTable"): a MemTable written as a small Lance
// dataset `_mem_wal/{shard}/{random8}_gen_{g}/`, and reading one back.
//
// Written as lance 12 does: the base table's data storage version, one fragment, rows in
// insert (WAL) order with the `_tombstone` column; for a primary-key table the older rows of a
// key repeated inside the generation hidden by a deletion vector on fragment 0 (the newest
// row, a tombstone too, stays), and the `_pk_index/` sidecar: page_data.lance (`values` = the
// key, `ids` = uint64 row offset, sorted by key, masked duplicates included) and
// page_lookup.lance (min / max / null_count / page_idx per page of 8192 values; schema
// metadata batch_size "8192", range_partitioned "false"), which lance 12's query() opens for
// every generation it reads (a composite key's `values` are Binary: the tuple encoding of
// primary_key.h), and `bloom_filter.bin` (bloom_filter.h) over every key.
//
// Maintained indexes (GenerationWriteOptions) are built over every row of the generation, the
// hidden duplicates and tombstones included: the deletion vector masks them for indexed reads
// too (mem_wal.md "Maintained indexes").
//
// A failed attempt leaves its directory behind, never referenced: a retry picks a new random
// name. Publishing the generation is the shard manifest's job (the writer's flush).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/index/scalar/create.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/io/object_store.h"
#include "lance/memwal/memtable.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/memwal/uuid.h"
#include "lance/table/snapshot.h"

namespace lance::memwal {

inline constexpr int64_t kPkIndexPageRows = 8192;

// A base-table index the MemWAL maintains (MemWalIndexDetails.maintained_indexes): flush builds
// an index of the same name and type over the generation's rows, under the generation's
// `_indices/{uuid}/` and recorded in its manifest, as lance 12 does (its planner then answers an
// indexed filter, or a full-text search, over the generation from it). Any scalar type
// (BTREE, BITMAP, INVERTED, ...) with the parameters the base index was built with (the
// INVERTED tokenizer, stop words and positions; the BTREE page size), and the IVF vector
// indexes (IVF_FLAT / _SQ / _PQ / _RQ, the HNSW kinds) as lance 12's flush builds them: an
// IVF_HNSW_SQ over the generation's rows alone (MaintainedIndexesOf sets its parameters).
struct MaintainedIndex {
  std::string name;    // the base index's name, e.g. "id_idx"
  std::string column;  // the top-level column it keys
  // type and parameters (index::scalar::OptionsOfIndex of the base's newest segment); the
  // name, commit and fragments are set by the flush. Default: a BTREE.
  index::scalar::CreateScalarIndexOptions options;
  // A vector index: how it is built in each generation (`options` unused).
  std::optional<index::vector::IvfBuildOptions> vector;
};

struct GenerationWriteOptions {
  std::string data_storage_version;  // the base table's ("2.1", "2.2"); empty: "2.2"
  std::vector<MaintainedIndex> maintained_indexes;
};

// The maintained indexes of `base` a flush builds (its MemWAL index details' maintained_indexes
// resolved to the base's scalar index of that name, with its type and parameters), and the
// names the base no longer has an index of (not built: lance 12 reads a generation without a
// BTREE it maintains by scanning it). None when the table has no MemWAL index. Errors:
// NotSupported (a vector index of a kind other than IVF_*; an index over several or nested
// columns), the base vector index's open errors, Corruption (undecodable details, unreadable index parameters).
struct MaintainedIndexes {
  std::vector<MaintainedIndex> built;
  std::vector<std::string> not_built;  // one line per name the base has no index of
};
Result<MaintainedIndexes> MaintainedIndexesOf(const table::Snapshot& base);

// Writes `contents` (a MemTable's Snapshot) as generation `generation` of `shard`; returns
// the entry for the shard manifest (path = directory name, stats as lance 12 records them).
// Errors: InvalidArgument (an empty MemTable), NotSupported (key types), IOError.
Result<FlushedGeneration> WriteGeneration(const std::shared_ptr<io::ObjectStore>& store,
                                          const std::string& root, const Uuid& shard,
                                          uint64_t generation, const MemTable::Contents& contents,
                                          const std::vector<std::string>& primary_key,
                                          const GenerationWriteOptions& options = {});

// The Lance dataset of a flushed generation.
Result<std::shared_ptr<table::Snapshot>> OpenGeneration(const std::shared_ptr<io::ObjectStore>& store,
                                                        const std::string& root, const Uuid& shard,
                                                        const FlushedGeneration& generation);

}  // namespace lance::memwal
