// The portable kernels: plain C++ in the reference's summation order. They define the
// results every SIMD level must reproduce bit for bit (kernels_avx2.cc, kernels_avx512.cc).
#include <cmath>
#include <cstring>
#include <vector>

#include "lance/columnar/float16.h"
#include "linalg/kernels.h"

// No contraction of a * b + c into an fma: the reference rounds the product and the sum
// separately wherever it does not call fma explicitly.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace lance::linalg::internal {
namespace {

// ---- float32: one fused 8-lane accumulator per vector --------------------------------------
// sum = (tail, summed left to right, products rounded) + Fold8(lanes), lane l holding
// fma(a, b, lane) over elements l, l + 8, ...: lance 12's float32 l2, dot and norm.
template <typename Term, typename Fused>
float Fused8(size_t dim, Term term, Fused fused) {
  const size_t full = dim / 8 * 8;
  float tail = 0;
  for (size_t i = full; i < dim; ++i) tail += term(i);
  float lanes[8] = {};
  for (size_t i = 0; i < full; i += 8) {
    for (size_t l = 0; l < 8; ++l) lanes[l] = fused(i + l, lanes[l]);
  }
  return tail + Fold8(lanes);
}

float L2F32One(const float* q, const float* v, size_t dim) {
  return Fused8(
      dim,
      [&](size_t i) {
        const float d = q[i] - v[i];
        return d * d;
      },
      [&](size_t i, float acc) {
        const float d = q[i] - v[i];
        return std::fma(d, d, acc);
      });
}
float DotF32One(const float* q, const float* v, size_t dim) {
  return Fused8(
      dim, [&](size_t i) { return q[i] * v[i]; },
      [&](size_t i, float acc) { return std::fma(q[i], v[i], acc); });
}

// ---- float64: lance's lane-interleaved scalar loops (8 lanes, no fma) -------------------------
// sum = (tail, summed left to right) + (lane 0 + lane 1 + ... + lane 7).
template <typename T, size_t L, typename Term>
T LaneSum(size_t dim, Term term) {
  const size_t full = dim / L * L;
  T tail = 0;
  for (size_t i = full; i < dim; ++i) tail += term(i);
  T lanes[L] = {};
  for (size_t i = 0; i < full; i += L) {
    for (size_t l = 0; l < L; ++l) lanes[l] += term(i + l);
  }
  T sum = 0;
  for (size_t l = 0; l < L; ++l) sum += lanes[l];
  return tail + sum;
}

template <typename T, size_t L>
T L2One(const T* q, const T* v, size_t dim) {
  return LaneSum<T, L>(dim, [&](size_t i) {
    const T d = q[i] - v[i];
    return d * d;
  });
}

template <typename T, size_t L>
T DotOne(const T* q, const T* v, size_t dim) {
  return LaneSum<T, L>(dim, [&](size_t i) { return v[i] * q[i]; });
}

// float32 cosine: fused accumulators over 16-element blocks (two 8-lane halves, folded by
// Fold16), then at most one 8-element block (Fold8), then the tail: |y|^2 of the tail as the
// square of its norm, x.y of the tail as a plain dot.
float CosineF32One(const float* x, float x_norm, const float* y, size_t dim) {
  const size_t full16 = dim / 16 * 16;
  const size_t full8 = dim / 8 * 8;
  float xy16[16] = {}, yy16[16] = {};
  for (size_t i = 0; i < full16; i += 16) {
    for (size_t l = 0; l < 16; ++l) {
      xy16[l] = std::fma(x[i + l], y[i + l], xy16[l]);
      yy16[l] = std::fma(y[i + l], y[i + l], yy16[l]);
    }
  }
  float xy8[8] = {}, yy8[8] = {};
  for (size_t i = full16; i < full8; i += 8) {
    for (size_t l = 0; l < 8; ++l) {
      xy8[l] = std::fma(x[i + l], y[i + l], xy8[l]);
      yy8[l] = std::fma(y[i + l], y[i + l], yy8[l]);
    }
  }
  // The tail (< 8 elements): |y|^2 as the square of its norm, x.y as a plain dot.
  float tail_sq = 0, tail_xy = 0;
  for (size_t i = full8; i < dim; ++i) tail_sq += y[i] * y[i];
  for (size_t i = full8; i < dim; ++i) tail_xy += x[i] * y[i];
  const float tail_norm = std::sqrt(tail_sq + 0.0f);
  const float y_sq = Fold16(yy16) + Fold8(yy8) + tail_norm * tail_norm;
  const float xy = Fold16(xy16) + Fold8(xy8) + (tail_xy + 0.0f);
  return 1.0f - xy / x_norm / std::sqrt(y_sq);
}

void L2F32(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const float*>(q);
  auto* y = static_cast<const float*>(v);
  for (size_t i = 0; i < n; ++i) out[i] = L2F32One(x, y + i * dim, dim);
}
void DotF32(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const float*>(q);
  auto* y = static_cast<const float*>(v);
  for (size_t i = 0; i < n; ++i) out[i] = 1.0f - DotF32One(x, y + i * dim, dim);
}
void CosineF32(const void* q, float norm, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const float*>(q);
  auto* y = static_cast<const float*>(v);
  for (size_t i = 0; i < n; ++i) out[i] = CosineF32One(x, norm, y + i * dim, dim);
}
float NormF32(const void* v, size_t dim) {
  auto* x = static_cast<const float*>(v);
  return std::sqrt(DotF32One(x, x, dim));
}

void L2F64(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const double*>(q);
  auto* y = static_cast<const double*>(v);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(L2One<double, 8>(x, y + i * dim, dim));
}
void DotF64(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const double*>(q);
  auto* y = static_cast<const double*>(v);
  for (size_t i = 0; i < n; ++i) {
    out[i] = 1.0f - static_cast<float>(DotOne<double, 8>(x, y + i * dim, dim));
  }
}
// float64 cosine: both dot products rounded to float32 first, then
// 1 - x.y / |x| / sqrt(y.y) in float32.
void CosineF64(const void* q, float norm, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const double*>(q);
  auto* y = static_cast<const double*>(v);
  for (size_t i = 0; i < n; ++i) {
    const double* yi = y + i * dim;
    const float y_sq = static_cast<float>(DotOne<double, 8>(yi, yi, dim));
    const float xy = static_cast<float>(DotOne<double, 8>(x, yi, dim));
    out[i] = 1.0f - xy / norm / std::sqrt(y_sq);
  }
}
float NormF64(const void* v, size_t dim) {
  auto* x = static_cast<const double*>(v);
  return static_cast<float>(std::sqrt(DotOne<double, 8>(x, x, dim)));
}

// ---- float16: the reference's fast-math kernels ----------------------------------------------
// Four fused accumulators of 4 lanes over each 16-element block (element i + 4c + l into
// accumulator c, lane l), combined (a0 + a1) + (a2 + a3) lane by lane and folded
// (w0 + w2) + (w1 + w3), then the tail fused into that sum one element at a time.
template <typename Term>
float Half16(size_t dim, Term fused) {
  const size_t full = dim / 16 * 16;
  float sum = 0;
  if (full > 0) {
    float acc[4][4] = {};
    for (size_t i = 0; i < full; i += 16) {
      for (size_t c = 0; c < 4; ++c) {
        for (size_t l = 0; l < 4; ++l) acc[c][l] = fused(i + 4 * c + l, acc[c][l]);
      }
    }
    float w[4];
    for (size_t l = 0; l < 4; ++l) w[l] = (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l]);
    sum = (w[0] + w[2]) + (w[1] + w[3]);
  }
  for (size_t i = full; i < dim; ++i) sum = fused(i, sum);
  return sum;
}

