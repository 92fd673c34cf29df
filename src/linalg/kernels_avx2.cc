// AVX2 + FMA + F16C + POPCNT kernels, compiled for those instructions by target pragma and
// chosen at run time (dispatch.cc). Same results as kernels_portable.cc, bit for bit: lane l
// of an accumulator holds exactly the terms the portable code puts in lane l, multiplies and
// adds stay separate where the reference keeps them separate, and the folds are the same
// scalar expressions. Speed comes from several vectors in flight per loop (independent chains)
// and from the wide loads.
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "linalg/kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LANCE_LINALG_AVX2 1
#endif

#ifdef LANCE_LINALG_AVX2
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c,popcnt"))), apply_to = function)
#pragma clang fp contract(off)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c,popcnt")
#pragma GCC optimize("fp-contract=off")
#endif

namespace lance::linalg::internal {
namespace {

inline double SeqSum8d(__m256d lo, __m256d hi) {
  alignas(32) double t[8];
  _mm256_store_pd(t, lo);
  _mm256_store_pd(t + 4, hi);
  double s = 0;
  for (int l = 0; l < 8; ++l) s += t[l];
  return s;
}

inline float TailL2(const float* q, const float* y, size_t from, size_t dim) {
  float s = 0;
  for (size_t i = from; i < dim; ++i) {
    const float d = q[i] - y[i];
    s += d * d;
  }
  return s;
}
inline float TailDot(const float* q, const float* y, size_t from, size_t dim) {
  float s = 0;
  for (size_t i = from; i < dim; ++i) s += y[i] * q[i];
  return s;
}

inline float Fold8v(__m256 a) {
  alignas(32) float t[8];
  _mm256_store_ps(t, a);
  return Fold8(t);
}

// ---- float32 l2 / dot: one fused 8-lane accumulator per vector, eight vectors per pass ---------
template <bool kL2>
inline __m256 Fused(__m256 q, __m256 y, __m256 acc) {
  if constexpr (kL2) {
    const __m256 d = _mm256_sub_ps(q, y);
    return _mm256_fmadd_ps(d, d, acc);
  } else {
    return _mm256_fmadd_ps(q, y, acc);
  }
}

template <bool kL2>
inline float Finish(const float* q, const float* y, size_t full, size_t dim, __m256 acc) {
  const float s = (kL2 ? TailL2(q, y, full, dim) : TailDot(q, y, full, dim)) + Fold8v(acc);
  return kL2 ? s : 1.0f - s;
}

template <bool kL2>
void F32Batch(const float* q, const float* v, size_t n, size_t dim, float* out) {
  const size_t full = dim / 8 * 8;
  constexpr size_t kWays = 8;
  size_t i = 0;
  // Streaming from memory: ask for the group after next while this one is scored.
  const size_t group_bytes = kWays * dim * sizeof(float);
  for (; i + kWays <= n; i += kWays) {
    const float* y = v + i * dim;
    if (i + 3 * kWays <= n) {
      const char* ahead = reinterpret_cast<const char*>(y) + 2 * group_bytes;
      for (size_t b = 0; b < group_bytes; b += 64) _mm_prefetch(ahead + b, _MM_HINT_T0);
    }
    __m256 acc[kWays];
#pragma GCC unroll 8
    for (size_t j = 0; j < kWays; ++j) acc[j] = _mm256_setzero_ps();
    for (size_t d = 0; d < full; d += 8) {
      const __m256 qd = _mm256_loadu_ps(q + d);
#pragma GCC unroll 8
      for (size_t j = 0; j < kWays; ++j) {
        acc[j] = Fused<kL2>(qd, _mm256_loadu_ps(y + j * dim + d), acc[j]);
      }
    }
    for (size_t j = 0; j < kWays; ++j) out[i + j] = Finish<kL2>(q, y + j * dim, full, dim, acc[j]);
  }
  for (; i < n; ++i) {
    const float* y = v + i * dim;
    __m256 acc = _mm256_setzero_ps();
    for (size_t d = 0; d < full; d += 8) acc = Fused<kL2>(_mm256_loadu_ps(q + d), _mm256_loadu_ps(y + d), acc);
    out[i] = Finish<kL2>(q, y, full, dim, acc);
  }
}

void L2F32(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  F32Batch<true>(static_cast<const float*>(q), static_cast<const float*>(v), n, dim, out);
}
void DotF32(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  F32Batch<false>(static_cast<const float*>(q), static_cast<const float*>(v), n, dim, out);
}

inline float Fold16v(__m256 lo, __m256 hi) {
  alignas(32) float t[16];
  _mm256_store_ps(t, lo);
  _mm256_store_ps(t + 8, hi);
  return Fold16(t);
}

// float32 cosine, two vectors per pass.
void CosineF32(const void* qv, float norm, const void* vv, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const float*>(qv);
  auto* v = static_cast<const float*>(vv);
  const size_t full16 = dim / 16 * 16;
  const size_t full8 = dim / 8 * 8;
  auto finish = [&](const float* y, __m256 xyl, __m256 xyh, __m256 yyl, __m256 yyh, __m256 xy8,
                    __m256 yy8) {
    float tail_sq = 0, tail_xy = 0;
    for (size_t i = full8; i < dim; ++i) tail_sq += y[i] * y[i];
    for (size_t i = full8; i < dim; ++i) tail_xy += y[i] * x[i];
    // The reference's tail: the square of the tail's norm, and a plain dot (each "+ 0" is
    // the empty fold of its lanes).
    const float tail_norm = std::sqrt(tail_sq + 0.0f);
    const float y_sq = Fold16v(yyl, yyh) + Fold8v(yy8) + tail_norm * tail_norm;
    const float xy = Fold16v(xyl, xyh) + Fold8v(xy8) + (tail_xy + 0.0f);
    return 1.0f - xy / norm / std::sqrt(y_sq);
  };
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const float* y0 = v + i * dim;
    const float* y1 = y0 + dim;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, b0 = a0, b1 = a0;  // x.y lo/hi
    __m256 c0 = a0, c1 = a0, e0 = a0, e1 = a0;                    // y.y lo/hi
    for (size_t d = 0; d < full16; d += 16) {
      const __m256 xl = _mm256_loadu_ps(x + d), xh = _mm256_loadu_ps(x + d + 8);
      const __m256 yl0 = _mm256_loadu_ps(y0 + d), yh0 = _mm256_loadu_ps(y0 + d + 8);
      const __m256 yl1 = _mm256_loadu_ps(y1 + d), yh1 = _mm256_loadu_ps(y1 + d + 8);
      a0 = _mm256_fmadd_ps(xl, yl0, a0);
      a1 = _mm256_fmadd_ps(xh, yh0, a1);
      c0 = _mm256_fmadd_ps(yl0, yl0, c0);
      c1 = _mm256_fmadd_ps(yh0, yh0, c1);
      b0 = _mm256_fmadd_ps(xl, yl1, b0);
      b1 = _mm256_fmadd_ps(xh, yh1, b1);
      e0 = _mm256_fmadd_ps(yl1, yl1, e0);
      e1 = _mm256_fmadd_ps(yh1, yh1, e1);
    }
    __m256 xy8a = _mm256_setzero_ps(), yy8a = xy8a, xy8b = xy8a, yy8b = xy8a;
    if (full8 > full16) {
      const __m256 xl = _mm256_loadu_ps(x + full16);
      const __m256 ya = _mm256_loadu_ps(y0 + full16), yb = _mm256_loadu_ps(y1 + full16);
      xy8a = _mm256_fmadd_ps(xl, ya, xy8a);
      yy8a = _mm256_fmadd_ps(ya, ya, yy8a);
      xy8b = _mm256_fmadd_ps(xl, yb, xy8b);
      yy8b = _mm256_fmadd_ps(yb, yb, yy8b);
    }
    out[i] = finish(y0, a0, a1, c0, c1, xy8a, yy8a);
    out[i + 1] = finish(y1, b0, b1, e0, e1, xy8b, yy8b);
  }
  for (; i < n; ++i) {
    const float* y = v + i * dim;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, c0 = a0, c1 = a0;
    for (size_t d = 0; d < full16; d += 16) {
      const __m256 xl = _mm256_loadu_ps(x + d), xh = _mm256_loadu_ps(x + d + 8);
      const __m256 yl = _mm256_loadu_ps(y + d), yh = _mm256_loadu_ps(y + d + 8);
      a0 = _mm256_fmadd_ps(xl, yl, a0);
      a1 = _mm256_fmadd_ps(xh, yh, a1);
      c0 = _mm256_fmadd_ps(yl, yl, c0);
      c1 = _mm256_fmadd_ps(yh, yh, c1);
    }
    __m256 xy8 = _mm256_setzero_ps(), yy8 = xy8;
    if (full8 > full16) {
      const __m256 xl = _mm256_loadu_ps(x + full16), yl = _mm256_loadu_ps(y + full16);
      xy8 = _mm256_fmadd_ps(xl, yl, xy8);
      yy8 = _mm256_fmadd_ps(yl, yl, yy8);
    }
    out[i] = finish(y, a0, a1, c0, c1, xy8, yy8);
  }
}

float NormF32(const void* vv, size_t dim) {
  auto* v = static_cast<const float*>(vv);
  const size_t full = dim / 8 * 8;
  __m256 acc = _mm256_setzero_ps();
  for (size_t d = 0; d < full; d += 8) {
    const __m256 a = _mm256_loadu_ps(v + d);
    acc = _mm256_fmadd_ps(a, a, acc);
  }
  return std::sqrt(TailDot(v, v, full, dim) + Fold8v(acc));
}

// ---- float64: 8 lanes as two 4-lane registers -------------------------------------------------
template <bool kL2>
inline double F64One(const double* q, const double* y, size_t dim) {
  const size_t full = dim / 8 * 8;
  __m256d lo = _mm256_setzero_pd(), hi = lo;
  for (size_t d = 0; d < full; d += 8) {
    const __m256d ql = _mm256_loadu_pd(q + d), qh = _mm256_loadu_pd(q + d + 4);
    const __m256d yl = _mm256_loadu_pd(y + d), yh = _mm256_loadu_pd(y + d + 4);
    if constexpr (kL2) {
      const __m256d dl = _mm256_sub_pd(ql, yl), dh = _mm256_sub_pd(qh, yh);
      lo = _mm256_add_pd(lo, _mm256_mul_pd(dl, dl));
      hi = _mm256_add_pd(hi, _mm256_mul_pd(dh, dh));
    } else {
      lo = _mm256_add_pd(lo, _mm256_mul_pd(yl, ql));
      hi = _mm256_add_pd(hi, _mm256_mul_pd(yh, qh));
    }
  }
  double tail = 0;
  for (size_t i = full; i < dim; ++i) {
    if constexpr (kL2) {
      const double d = q[i] - y[i];
      tail += d * d;
    } else {
      tail += y[i] * q[i];
    }
  }
  return tail + SeqSum8d(lo, hi);
}

void L2F64(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const double*>(q);
  auto* y = static_cast<const double*>(v);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(F64One<true>(x, y + i * dim, dim));
}
void DotF64(const void* q, float, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const double*>(q);
  auto* y = static_cast<const double*>(v);
  for (size_t i = 0; i < n; ++i) {
    out[i] = 1.0f - static_cast<float>(F64One<false>(x, y + i * dim, dim));
  }
}
void CosineF64(const void* q, float norm, const void* v, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const double*>(q);
  auto* y = static_cast<const double*>(v);
  for (size_t i = 0; i < n; ++i) {
    const double* yi = y + i * dim;
    const float y_sq = static_cast<float>(F64One<false>(yi, yi, dim));
    const float xy = static_cast<float>(F64One<false>(x, yi, dim));
    out[i] = 1.0f - xy / norm / std::sqrt(y_sq);
  }
}
float NormF64(const void* v, size_t dim) {
  auto* x = static_cast<const double*>(v);
  return static_cast<float>(std::sqrt(F64One<false>(x, x, dim)));
}

// ---- float16: four fused 4-lane accumulators per 16 elements, tail fused one by one ----------
inline __m128 LoadHalf4(const uint16_t* p) {
  return _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}
inline float Half1(uint16_t h) { return _cvtsh_ss(h); }

// The fused sums of the 16-element blocks, (a0 + a1) + (a2 + a3) then (w0 + w2) + (w1 + w3).
inline float Fold4x4(__m128 a0, __m128 a1, __m128 a2, __m128 a3) {
  const __m128 w = _mm_add_ps(_mm_add_ps(a0, a1), _mm_add_ps(a2, a3));
  alignas(16) float t[4];
  _mm_store_ps(t, w);
  return (t[0] + t[2]) + (t[1] + t[3]);
}

template <bool kL2>
inline float HalfSum(const uint16_t* x, const uint16_t* y, size_t dim) {
  const size_t full = dim / 16 * 16;
  float sum = 0;
  if (full > 0) {
    __m128 acc[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
    for (size_t d = 0; d < full; d += 16) {
#pragma GCC unroll 4
      for (int c = 0; c < 4; ++c) {
        const __m128 a = LoadHalf4(x + d + 4 * c), b = LoadHalf4(y + d + 4 * c);
        if constexpr (kL2) {
          const __m128 diff = _mm_sub_ps(a, b);
          acc[c] = _mm_fmadd_ps(diff, diff, acc[c]);
        } else {
          acc[c] = _mm_fmadd_ps(a, b, acc[c]);
        }
      }
    }
    sum = Fold4x4(acc[0], acc[1], acc[2], acc[3]);
  }
  for (size_t i = full; i < dim; ++i) {
    if constexpr (kL2) {
      const float diff = Half1(x[i]) - Half1(y[i]);
      sum = std::fma(diff, diff, sum);
    } else {
      sum = std::fma(Half1(x[i]), Half1(y[i]), sum);
    }
  }
  return sum;
}

void L2F16(const void* qv, float, const void* vv, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const uint16_t*>(qv);
  auto* v = static_cast<const uint16_t*>(vv);
  for (size_t r = 0; r < n; ++r) out[r] = HalfSum<true>(x, v + r * dim, dim);
}

inline float HalfDot(const uint16_t* x, const uint16_t* y, size_t dim) {
  return HalfSum<false>(x, y, dim);
}

void DotF16(const void* qv, float, const void* vv, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const uint16_t*>(qv);
  auto* v = static_cast<const uint16_t*>(vv);
  for (size_t r = 0; r < n; ++r) out[r] = 1.0f - HalfDot(x, v + r * dim, dim);
}

void CosineF16(const void* qv, float norm, const void* vv, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const uint16_t*>(qv);
  auto* v = static_cast<const uint16_t*>(vv);
  const __m128 minus3 = _mm_set_ss(-3.0f), half = _mm_set_ss(0.5f), one = _mm_set_ss(1.0f);
  const __m128 norm_v = _mm_set_ss(norm);
  for (size_t r = 0; r < n; ++r) {
    const uint16_t* y = v + r * dim;
    const float xy = HalfDot(x, y, dim);
    const float yy = HalfDot(y, y, dim);
    // The reference's epilogue: r = rsqrt(yy) with one Newton step, folded into
    // fma(x.y, -(1/sqrt(yy)) / |x|, 1).
    const __m128 yyv = _mm_set_ss(yy);
    const __m128 est = _mm_rsqrt_ss(yyv);
    __m128 t = _mm_mul_ss(yyv, est);
    t = _mm_fmadd_ss(est, t, minus3);
    const __m128 inv = _mm_mul_ss(_mm_mul_ss(est, half), t);
    const __m128 w = _mm_div_ss(inv, norm_v);
    out[r] = _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(xy), w, one));
  }
}

