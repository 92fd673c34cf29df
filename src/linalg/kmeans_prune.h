// Exact l2 k-means assignment pruned by the triangle inequality, for Lloyd iterations after
// the first: each row starts from the centroid it had (its owner) and scores only the
// centroids that could beat it. Internal to linalg (kmeans.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include "lance/core/thread_pool.h"

namespace lance::linalg::internal {

// For each of n rows: the centroid minimising L2(x, c_j) + shift[j] (shift null: 0; the
// lowest j on ties), written to assignment[i], and L2(x, c_assignment) to distance[i].
// `owner[i]` is any centroid (a good guess: the previous iteration's); a centroid j is scored
// only when ||c_j - c_owner|| <= ||x - c_owner|| + sqrt(score_owner - min shift) (with a
// margin far above float rounding), which no other centroid can beat. Returns false, writing
// nothing, when the bound would leave more than a quarter of the k centroids per row (the
// register-blocked full assignment is then faster): rows spread evenly over the space.
// `owner` may alias `assignment`.
bool AssignFromOwners(const float* x, size_t n, size_t dim, const float* centroids, size_t k,
                      const float* shift, const uint32_t* owner, ThreadPool* pool,
                      uint32_t* assignment, float* distance);

}  // namespace lance::linalg::internal
