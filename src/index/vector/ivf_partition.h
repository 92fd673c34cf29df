// IvfPartition: one IVF partition's storage as a search reads it (IvfIndex::Partition).
//
// An index opened by partition (IvfIndex::OpenByPartition) keeps each partition as its own
// IndexCache entry, charged MemoryBytes(): a segment larger than the cache keeps the partitions
// its queries probe most (least recently used leave first), as lance 12's index cache keys
// partitions. A search holds the partitions it probes for its duration, so an eviction never
// frees data in use. An index read whole (IvfIndex::Open) holds every partition itself.
#pragma once

#include <cstdint>
#include <vector>

#include "index/vector/hnsw.h"

namespace lance::index::vector {

struct IvfPartition {
  std::vector<uint64_t> row_ids;           // the partition's rows, in stored order
  std::vector<uint8_t> codes;              // IVF_PQ / IVF_HNSW_PQ: row-major rows x num_sub_vectors
  std::vector<uint8_t> transposed_codes;   // IVF_PQ: sub-vector-major (lance's layout, the scan's)
  std::vector<float> vectors;              // IVF_FLAT / IVF_HNSW_FLAT: rows x dim (cosine: normalised)
  std::vector<uint8_t> binary_vectors;     // hamming IVF_FLAT: rows x dim
  std::vector<uint8_t> sq_codes;           // IVF_SQ / IVF_HNSW_SQ: rows x dim
  HnswGraph graph;                         // IVF_HNSW_*: the partition's graph

  size_t size() const { return row_ids.size(); }
  int64_t MemoryBytes() const {
    size_t n = sizeof(IvfPartition) + row_ids.size() * sizeof(uint64_t) + codes.size() +
               transposed_codes.size() + vectors.size() * sizeof(float) + binary_vectors.size() +
               sq_codes.size();
    for (const HnswGraph::Level& l : graph.levels) {
      n += (l.starts.size() + l.ids.size() + l.nodes.size()) * sizeof(uint32_t) + l.distances.size() * sizeof(float);
    }
    return static_cast<int64_t>(n);
  }
};

}  // namespace lance::index::vector