float NormF16(const void* v, size_t dim) {
  auto* x = static_cast<const uint16_t*>(v);
  return std::sqrt(HalfDot(x, x, dim));
}

// ---- hamming ------------------------------------------------------------------------------
void HammingU8(const void* qv, float, const void* vv, size_t n, size_t dim, float* out) {
  auto* x = static_cast<const uint8_t*>(qv);
  auto* v = static_cast<const uint8_t*>(vv);
  const size_t words = dim / 8;
  for (size_t r = 0; r < n; ++r) {
    const uint8_t* y = v + r * dim;
    uint64_t bits = 0;
    for (size_t w = 0; w < words; ++w) {
      uint64_t a, b;
      std::memcpy(&a, x + 8 * w, 8);
      std::memcpy(&b, y + 8 * w, 8);
      bits += static_cast<uint64_t>(_mm_popcnt_u64(a ^ b));
    }
    for (size_t i = words * 8; i < dim; ++i) {
      bits += static_cast<uint64_t>(_mm_popcnt_u32(static_cast<unsigned>(x[i] ^ y[i])));
    }
    out[r] = static_cast<float>(bits);
  }
}

// ---- squared l2 of uint8 codes ------------------------------------------------------------------
// 32 codes per step: widened to 16 bits, subtracted, and squared-and-paired into 32-bit lanes
// by vpmaddwd (|difference| <= 255, so a pair sum fits easily); two accumulators.
uint32_t L2U8(const uint8_t* a, const uint8_t* b, size_t dim) {
  __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
  size_t d = 0;
  for (; d + 32 <= dim; d += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + d));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + d));
    const __m256i zero = _mm256_setzero_si256();
    const __m256i lo = _mm256_sub_epi16(_mm256_unpacklo_epi8(x, zero), _mm256_unpacklo_epi8(y, zero));
    const __m256i hi = _mm256_sub_epi16(_mm256_unpackhi_epi8(x, zero), _mm256_unpackhi_epi8(y, zero));
    acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(lo, lo));
    acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(hi, hi));
  }
  for (; d + 16 <= dim; d += 16) {
    const __m256i x = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + d)));
    const __m256i y = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + d)));
    const __m256i t = _mm256_sub_epi16(x, y);
    acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(t, t));
  }
  const __m256i acc = _mm256_add_epi32(acc0, acc1);
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  uint32_t out = static_cast<uint32_t>(_mm_cvtsi128_si32(s));
  for (; d < dim; ++d) {
    const int32_t t = int32_t{a[d]} - int32_t{b[d]};
    out += static_cast<uint32_t>(t * t);
  }
  return out;
}

