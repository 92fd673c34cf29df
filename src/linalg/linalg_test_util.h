// Test fixtures of the linalg tests: random vectors, vector columns, the SIMD levels to run.
#pragma once

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lance/columnar/array.h"
#include "lance/columnar/float16.h"
#include "lance/linalg/distance.h"

namespace lance::linalg::testing {

// Every level this build has, the ones the CPU cannot run included (tests skip those with a
// message, never silently).
inline std::vector<SimdLevel> AllLevels() {
  return {SimdLevel::kPortable, SimdLevel::kAvx2, SimdLevel::kAvx512};
}

// Sets `level` for the scope; restores the previous one.
class ScopedLevel {
 public:
  explicit ScopedLevel(SimdLevel level) : saved_(ActiveSimdLevel()) {
    ok_ = SetSimdLevel(level).ok();
  }
  ~ScopedLevel() { (void)SetSimdLevel(saved_); }
  bool ok() const { return ok_; }

 private:
  SimdLevel saved_;
  bool ok_ = false;
};

#define LINALG_SKIP_IF_UNSUPPORTED(scoped, level)                                      \
  if (!(scoped).ok()) {                                                                \
    GTEST_SKIP() << "this CPU cannot run the " << SimdLevelName(level) << " kernels (it " \
                 << "runs at most " << SimdLevelName(MaxSimdLevel()) << ")";           \
  }

inline std::vector<float> RandomFloats(size_t n, uint64_t seed, float lo = -1, float hi = 1) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = lo + (hi - lo) * static_cast<float>((rng() >> 40) * 0x1.0p-24);
  return v;
}

inline std::vector<uint8_t> RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng() >> 56);
  return v;
}

// A fixed_size_list<element, dim> column over `bytes` (length = bytes / (dim * size)), with
// the lists at `null_rows` null.
inline ArrayPtr VectorColumnOf(ElementType element, size_t dim, const std::vector<uint8_t>& bytes,
                               const std::vector<int64_t>& null_rows = {}) {
  DataTypePtr value_type = element == ElementType::kFloat16   ? float16()
                           : element == ElementType::kFloat32 ? float32()
                           : element == ElementType::kFloat64 ? float64()
                                                              : uint8();
  const int64_t esize = static_cast<int64_t>(ElementSize(element));
  const int64_t values = static_cast<int64_t>(bytes.size()) / esize;
  const int64_t rows = values / static_cast<int64_t>(dim);
  auto data = *AllocateBuffer(static_cast<int64_t>(bytes.size()));
  std::memcpy(data->mutable_data(), bytes.data(), bytes.size());
  ArrayPtr child = Array::Make(value_type, values, {nullptr, data});
  BufferPtr validity;
  if (!null_rows.empty()) {
    auto bits = *AllocateBuffer((rows + 7) / 8, /*zero_fill=*/true);
    for (int64_t r = 0; r < rows; ++r) bit_util::SetBit(bits->mutable_data(), r);
    for (int64_t r : null_rows) bit_util::ClearBit(bits->mutable_data(), r);
    validity = bits;
  }
  return Array::Make(fixed_size_list(value_type, static_cast<int32_t>(dim)), rows, {validity},
                     {child});
}

template <typename T>
std::vector<uint8_t> BytesOf(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

inline std::vector<uint16_t> ToHalf(const std::vector<float>& v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = FloatToHalf(v[i]);
  return out;
}

}  // namespace lance::linalg::testing
