// The vector indexes of a table version: which index answers a column, and opening it.
//
// This is what the index layer gives the query layer for k-NN: the index formats and the
// per-index search (IvfIndex::Search: partition probing, PQ / flat distances, candidates with
// their distances, honouring the keep predicate the caller passes). Planning -- refine,
// unindexed fragments, filters, deletions, the merge -- is the query layer's
// (lance/query/planner.h, ScanOptions::nearest).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "lance/core/result.h"
#include "lance/index/index_cache.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"

namespace lance::index::vector {

// The first vector index (lance.index.pb.VectorIndexDetails) of the field with Lance id
// `field_id` in the manifest's index list, or null.
const table::IndexInfo* FindVectorIndex(const table::Manifest& manifest, int32_t field_id);

// The metric the vector index `info` ranks by, as its manifest entry's details record it
// (VectorIndexDetails.metric_type), without opening the index; nullopt when the entry holds
// no details value or one that does not parse (then only the index file knows).
std::optional<linalg::DistanceType> MetricOfDetails(const table::IndexInfo& info);

// The index `info` of the table at `location`, opened by partition (IvfIndex::OpenByPartition
// over its IndexStore: a partition is read the first time a search probes it).
// Index directories never change once committed, so the opened index is kept in `cache`
// (by store and directory, charged its MemoryBytes(): centroids, quantizer, layout) and each
// partition a search reads is an entry of its own in the same cache: the queries sharing that
// cache open the index once, and a segment larger than the cache keeps its hot partitions. A
// null cache opens it every call (partitions kept by a private cache of the index's store).
// Thread-safe. Errors: as IvfIndex::Open.
Result<std::shared_ptr<const IvfIndex>> OpenVectorIndex(const std::shared_ptr<IndexCache>& cache,
                                                        const table::TableLocation& location,
                                                        const table::IndexInfo& info);

}  // namespace lance::index::vector