// ---- k-means assignment: |c|^2 - 2 x.c, 4 vectors x 16 centroids per register block ------------
void NearestL2F32(const float* x, size_t n, const float* c, const float* c_norms, size_t k,
                  size_t dim, uint32_t* idx, float* score) {
  // Centroids packed dimension-major in blocks of 8: packed[b][d][lane]; padding lanes have
  // zero coordinates and an infinite norm, so they never win.
  const size_t blocks = (k + 7) / 8;
  const size_t pairs = (blocks + 1) / 2;  // 16-centroid groups (the last may be half)
  std::vector<float> packed(pairs * 2 * dim * 8, 0.0f);
  std::vector<float> norms(pairs * 16, INFINITY);
  for (size_t j = 0; j < k; ++j) {
    const size_t b = j / 8, lane = j % 8;
    for (size_t d = 0; d < dim; ++d) packed[(b * dim + d) * 8 + lane] = c[j * dim + d];
    norms[j] = c_norms[j];
  }
  const __m256 two = _mm256_set1_ps(2.0f);
  const __m256i eight = _mm256_set1_epi32(8);
  auto finish_row = [&](__m256 best, __m256i best_j, size_t row) {
    alignas(32) float bv[8];
    alignas(32) uint32_t bj[8];
    _mm256_store_ps(bv, best);
    _mm256_store_si256(reinterpret_cast<__m256i*>(bj), best_j);
    float s = bv[0];
    uint32_t j = bj[0];
    for (int l = 1; l < 8; ++l) {
      if (bv[l] < s || (bv[l] == s && bj[l] < j)) {
        s = bv[l];
        j = bj[l];
      }
    }
    idx[row] = j;
    score[row] = s;
  };
  constexpr size_t kRows = 4;
  size_t i = 0;
  for (; i < n; i += kRows) {
    const size_t rows = n - i < kRows ? n - i : kRows;
    const float* xr[kRows];
    for (size_t r = 0; r < kRows; ++r) xr[r] = x + (i + (r < rows ? r : 0)) * dim;
    __m256 best[kRows];
    __m256i best_j[kRows];
    for (size_t r = 0; r < kRows; ++r) {
      best[r] = _mm256_set1_ps(INFINITY);
      best_j[r] = _mm256_setzero_si256();
    }
    __m256i lane_j = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (size_t p = 0; p < pairs; ++p) {
      const float* p0 = packed.data() + (2 * p) * dim * 8;
      const float* p1 = p0 + dim * 8;
      __m256 acc[kRows][2];
#pragma GCC unroll 4
      for (size_t r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
      for (size_t d = 0; d < dim; ++d) {
        const __m256 c0 = _mm256_loadu_ps(p0 + d * 8);
        const __m256 c1 = _mm256_loadu_ps(p1 + d * 8);
#pragma GCC unroll 4
        for (size_t r = 0; r < kRows; ++r) {
          const __m256 xb = _mm256_broadcast_ss(xr[r] + d);
          acc[r][0] = _mm256_fmadd_ps(xb, c0, acc[r][0]);
          acc[r][1] = _mm256_fmadd_ps(xb, c1, acc[r][1]);
        }
      }
      const __m256 n0 = _mm256_loadu_ps(norms.data() + p * 16);
      const __m256 n1 = _mm256_loadu_ps(norms.data() + p * 16 + 8);
      const __m256i lane_j1 = _mm256_add_epi32(lane_j, eight);
#pragma GCC unroll 4
      for (size_t r = 0; r < kRows; ++r) {
        const __m256 s0 = _mm256_fnmadd_ps(two, acc[r][0], n0);
        const __m256 s1 = _mm256_fnmadd_ps(two, acc[r][1], n1);
        __m256 m = _mm256_cmp_ps(s0, best[r], _CMP_LT_OQ);
        best[r] = _mm256_blendv_ps(best[r], s0, m);
        best_j[r] = _mm256_castps_si256(
            _mm256_blendv_ps(_mm256_castsi256_ps(best_j[r]), _mm256_castsi256_ps(lane_j), m));
        m = _mm256_cmp_ps(s1, best[r], _CMP_LT_OQ);
        best[r] = _mm256_blendv_ps(best[r], s1, m);
        best_j[r] = _mm256_castps_si256(
            _mm256_blendv_ps(_mm256_castsi256_ps(best_j[r]), _mm256_castsi256_ps(lane_j1), m));
      }
      lane_j = _mm256_add_epi32(lane_j1, eight);
    }
    for (size_t r = 0; r < rows; ++r) finish_row(best[r], best_j[r], i + r);
  }
}

// l2 of 8 packed vectors per pass, lanes = vectors: lane l of acc[j] is the reference's lane j
// of vector l's 8-lane fused accumulator, the tail its unfused left-to-right sum, then
// tail + ((a0+a4)+(a2+a6)) + ((a1+a5)+(a3+a7)) as Finish does, all 8 vectors at once.
void L2F32Packed(const float* q, const float* packed, size_t n, size_t dim, float* out) {
  const size_t full = dim / 8 * 8;
  for (size_t i = 0; i < n; i += 8) {
    const float* p = packed + (i / 8) * dim * 8;
    __m256 acc[8];
#pragma GCC unroll 8
    for (size_t j = 0; j < 8; ++j) acc[j] = _mm256_setzero_ps();
    for (size_t b = 0; b < full; b += 8) {
#pragma GCC unroll 8
      for (size_t j = 0; j < 8; ++j) {
        const __m256 x = _mm256_sub_ps(_mm256_set1_ps(q[b + j]), _mm256_loadu_ps(p + (b + j) * 8));
        acc[j] = _mm256_fmadd_ps(x, x, acc[j]);
      }
    }
    __m256 tail = _mm256_setzero_ps();
    for (size_t d = full; d < dim; ++d) {
      const __m256 x = _mm256_sub_ps(_mm256_set1_ps(q[d]), _mm256_loadu_ps(p + d * 8));
      tail = _mm256_add_ps(tail, _mm256_mul_ps(x, x));
    }
    const __m256 fold = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(acc[0], acc[4]), _mm256_add_ps(acc[2], acc[6])),
                                      _mm256_add_ps(_mm256_add_ps(acc[1], acc[5]), _mm256_add_ps(acc[3], acc[7])));
    const __m256 s = _mm256_add_ps(tail, fold);
    if (i + 8 <= n) {
      _mm256_storeu_ps(out + i, s);
    } else {
      alignas(32) float t[8];
      _mm256_store_ps(t, s);
      for (size_t l = 0; l < n - i; ++l) out[i + l] = t[l];
    }
  }
}

