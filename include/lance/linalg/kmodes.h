// k-modes over binary (uint8) vectors: the IVF training of a hamming index, as lance 12 trains
// one (its k-means of uint8 vectors under the hamming distance).
//
// A vector is `bytes` uint8 values read as bytes x 8 bits. Training follows the reference's
// recipe: sample at most sample_rate * k rows, start from k distinct random rows, assign every
// row to the centroid at the smallest hamming distance (the first such centroid on ties), make
// each centroid the per-bit majority of its rows (a bit is set when more than half of the rows
// have it; a tie leaves it clear), and stop when the relative change of the loss (the sum of
// the rows' distances) is below `tolerance` or after max_iterations. Differences from lance 12:
// a cluster left empty keeps its previous centroid (lance 12 makes it null), no balance
// penalty, and the random draws are ours (seeded).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lance/core/result.h"
#include "lance/core/thread_pool.h"

namespace lance::linalg {

struct KModesOptions {
  size_t k = 0;
  int max_iterations = 50;
  double tolerance = 1e-4;
  size_t sample_rate = 256;  // train on at most sample_rate * k vectors (0: all)
  uint64_t seed = 0;
  ThreadPool* pool = nullptr;
};

struct KModesModel {
  size_t k = 0;
  size_t bytes = 0;               // bytes per vector
  std::vector<uint8_t> centroids;  // k x bytes
  std::vector<uint32_t> sizes;     // training vectors per centroid at the end
  double loss = 0;                 // sum of the training vectors' hamming distances at the end
  int iterations = 0;
};

// Nearest of `k` binary centroids (k x bytes) for each of `n` vectors by hamming distance,
// ties to the lower centroid: assignment[i] and, when not null, distance[i] (the bit count).
void AssignToBinaryCentroids(const uint8_t* vectors, size_t n, size_t bytes, const uint8_t* centroids,
                             size_t k, ThreadPool* pool, uint32_t* assignment, float* distance = nullptr);

// Trains on `n` vectors (n x bytes). Errors: InvalidArgument when n < k, k == 0 or bytes == 0.
Result<KModesModel> TrainKModes(const uint8_t* vectors, size_t n, size_t bytes, const KModesOptions& options);

}  // namespace lance::linalg
