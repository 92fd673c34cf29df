#include "lance/linalg/distance.h"

#include <bit>
#include <cmath>

#include <gtest/gtest.h>

#include "lance/columnar/float16.h"
#include "linalg/linalg_test_util.h"

namespace lance::linalg {
namespace {

using testing::AllLevels;
using testing::RandomBytes;
using testing::RandomFloats;
using testing::ScopedLevel;
using testing::ToHalf;

const size_t kDims[] = {1, 3, 7, 8, 15, 16, 17, 127, 128, 129, 768, 1536};

std::vector<float> Distances(DistanceType dt, ElementType et, const void* q, const void* v, size_t n,
                       size_t dim) {
  auto kernel = DistanceKernel::Make(dt, et, q, dim);
  EXPECT_TRUE(kernel.ok()) << kernel.status().ToString();
  std::vector<float> out(n, -12345.0f);
  kernel->Compute(v, n, out.data());
  return out;
}

uint32_t Bits(float f) { return std::bit_cast<uint32_t>(f); }

// ---- lance 12's own answers ------------------------------------------------------------------
// `_distance` of table.search(q).distanceType(...) on lance 12 (node), for these vectors.
TEST(DistanceTest, Float32ValuesOfLance12Dim3) {
  const std::vector<float> q = {1, 0.5, 0};
  const std::vector<float> v = {1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 2, 2, -1, 0, 0, 1, 0, 0, 0.5, 0.5, 0, 3, 0, 0};
  const std::vector<double> l2 = {0.25, 1.25, 0.25, 7.25, 4.25, 0.25, 0.25, 4.25};
  const std::vector<double> cosine = {0.10557281970977783, 0.5527864098548889,
                                      0.05131673812866211, 0.22540336847305298,
                                      1.8944271802902222,  0.10557281970977783,
                                      0.05131673812866211, 0.10557287931442261};
  const std::vector<double> dot = {0, 0.5, -0.5, -2, 2, 0, 0.25, -2};
  for (SimdLevel level : AllLevels()) {
    ScopedLevel scoped(level);
    if (!scoped.ok()) continue;
    SCOPED_TRACE(SimdLevelName(level));
    auto a = Distances(DistanceType::kL2, ElementType::kFloat32, q.data(), v.data(), 8, 3);
    auto b = Distances(DistanceType::kCosine, ElementType::kFloat32, q.data(), v.data(), 8, 3);
    auto c = Distances(DistanceType::kDot, ElementType::kFloat32, q.data(), v.data(), 8, 3);
    for (size_t i = 0; i < 8; ++i) {
      EXPECT_EQ(a[i], static_cast<float>(l2[i])) << i;
      EXPECT_EQ(b[i], static_cast<float>(cosine[i])) << i;
      EXPECT_EQ(c[i], static_cast<float>(dot[i])) << i;
    }
  }
}

// Dimension 5 in float16, float32, float64 and uint8 (hamming), same rows for each.
TEST(DistanceTest, ValuesOfLance12Dim5AllElementTypes) {
  const std::vector<float> q = {1, 0.5, 0, 2, 1};
  const std::vector<float> v = {1, 0, 0, 2, 1,   0, 1, 0, 3, 1, 1, 1, 0, 0, 0, 2, 2, 2, 2, 2,
                                250, 0, 0, 1, 1, 1, 0, 0, 2, 1, 3, 3, 0, 1, 0, 3, 0, 0, 7, 9};
  const std::vector<double> l2 = {0.25, 2.25, 5.25, 8.25, 62002.25, 0.25, 12.25, 93.25};
  const std::vector<double> dot = {-5, -6.5, -0.5, -8, -252, -5, -5.5, -25};
  const std::vector<double> cos32 = {0.020204126834869385, 0.0954660177230835, 0.5757359266281128,
                                     0.195015549659729,    0.5952064990997314, 0.020204126834869385,
                                     0.4035191535949707,   0.11788356304168701};
  const std::vector<double> cos16 = {0.02020406723022461, 0.09546597301959991, 0.5757359266281128,
                                     0.1950155645608902,  0.5952064990997314,  0.02020406723022461,
                                     0.4035191237926483,  0.11788354068994522};
  const std::vector<double> hamming = {0, 3, 3, 6, 9, 0, 6, 4};
  std::vector<double> q64(q.begin(), q.end()), v64(v.begin(), v.end());
  auto q16 = ToHalf(q), v16 = ToHalf(v);
  std::vector<uint8_t> q8 = {1, 0, 0, 2, 1}, v8(v.begin(), v.end());
  for (SimdLevel level : AllLevels()) {
    ScopedLevel scoped(level);
    if (!scoped.ok()) continue;
    SCOPED_TRACE(SimdLevelName(level));
    auto l2_32 = Distances(DistanceType::kL2, ElementType::kFloat32, q.data(), v.data(), 8, 5);
    auto l2_64 = Distances(DistanceType::kL2, ElementType::kFloat64, q64.data(), v64.data(), 8, 5);
    auto l2_16 = Distances(DistanceType::kL2, ElementType::kFloat16, q16.data(), v16.data(), 8, 5);
    auto d32 = Distances(DistanceType::kDot, ElementType::kFloat32, q.data(), v.data(), 8, 5);
    auto d64 = Distances(DistanceType::kDot, ElementType::kFloat64, q64.data(), v64.data(), 8, 5);
    auto d16 = Distances(DistanceType::kDot, ElementType::kFloat16, q16.data(), v16.data(), 8, 5);
    auto c32 = Distances(DistanceType::kCosine, ElementType::kFloat32, q.data(), v.data(), 8, 5);
    auto c64 = Distances(DistanceType::kCosine, ElementType::kFloat64, q64.data(), v64.data(), 8, 5);
    auto c16 = Distances(DistanceType::kCosine, ElementType::kFloat16, q16.data(), v16.data(), 8, 5);
    auto h = Distances(DistanceType::kHamming, ElementType::kUInt8, q8.data(), v8.data(), 8, 5);
    for (size_t i = 0; i < 8; ++i) {
      SCOPED_TRACE(i);
      EXPECT_EQ(l2_32[i], static_cast<float>(l2[i]));
      EXPECT_EQ(l2_64[i], static_cast<float>(l2[i]));
      EXPECT_EQ(l2_16[i], static_cast<float>(l2[i]));
      EXPECT_EQ(d32[i], static_cast<float>(dot[i]));
      EXPECT_EQ(d64[i], static_cast<float>(dot[i]));
      EXPECT_EQ(d16[i], static_cast<float>(dot[i]));
      EXPECT_EQ(c32[i], static_cast<float>(cos32[i]));
      EXPECT_EQ(c64[i], static_cast<float>(cos32[i]));
      EXPECT_EQ(h[i], static_cast<float>(hamming[i]));
      // The reference's 1/sqrt is the CPU's estimate plus a Newton step (relative error
      // ~1e-7), and the estimate differs between CPU models (these values were recorded on an
      // AVX2 machine; an AVX-512 Xeon's differs in the last bit); the portable path's is exact.
      EXPECT_NEAR(c16[i], cos16[i], 3e-7);
    }
  }
}

TEST(DistanceTest, UnsupportedCombinationsAreRefusedAsLance12Does) {
  const float q[4] = {0, 0, 0, 0};
  auto k = DistanceKernel::Make(DistanceType::kHamming, ElementType::kFloat32, q, 4);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().ToString().find("distance type hamming does not support float32"),
            std::string::npos)
      << k.status().ToString();
  const uint8_t b[4] = {};
  EXPECT_FALSE(DistanceKernel::Make(DistanceType::kL2, ElementType::kUInt8, b, 4).ok());
  EXPECT_FALSE(DistanceKernel::Make(DistanceType::kCosine, ElementType::kUInt8, b, 4).ok());
  EXPECT_FALSE(DistanceKernel::Make(DistanceType::kDot, ElementType::kUInt8, b, 4).ok());
  EXPECT_FALSE(DistanceKernel::Make(DistanceType::kL2, ElementType::kFloat32, q, 0).ok());
  EXPECT_EQ(*ParseDistanceType("Euclidean"), DistanceType::kL2);
  EXPECT_EQ(*ParseDistanceType("COSINE"), DistanceType::kCosine);
  EXPECT_FALSE(ParseDistanceType("manhattan").ok());
}

// ---- every path against the portable one (bit for bit) and against naive double math --------
struct Naive {
  double l2 = 0, dot = 0, qq = 0, vv = 0;
};
template <typename Get>
Naive NaiveOf(size_t dim, Get get) {
  Naive n;
  for (size_t i = 0; i < dim; ++i) {
    auto [a, b] = get(i);
    n.l2 += (a - b) * (a - b);
    n.dot += a * b;
    n.qq += a * a;
    n.vv += b * b;
  }
  return n;
}

void ExpectNear(double want, float got, size_t dim, double scale, const char* what) {
  const double tol = 1e-6 * std::sqrt(static_cast<double>(dim)) * scale + 1e-6;
  EXPECT_NEAR(got, want, tol) << what << " dim " << dim;
}

TEST(DistanceTest, EveryPathEqualsPortableAndNaiveMath) {
  constexpr size_t kRows = 37;  // not a multiple of the 4- and 2-vector passes
  for (size_t dim : kDims) {
    const auto q = RandomFloats(dim, 11 * dim + 1);
    const auto v = RandomFloats(dim * kRows, 13 * dim + 2);
    std::vector<double> q64(q.begin(), q.end()), v64(v.begin(), v.end());
    const auto q16 = ToHalf(q), v16 = ToHalf(v);
    const auto qb = RandomBytes(dim, dim + 5), vb = RandomBytes(dim * kRows, dim + 6);
    struct Case {
      DistanceType dt;
      ElementType et;
      const void* q;
      const void* v;
    };
    const Case cases[] = {
        {DistanceType::kL2, ElementType::kFloat32, q.data(), v.data()},
        {DistanceType::kDot, ElementType::kFloat32, q.data(), v.data()},
        {DistanceType::kCosine, ElementType::kFloat32, q.data(), v.data()},
        {DistanceType::kL2, ElementType::kFloat64, q64.data(), v64.data()},
        {DistanceType::kDot, ElementType::kFloat64, q64.data(), v64.data()},
        {DistanceType::kCosine, ElementType::kFloat64, q64.data(), v64.data()},
        {DistanceType::kL2, ElementType::kFloat16, q16.data(), v16.data()},
        {DistanceType::kDot, ElementType::kFloat16, q16.data(), v16.data()},
        {DistanceType::kCosine, ElementType::kFloat16, q16.data(), v16.data()},
        {DistanceType::kHamming, ElementType::kUInt8, qb.data(), vb.data()},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(DistanceTypeName(c.dt)) + " " + std::string(ElementTypeName(c.et)) +
                   " dim " + std::to_string(dim));
      std::vector<float> portable;
      {
        ScopedLevel scoped(SimdLevel::kPortable);
        ASSERT_TRUE(scoped.ok());
        portable = Distances(c.dt, c.et, c.q, c.v, kRows, dim);
      }
      // Portable against naive double-precision math.
      for (size_t r = 0; r < kRows; ++r) {
        Naive n;
        if (c.et == ElementType::kFloat32) {
          n = NaiveOf(dim, [&](size_t i) { return std::pair<double, double>(q[i], v[r * dim + i]); });
        } else if (c.et == ElementType::kFloat64) {
          n = NaiveOf(dim, [&](size_t i) { return std::pair<double, double>(q64[i], v64[r * dim + i]); });
        } else if (c.et == ElementType::kFloat16) {
          n = NaiveOf(dim, [&](size_t i) {
            return std::pair<double, double>(HalfToFloat(q16[i]), HalfToFloat(v16[r * dim + i]));
          });
        }
        switch (c.dt) {
          case DistanceType::kL2:
            ExpectNear(n.l2, portable[r], dim, n.l2 + 1, "l2");
            break;
          case DistanceType::kDot:
            ExpectNear(1 - n.dot, portable[r], dim, std::sqrt(n.qq * n.vv) + 1, "dot");
            break;
          case DistanceType::kCosine:
            ExpectNear(1 - n.dot / std::sqrt(n.qq * n.vv), portable[r], dim, 4, "cosine");
            break;
          case DistanceType::kHamming: {
            uint32_t bits = 0;
            for (size_t i = 0; i < dim; ++i) bits += std::popcount(static_cast<unsigned>(qb[i] ^ vb[r * dim + i]));
            EXPECT_EQ(portable[r], static_cast<float>(bits));
            break;
          }
        }
      }
      for (SimdLevel level : AllLevels()) {
        if (level == SimdLevel::kPortable) continue;
        ScopedLevel scoped(level);
        if (!scoped.ok()) continue;
        SCOPED_TRACE(SimdLevelName(level));
        const auto got = Distances(c.dt, c.et, c.q, c.v, kRows, dim);
        for (size_t r = 0; r < kRows; ++r) {
          if (c.dt == DistanceType::kCosine && c.et == ElementType::kFloat16) {
            // rsqrt estimate (reference) vs exact 1/sqrt (portable): ~1e-7 relative in cos.
            EXPECT_NEAR(got[r], portable[r], 3e-7) << r;
          } else {
            EXPECT_EQ(Bits(got[r]), Bits(portable[r])) << "row " << r << ": " << got[r] << " vs " << portable[r];
          }
        }
      }
    }
  }
}