// q . r for every pair: rows packed dimension-major in groups of 8 (padding rows zero), four
// queries x 16 rows per register block.
void DotBlockF32(const float* q, size_t nq, const float* rows, size_t nr, size_t dim, float* out) {
  const size_t groups = (nr + 15) / 16 * 2;  // 8-row groups, an even number
  std::vector<float> packed(groups * dim * 8, 0.0f);
  for (size_t j = 0; j < nr; ++j) {
    const size_t g = j / 8, lane = j % 8;
    for (size_t d = 0; d < dim; ++d) packed[(g * dim + d) * 8 + lane] = rows[j * dim + d];
  }
  alignas(32) float tmp[4][16];
  for (size_t i = 0; i < nq; i += 4) {
    const size_t nrows = nq - i < 4 ? nq - i : 4;
    const float* qr[4];
    for (size_t r = 0; r < 4; ++r) qr[r] = q + (i + (r < nrows ? r : 0)) * dim;
    for (size_t g = 0; g < groups; g += 2) {
      const float* p0 = packed.data() + g * dim * 8;
      const float* p1 = p0 + dim * 8;
      __m256 acc[4][2];
#pragma GCC unroll 4
      for (size_t r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
      for (size_t d = 0; d < dim; ++d) {
        const __m256 c0 = _mm256_loadu_ps(p0 + d * 8), c1 = _mm256_loadu_ps(p1 + d * 8);
#pragma GCC unroll 4
        for (size_t r = 0; r < 4; ++r) {
          const __m256 xb = _mm256_broadcast_ss(qr[r] + d);
          acc[r][0] = _mm256_fmadd_ps(xb, c0, acc[r][0]);
          acc[r][1] = _mm256_fmadd_ps(xb, c1, acc[r][1]);
        }
      }
      // Out of registers through a fixed-index store (a run-time index would keep the
      // accumulators in memory all along).
#pragma GCC unroll 4
      for (size_t r = 0; r < 4; ++r) {
        _mm256_store_ps(tmp[r], acc[r][0]);
        _mm256_store_ps(tmp[r] + 8, acc[r][1]);
      }
      const size_t j0 = g * 8;
      const size_t width = nr - j0 < 16 ? nr - j0 : 16;
      for (size_t r = 0; r < nrows; ++r) std::memcpy(out + (i + r) * nr + j0, tmp[r], width * sizeof(float));
    }
  }
}

}  // namespace

}  // namespace lance::linalg::internal

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

// The table is built outside the target region: its initialisation must not use the level's
// instructions (it runs on CPUs that lack them, when dispatch asks which levels exist).
namespace lance::linalg::internal {

const Kernels* Avx2Kernels() {
  static const Kernels k{SimdLevel::kAvx2,
                         L2F32, DotF32, CosineF32,
                         L2F64, DotF64, CosineF64,
                         L2F16, DotF16, CosineF16,
                         HammingU8,
                         NormF32, NormF64, NormF16,
                         NearestL2F32, DotBlockF32, L2U8, L2F32Packed};
  return &k;
}

}  // namespace lance::linalg::internal

#else  // !LANCE_LINALG_AVX2

namespace lance::linalg::internal {
const Kernels* Avx2Kernels() { return nullptr; }
}  // namespace lance::linalg::internal

#endif
