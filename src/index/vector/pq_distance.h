// Product quantization arithmetic as lance 12 does it: the per-query distance table and the
// scoring of codes, and the encoding of vectors (nearest centroid per sub-vector).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lance/core/thread_pool.h"
#include "lance/index/vector/ivf_index.h"

namespace lance::index::vector {

// distance(query sub-vector s, centroid c) for every s, c: squared l2 (l2 and cosine indexes,
// over residuals) or 1 - dot (dot indexes). A code's distance is the sum of its entries in
// sub-vector order starting from 0.0f; for dot, minus (num_sub_vectors - 1), so it is
// 1 - q.v of the decoded vector.
class PqDistanceTable {
 public:
  explicit PqDistanceTable(linalg::DistanceType metric) : dot_(metric == linalg::DistanceType::kDot) {}
  PqDistanceTable(const PqCodebook& pq, const float* query, linalg::DistanceType metric)
      : PqDistanceTable(metric) {
    Build(pq, query);
  }
  // (Re)computes the table for `query`: one batched kernel call (linalg) per sub-vector over
  // its 2^bits centroids, each entry the value the single-pair distance gives.
  void Build(const PqCodebook& pq, const float* query);
  // Distances of `n` codes (row-major, num_sub_vectors bytes each).
  void Score(const uint8_t* codes, size_t n, float* out) const;
  // The same over `n` codes stored sub-vector-major (byte s * n + j is code j's sub-vector s,
  // lance's transposed partition layout): an ADC scan, one table row per pass, summed in the
  // same sub-vector order (the same floats as Score).
  void ScoreTransposed(const uint8_t* codes, size_t n, float* out) const;

 private:
  size_t m_ = 0;
  size_t centroids_ = 0;
  bool dot_ = false;
  std::vector<float> table_;  // [m][centroids]
  std::vector<float> packed_;  // l2, a codebook without packed_by8: packed here
};

// pq.centroids packed by 8 per sub-vector (linalg::PackBy8; each sub-vector's centroids padded
// to a multiple of 8), as PqDistanceTable::Build reads them for l2 and cosine indexes.
std::vector<float> PackPqCodebook(const PqCodebook& pq);

// The code of each of `n` vectors (row-major, pq.dim floats): per sub-vector, the nearest
// centroid by `metric` (l2 for l2 / cosine, by the k-means assignment kernel: the expanded form
// |c|^2 - 2 x.c, so a float near-tie may go either way; dot distance for dot), the first on
// ties. l2 runs chunks of rows on `pool` (null: the caller's thread).
void PqEncode(const PqCodebook& pq, const float* vectors, size_t n, linalg::DistanceType metric,
              uint8_t* codes, ThreadPool* pool = nullptr);

}  // namespace lance::index::vector
