// k-modes over binary vectors (see kmodes.h).
#include "lance/linalg/kmodes.h"

#include <algorithm>
#include <cmath>

#include "lance/linalg/distance.h"
#include "lance/linalg/kmeans.h"

namespace lance::linalg {

void AssignToBinaryCentroids(const uint8_t* vectors, size_t n, size_t bytes, const uint8_t* centroids,
                             size_t k, ThreadPool* pool, uint32_t* assignment, float* distance) {
  constexpr int64_t kRowsPerTask = 1024;
  const int64_t tasks = static_cast<int64_t>((n + kRowsPerTask - 1) / kRowsPerTask);
  ParallelFor(pool, tasks, [&](int64_t t) {
    std::vector<float> d(k);
    const size_t end = std::min(n, static_cast<size_t>(t + 1) * kRowsPerTask);
    for (size_t i = static_cast<size_t>(t) * kRowsPerTask; i < end; ++i) {
      HammingDistances(vectors + i * bytes, centroids, k, bytes, d.data());
      // Distances are bit counts: the first minimum is exact.
      const size_t best = static_cast<size_t>(std::min_element(d.begin(), d.end()) - d.begin());
      assignment[i] = static_cast<uint32_t>(best);
      if (distance) distance[i] = d[best];
    }
  });
}

Result<KModesModel> TrainKModes(const uint8_t* vectors, size_t n, size_t bytes, const KModesOptions& options) {
  const size_t k = options.k;
  if (k == 0) return Status::InvalidArgument("k-modes: k is 0");
  if (bytes == 0) return Status::InvalidArgument("k-modes: vectors of 0 bytes");
  if (n < k) return Status::InvalidArgument("k-modes: cannot train {} centroids with {} vectors", k, n);
  const uint64_t want = options.sample_rate == 0 ? n : options.sample_rate * k;
  const std::vector<uint64_t> rows = SampleRows(n, want, options.seed);
  const size_t m = rows.size();
  std::vector<uint8_t> data(m * bytes);
  for (size_t i = 0; i < m; ++i) std::copy_n(vectors + rows[i] * bytes, bytes, data.data() + i * bytes);

  KModesModel model;
  model.k = k;
  model.bytes = bytes;
  model.centroids.resize(k * bytes);
  const std::vector<uint64_t> init = SampleRows(m, k, options.seed + 1);  // k distinct rows
  for (size_t j = 0; j < k; ++j) std::copy_n(data.data() + init[j] * bytes, bytes, model.centroids.data() + j * bytes);

  std::vector<uint32_t> assignment(m);
  std::vector<float> dist(m);
  std::vector<uint32_t> ones(k * bytes * 8);
  double last_loss = HUGE_VAL;
  for (int it = 1; it <= std::max(1, options.max_iterations); ++it) {
    AssignToBinaryCentroids(data.data(), m, bytes, model.centroids.data(), k, options.pool, assignment.data(),
                            dist.data());
    double loss = 0;
    for (float d : dist) loss += d;
    // Per-bit majority of each cluster's rows (in row order; counts are exact).
    std::fill(ones.begin(), ones.end(), 0u);
    model.sizes.assign(k, 0);
    for (size_t i = 0; i < m; ++i) {
      const uint32_t c = assignment[i];
      ++model.sizes[c];
      uint32_t* count = ones.data() + size_t{c} * bytes * 8;
      const uint8_t* v = data.data() + i * bytes;
      for (size_t b = 0; b < bytes * 8; ++b) count[b] += (v[b / 8] >> (b % 8)) & 1u;
    }
    for (size_t c = 0; c < k; ++c) {
      if (model.sizes[c] == 0) continue;  // an empty cluster keeps its centroid
      const uint32_t* count = ones.data() + c * bytes * 8;
      uint8_t* out = model.centroids.data() + c * bytes;
      for (size_t byte = 0; byte < bytes; ++byte) {
        uint8_t v = 0;
        for (size_t bit = 0; bit < 8; ++bit) {
          if (count[byte * 8 + bit] * 2 > model.sizes[c]) v = static_cast<uint8_t>(v | (1u << bit));
        }
        out[byte] = v;
      }
    }
    model.loss = loss;
    model.iterations = it;
    if (loss == 0 || std::abs(last_loss - loss) / loss < options.tolerance) break;
    last_loss = loss;
  }
  return model;
}

}  // namespace lance::linalg
