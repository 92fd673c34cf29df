#include "lance/linalg/flat_search.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "linalg/linalg_test_util.h"

namespace lance::linalg {
namespace {

using testing::BytesOf;
using testing::RandomFloats;
using testing::VectorColumnOf;

// Brute force: one distance per valid row, sorted by (distance, row), NaN left out.
std::vector<Neighbor> FlatModel(const std::vector<float>& values, size_t dim, const float* q,
                            DistanceType dt, size_t k, const std::vector<int64_t>& nulls,
                            size_t first = 0, size_t count = SIZE_MAX) {
  const size_t rows = std::min(values.size() / dim - first, count);
  auto kernel = *DistanceKernel::Make(dt, ElementType::kFloat32, q, dim);
  std::vector<Neighbor> all;
  for (size_t r = 0; r < rows; ++r) {
    if (std::find(nulls.begin(), nulls.end(), static_cast<int64_t>(first + r)) != nulls.end()) continue;
    float d;
    kernel.Compute(values.data() + (first + r) * dim, 1, &d);
    if (!std::isnan(d)) all.push_back({r, d});
  }
  std::sort(all.begin(), all.end(), NeighborBefore);
  if (all.size() > k) all.resize(k);
  return all;
}

TEST(FlatSearchTest, EqualsBruteForceOnAnyPoolAndTaskSize) {
  const size_t dim = 24, rows = 20000;
  auto values = RandomFloats(rows * dim, 3);
  // Duplicated vectors make ties across task boundaries.
  for (size_t r = 0; r < rows; r += 97) std::copy_n(values.data(), dim, values.data() + r * dim);
  const std::vector<int64_t> nulls = {5, 97, 1000, 19999};
  auto column = VectorColumnOf(ElementType::kFloat32, dim, BytesOf(values), nulls);
  auto pool = *ThreadPool::Make(3);
  const auto q = RandomFloats(dim, 4);
  for (DistanceType dt : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
    for (size_t k : {1, 10, 250}) {
      const auto want = FlatModel(values, dim, q.data(), dt, k, nulls);
      for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), pool.get()}) {
        for (size_t per_task : {1000, 4096, 1 << 20}) {
          FlatSearchOptions o;
          o.distance_type = dt;
          o.k = k;
          o.pool = p;
          o.rows_per_task = per_task;
          auto got = FlatSearch(*column, q.data(), dim, o);
          ASSERT_TRUE(got.ok()) << got.status().ToString();
          EXPECT_EQ(*got, want) << DistanceTypeName(dt) << " k " << k << " per task " << per_task;
        }
      }
    }
  }
  // The query duplicated at every 97th row: those rows first (l2 0), in row order.
  FlatSearchOptions o;
  o.k = 5;
  auto self = *FlatSearch(*column, values.data(), dim, o);
  ASSERT_EQ(self.size(), 5u);
  EXPECT_EQ(self[0].row, 0u);
  EXPECT_EQ(self[1].row, 194u);  // 97 is null
  EXPECT_EQ(self[0].distance, 0.0f);
}

TEST(FlatSearchTest, SlicedColumnsCountFromTheSlice) {
  const size_t dim = 9, rows = 500;
  auto values = RandomFloats(rows * dim, 5);
  auto column = VectorColumnOf(ElementType::kFloat32, dim, BytesOf(values), {130});
  auto slice = column->Slice(100, 300);
  const auto q = RandomFloats(dim, 6);
  FlatSearchOptions o;
  o.k = 20;
  EXPECT_EQ(*FlatSearch(*slice, q.data(), dim, o),
            FlatModel(values, dim, q.data(), DistanceType::kL2, 20, {130}, 100, 300));
}

TEST(FlatSearchTest, BatchEqualsOneQueryAtATimeAndRowIdsRenumber) {
  const size_t dim = 128, rows = 5000, nq = 7;
  auto values = RandomFloats(rows * dim, 8);
  auto column = VectorColumnOf(ElementType::kFloat32, dim, BytesOf(values));
  auto queries = RandomFloats(nq * dim, 9);
  auto pool = *ThreadPool::Make(2);
  FlatSearchOptions o;
  o.k = 15;
  o.pool = pool.get();
  o.rows_per_task = 1024;
  auto batch = FlatSearchBatch(*column, queries.data(), nq, dim, o);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->size(), nq);
  for (size_t i = 0; i < nq; ++i) {
    EXPECT_EQ((*batch)[i], *FlatSearch(*column, queries.data() + i * dim, dim, o)) << i;
  }
  // Row ids in reverse order: ties and the numbering follow them.
  std::vector<uint64_t> ids(rows);
  for (size_t r = 0; r < rows; ++r) ids[r] = 10 * (rows - r);
  o.row_ids = ids;
  auto renumbered = *FlatSearch(*column, queries.data(), dim, o);
  auto plain = (*batch)[0];
  ASSERT_EQ(renumbered.size(), plain.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(renumbered[i].row, ids[plain[i].row]);
    EXPECT_EQ(renumbered[i].distance, plain[i].distance);
  }
}