void L2F16(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const uint16_t*>(q);
  auto* y = static_cast<const uint16_t*>(v);
  for (size_t r = 0; r < n; ++r) {
    const uint16_t* yr = y + r * dim;
    out[r] = Half16(dim, [&](size_t i, float acc) {
      const float d = HalfToFloat(x[i]) - HalfToFloat(yr[i]);
      return std::fma(d, d, acc);
    });
  }
}
void DotF16(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const uint16_t*>(q);
  auto* y = static_cast<const uint16_t*>(v);
  for (size_t r = 0; r < n; ++r) {
    const uint16_t* yr = y + r * dim;
    out[r] = 1.0f - Half16(dim, [&](size_t i, float acc) {
      return std::fma(HalfToFloat(x[i]), HalfToFloat(yr[i]), acc);
    });
  }
}
// 1 - x.y / (|x| sqrt(y.y)) evaluated as fma(x.y, -(1/sqrt(y.y)) / |x|, 1); the reference
// takes 1/sqrt from the CPU's estimate plus a Newton step, this path exactly.
void CosineF16(const void* q, float norm, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const uint16_t*>(q);
  auto* y = static_cast<const uint16_t*>(v);
  for (size_t r = 0; r < n; ++r) {
    const uint16_t* yr = y + r * dim;
    const float xy = Half16(dim, [&](size_t i, float acc) {
      return std::fma(HalfToFloat(x[i]), HalfToFloat(yr[i]), acc);
    });
    const float yy = Half16(dim, [&](size_t i, float acc) {
      const float e = HalfToFloat(yr[i]);
      return std::fma(e, e, acc);
    });
    const float w = (-1.0f / std::sqrt(yy)) / norm;
    out[r] = std::fma(xy, w, 1.0f);
  }
}
float NormF16(const void* v, size_t dim) {
  auto* x = static_cast<const uint16_t*>(v);
  return std::sqrt(Half16(dim, [&](size_t i, float acc) {
    const float e = HalfToFloat(x[i]);
    return std::fma(e, e, acc);
  }));
}

