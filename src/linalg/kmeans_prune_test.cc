#include "linalg/kmeans_prune.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "lance/linalg/distance.h"
#include "lance/linalg/kmeans.h"
#include "linalg/linalg_test_util.h"

namespace lance::linalg::internal {
namespace {

using testing::RandomFloats;

// Rows around `blobs` random centres (spread 4 per dimension, noise +-0.5): the structure the
// bound prunes on.
std::vector<float> Clustered(size_t n, size_t blobs, size_t dim, uint64_t seed) {
  auto centres = RandomFloats(blobs * dim, seed, -4.0f, 4.0f);
  auto noise = RandomFloats(n * dim, seed + 1, -0.5f, 0.5f);
  std::vector<float> x(n * dim);
  for (size_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < dim; ++d) x[i * dim + d] = centres[(i * 7919 % blobs) * dim + d] + noise[i * dim + d];
  }
  return x;
}

// The exhaustive answer: argmin of L2 + shift, the lowest centroid on ties.
void BruteForce(const std::vector<float>& x, size_t dim, const std::vector<float>& c, size_t k,
                const std::vector<float>& shift, std::vector<uint32_t>* a, std::vector<float>* d) {
  const size_t n = x.size() / dim;
  a->resize(n);
  d->resize(n);
  for (size_t i = 0; i < n; ++i) {
    float best_s = INFINITY;
    for (size_t j = 0; j < k; ++j) {
      const float dist = L2(x.data() + i * dim, c.data() + j * dim, dim);
      const float s = dist + (shift.empty() ? 0.0f : shift[j]);
      if (s < best_s) {
        best_s = s;
        (*a)[i] = static_cast<uint32_t>(j);
        (*d)[i] = dist;
      }
    }
  }
}

TEST(KMeansPruneTest, EqualsTheExhaustiveArgminFromAnyOwners) {
  auto pool = *ThreadPool::Make(2);
  for (size_t dim : {8, 33, 128}) {
    const size_t n = 3000, k = 120;
    auto x = Clustered(n, 40, dim, dim);
    // Centroids: rows of the data nudged, so several share a blob (ties of reach, not of score).
    std::vector<float> c(k * dim);
    for (size_t j = 0; j < k; ++j) {
      for (size_t d = 0; d < dim; ++d) c[j * dim + d] = x[(j * 13) * dim + d] + 0.01f * static_cast<float>(d % 3);
    }
    std::vector<float> shift = RandomFloats(k, dim + 5, 0.0f, 0.3f);
    for (const bool biased : {false, true}) {
      const std::vector<float> s = biased ? shift : std::vector<float>();
      std::vector<uint32_t> want_a;
      std::vector<float> want_d;
      BruteForce(x, dim, c, k, s, &want_a, &want_d);
      // Owners: the answer itself, a stale guess (every row's neighbour's), and all zero.
      std::vector<uint32_t> stale(n), zero(n, 0);
      for (size_t i = 0; i < n; ++i) stale[i] = want_a[(i + 1) % n];
      for (const auto* owners : {&want_a, &stale, &zero}) {
        std::vector<uint32_t> a(*owners);
        std::vector<float> d(n, -1.0f);
        const bool ran = AssignFromOwners(x.data(), n, dim, c.data(), k, biased ? s.data() : nullptr, a.data(),
                                          pool.get(), a.data(), d.data());
        if (!ran) {
          // A poor guess may be declined (too much in reach), never the answer itself.
          EXPECT_NE(owners, &want_a) << dim;
          EXPECT_EQ(a, *owners);  // nothing written
          continue;
        }
        EXPECT_EQ(a, want_a) << "dim " << dim << " biased " << biased;
        EXPECT_EQ(d, want_d) << "dim " << dim << " biased " << biased;
      }
    }
  }
}

TEST(KMeansPruneTest, DeclinesOnRowsSpreadEvenly) {
  // Uniform rows in 64 dimensions: every centroid is in reach of every row.
  const size_t n = 2000, k = 64, dim = 64;
  auto x = RandomFloats(n * dim, 3);
  auto c = RandomFloats(k * dim, 4);
  std::vector<uint32_t> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<uint32_t>(i % k);
  const std::vector<uint32_t> before = a;
  std::vector<float> d(n);
  EXPECT_FALSE(AssignFromOwners(x.data(), n, dim, c.data(), k, nullptr, a.data(), nullptr, a.data(), d.data()));
  EXPECT_EQ(a, before);
}

TEST(KMeansPruneTest, TrainingMatchesAFullAssignmentEveryIteration) {
  // The trained model's sizes are those of an exhaustive assignment to its centroids before
  // their last update: check the final centroids are the means of an exact assignment to the
  // previous ones by re-running one more iteration from them and comparing with brute force.
  const size_t n = 4000, dim = 32, k = 50;
  auto x = Clustered(n, 25, dim, 9);
  KMeansOptions o;
  o.k = k;
  o.sample_rate = 0;
  o.max_iterations = 8;
  o.balance_factor = 1.0f;
  o.init = KMeansOptions::Init::kPlusPlus;
  auto model = TrainKMeans(x.data(), n, dim, o);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->iterations, static_cast<int>(model->losses.size()));
  // Every cluster nonempty and the sizes sum to n.
  size_t total = 0;
  for (uint32_t s : model->sizes) total += s;
  EXPECT_EQ(total, n);
  // The pruned assignment to the final centroids equals brute force from k-means' own
  // nearest-centroid answer (no bias).
  std::vector<uint32_t> want_a;
  std::vector<float> want_d;
  BruteForce(x, dim, model->centroids, k, {}, &want_a, &want_d);
  std::vector<uint32_t> a(n);
  ASSERT_TRUE(AssignToCentroids(x.data(), n, dim, model->centroids.data(), k, DistanceType::kL2, nullptr, a.data()).ok());
  std::vector<float> d(n);
  ASSERT_TRUE(AssignFromOwners(x.data(), n, dim, model->centroids.data(), k, nullptr, a.data(), nullptr, a.data(), d.data()));
  EXPECT_EQ(a, want_a);
  EXPECT_EQ(d, want_d);
}

}  // namespace
}  // namespace lance::linalg::internal