// The batched l2 / dot path estimates q.r in blocks and scores exactly only what may enter:
// its answers must be the one-query answers exactly, also with ties everywhere, nulls,
// infinities and large magnitudes.
TEST(FlatSearchTest, BatchPrefilterEqualsOneQueryOnHardData) {
  auto pool = *ThreadPool::Make(2);
  for (size_t dim : {1, 3, 17, 128}) {
    const size_t rows = 3000, nq = 6;
    auto values = RandomFloats(rows * dim, dim + 40, -4, 4);
    for (auto& v : values) v = std::round(v);  // few distinct vectors: ties
    for (size_t d = 0; d < dim; ++d) {
      values[7 * dim + d] = INFINITY;
      values[8 * dim + d] = 1e18f;
    }
    auto column = VectorColumnOf(ElementType::kFloat32, dim, BytesOf(values), {0, 1, 2999});
    auto queries = RandomFloats(nq * dim, dim + 41, -4, 4);
    for (size_t i = 0; i < dim; ++i) queries[i] = values[5 * dim + i];  // an exact match
    for (DistanceType dt : {DistanceType::kL2, DistanceType::kDot}) {
      for (size_t k : {1, 10, 100}) {
        FlatSearchOptions o;
        o.distance_type = dt;
        o.k = k;
        o.pool = pool.get();
        o.rows_per_task = 1024;
        auto batch = *FlatSearchBatch(*column, queries.data(), nq, dim, o);
        for (size_t q = 0; q < nq; ++q) {
          EXPECT_EQ(batch[q], FlatModel(values, dim, queries.data() + q * dim, dt, k, {0, 1, 2999}))
              << "dim " << dim << " " << DistanceTypeName(dt) << " k " << k << " query " << q;
        }
      }
    }
  }
}

TEST(FlatSearchTest, ElementTypesAndQueryCasts) {
  const size_t dim = 20, rows = 300;
  auto values = RandomFloats(rows * dim, 10);
  auto q = RandomFloats(dim, 11);
  FlatSearchOptions o;
  o.k = 12;
  // float64: the column holds the float values widened; the float query casts the same way.
  std::vector<double> v64(values.begin(), values.end());
  auto col64 = VectorColumnOf(ElementType::kFloat64, dim, BytesOf(v64));
  std::vector<double> q64(q.begin(), q.end());
  EXPECT_EQ(*FlatSearch(*col64, std::span<const float>(q), o), *FlatSearch(*col64, q64.data(), dim, o));
  // float16: the query rounds to nearest even.
  auto v16 = testing::ToHalf(values);
  auto col16 = VectorColumnOf(ElementType::kFloat16, dim, BytesOf(v16));
  auto q16 = testing::ToHalf(q);
  EXPECT_EQ(*FlatSearch(*col16, std::span<const float>(q), o), *FlatSearch(*col16, q16.data(), dim, o));
  // uint8 + hamming; a query value that is not a uint8 is refused.
  auto bytes = testing::RandomBytes(rows * dim, 12);
  auto col8 = VectorColumnOf(ElementType::kUInt8, dim, bytes);
  o.distance_type = DistanceType::kHamming;
  std::vector<float> qb(dim, 3.7f);
  auto hits = *FlatSearch(*col8, std::span<const float>(qb), o);
  std::vector<uint8_t> q3(dim, 3);
  EXPECT_EQ(hits, *FlatSearch(*col8, q3.data(), dim, o));
  qb[4] = 256;
  EXPECT_FALSE(FlatSearch(*col8, std::span<const float>(qb), o).ok());
  qb[4] = -1;
  EXPECT_FALSE(FlatSearch(*col8, std::span<const float>(qb), o).ok());
}

TEST(FlatSearchTest, ErrorsNameTheProblem) {
  auto values = RandomFloats(40, 1);
  auto column = VectorColumnOf(ElementType::kFloat32, 4, BytesOf(values));
  FlatSearchOptions o;
  auto st = FlatSearch(*column, values.data(), 3, o).status();
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.ToString().find("3 dimensions"), std::string::npos) << st.ToString();
  o.distance_type = DistanceType::kHamming;
  EXPECT_FALSE(FlatSearch(*column, values.data(), 4, o).ok());
  auto not_list = column->children[0];
  o.distance_type = DistanceType::kL2;
  st = FlatSearch(*not_list, values.data(), 4, o).status();
  EXPECT_NE(st.ToString().find("expected fixed_size_list"), std::string::npos) << st.ToString();
  // An empty column gives no neighbours; k = 0 too.
  auto empty = column->Slice(0, 0);
  EXPECT_TRUE(FlatSearch(*empty, values.data(), 4, o)->empty());
  o.k = 0;
  EXPECT_TRUE(FlatSearch(*column, values.data(), 4, o)->empty());
}

}  // namespace
}  // namespace lance::linalg
