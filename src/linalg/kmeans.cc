#include "lance/linalg/kmeans.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_set>

#include "linalg/kernels.h"
#include "linalg/kmeans_prune.h"

namespace lance::linalg {
namespace {

constexpr size_t kAssignChunk = 1024;  // vectors per parallel task

// Uniform double in [0, 1) from a 64-bit engine (the engine's sequence is fixed by the
// standard; std's distributions are not, so none is used).
double Uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

float SquaredNorm(const float* v, size_t dim) {
  float s = 0;
  for (size_t d = 0; d < dim; ++d) s += v[d] * v[d];
  return s;
}

// k-means++: the first centre uniformly, each next one with probability proportional to the
// squared distance to the nearest centre chosen so far (kept up to date in `nearest`, with the
// centre it belongs to in `owner`). A row whose owner lies at least twice its distance from the
// new centre cannot come closer to it (triangle inequality: ||x - c|| >= ||c - o|| - ||x - o||),
// so it is skipped without reading its vector; the margin (1e-3 on squared distances, far
// above float rounding) keeps every skipped row one the full scan leaves unchanged, so the
// picks equal the unpruned ones. With k centres most rows are skipped: the scan reads owners
// and distances (12 bytes a row) instead of every training vector k times.
void PlusPlusInit(const float* data, size_t m, size_t dim, size_t k, uint64_t seed, ThreadPool* pool,
                  float* centroids) {
  std::mt19937_64 rng(seed);
  std::vector<double> nearest(m, HUGE_VAL);
  std::vector<uint32_t> owner(m, 0);
  size_t pick = static_cast<size_t>(Uniform(rng) * static_cast<double>(m));
  constexpr size_t kChunk = 4096;
  const size_t chunks = (m + kChunk - 1) / kChunk;
  std::vector<double> chunk_sum(chunks);
  std::vector<float> to_centre(k);  // squared distance of the new centre to each earlier one
  for (size_t j = 0; j < k; ++j) {
    const float* c = data + std::min(pick, m - 1) * dim;
    std::copy_n(c, dim, centroids + j * dim);
    if (j + 1 == k) break;
    if (j > 0) L2Distances(c, centroids, j, dim, to_centre.data());
    ParallelFor(pool, static_cast<int64_t>(chunks), [&](int64_t t) {
      const size_t begin = static_cast<size_t>(t) * kChunk, end = std::min(m, begin + kChunk);
      bool changed = false;
      auto reachable = [&](size_t i) {
        return j == 0 || static_cast<double>(to_centre[owner[i]]) < 4.004 * nearest[i];
      };
      size_t open = 0;
      for (size_t i = begin; i < end; ++i) open += reachable(i) ? 1 : 0;
      if (open == 0) return;  // the chunk's sum stands
      auto update = [&](size_t i, float dist) {
        const double d = static_cast<double>(dist);
        if (d < nearest[i]) {
          nearest[i] = d;
          owner[i] = static_cast<uint32_t>(j);
          changed = true;
        }
      };
      if (open * 4 >= end - begin) {
        // Most rows in reach (the first centres): the chunk at once by the SIMD batch kernel,
        // the same distances as one pair at a time.
        float d[kChunk];
        L2Distances(c, data + begin * dim, end - begin, dim, d);
        for (size_t i = begin; i < end; ++i) update(i, d[i - begin]);
      } else {
        for (size_t i = begin; i < end; ++i) {
          if (reachable(i)) update(i, L2(c, data + i * dim, dim));
        }
      }
      if (!changed) return;  // the chunk's sum stands
      double sum = 0;
      for (size_t i = begin; i < end; ++i) sum += nearest[i];
      chunk_sum[static_cast<size_t>(t)] = sum;
    });
    double total = 0;
    for (double s : chunk_sum) total += s;
    if (!(total > 0)) {  // every vector is a centre already: any row will do
      pick = static_cast<size_t>(Uniform(rng) * static_cast<double>(m));
      continue;
    }
    double target = Uniform(rng) * total;
    size_t t = 0;
    while (t + 1 < chunks && target >= chunk_sum[t]) target -= chunk_sum[t++];
    pick = std::min(m, (t + 1) * kChunk) - 1;
    for (size_t i = t * kChunk; i < std::min(m, (t + 1) * kChunk); ++i) {
      if (target < nearest[i]) {
        pick = i;
        break;
      }
      target -= nearest[i];
    }
  }
}

}  // namespace

namespace {

// AssignToCentroids with a per-centroid additive `bias` (null: none) on the distance the argmin
// sees; the distance reported is the unbiased one. The bias rides in the kernel's centroid
// norm term: l2 scores |c|^2 - 2 x.c (so |c|^2 + b), dot scores -2 x.c (1 - x.c + b is the
// argmin of -2 x.c + 2 b).
Status AssignBiased(const float* vectors, size_t n, size_t dim, const float* centroids, size_t k,
                    DistanceType distance_type, const float* bias, ThreadPool* pool,
                    uint32_t* assignment, float* distance) {
  if (k == 0) return Status::InvalidArgument("k-means assignment: no centroids");
  if (dim == 0) return Status::InvalidArgument("k-means assignment: dimension 0");
  if (distance_type == DistanceType::kHamming) {
    return Status::InvalidArgument("k-means assignment: hamming is not a float32 metric");
  }
  const bool l2 = distance_type == DistanceType::kL2;
  std::vector<float> c_norms(k, 0.0f);
  if (l2) {
    for (size_t j = 0; j < k; ++j) c_norms[j] = SquaredNorm(centroids + j * dim, dim);
  }
  // What the bias adds to a centroid's score (0 without one).
  std::vector<float> shift(k, 0.0f);
  if (bias != nullptr) {
    for (size_t j = 0; j < k; ++j) shift[j] = l2 ? bias[j] : 2 * bias[j];
    for (size_t j = 0; j < k; ++j) c_norms[j] += shift[j];
  }
  const internal::Kernels& kernels = internal::KernelsFor(ActiveSimdLevel());
  const size_t chunks = (n + kAssignChunk - 1) / kAssignChunk;
  ParallelFor(pool, static_cast<int64_t>(chunks), [&](int64_t c) {
    const size_t begin = static_cast<size_t>(c) * kAssignChunk;
    const size_t count = std::min(kAssignChunk, n - begin);
    std::vector<float> score(count);
    kernels.nearest_l2_f32(vectors + begin * dim, count, centroids, c_norms.data(), k, dim,
                           assignment + begin, score.data());
    if (distance != nullptr) {
      for (size_t i = 0; i < count; ++i) {
        // l2: |x|^2 + (|c|^2 - 2 x.c), never below 0; dot / cosine: 1 - x.c = 1 + score / 2.
        const float sc = score[i] - shift[assignment[begin + i]];
        distance[begin + i] =
            l2 ? std::max(0.0f, SquaredNorm(vectors + (begin + i) * dim, dim) + sc) : 1.0f + sc / 2;
      }
    }
  });
  return Status::OK();
}

}  // namespace

Status AssignToCentroids(const float* vectors, size_t n, size_t dim, const float* centroids,
                         size_t k, DistanceType distance_type, ThreadPool* pool,
                         uint32_t* assignment, float* distance) {
  return AssignBiased(vectors, n, dim, centroids, k, distance_type, nullptr, pool, assignment,
                      distance);
}

void UpdateCentroids(const float* vectors, size_t n, size_t dim, const uint32_t* assignment,
                     size_t k, ThreadPool* pool, float* centroids, uint32_t* sizes) {
  // Members of each cluster in row order (counting sort), then one sum per cluster.
  std::vector<size_t> start(k + 1, 0);
  for (size_t i = 0; i < n; ++i) ++start[assignment[i] + 1];
  for (size_t j = 0; j < k; ++j) start[j + 1] += start[j];
  std::vector<uint32_t> members(n);
  {
    std::vector<size_t> next(start.begin(), start.end() - 1);
    for (size_t i = 0; i < n; ++i) members[next[assignment[i]]++] = static_cast<uint32_t>(i);
  }
  constexpr size_t kClustersPerTask = 16;
  const size_t tasks = (k + kClustersPerTask - 1) / kClustersPerTask;
  ParallelFor(pool, static_cast<int64_t>(tasks), [&](int64_t t) {
    std::vector<double> sum(dim);
    const size_t end = std::min(k, (static_cast<size_t>(t) + 1) * kClustersPerTask);
    for (size_t j = static_cast<size_t>(t) * kClustersPerTask; j < end; ++j) {
      const size_t count = start[j + 1] - start[j];
      sizes[j] = static_cast<uint32_t>(count);
      if (count == 0) continue;
      std::fill(sum.begin(), sum.end(), 0.0);
      for (size_t m = start[j]; m < start[j + 1]; ++m) {
        // The member four ahead is fetched meanwhile: rows are scattered over the training
        // set, and one row's adds alone fill the reorder window.
        if (m + 4 < start[j + 1]) {
          const char* ahead = reinterpret_cast<const char*>(vectors + static_cast<size_t>(members[m + 4]) * dim);
          for (size_t b = 0; b < dim * sizeof(float); b += 64) __builtin_prefetch(ahead + b);
        }
        const float* v = vectors + static_cast<size_t>(members[m]) * dim;
        for (size_t d = 0; d < dim; ++d) sum[d] += v[d];
      }
      for (size_t d = 0; d < dim; ++d) {
        centroids[j * dim + d] = static_cast<float>(sum[d] / static_cast<double>(count));
      }
    }
  });
  // Empty clusters: each takes half of the then largest cluster (as the reference does), so
  // the split does not depend on a random draw.
  constexpr float kEps = 1.0f / 1024.0f;
  for (size_t i = 0; i < k; ++i) {
    if (sizes[i] != 0) continue;
    const size_t j = static_cast<size_t>(std::max_element(sizes, sizes + k) - sizes);
    if (sizes[j] < 2) break;
    sizes[i] = sizes[j] / 2;
    sizes[j] -= sizes[i];
    for (size_t d = 0; d < dim; ++d) {
      const float c = centroids[j * dim + d];
      const bool even = d % 2 == 0;
      centroids[i * dim + d] = c * (even ? 1 + kEps : 1 - kEps);
      centroids[j * dim + d] = c * (even ? 1 - kEps : 1 + kEps);
    }
  }
}

std::vector<uint64_t> SampleRows(uint64_t n, uint64_t count, uint64_t seed) {
  std::vector<uint64_t> rows;
  if (count >= n) {
    rows.resize(n);
    for (uint64_t i = 0; i < n; ++i) rows[i] = i;
    return rows;
  }
  std::mt19937_64 rng(seed);
  // Floyd's algorithm: `count` distinct values with count draws.
  std::unordered_set<uint64_t> chosen;
  chosen.reserve(count * 2);
  for (uint64_t j = n - count; j < n; ++j) {
    const uint64_t t = static_cast<uint64_t>(Uniform(rng) * static_cast<double>(j + 1));
    const uint64_t pick = std::min(t, j);
    if (!chosen.insert(pick).second) chosen.insert(j);
  }
  rows.assign(chosen.begin(), chosen.end());
  std::sort(rows.begin(), rows.end());
  return rows;
}

Result<KMeansModel> TrainKMeans(const float* vectors, size_t n, size_t dim,
                                const KMeansOptions& options) {
  const size_t k = options.k;
  if (k == 0) return Status::InvalidArgument("k-means: k is 0");
  if (dim == 0) return Status::InvalidArgument("k-means: dimension 0");
  if (options.distance_type == DistanceType::kHamming) {
    return Status::InvalidArgument("k-means: hamming vectors are not float32");
  }
  if (n < k) {
    return Status::InvalidArgument("k-means: cannot train {} centroids with {} vectors", k, n);
  }
  // The training set: a sample of sample_rate * k rows (all rows when fewer), normalised for
  // cosine.
  const uint64_t want = options.sample_rate == 0 ? n : options.sample_rate * k;
  std::vector<uint64_t> rows = SampleRows(n, want, options.seed);
  const size_t m = rows.size();
  std::vector<float> data(m * dim);
  for (size_t i = 0; i < m; ++i) {
    std::copy_n(vectors + rows[i] * dim, dim, data.data() + i * dim);
  }
  const bool cosine = options.distance_type == DistanceType::kCosine;
  if (cosine) {
    for (size_t i = 0; i < m; ++i) {
      float* v = data.data() + i * dim;
      const float norm = std::sqrt(SquaredNorm(v, dim));
      if (norm > 0) {
        for (size_t d = 0; d < dim; ++d) v[d] /= norm;
      }
    }
  }
  const DistanceType assign_type = cosine ? DistanceType::kL2 : options.distance_type;

  KMeansModel model;
  model.k = k;
  model.dim = dim;
  model.distance_type = options.distance_type;
  model.centroids.resize(k * dim);
  model.sizes.assign(k, 0);
  if (options.init == KMeansOptions::Init::kPlusPlus) {
    // The starts drawn from at most kPlusPlusRowsPerCentre rows per centre: each start costs a
    // distance per row, so over the whole sample the seeding was most of an IVF build
    // (60 % of IVF_FLAT's CPU at 100k x 128, 316 partitions), while 64 rows per centre still
    // cover every cluster a start can land in; Lloyd iterations then run over all rows.
    // Below kPlusPlusMinRows training rows the seeding is cheap and left as it was.
    constexpr size_t kPlusPlusRowsPerCentre = 64, kPlusPlusMinRows = size_t{1} << 15;
    if (m >= kPlusPlusMinRows && m > kPlusPlusRowsPerCentre * k) {
      const std::vector<uint64_t> rows = SampleRows(m, kPlusPlusRowsPerCentre * k, options.seed + 2);
      std::vector<float> seeding(rows.size() * dim);
      for (size_t i = 0; i < rows.size(); ++i) {
        std::copy_n(data.data() + rows[i] * dim, dim, seeding.data() + i * dim);
      }
      PlusPlusInit(seeding.data(), rows.size(), dim, k, options.seed + 1, options.pool,
                   model.centroids.data());
    } else {
      PlusPlusInit(data.data(), m, dim, k, options.seed + 1, options.pool, model.centroids.data());
    }
  } else {
    // k distinct training vectors.
    std::vector<uint64_t> init = SampleRows(m, k, options.seed + 1);
    for (size_t j = 0; j < k; ++j) {
      std::copy_n(data.data() + init[j] * dim, dim, model.centroids.data() + j * dim);
    }
  }
  std::vector<uint32_t> assignment(m);
  std::vector<float> dist(m);
  // Balance (options.balance_factor > 0): each assignment adds factor * (the cluster's size in
  // the previous iteration) to the distance to that centroid, so a large cluster gives up its
  // border rows. The factor is balance_factor, capped each iteration by how far the largest
  // cluster's furthest member lies beyond its mean distance (per training row), so the penalty
  // never outweighs the geometry (with the reference's factor 1 the cap is what applies on
  // any data whose spread exceeds 1); the loss the stopping test sees includes
  // factor * (sum of squared sizes - m^2 / k). This is the reference's IVF training
  // (balance factor 1).
  const bool balanced = options.balance_factor > 0;
  const float base_factor = balanced ? options.balance_factor : 0.0f;
  float cap = HUGE_VALF;
  std::vector<float> bias(k, 0.0f);
  std::vector<size_t> sizes(k, 0);
  std::vector<float> radius(k);
  std::vector<double> cluster_loss(k);
  double last_loss = HUGE_VAL;
  bool prune_declined = false;
  for (int it = 1; it <= std::max(1, options.max_iterations); ++it) {
    const float factor = std::min(cap, base_factor);
    // After the first pass each row starts from its centroid of the last one, and l2 scores only
    // the centroids the triangle inequality leaves in reach (kmeans_prune.h: the same argmin,
    // a small fraction of the work once rows have settled); the full pass otherwise.
    const float* shift = balanced ? bias.data() : nullptr;
    const bool pruned = it > 1 && assign_type == DistanceType::kL2 && !prune_declined &&
                        internal::AssignFromOwners(data.data(), m, dim, model.centroids.data(), k, shift,
                                                   assignment.data(), options.pool, assignment.data(),
                                                   dist.data());
    // Declined once (rows spread over the space, e.g. PQ sub-vectors): not offered again.
    prune_declined = prune_declined || (it > 1 && !pruned);
    if (!pruned) {
      LANCE_RETURN_NOT_OK(AssignBiased(data.data(), m, dim, model.centroids.data(), k, assign_type, shift,
                                       options.pool, assignment.data(), dist.data()));
    }
    double loss = 0;
    for (float d : dist) loss += d;
    if (balanced) {
      std::fill(sizes.begin(), sizes.end(), 0);
      std::fill(radius.begin(), radius.end(), 0.0f);
      std::fill(cluster_loss.begin(), cluster_loss.end(), 0.0);
      size_t largest = 0;
      for (size_t i = 0; i < m; ++i) {
        const uint32_t a = assignment[i];
        ++sizes[a];
        radius[a] = std::max(radius[a], dist[i]);
        cluster_loss[a] += dist[i];
        if (sizes[a] > sizes[largest]) largest = a;
      }
      cap = (radius[largest] - static_cast<float>(cluster_loss[largest] / static_cast<double>(sizes[largest]))) /
            static_cast<float>(m);
      double squares = 0;
      for (size_t s : sizes) squares += static_cast<double>(s) * static_cast<double>(s);
      loss += static_cast<double>(factor) *
              (squares - static_cast<double>(m) * static_cast<double>(m) / static_cast<double>(k));
    }
    UpdateCentroids(data.data(), m, dim, assignment.data(), k, options.pool,
                    model.centroids.data(), model.sizes.data());
    if (balanced) {
      // The next assignment's penalty: this one's sizes (after empty clusters took half of a
      // big one), at the factor that assignment will use.
      const float next = std::min(cap, base_factor);
      for (size_t j = 0; j < k; ++j) bias[j] = next * static_cast<float>(model.sizes[j]);
    }
    model.iterations = it;
    model.loss = loss;
    model.losses.push_back(loss);
    if (std::abs(last_loss - loss) < options.tolerance * loss) break;
    last_loss = loss;
  }
  return model;
}

}  // namespace lance::linalg
