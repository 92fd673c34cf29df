// Vector distances as lance 12 computes them, with runtime SIMD dispatch.
//
// Definitions (the reference's `_distance` column, checked through node on lance 12):
//   l2      squared Euclidean distance, sum (q_i - v_i)^2
//   cosine  1 - q.v / (|q| |v|)
//   dot     1 - q.v
//   hamming number of differing bits of two uint8 vectors
// Element types: float16, float32 and float64 vectors support l2 / cosine / dot; uint8
// vectors support hamming only (lance 12 refuses the other combinations; CheckSupported says
// so in the same terms). Distances are float32 whatever the element type.
//
// Every SIMD path computes in the reference's order, so a distance is bit-for-bit the value
// lance 12 returns for the same vectors (checked on random vectors of many dimensions through
// node): float32 l2 / dot / norm as one fused 8-lane accumulator folded
// ((a0+a4)+(a2+a6))+((a1+a5)+(a3+a7)) plus the tail summed left to right; float32 cosine with
// two fused 8-lane halves per 16 elements; float64 in 8 unfused lanes summed left to right;
// float16 as the reference's fast-math kernels (four fused 4-lane accumulators per 16
// elements, a fused tail, cosine through the CPU's reciprocal square root estimate plus a
// Newton step). The portable path's float16 cosine uses an exact 1/sqrt instead (~1e-7 from
// the reference). All functions are thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "lance/core/result.h"
#include "lance/core/status.h"

namespace lance {
class DataType;
}

namespace lance::linalg {

enum class DistanceType : uint8_t { kL2, kCosine, kDot, kHamming };

// "l2", "cosine", "dot", "hamming".
std::string_view DistanceTypeName(DistanceType type);
// Case-insensitive "l2" | "euclidean" | "cosine" | "dot" | "hamming", as lance 12 accepts.
Result<DistanceType> ParseDistanceType(std::string_view name);

enum class ElementType : uint8_t { kFloat16, kFloat32, kFloat64, kUInt8 };

std::string_view ElementTypeName(ElementType type);  // "float16", ...
size_t ElementSize(ElementType type);
// The element type of a vector column's values (float16/32/64, uint8). Errors: NotSupported
// naming the type.
Result<ElementType> ElementTypeOf(const DataType& value_type);
// InvalidArgument ("distance type hamming does not support float32 vectors") unless the
// reference supports the combination.
Status CheckSupported(DistanceType distance, ElementType element);

// ---- SIMD dispatch ------------------------------------------------------------------------
enum class SimdLevel : uint8_t { kPortable, kAvx2, kAvx512 };

std::string_view SimdLevelName(SimdLevel level);  // "portable", "avx2", "avx512"
Result<SimdLevel> ParseSimdLevel(std::string_view name);
// The best level this CPU runs (avx2 = AVX2 + FMA + F16C + POPCNT; avx512 = AVX-512 F/BW/VL
// on top, which today runs the AVX2 kernels: see KernelsFor in src/linalg/kernels.h).
SimdLevel MaxSimdLevel();
// The level in use: the environment variable LANCE_SIMD (portable | avx2 | avx512, capped
// at what the CPU runs) when set at first use, MaxSimdLevel() otherwise.
SimdLevel ActiveSimdLevel();
// Forces a level process-wide (tests and benchmarks run every path this way). Errors:
// NotSupported when the CPU cannot run it. Kernels made before the call keep their level.
Status SetSimdLevel(SimdLevel level);

// ---- distances of one query to many vectors ------------------------------------------------
// A query prepared for one distance type and element type (holds a copy of the query and,
// for cosine, its norm). Compute() is const and may run on many threads at once.
class DistanceKernel {
 public:
  // `query` holds `dim` elements of `element` (float16 as its uint16 bits). Errors:
  // InvalidArgument for dim 0 or an unsupported combination.
  static Result<DistanceKernel> Make(DistanceType distance, ElementType element,
                                     const void* query, size_t dim);

  // out[i] = distance(query, vectors[i]) for the `n` vectors stored back to back in
  // `vectors` (n * dim elements, e.g. the values of a fixed_size_list column).
  void Compute(const void* vectors, size_t n, float* out) const;

  DistanceType distance_type() const { return distance_; }
  ElementType element_type() const { return element_; }
  size_t dim() const { return dim_; }
  SimdLevel simd_level() const { return level_; }

 private:
  using Fn = void (*)(const void* query, float query_norm, const void* vectors, size_t n,
                      size_t dim, float* out);
  DistanceKernel() = default;

  DistanceType distance_ = DistanceType::kL2;
  ElementType element_ = ElementType::kFloat32;
  SimdLevel level_ = SimdLevel::kPortable;
  size_t dim_ = 0;
  float query_norm_ = 0;
  Fn fn_ = nullptr;
  // The query bytes, 64-byte aligned inside the allocation.
  std::shared_ptr<const uint8_t[]> storage_;
  const void* query_ = nullptr;
};

// One pair, through the active level: the same value DistanceKernel gives.
Result<float> Distance(DistanceType distance, ElementType element, const void* a, const void* b,
                       size_t dim);

// Float32 shorthands (active level).
float L2(const float* a, const float* b, size_t dim);
float CosineDistance(const float* a, const float* b, size_t dim);
float DotDistance(const float* a, const float* b, size_t dim);
float Hamming(const uint8_t* a, const uint8_t* b, size_t bytes);
// out[i] = L2 / DotDistance(a, vectors + i * dim) for n vectors back to back: one kernel call
// of the active level (no allocation), the same values as the single-pair forms.
void L2Distances(const float* a, const float* vectors, size_t n, size_t dim, float* out);
void DotDistances(const float* a, const float* vectors, size_t n, size_t dim, float* out);
// out[i] = Hamming(a, vectors + i * bytes) for n binary vectors back to back (one kernel call).
void HammingDistances(const uint8_t* a, const uint8_t* vectors, size_t n, size_t bytes, float* out);
// `n` vectors of `dim` floats packed by 8 for L2DistancesPacked: groups of 8 vectors,
// dimension-major (coordinate d of vector 8 g + l at [(g * dim + d) * 8 + l]), the last group
// padded with zeros.
std::vector<float> PackBy8(const float* vectors, size_t n, size_t dim);
// L2Distances over vectors PackBy8 packed: the same values, eight vectors per register (several
// times faster for short vectors such as PQ sub-vectors, whose rows are too short to fill one).
void L2DistancesPacked(const float* a, const float* packed, size_t n, size_t dim, float* out);
// |v| as the reference computes it (the cosine query norm).
float NormL2(const float* v, size_t dim);

// The integer squared l2 distance of two uint8 code vectors (scalar-quantized storage, e.g.
// IVF_HNSW_SQ's codes): exact in any summation order, so every level returns the same value.
// L2U8Kernel() is the active level's function, fetched once for hot loops.
using L2U8Fn = uint32_t (*)(const uint8_t* a, const uint8_t* b, size_t dim);
uint32_t L2U8(const uint8_t* a, const uint8_t* b, size_t dim);
L2U8Fn L2U8Kernel();

}  // namespace lance::linalg