TEST(DistanceTest, Avx512PathRunsWhereTheCpuHasIt) {
  ScopedLevel scoped(SimdLevel::kAvx512);
  LINALG_SKIP_IF_UNSUPPORTED(scoped, SimdLevel::kAvx512);
  EXPECT_EQ(ActiveSimdLevel(), SimdLevel::kAvx512);
}

TEST(DistanceTest, SetSimdLevelRefusesWhatTheCpuLacks) {
  if (MaxSimdLevel() == SimdLevel::kAvx512) GTEST_SKIP() << "this CPU runs every level";
  const Status st = SetSimdLevel(SimdLevel::kAvx512);
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
  EXPECT_NE(ActiveSimdLevel(), SimdLevel::kAvx512);
}

// ---- float16 edge cases, NaN and infinities ---------------------------------------------------
TEST(DistanceTest, Float16EdgeCases) {
  // Subnormals (0x0001 = 2^-24), the largest finite half (65504), -0, inf and NaN.
  const uint16_t sub = 0x0001, big = 0x7bff, neg_zero = 0x8000, inf = 0x7c00, nan = 0x7e00;
  for (SimdLevel level : AllLevels()) {
    ScopedLevel scoped(level);
    if (!scoped.ok()) continue;
    SCOPED_TRACE(SimdLevelName(level));
    for (size_t dim : {size_t{3}, size_t{8}, size_t{19}}) {
      std::vector<uint16_t> q(dim, sub), v(dim, neg_zero);
      auto d = Distances(DistanceType::kL2, ElementType::kFloat16, q.data(), v.data(), 1, dim);
      // (2^-24)^2 = 2^-48 per element, exact in float.
      EXPECT_EQ(d[0], static_cast<float>(dim) * std::ldexp(1.0f, -48)) << dim;
      std::fill(q.begin(), q.end(), big);
      std::fill(v.begin(), v.end(), uint16_t{0});
      d = Distances(DistanceType::kL2, ElementType::kFloat16, q.data(), v.data(), 1, dim);
      // No overflow in half precision: the squares are float32 (sums of them round).
      EXPECT_FLOAT_EQ(d[0], static_cast<float>(dim) * 65504.0f * 65504.0f) << dim;
      d = Distances(DistanceType::kCosine, ElementType::kFloat16, q.data(), q.data(), 1, dim);
      EXPECT_NEAR(d[0], 0.0f, 1e-6) << dim;
      v[dim - 1] = inf;
      d = Distances(DistanceType::kL2, ElementType::kFloat16, q.data(), v.data(), 1, dim);
      EXPECT_TRUE(std::isinf(d[0])) << dim;
      v[dim - 1] = nan;
      d = Distances(DistanceType::kL2, ElementType::kFloat16, q.data(), v.data(), 1, dim);
      EXPECT_TRUE(std::isnan(d[0])) << dim;
      d = Distances(DistanceType::kDot, ElementType::kFloat16, q.data(), v.data(), 1, dim);
      EXPECT_TRUE(std::isnan(d[0])) << dim;
    }
  }
}

