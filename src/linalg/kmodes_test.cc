#include "lance/linalg/kmodes.h"

#include <bit>
#include <set>

#include <gtest/gtest.h>

#include "linalg/linalg_test_util.h"

namespace lance::linalg {
namespace {

using testing::AllLevels;
using testing::RandomBytes;
using testing::ScopedLevel;

uint32_t ScalarHamming(const uint8_t* a, const uint8_t* b, size_t bytes) {
  uint32_t c = 0;
  for (size_t i = 0; i < bytes; ++i) {
    for (int bit = 0; bit < 8; ++bit) c += ((a[i] ^ b[i]) >> bit) & 1;
  }
  return c;
}

// `n` rows around `centres` random binary vectors (row i around centre i % centres), each bit
// flipped with probability 1/8.
std::vector<uint8_t> Clustered(size_t n, size_t bytes, size_t centres, uint64_t seed,
                               std::vector<uint8_t>* centre_out = nullptr) {
  std::vector<uint8_t> c = RandomBytes(centres * bytes, seed);
  std::vector<uint8_t> noise = RandomBytes(n * bytes * 8, seed + 1);
  std::vector<uint8_t> out(n * bytes);
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < bytes; ++b) {
      uint8_t v = c[(i % centres) * bytes + b];
      for (int bit = 0; bit < 8; ++bit) {
        if (noise[(i * bytes + b) * 8 + bit] < 32) v = static_cast<uint8_t>(v ^ (1u << bit));
      }
      out[i * bytes + b] = v;
    }
  }
  if (centre_out) *centre_out = c;
  return out;
}

TEST(KModesTest, AssignmentIsTheScalarArgminOnEveryLevel) {
  const size_t n = 300, bytes = 13, k = 9;
  auto v = RandomBytes(n * bytes, 3);
  auto c = RandomBytes(k * bytes, 4);
  for (SimdLevel level : AllLevels()) {
    ScopedLevel scoped(level);
    std::vector<uint32_t> a(n);
    std::vector<float> d(n);
    AssignToBinaryCentroids(v.data(), n, bytes, c.data(), k, nullptr, a.data(), d.data());
    for (size_t i = 0; i < n; ++i) {
      uint32_t best = 0, best_d = UINT32_MAX;
      for (uint32_t j = 0; j < k; ++j) {
        const uint32_t dj = ScalarHamming(v.data() + i * bytes, c.data() + j * bytes, bytes);
        if (dj < best_d) best_d = dj, best = j;  // the first minimum
      }
      ASSERT_EQ(a[i], best) << "row " << i;
      ASSERT_EQ(d[i], static_cast<float>(best_d)) << "row " << i;
    }
  }
}

TEST(KModesTest, CentroidsAreTheMajorityOfTheirRowsAndFindTheClusters) {
  const size_t n = 2000, bytes = 16, k = 5;
  std::vector<uint8_t> centres;
  auto v = Clustered(n, bytes, k, 21, &centres);
  KModesOptions o;
  o.k = k;
  o.sample_rate = 0;
  o.seed = 7;
  auto model = TrainKModes(v.data(), n, bytes, o);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_EQ(model->centroids.size(), k * bytes);
  // Every true centre is within a few bits of one mode (random starts can share a cluster, so
  // allow one centre to be missed; 5 well-separated clusters are found in practice).
  size_t found = 0;
  std::set<size_t> used;
  for (size_t c = 0; c < k; ++c) {
    for (size_t j = 0; j < k; ++j) {
      if (ScalarHamming(centres.data() + c * bytes, model->centroids.data() + j * bytes, bytes) <= 4) {
        ++found;
        used.insert(j);
        break;
      }
    }
  }
  EXPECT_GE(found, k - 1);
  // The modes are the per-bit majorities of the rows nearest them (at convergence).
  std::vector<uint32_t> a(n);
  AssignToBinaryCentroids(v.data(), n, bytes, model->centroids.data(), k, nullptr, a.data());
  for (size_t j = 0; j < k; ++j) {
    size_t size = 0;
    std::vector<uint32_t> ones(bytes * 8, 0);
    for (size_t i = 0; i < n; ++i) {
      if (a[i] != j) continue;
      ++size;
      for (size_t b = 0; b < bytes * 8; ++b) ones[b] += (v[i * bytes + b / 8] >> (b % 8)) & 1;
    }
    if (size == 0) continue;
    for (size_t b = 0; b < bytes * 8; ++b) {
      EXPECT_EQ((model->centroids[j * bytes + b / 8] >> (b % 8)) & 1, ones[b] * 2 > size ? 1 : 0)
          << "centroid " << j << " bit " << b;
    }
  }
  double loss = 0;
  for (size_t i = 0; i < n; ++i) loss += ScalarHamming(v.data() + i * bytes, model->centroids.data() + a[i] * bytes, bytes);
  EXPECT_LT(loss / n, 0.2 * bytes * 8);  // rows lie ~16 bits from their centre
  // Seeded: the same model again.
  auto again = TrainKModes(v.data(), n, bytes, o);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->centroids, model->centroids);
}

TEST(KModesTest, ErrorsNameTheProblem) {
  auto v = RandomBytes(4 * 8, 1);
  KModesOptions o;
  o.k = 5;
  auto r = TrainKModes(v.data(), 4, 8, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("5 centroids with 4 vectors"), std::string::npos) << r.status().ToString();
  o.k = 0;
  EXPECT_FALSE(TrainKModes(v.data(), 4, 8, o).ok());
  o.k = 2;
  EXPECT_FALSE(TrainKModes(v.data(), 4, 0, o).ok());
}

}  // namespace
}  // namespace lance::linalg
