#include "linalg/kmeans_prune.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "lance/linalg/distance.h"

namespace lance::linalg::internal {

namespace {
constexpr size_t kChunk = 1024;  // rows per parallel task
// Thresholds are widened by this much (relative): float distances are off by ~1e-6 at most.
constexpr float kMargin = 1e-3f;
}  // namespace

bool AssignFromOwners(const float* x, size_t n, size_t dim, const float* centroids, size_t k,
                      const float* shift, const uint32_t* owner, ThreadPool* pool,
                      uint32_t* assignment, float* distance) {
  if (n == 0) return true;
  const auto sh = [&](size_t j) { return shift != nullptr ? shift[j] : 0.0f; };
  float shift_min = 0;
  if (shift != nullptr) shift_min = *std::min_element(shift, shift + k);
  const size_t chunks = (n + kChunk - 1) / kChunk;

  // Each row's distance to its owner and how far from the owner a centroid may lie and still
  // win: ||c_j - c_a|| <= r + sqrt(score_a - min shift), r = ||x - c_a||.
  std::vector<float> own(n), reach(n);
  ParallelFor(pool, static_cast<int64_t>(chunks), [&](int64_t t) {
    const size_t begin = static_cast<size_t>(t) * kChunk, end = std::min(n, begin + kChunk);
    for (size_t i = begin; i < end; ++i) {
      const uint32_t a = owner[i];
      const float d = L2(x + i * dim, centroids + size_t{a} * dim, dim);
      own[i] = d;
      const float slack = std::max(0.0f, d + sh(a) - shift_min);
      reach[i] = (std::sqrt(d) + std::sqrt(slack)) * (1 + kMargin);
    }
  });
  std::vector<float> reach_max(k, -1.0f);  // -1: no row owned
  for (size_t i = 0; i < n; ++i) reach_max[owner[i]] = std::max(reach_max[owner[i]], reach[i]);

  // Per owner: the other centroids within its rows' largest reach, nearest first.
  std::vector<std::vector<std::pair<float, uint32_t>>> near(k);
  ParallelFor(pool, static_cast<int64_t>(k), [&](int64_t a) {
    if (reach_max[a] < 0) return;
    std::vector<float> d(k);
    L2Distances(centroids + static_cast<size_t>(a) * dim, centroids, k, dim, d.data());
    auto& list = near[static_cast<size_t>(a)];
    for (size_t j = 0; j < k; ++j) {
      const float dj = std::sqrt(d[j]);
      if (j != static_cast<size_t>(a) && dj <= reach_max[a]) list.emplace_back(dj, static_cast<uint32_t>(j));
    }
    std::sort(list.begin(), list.end());
  });

  // How many centroids each row scores; too many and the full assignment is cheaper.
  std::vector<uint32_t> count(n);
  std::vector<uint64_t> chunk_work(chunks, 0);
  ParallelFor(pool, static_cast<int64_t>(chunks), [&](int64_t t) {
    const size_t begin = static_cast<size_t>(t) * kChunk, end = std::min(n, begin + kChunk);
    uint64_t work = 0;
    for (size_t i = begin; i < end; ++i) {
      const auto& list = near[owner[i]];
      const auto it = std::upper_bound(list.begin(), list.end(), reach[i],
                                       [](float r, const std::pair<float, uint32_t>& e) { return r < e.first; });
      count[i] = static_cast<uint32_t>(it - list.begin());
      work += count[i];
    }
    chunk_work[static_cast<size_t>(t)] = work;
  });
  uint64_t work = 0;
  for (uint64_t w : chunk_work) work += w;
  if (work > static_cast<uint64_t>(n) * k / 4) return false;

  ParallelFor(pool, static_cast<int64_t>(chunks), [&](int64_t t) {
    const size_t begin = static_cast<size_t>(t) * kChunk, end = std::min(n, begin + kChunk);
    for (size_t i = begin; i < end; ++i) {
      const uint32_t a = owner[i];
      uint32_t best = a;
      float best_d = own[i], best_s = own[i] + sh(a);
      const auto& list = near[a];
      for (uint32_t c = 0; c < count[i]; ++c) {
        const uint32_t j = list[c].second;
        const float d = L2(x + i * dim, centroids + size_t{j} * dim, dim);
        const float s = d + sh(j);
        if (s < best_s || (s == best_s && j < best)) {
          best = j;
          best_s = s;
          best_d = d;
        }
      }
      assignment[i] = best;
      distance[i] = best_d;
    }
  });
  return true;
}

}  // namespace lance::linalg::internal