// The rows lance 12 answers with inf and drops as NaN (checked through node): l2 against an
// infinite coordinate is inf, inf - inf is NaN; cosine of a zero vector is NaN; dot of 0 * inf
// is NaN, of 1 * inf is -inf.
TEST(DistanceTest, InfinitiesAndNaNAsTheReference) {
  const float inf = INFINITY;
  const std::vector<float> v = {0, 0, 0, 0, inf, 0, 0, 0, -inf, 0, 0, 0, 3.4e38f, 3.4e38f, 0, 0};
  for (SimdLevel level : AllLevels()) {
    ScopedLevel scoped(level);
    if (!scoped.ok()) continue;
    SCOPED_TRACE(SimdLevelName(level));
    const std::vector<float> one = {1, 0, 0, 0}, qinf = {inf, 0, 0, 0}, zero = {0, 0, 0, 0};
    auto l2 = Distances(DistanceType::kL2, ElementType::kFloat32, one.data(), v.data(), 4, 4);
    EXPECT_EQ(l2[0], 1.0f);
    EXPECT_EQ(l2[1], inf);
    EXPECT_EQ(l2[2], inf);
    EXPECT_EQ(l2[3], inf);
    l2 = Distances(DistanceType::kL2, ElementType::kFloat32, qinf.data(), v.data(), 4, 4);
    EXPECT_EQ(l2[0], inf);
    EXPECT_TRUE(std::isnan(l2[1]));
    EXPECT_EQ(l2[2], inf);
    auto cos = Distances(DistanceType::kCosine, ElementType::kFloat32, one.data(), v.data(), 4, 4);
    EXPECT_TRUE(std::isnan(cos[0]));
    EXPECT_TRUE(std::isnan(cos[1]));
    EXPECT_EQ(cos[3], 1.0f);  // |v| overflows to inf: x.y / inf = 0
    cos = Distances(DistanceType::kCosine, ElementType::kFloat32, zero.data(), v.data(), 4, 4);
    for (float c : cos) EXPECT_TRUE(std::isnan(c));
    auto dot = Distances(DistanceType::kDot, ElementType::kFloat32, one.data(), v.data(), 4, 4);
    EXPECT_EQ(dot[0], 1.0f);
    EXPECT_EQ(dot[1], -inf);
    EXPECT_EQ(dot[2], inf);
    EXPECT_EQ(dot[3], 1.0f - 3.4e38f);
    dot = Distances(DistanceType::kDot, ElementType::kFloat32, zero.data(), v.data(), 4, 4);
    EXPECT_TRUE(std::isnan(dot[1]));
  }
}

