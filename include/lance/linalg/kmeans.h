// k-means over float32 vectors: the IVF training building blocks (issue 13 item 2).
//
// Assignment runs the expanded form |c|^2 - 2 x.c in register blocks of 4 vectors x 16
// centroids (AVX2; portable otherwise), multi-threaded over vectors; the centroid update sums
// each cluster's members in row order, so a model depends only on its inputs and the seed,
// never on the number of threads. Training follows the reference's recipe: sample at most
// sample_rate * k rows, start from k distinct random rows, iterate until the relative change
// of the loss is below `tolerance` or max_iterations, and refill an empty cluster by
// splitting the largest one in two (its centroid nudged by +-1/1024 in alternate dimensions);
// `balance_factor` penalises large clusters while training (the reference's IVF training).
// Cosine trains on unit-normalised vectors with l2; dot assigns by the largest x.c.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lance/core/result.h"
#include "lance/core/thread_pool.h"
#include "lance/linalg/distance.h"

namespace lance::linalg {

// Nearest of `k` centroids (k x dim, row-major) for each of `n` vectors: assignment[i] and,
// when `distance` is not null, the distance (l2: squared l2 |x|^2 + |c|^2 - 2 x.c; dot:
// 1 - x.c; cosine: as dot, for vectors the caller normalised). Errors: InvalidArgument for
// hamming (not a float metric) or k == 0.
Status AssignToCentroids(const float* vectors, size_t n, size_t dim, const float* centroids,
                         size_t k, DistanceType distance_type, ThreadPool* pool,
                         uint32_t* assignment, float* distance = nullptr);

// Centroid i becomes the mean of the vectors assigned to it (sizes[i] of them). A cluster
// left empty takes half of the then largest one: see the header comment.
void UpdateCentroids(const float* vectors, size_t n, size_t dim, const uint32_t* assignment,
                     size_t k, ThreadPool* pool, float* centroids, uint32_t* sizes);

// `count` distinct row numbers of [0, n) chosen uniformly by `seed`, ascending (all rows when
// count >= n).
std::vector<uint64_t> SampleRows(uint64_t n, uint64_t count, uint64_t seed);

struct KMeansOptions {
  size_t k = 0;
  DistanceType distance_type = DistanceType::kL2;  // l2, cosine or dot
  int max_iterations = 50;
  double tolerance = 1e-4;
  size_t sample_rate = 256;  // train on at most sample_rate * k vectors (0: all)
  uint64_t seed = 0;
  // kRandom: k distinct random training vectors (the reference's init); kPlusPlus: k-means++
  // (each next centre drawn with probability proportional to its squared distance to the
  // nearest centre so far; from 32768 training rows on, drawn from a seeded subsample of at
  // most 64 rows per centre),
  // slower to start, less prone to two centres in one cluster.
  enum class Init : uint8_t { kRandom, kPlusPlus };
  Init init = Init::kRandom;
  // > 0: balanced k-means, as the reference trains IVF centroids (its factor 1): during
  // training a row's distance to a centroid is penalised by min(factor, cap) times that
  // cluster's size in the previous iteration, where cap is how far the largest cluster's
  // furthest member lies beyond its mean distance, divided by the training rows, so
  // partitions come out more even. 0: plain Lloyd iterations (PQ codebooks).
  float balance_factor = 0.0f;
  ThreadPool* pool = nullptr;
};

struct KMeansModel {
  size_t k = 0;
  size_t dim = 0;
  DistanceType distance_type = DistanceType::kL2;
  std::vector<float> centroids;  // k x dim
  std::vector<uint32_t> sizes;   // training vectors per centroid at the end
  double loss = 0;               // sum of the training vectors' distances at the end
  int iterations = 0;
  std::vector<double> losses;    // the loss of every iteration's assignment
};

// Trains on `n` vectors (n x dim). Errors: InvalidArgument when n < k, k == 0, dim == 0 or
// the metric is hamming.
Result<KMeansModel> TrainKMeans(const float* vectors, size_t n, size_t dim,
                                const KMeansOptions& options);

}  // namespace lance::linalg
