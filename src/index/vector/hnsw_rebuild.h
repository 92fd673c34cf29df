// Writing the index.idx of an IVF_HNSW_* index: at create-index (ivf_builder.cc), and when an
// optimize added rows to its partitions or a compaction dropped and re-addressed them. Lance 12
// does not patch a graph in either case: its HNSW remap and its incremental builder both build
// each partition's graph anew over the partition's new storage (rust/lance-index
// vector/hnsw/builder.rs `remap`, rust/lance index/vector/builder.rs `build_partitions`), so
// this does the same with the old index's graph parameters. Internal to the index layer.
#pragma once

#include <cstdint>
#include <vector>

#include "index/proto/ivf.pb.h"
#include "index/vector/hnsw.h"
#include "lance/core/result.h"
#include "lance/core/thread_pool.h"
#include "lance/index/index_store.h"
#include "lance/index/vector/ivf_index.h"

namespace lance::index::vector {

// A float32 tensor [rows, cols] of `values` (row-major).
pb::Tensor FloatTensor(const std::vector<float>& values, uint32_t rows, uint32_t cols);

// index.idx of IVF_HNSW_SQ / _PQ / _FLAT (`kind`): each partition's graph rows (level by
// level, nodes in id order), "lance:hnsw" one entry per partition, the IVF message (graph rows
// per partition, the `k` x `dim` centroids, the k-means loss) in global buffer 1.
// Errors: IOError, InvalidArgument (more than 2^31 edges).
Status WriteHnswIndexFile(IndexStore& store, IndexKind kind, linalg::DistanceType metric,
                          const std::vector<float>& centroids, size_t k, size_t dim, double loss,
                          const std::vector<HnswGraph>& graphs);

// The stored form of rows an optimize adds (row-major, in the order they are numbered after the
// old rows): SQ codes (IVF_HNSW_SQ, dim bytes a row), vectors (IVF_HNSW_FLAT, dim floats, unit
// normalised for cosine) or PQ codes (IVF_HNSW_PQ, num_sub_vectors bytes).
struct AddedHnswRows {
  const uint8_t* sq_codes = nullptr;
  const float* vectors = nullptr;
  const uint8_t* pq_codes = nullptr;
};

// Writes `to`'s index.idx for `index` (an IVF_HNSW_* segment) whose partitions now hold
// `lengths` rows, `order[j]` being row j's old row number in `index` (partition after
// partition), or num_rows() + i for added row i: its centroids, loss and metric; each
// partition's graph built anew over its rows (SQ codes, stored vectors, or for IVF_HNSW_PQ the
// vectors its codes decode to: centroid plus codebook entries), by the distance and with the
// parameters its old graphs were built with, seeded per partition (on `pool`; null: the
// caller). Returns the bytes written. Errors: InvalidArgument (not an HNSW index, a row out of
// range), IOError.
Result<uint64_t> WriteRebuiltHnswIndex(const IvfIndex& index, IndexStore& to, const std::vector<int64_t>& order,
                                       const AddedHnswRows& added, const std::vector<uint32_t>& lengths,
                                       ThreadPool* pool);

}  // namespace lance::index::vector
