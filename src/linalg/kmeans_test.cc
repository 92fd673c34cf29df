#include "lance/linalg/kmeans.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "linalg/linalg_test_util.h"

namespace lance::linalg {
namespace {

using testing::AllLevels;
using testing::RandomFloats;
using testing::ScopedLevel;

double ExactL2(const float* a, const float* b, size_t dim) {
  double s = 0;
  for (size_t d = 0; d < dim; ++d) s += (static_cast<double>(a[d]) - b[d]) * (static_cast<double>(a[d]) - b[d]);
  return s;
}

// Well-separated blobs: centre c at (10 c, -10 c, 0, ...) plus small noise.
std::vector<float> Blobs(size_t per, size_t k, size_t dim, uint64_t seed) {
  auto noise = RandomFloats(per * k * dim, seed, -0.5f, 0.5f);
  std::vector<float> v(per * k * dim);
  for (size_t i = 0; i < per * k; ++i) {
    const size_t c = i % k;
    for (size_t d = 0; d < dim; ++d) {
      const float centre = d == 0 ? 10.0f * c : d == 1 ? -10.0f * c : 0.0f;
      v[i * dim + d] = centre + noise[i * dim + d];
    }
  }
  return v;
}

TEST(KMeansTest, AssignmentIsTheNearestCentroidOnEveryPath) {
  for (size_t dim : {1, 3, 8, 17, 128}) {
    const size_t n = 1001, k = 37;
    auto x = RandomFloats(n * dim, dim);
    auto c = RandomFloats(k * dim, dim + 1);
    for (SimdLevel level : AllLevels()) {
      ScopedLevel scoped(level);
      if (!scoped.ok()) continue;
      SCOPED_TRACE(std::string(SimdLevelName(level)) + " dim " + std::to_string(dim));
      auto pool = *ThreadPool::Make(2);
      std::vector<uint32_t> a(n);
      std::vector<float> d(n);
      ASSERT_TRUE(AssignToCentroids(x.data(), n, dim, c.data(), k, DistanceType::kL2, pool.get(),
                                    a.data(), d.data()).ok());
      for (size_t i = 0; i < n; ++i) {
        double best = HUGE_VAL;
        for (size_t j = 0; j < k; ++j) best = std::min(best, ExactL2(x.data() + i * dim, c.data() + j * dim, dim));
        const double mine = ExactL2(x.data() + i * dim, c.data() + a[i] * dim, dim);
        // The expanded form may pick a near-tie: never worse than float rounding.
        EXPECT_LE(mine, best + 1e-4 * (1 + best)) << i;
        EXPECT_NEAR(d[i], mine, 1e-3 * (1 + mine)) << i;
      }
      // Dot: the largest x.c.
      ASSERT_TRUE(AssignToCentroids(x.data(), n, dim, c.data(), k, DistanceType::kDot, nullptr,
                                    a.data(), d.data()).ok());
      for (size_t i = 0; i < n; i += 7) {
        double best = -HUGE_VAL;
        for (size_t j = 0; j < k; ++j) {
          double s = 0;
          for (size_t e = 0; e < dim; ++e) s += x[i * dim + e] * c[j * dim + e];
          best = std::max(best, s);
        }
        double mine = 0;
        for (size_t e = 0; e < dim; ++e) mine += x[i * dim + e] * c[a[i] * dim + e];
        EXPECT_GE(mine, best - 1e-4 * (1 + std::abs(best))) << i;
        EXPECT_NEAR(d[i], 1 - mine, 1e-3 * (1 + std::abs(mine)));
      }
    }
  }
  EXPECT_FALSE(AssignToCentroids(nullptr, 0, 4, nullptr, 0, DistanceType::kL2, nullptr, nullptr).ok());
}

TEST(KMeansTest, RecoversSeparatedClustersReproduciblyOnAnyThreadCount) {
  const size_t per = 300, k = 8, dim = 16;
  auto v = Blobs(per, k, dim, 21);
  KMeansOptions o;
  o.k = k;
  o.seed = 5;
  o.max_iterations = 30;
  o.init = KMeansOptions::Init::kPlusPlus;
  auto one = TrainKMeans(v.data(), per * k, dim, o);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  auto pool = *ThreadPool::Make(3);
  o.pool = pool.get();
  auto three = *TrainKMeans(v.data(), per * k, dim, o);
  EXPECT_EQ(one->centroids, three.centroids);  // bit for bit
  EXPECT_EQ(one->sizes, three.sizes);
  EXPECT_EQ(one->iterations, three.iterations);
  // Every true centre has a centroid within the noise, and the loss is the noise's.
  for (size_t c = 0; c < k; ++c) {
    std::vector<float> centre(dim, 0.0f);
    centre[0] = 10.0f * c;
    centre[1] = -10.0f * c;
    double best = HUGE_VAL;
    for (size_t j = 0; j < k; ++j) best = std::min(best, ExactL2(centre.data(), one->centroids.data() + j * dim, dim));
    EXPECT_LT(best, 0.05) << c;
  }
  EXPECT_LT(one->loss / (per * k), dim * (1.0 / 12) * 1.2);  // uniform noise variance 1/12
  // Lloyd's iterations never increase the loss.
  for (size_t i = 1; i < one->losses.size(); ++i) EXPECT_LE(one->losses[i], one->losses[i - 1] * (1 + 1e-6));
  // The reference's random init: the same seed always gives the same model, and the loss
  // never rises either (it may settle in a local minimum with two centres in one blob).
  o.init = KMeansOptions::Init::kRandom;
  auto random = *TrainKMeans(v.data(), per * k, dim, o);
  EXPECT_EQ(random.centroids, TrainKMeans(v.data(), per * k, dim, o)->centroids);
  for (size_t i = 1; i < random.losses.size(); ++i) EXPECT_LE(random.losses[i], random.losses[i - 1] * (1 + 1e-6));
  EXPECT_GE(random.loss, one->loss * (1 - 1e-6));
  // Another seed may pick other starting rows, but the same seed always the same model.
  o.seed = 6;
  auto other = *TrainKMeans(v.data(), per * k, dim, o);
  o.seed = 6;
  EXPECT_EQ(other.centroids, TrainKMeans(v.data(), per * k, dim, o)->centroids);
}

TEST(KMeansTest, EmptyClustersAreSplitFromBigOnes) {
  // 4 points at two places, 3 centroids, two of them on one place: one cluster stays empty
  // after the first assignment and must be refilled.
  const size_t dim = 2;
  std::vector<float> x = {0, 0, 0, 0, 10, 10, 10, 10, 10, 10, 0, 0};
  std::vector<float> c = {0, 0, 0, 0, 10, 10};
  std::vector<uint32_t> a(6), sizes(3);
  ASSERT_TRUE(AssignToCentroids(x.data(), 6, dim, c.data(), 3, DistanceType::kL2, nullptr, a.data()).ok());
  EXPECT_EQ(a, (std::vector<uint32_t>{0, 0, 2, 2, 2, 0}));  // ties go to the first centroid
  UpdateCentroids(x.data(), 6, dim, a.data(), 3, nullptr, c.data(), sizes.data());
  // The empty cluster takes half of the largest one (the first of the two of size 3), with no
  // random draw: sizes 3 / 0 / 3 become 2 / 1 / 3 and centroid 1 is a nudged copy of 0's.
  EXPECT_EQ(sizes, (std::vector<uint32_t>{2, 1, 3}));
  const float* c1 = c.data() + 2;
  EXPECT_TRUE(std::abs(c1[0]) < 0.1f && std::abs(c1[1]) < 0.1f) << c1[0] << " " << c1[1];
  EXPECT_FLOAT_EQ(c[4], 10.0f);
  EXPECT_FLOAT_EQ(c[5], 10.0f);
}

// Balanced training (the reference's IVF k-means): on points of which half crowd a small
// corner, penalising large clusters gives a smaller largest cluster and more even sizes than
// plain Lloyd from the same start, still within the points' box, reproducibly.
TEST(KMeansTest, BalanceFactorEvensOutClusterSizes) {
  const size_t n = 4000, dim = 2, k = 8;
  auto u = RandomFloats(n * dim, 99, 0.0f, 1.0f);
  for (size_t i = 0; i < n / 2; ++i) {
    for (size_t d = 0; d < dim; ++d) u[i * dim + d] *= 0.1f;
  }
  auto spread = [&](float balance, KMeansModel* out) {
    KMeansOptions o;
    o.k = k;
    o.seed = 5;
    o.sample_rate = 0;
    o.balance_factor = balance;
    auto m = TrainKMeans(u.data(), n, dim, o);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    *out = *m;
    std::vector<uint32_t> a(n);
    EXPECT_TRUE(AssignToCentroids(u.data(), n, dim, out->centroids.data(), k, DistanceType::kL2,
                                  nullptr, a.data()).ok());
    std::vector<size_t> sizes(k, 0);
    for (uint32_t x : a) ++sizes[x];
    double sq = 0;
    for (size_t s : sizes) sq += static_cast<double>(s) * static_cast<double>(s);
    return std::make_pair(*std::max_element(sizes.begin(), sizes.end()), sq);
  };
  KMeansModel plain, balanced, again;
  const auto [plain_max, plain_sq] = spread(0.0f, &plain);
  const auto [bal_max, bal_sq] = spread(1.0f, &balanced);
  EXPECT_LT(bal_max, plain_max);
  EXPECT_LT(bal_sq, plain_sq);
  for (float c : balanced.centroids) EXPECT_TRUE(c >= 0.0f && c <= 1.0f) << c;
  spread(1.0f, &again);
  EXPECT_EQ(again.centroids, balanced.centroids);
  EXPECT_EQ(again.losses, balanced.losses);
  // The loss the stopping test used (distances plus the size penalty) is finite.
  EXPECT_TRUE(std::isfinite(balanced.loss) && balanced.loss > 0);
}

TEST(KMeansTest, SamplesDistinctSortedRows) {
  auto rows = SampleRows(1000000, 256 * 10, 3);
  ASSERT_EQ(rows.size(), 2560u);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  EXPECT_EQ(std::set<uint64_t>(rows.begin(), rows.end()).size(), rows.size());
  EXPECT_LT(rows.back(), 1000000u);
  EXPECT_EQ(rows, SampleRows(1000000, 2560, 3));
  EXPECT_NE(rows, SampleRows(1000000, 2560, 4));
  EXPECT_EQ(SampleRows(5, 10, 1), (std::vector<uint64_t>{0, 1, 2, 3, 4}));
  // The sample spreads over the whole range.
  EXPECT_LT(rows.front(), 5000u);
  EXPECT_GT(rows.back(), 995000u);
}

TEST(KMeansTest, CosineTrainsOnDirections) {
  const size_t dim = 8, n = 800;
  // Two directions, each at many lengths: cosine clusters them by direction only.
  auto scale = RandomFloats(n, 2, 0.1f, 100.0f);
  auto noise = RandomFloats(n * dim, 3, -0.01f, 0.01f);
  std::vector<float> v(n * dim);
  for (size_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < dim; ++d) v[i * dim + d] = scale[i] * ((i % 2 == 0) == (d == 0) ? 1.0f : 0.0f) + noise[i * dim + d];
  }
  KMeansOptions o;
  o.k = 2;
  o.distance_type = DistanceType::kCosine;
  o.seed = 1;
  o.sample_rate = 0;  // every vector
  auto m = *TrainKMeans(v.data(), n, dim, o);
  EXPECT_EQ(m.sizes[0] + m.sizes[1], n);
  EXPECT_EQ(m.sizes[0], n / 2);
  EXPECT_FALSE(TrainKMeans(v.data(), 1, dim, o).ok());  // fewer vectors than k
  o.distance_type = DistanceType::kHamming;
  EXPECT_FALSE(TrainKMeans(v.data(), n, dim, o).ok());
}

}  // namespace
}  // namespace lance::linalg