TEST(DistanceTest, ShorthandsUseTheActiveLevel) {
  const auto a = RandomFloats(129, 1), b = RandomFloats(129, 2);
  auto k = DistanceKernel::Make(DistanceType::kL2, ElementType::kFloat32, a.data(), 129);
  float want = 0;
  k->Compute(b.data(), 1, &want);
  EXPECT_EQ(L2(a.data(), b.data(), 129), want);
  EXPECT_EQ(*Distance(DistanceType::kL2, ElementType::kFloat32, a.data(), b.data(), 129), want);
  EXPECT_EQ(CosineDistance(a.data(), a.data(), 129) < 1e-6f, true);
}

}  // namespace
}  // namespace lance::linalg

namespace lance::linalg {
namespace {

// SQ code distances: every level equals the integer sum of squared differences, at lengths
// around the 32- and 16-code steps and with the extreme differences (0 vs 255) included.
TEST(DistanceTest, L2U8EqualsNaiveSumOnEveryLevel) {
  for (SimdLevel level : AllLevels()) {
    ScopedLevel scoped(level);
    if (!scoped.ok()) continue;  // a level this CPU lacks (Avx512PathRunsWhereTheCpuHasIt)
    for (size_t dim : {1, 15, 16, 17, 31, 32, 33, 48, 127, 128, 129, 768, 1536}) {
      auto a = RandomBytes(dim, 3 * dim + 1), b = RandomBytes(dim, 5 * dim + 2);
      a[0] = 0;
      b[0] = 255;
      uint32_t want = 0;
      for (size_t d = 0; d < dim; ++d) {
        const int32_t t = int32_t{a[d]} - int32_t{b[d]};
        want += static_cast<uint32_t>(t * t);
      }
      EXPECT_EQ(L2U8(a.data(), b.data(), dim), want) << SimdLevelName(level) << " dim " << dim;
      EXPECT_EQ(L2U8Kernel()(a.data(), b.data(), dim), want) << SimdLevelName(level) << " dim " << dim;
      EXPECT_EQ(L2U8(a.data(), a.data(), dim), 0u);
    }
    std::vector<uint8_t> lo(4096, 0), hi(4096, 255);
    EXPECT_EQ(L2U8(lo.data(), hi.data(), 4096), 4096u * 255u * 255u) << SimdLevelName(level);
  }
}

}  // namespace
}  // namespace lance::linalg