// ---- hamming ------------------------------------------------------------------------------
void HammingU8(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const uint8_t*>(q);
  auto* y = static_cast<const uint8_t*>(v);
  const size_t words = dim / 8;
  for (size_t r = 0; r < n; ++r) {
    const uint8_t* yr = y + r * dim;
    uint32_t bits = 0;
    for (size_t w = 0; w < words; ++w) {
      uint64_t a, b;
      std::memcpy(&a, x + 8 * w, 8);
      std::memcpy(&b, yr + 8 * w, 8);
      bits += static_cast<uint32_t>(__builtin_popcountll(a ^ b));
    }
    for (size_t i = words * 8; i < dim; ++i) {
      bits += static_cast<uint32_t>(__builtin_popcount(static_cast<unsigned>(x[i] ^ yr[i])));
    }
    out[r] = static_cast<float>(bits);
  }
}

// ---- squared l2 of uint8 codes ------------------------------------------------------------------
uint32_t L2U8(const uint8_t* a, const uint8_t* b, size_t dim) {
  uint32_t s = 0;
  for (size_t d = 0; d < dim; ++d) {
    const int32_t x = int32_t{a[d]} - int32_t{b[d]};
    s += static_cast<uint32_t>(x * x);
  }
  return s;
}

// ---- k-means assignment -----------------------------------------------------------------------
void NearestL2F32(const float* x, size_t n, const float* c, const float* c_norms, size_t k,
                  size_t dim, uint32_t* idx, float* score) {
  for (size_t i = 0; i < n; ++i) {
    const float* xi = x + i * dim;
    float best = INFINITY;
    uint32_t best_j = 0;
    for (size_t j = 0; j < k; ++j) {
      const float* cj = c + j * dim;
      float dot = 0;
      for (size_t d = 0; d < dim; ++d) dot += xi[d] * cj[d];
      const float s = c_norms[j] - 2 * dot;
      if (s < best) {
        best = s;
        best_j = static_cast<uint32_t>(j);
      }
    }
    idx[i] = best_j;
    score[i] = best;
  }
}

void DotBlockF32(const float* q, size_t nq, const float* rows, size_t nr, size_t dim, float* out) {
  for (size_t i = 0; i < nq; ++i) {
    for (size_t j = 0; j < nr; ++j) {
      float s = 0;
      for (size_t d = 0; d < dim; ++d) s = std::fma(q[i * dim + d], rows[j * dim + d], s);
      out[i * nr + j] = s;
    }
  }
}

// Each vector unpacked and scored by L2F32: the definition of the packed kernel's values.
void L2F32Packed(const float* q, const float* packed, size_t n, size_t dim, float* out) {
  std::vector<float> v(dim);
  for (size_t i = 0; i < n; ++i) {
    const float* g = packed + (i / 8) * dim * 8;
    for (size_t d = 0; d < dim; ++d) v[d] = g[d * 8 + i % 8];
    L2F32(q, 0, v.data(), 1, dim, out + i);
  }
}

}  // namespace

const Kernels& PortableKernels() {
  static const Kernels k{SimdLevel::kPortable,
                         L2F32, DotF32, CosineF32,
                         L2F64, DotF64, CosineF64,
                         L2F16, DotF16, CosineF16,
                         HammingU8,
                         NormF32, NormF64, NormF16,
                         NearestL2F32, DotBlockF32, L2U8, L2F32Packed};
  return k;
}

}  // namespace lance::linalg::internal
