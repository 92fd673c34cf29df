// Remapping an IVF vector index after a compaction moved its rows (no stable row ids), as lance
// 12's compaction does: a new segment whose auxiliary.idx holds, partition by partition, the
// rows that are still there at their new addresses (their stored vectors or codes unchanged,
// in the same order; the IVF partition table rewritten), with the same centroids (index.idx
// copied). Lance 12 may also join a partition left too small; this library keeps every
// partition (an index with fewer rows in one is as valid).
//
// IVF_FLAT, IVF_SQ, IVF_PQ, IVF_RQ and the HNSW kinds are remapped (RQ codes, packed per
// partition in 32-row batches, unpacked and packed again over the kept rows; their factors
// kept). An HNSW segment's graphs are over partition positions, which the dropped rows shift:
// as lance 12 does, each partition's graph is built anew over its kept rows (hnsw_rebuild.h),
// with the old graphs' parameters; lance 12's levels are random, so the graphs are not its
// graphs, only graphs of the same rows.
#pragma once

#include <memory>
#include <vector>

#include "lance/core/result.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/remap.h"
#include "lance/table/manifest.h"

namespace lance::index::vector {

// Whether a compaction remaps `info` here (an IVF_FLAT, IVF_SQ, IVF_PQ, IVF_RQ or IVF_HNSW_*
// index by its details).
bool RemappedOnCompaction(const table::IndexInfo& info);

// Writes the remapped copy of the segment in `from` into `to`; returns the files written.
// Errors: NotSupported (an index kind or layout not remapped here), Corruption, IOError.
Result<std::vector<table::IndexFileInfo>> RemapIvfIndex(const std::shared_ptr<IndexStore>& from, IndexStore& to,
                                                        const scalar::RowAddressMap& map);

}  // namespace lance::index::vector
