#include "lance/linalg/topk.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace lance::linalg {
namespace {

// The model: sort every (row, distance) with a non-NaN distance by lance 12's order, keep k.
std::vector<Neighbor> Model(const std::vector<float>& d, size_t k, uint64_t first = 0) {
  std::vector<Neighbor> all;
  for (size_t i = 0; i < d.size(); ++i) {
    if (!std::isnan(d[i])) all.push_back({first + i, d[i]});
  }
  std::stable_sort(all.begin(), all.end(), [](const Neighbor& a, const Neighbor& b) {
    // -inf < finite < +inf; -0.0 before +0.0 (IEEE total order), then row.
    if (a.distance != b.distance) return a.distance < b.distance;
    if (std::signbit(a.distance) != std::signbit(b.distance)) return std::signbit(a.distance);
    return a.row < b.row;
  });
  if (all.size() > k) all.resize(k);
  return all;
}

TEST(TopKTest, TiesKeepTheSmallestRowsInRowOrder) {
  // 3 distinct values, many ties; k cuts inside a tie group.
  std::vector<float> d;
  for (int i = 0; i < 30; ++i) d.push_back(static_cast<float>(i % 3));
  for (size_t k : {0, 1, 5, 9, 10, 11, 12, 29, 30, 31, 100}) {
    SCOPED_TRACE(k);
    auto got = SelectTopK(d.data(), d.size(), k);
    EXPECT_EQ(got, Model(d, k));
    if (k >= 11) {
      EXPECT_EQ(got[9].row, 27u);  // the tenth 0 is row 27
      EXPECT_EQ(got[10].row, 1u);  // then the ones, from row 1
    }
  }
}

TEST(TopKTest, NaNIsDroppedInfinitiesOrdered) {
  const float inf = INFINITY, nan = NAN;
  std::vector<float> d = {nan, 3, inf, -inf, -nan, 0.0f, -0.0f, 1, inf, nan, -inf};
  for (size_t k : {1, 2, 3, 5, 8, 20}) {
    SCOPED_TRACE(k);
    EXPECT_EQ(SelectTopK(d.data(), d.size(), k), Model(d, k));
  }
  auto all = SelectTopK(d.data(), d.size(), 20);
  ASSERT_EQ(all.size(), 8u);  // three NaN dropped
  EXPECT_EQ(all[0].row, 3u);
  EXPECT_EQ(all[1].row, 10u);
  EXPECT_EQ(all[2].row, 6u);  // -0.0 before +0.0 as lance 12's total order has it
  EXPECT_EQ(all[3].row, 5u);
  EXPECT_EQ(all.back().row, 8u);
}

TEST(TopKTest, RandomAgainstModelPushMergeValidity) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    const size_t n = 1 + rng() % 3000;
    const size_t k = 1 + rng() % 200;
    std::vector<float> d(n);
    // Few distinct values, so ties are everywhere.
    for (auto& x : d) x = static_cast<float>(rng() % 50) / 7.0f;
    // One TopK per chunk, merged; the same as one over everything.
    TopK merged(k);
    for (size_t start = 0; start < n; start += 257) {
      TopK part(k);
      part.Push(d.data() + start, std::min<size_t>(257, n - start), start);
      merged.Merge(part);
    }
    EXPECT_EQ(merged.Sorted(), Model(d, k)) << n << " " << k;
    // A validity bitmap (offset 3) hides rows; explicit rows number them.
    std::vector<uint8_t> bits((n + 3 + 7) / 8 + 1, 0);
    std::vector<float> visible = d;
    for (size_t i = 0; i < n; ++i) {
      if (rng() % 4 != 0) {
        bits[(i + 3) / 8] |= static_cast<uint8_t>(1u << ((i + 3) % 8));
      } else {
        visible[i] = NAN;
      }
    }
    TopK masked(k);
    masked.Push(d.data(), n, 1000, bits.data(), 3);
    EXPECT_EQ(masked.Sorted(), Model(visible, k, 1000));
    std::vector<uint64_t> rows(n);
    for (size_t i = 0; i < n; ++i) rows[i] = 1000 + i;
    TopK explicit_rows(k);
    explicit_rows.Push(d.data(), rows.data(), n, bits.data(), 3);
    EXPECT_EQ(explicit_rows.Sorted(), Model(visible, k, 1000));
  }
}

TEST(TopKTest, DistanceKeyIsTotalOrder) {
  const float values[] = {-INFINITY, -3.5f, -1e-40f, -0.0f, 0.0f, 1e-40f, 2.0f, INFINITY};
  for (size_t i = 0; i + 1 < std::size(values); ++i) {
    EXPECT_LT(DistanceKey(values[i]), DistanceKey(values[i + 1])) << values[i];
  }
}

}  // namespace
}  // namespace lance::linalg