namespace lance::linalg {
namespace {

// The packed l2 (PQ distance tables): bit for bit L2Distances of the unpacked vectors on every
// level, across whole and partial groups of 8 and dimensions with and without a tail.
TEST(DistanceTest, PackedL2EqualsL2DistancesOnEveryLevel) {
  for (SimdLevel level : AllLevels()) {
    ScopedLevel scoped(level);
    if (!scoped.ok()) continue;
    for (size_t dim : {1, 3, 4, 7, 8, 9, 16, 17, 24, 32, 40}) {
      for (size_t n : {1, 7, 8, 9, 16, 19, 256}) {
        const auto q = RandomFloats(dim, dim + 7 * n);
        const auto v = RandomFloats(n * dim, 3 * dim + n);
        std::vector<float> want(n), got(n, -1.0f);
        L2Distances(q.data(), v.data(), n, dim, want.data());
        const std::vector<float> packed = PackBy8(v.data(), n, dim);
        ASSERT_EQ(packed.size(), (n + 7) / 8 * 8 * dim);
        L2DistancesPacked(q.data(), packed.data(), n, dim, got.data());
        for (size_t i = 0; i < n; ++i) {
          EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i]))
              << SimdLevelName(level) << " dim " << dim << " n " << n << " row " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace lance::linalg
