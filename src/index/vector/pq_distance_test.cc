// PqEncode against the exhaustive nearest centroid per sub-vector, on one thread and on a pool;
// the transposed ADC scan against Score, bit for bit.
#include "index/vector/pq_distance.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace lance::index::vector {
namespace {

std::vector<float> Uniform(size_t n, uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = lo + (hi - lo) * static_cast<float>(rng() >> 40) * 0x1.0p-24f;
  return v;
}

double Exact(const float* a, const float* b, size_t dim) {
  double s = 0;
  for (size_t d = 0; d < dim; ++d) s += (static_cast<double>(a[d]) - b[d]) * (static_cast<double>(a[d]) - b[d]);
  return s;
}

TEST(PqEncodeTest, EveryCodeIsTheNearestCentroidOnAnyThreadCount) {
  for (size_t sub : {1, 4, 8, 16}) {
    PqCodebook pq;
    pq.num_sub_vectors = 4;
    pq.dim = 4 * sub;
    pq.centroids = Uniform(4 * 256 * sub, sub, -2, 2);
    const size_t n = 5000;  // more than one chunk of the parallel encoder
    auto x = Uniform(n * pq.dim, sub + 100, -2.5f, 2.5f);
    std::vector<uint8_t> one(n * 4), two(n * 4);
    PqEncode(pq, x.data(), n, linalg::DistanceType::kL2, one.data());
    auto pool = *ThreadPool::Make(2);
    PqEncode(pq, x.data(), n, linalg::DistanceType::kL2, two.data(), pool.get());
    EXPECT_EQ(one, two) << sub;
    size_t exact = 0;
    for (size_t i = 0; i < n; ++i) {
      for (size_t s = 0; s < 4; ++s) {
        const float* v = x.data() + i * pq.dim + s * sub;
        double best = HUGE_VAL;
        size_t best_c = 0;
        for (size_t c = 0; c < 256; ++c) {
          const double d = Exact(v, pq.centroid(s, c), sub);
          if (d < best) {
            best = d;
            best_c = c;
          }
        }
        const uint8_t got = one[i * 4 + s];
        exact += got == best_c ? 1 : 0;
        // A different code only at a float near-tie (the kernel's |c|^2 - 2 x.c form).
        EXPECT_LE(Exact(v, pq.centroid(s, got), sub), best + 1e-5 * (1 + best)) << sub << " row " << i;
      }
    }
    EXPECT_GE(exact, n * 4 - n / 100) << sub;  // near-ties are rare
  }
}


// The blocked scan of transposed codes returns Score's floats bit for bit (its summation order),
// for every block remainder, both metrics, 8-bit and 4-bit sized codebooks.
TEST(PqDistanceTableTest, TransposedScanEqualsScoreBitForBit) {
  for (linalg::DistanceType metric : {linalg::DistanceType::kL2, linalg::DistanceType::kDot}) {
    for (size_t m : {1, 3, 16}) {
      for (uint32_t bits : {4u, 8u}) {
        PqCodebook pq;
        pq.num_sub_vectors = m;
        pq.num_bits = bits;
        pq.dim = m * 8;
        pq.centroids = Uniform(m * pq.num_centroids() * 8, m * 31 + bits, -3, 3);
        const auto q = Uniform(pq.dim, m + 7, -3, 3);
        const PqDistanceTable table(pq, q.data(), metric);
        for (size_t n : {0, 1, 7, 8, 9, 31, 100}) {
          std::mt19937_64 rng(n * 131 + m);
          std::vector<uint8_t> rows(n * m), transposed(n * m);
          for (auto& c : rows) c = static_cast<uint8_t>(rng() % pq.num_centroids());
          for (size_t j = 0; j < n; ++j) {
            for (size_t s = 0; s < m; ++s) transposed[s * n + j] = rows[j * m + s];
          }
          std::vector<float> want(n), got(n, -1.0f);
          table.Score(rows.data(), n, want.data());
          table.ScoreTransposed(transposed.data(), n, got.data());
          for (size_t j = 0; j < n; ++j) {
            uint32_t a, b;
            std::memcpy(&a, &want[j], 4);
            std::memcpy(&b, &got[j], 4);
            EXPECT_EQ(a, b) << "m " << m << " bits " << bits << " n " << n << " row " << j;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace lance::index::vector
