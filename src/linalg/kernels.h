// The kernel table of one SIMD level: one query against n vectors stored back to back.
// Every level computes bit-identical results (the reference's summation order, see
// distance.h); they differ only in speed. Internal to linalg.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lance/linalg/distance.h"

namespace lance::linalg::internal {

// out[i] = distance(query, vectors + i * dim); `query_norm` is the query's NormL2 (cosine
// only, ignored by the others).
using BatchFn = void (*)(const void* query, float query_norm, const void* vectors, size_t n,
                         size_t dim, float* out);
using NormFn = float (*)(const void* v, size_t dim);

// Nearest of k centroids for each of n float32 vectors by l2 in the expanded form
// |c|^2 - 2 x.c (k-means assignment; not the reference's exact distance order): idx[i] and
// the score |c|^2 - 2 x.c of the winner. `c_norms` holds |c|^2 per centroid.
using NearestFn = void (*)(const float* x, size_t n, const float* c, const float* c_norms,
                           size_t k, size_t dim, uint32_t* idx, float* score);

// out[i * nr + j] = q_i . r_j for nq queries and nr rows (float32, fused, any order: a
// prefilter whose candidates are re-scored exactly).
using DotBlockFn = void (*)(const float* q, size_t nq, const float* rows, size_t nr, size_t dim,
                            float* out);

// out[i] = L2(q, vector i) for n vectors packed by 8 (PackBy8: packed[(g * dim + d) * 8 + lane]
// is coordinate d of vector 8 g + lane): the same values as l2_f32 over the unpacked vectors,
// eight vectors per register (short vectors: PQ sub-vectors).
using PackedL2Fn = void (*)(const float* q, const float* packed, size_t n, size_t dim, float* out);

struct Kernels {
  SimdLevel level;
  BatchFn l2_f32, dot_f32, cosine_f32;
  BatchFn l2_f64, dot_f64, cosine_f64;
  BatchFn l2_f16, dot_f16, cosine_f16;
  BatchFn hamming_u8;
  NormFn norm_f32, norm_f64, norm_f16;
  NearestFn nearest_l2_f32;
  DotBlockFn dot_block_f32;
  L2U8Fn l2_u8;  // lance/linalg/distance.h
  PackedL2Fn l2_f32_packed;
};

const Kernels& PortableKernels();
// Null when the build's compiler cannot target AVX2 (never on x86-64 GCC/Clang).
const Kernels* Avx2Kernels();

// The table of `level`. AVX-512 runs the AVX2 table: the reference's orders are 8-lane
// chains (float32) and 8-lane fused chains (float16), which wider registers cannot shorten
// without changing the result; falls back to portable when AVX2 is not built.
const Kernels& KernelsFor(SimdLevel level);

// The reference's 8-lane fold, ((a0+a4)+(a2+a6)) + ((a1+a5)+(a3+a7)): the shuffle sequence
// of its AVX2 reduce_sum and of clang's fast-math loop epilogue.
inline float Fold8(const float* a) {
  return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
}
// Its 16-lane form: the two halves added lane by lane, then Fold8.
inline float Fold16(const float* a) {
  float h[8];
  for (int i = 0; i < 8; ++i) h[i] = a[i] + a[i + 8];
  return Fold8(h);
}

}  // namespace lance::linalg::internal
