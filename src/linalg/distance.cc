// The public distance API over the dispatched kernel tables.
#include "lance/linalg/distance.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include "lance/columnar/type.h"
#include "linalg/kernels.h"

namespace lance::linalg {

std::string_view DistanceTypeName(DistanceType type) {
  switch (type) {
    case DistanceType::kL2:
      return "l2";
    case DistanceType::kCosine:
      return "cosine";
    case DistanceType::kDot:
      return "dot";
    case DistanceType::kHamming:
      return "hamming";
  }
  return "?";
}

Result<DistanceType> ParseDistanceType(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "l2" || lower == "euclidean") return DistanceType::kL2;
  if (lower == "cosine") return DistanceType::kCosine;
  if (lower == "dot") return DistanceType::kDot;
  if (lower == "hamming") return DistanceType::kHamming;
  return Status::InvalidArgument("distance type '{}': expected l2, cosine, dot or hamming", name);
}

std::string_view ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kFloat16:
      return "float16";
    case ElementType::kFloat32:
      return "float32";
    case ElementType::kFloat64:
      return "float64";
    case ElementType::kUInt8:
      return "uint8";
  }
  return "?";
}

size_t ElementSize(ElementType type) {
  switch (type) {
    case ElementType::kFloat16:
      return 2;
    case ElementType::kFloat32:
      return 4;
    case ElementType::kFloat64:
      return 8;
    case ElementType::kUInt8:
      return 1;
  }
  return 0;
}

Result<ElementType> ElementTypeOf(const DataType& value_type) {
  switch (value_type.id()) {
    case TypeId::kHalfFloat:
      return ElementType::kFloat16;
    case TypeId::kFloat:
      return ElementType::kFloat32;
    case TypeId::kDouble:
      return ElementType::kFloat64;
    case TypeId::kUInt8:
      return ElementType::kUInt8;
    default:
      return Status::NotSupported(
          "vector element type {}: expected float16, float32, float64 or uint8",
          value_type.ToString());
  }
}

Status CheckSupported(DistanceType distance, ElementType element) {
  const bool binary = element == ElementType::kUInt8;
  if ((distance == DistanceType::kHamming) != binary) {
    return Status::InvalidArgument("distance type {} does not support {} vectors",
                                   DistanceTypeName(distance), ElementTypeName(element));
  }
  return Status::OK();
}

namespace {

struct Chosen {
  internal::BatchFn fn;
  internal::NormFn norm;  // cosine only
};

Chosen Choose(const internal::Kernels& k, DistanceType distance, ElementType element) {
  switch (element) {
    case ElementType::kFloat32:
      if (distance == DistanceType::kL2) return {k.l2_f32, nullptr};
      if (distance == DistanceType::kDot) return {k.dot_f32, nullptr};
      return {k.cosine_f32, k.norm_f32};
    case ElementType::kFloat64:
      if (distance == DistanceType::kL2) return {k.l2_f64, nullptr};
      if (distance == DistanceType::kDot) return {k.dot_f64, nullptr};
      return {k.cosine_f64, k.norm_f64};
    case ElementType::kFloat16:
      if (distance == DistanceType::kL2) return {k.l2_f16, nullptr};
      if (distance == DistanceType::kDot) return {k.dot_f16, nullptr};
      return {k.cosine_f16, k.norm_f16};
    case ElementType::kUInt8:
      return {k.hamming_u8, nullptr};
  }
  return {nullptr, nullptr};
}

}  // namespace

Result<DistanceKernel> DistanceKernel::Make(DistanceType distance, ElementType element,
                                            const void* query, size_t dim) {
  if (dim == 0) return Status::InvalidArgument("distance kernel: vector dimension 0");
  if (query == nullptr) return Status::InvalidArgument("distance kernel: no query vector");
  LANCE_RETURN_NOT_OK(CheckSupported(distance, element));
  DistanceKernel k;
  k.distance_ = distance;
  k.element_ = element;
  k.dim_ = dim;
  k.level_ = ActiveSimdLevel();
  const Chosen chosen = Choose(internal::KernelsFor(k.level_), distance, element);
  k.fn_ = chosen.fn;
  const size_t bytes = dim * ElementSize(element);
  std::shared_ptr<uint8_t[]> storage(new uint8_t[bytes + 64]);
  auto addr = reinterpret_cast<uintptr_t>(storage.get());
  uint8_t* aligned = storage.get() + ((64 - addr % 64) % 64);
  std::memcpy(aligned, query, bytes);
  k.query_ = aligned;
  k.storage_ = std::move(storage);
  if (chosen.norm != nullptr) k.query_norm_ = chosen.norm(k.query_, dim);
  return k;
}

void DistanceKernel::Compute(const void* vectors, size_t n, float* out) const {
  if (n == 0) return;
  fn_(query_, query_norm_, vectors, n, dim_, out);
}

Result<float> Distance(DistanceType distance, ElementType element, const void* a, const void* b,
                       size_t dim) {
  LANCE_ASSIGN_OR_RAISE(auto kernel, DistanceKernel::Make(distance, element, a, dim));
  float out = 0;
  kernel.Compute(b, 1, &out);
  return out;
}

namespace {
const internal::Kernels& Active() { return internal::KernelsFor(ActiveSimdLevel()); }
}  // namespace

float L2(const float* a, const float* b, size_t dim) {
  float out = 0;
  Active().l2_f32(a, 0, b, 1, dim, &out);
  return out;
}
float DotDistance(const float* a, const float* b, size_t dim) {
  float out = 0;
  Active().dot_f32(a, 0, b, 1, dim, &out);
  return out;
}
float CosineDistance(const float* a, const float* b, size_t dim) {
  const internal::Kernels& k = Active();
  float out = 0;
  k.cosine_f32(a, k.norm_f32(a, dim), b, 1, dim, &out);
  return out;
}
float Hamming(const uint8_t* a, const uint8_t* b, size_t bytes) {
  float out = 0;
  Active().hamming_u8(a, 0, b, 1, bytes, &out);
  return out;
}
void HammingDistances(const uint8_t* a, const uint8_t* vectors, size_t n, size_t bytes, float* out) {
  Active().hamming_u8(a, 0, vectors, n, bytes, out);
}
float NormL2(const float* v, size_t dim) { return Active().norm_f32(v, dim); }
uint32_t L2U8(const uint8_t* a, const uint8_t* b, size_t dim) { return Active().l2_u8(a, b, dim); }
L2U8Fn L2U8Kernel() { return Active().l2_u8; }
void L2Distances(const float* a, const float* vectors, size_t n, size_t dim, float* out) {
  Active().l2_f32(a, 0, vectors, n, dim, out);
}
void DotDistances(const float* a, const float* vectors, size_t n, size_t dim, float* out) {
  Active().dot_f32(a, 0, vectors, n, dim, out);
}
std::vector<float> PackBy8(const float* vectors, size_t n, size_t dim) {
  std::vector<float> packed((n + 7) / 8 * 8 * dim, 0.0f);
  for (size_t i = 0; i < n; ++i) {
    float* g = packed.data() + (i / 8) * dim * 8 + i % 8;
    for (size_t d = 0; d < dim; ++d) g[d * 8] = vectors[i * dim + d];
  }
  return packed;
}
void L2DistancesPacked(const float* a, const float* packed, size_t n, size_t dim, float* out) {
  Active().l2_f32_packed(a, packed, n, dim, out);
}

}  // namespace lance::linalg
