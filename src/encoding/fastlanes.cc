#include "encoding/fastlanes.h"

#include <cstring>
#include <type_traits>

namespace lance::encoding {

namespace {
constexpr int kOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

template <typename T>
[[gnu::always_inline]] inline void UnpackBlock(const uint8_t* packed, int width, T* out) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  constexpr int kLanes = kFastLanesBlockValues / kBits;
  if (width == 0) {
    std::memset(out, 0, sizeof(T) * kFastLanesBlockValues);
    return;
  }
  const T mask = width == kBits ? static_cast<T>(~T{0}) : static_cast<T>((T{1} << width) - 1);
  // Row by row, every lane at once: the lanes of a row are contiguous words in and contiguous
  // values out, so the inner loop is a straight vector shift-and-mask.
  for (int row = 0; row < kBits; ++row) {
    const int bit = row * width;
    const int word = bit / kBits;
    const int shift = bit % kBits;
    const uint8_t* lo = packed + static_cast<int64_t>(word) * kLanes * static_cast<int64_t>(sizeof(T));
    T* dst = out + kOrder[row / 8] * 16 + (row % 8) * 128;
    // The row's words copied to locals first: the output cannot alias them then, and the lane
    // loops vectorize (through the uint8_t input they ran one value at a time, ~11
    // instructions per 64-bit value).
    T a[kLanes];
    std::memcpy(a, lo, sizeof(a));
    if (shift + width > kBits) {
      T b[kLanes];
      std::memcpy(b, lo + kLanes * sizeof(T), sizeof(b));
      for (int lane = 0; lane < kLanes; ++lane) {
        dst[lane] = static_cast<T>(static_cast<T>((a[lane] >> shift) | static_cast<T>(b[lane] << (kBits - shift))) & mask);
      }
    } else {
      for (int lane = 0; lane < kLanes; ++lane) {
        dst[lane] = static_cast<T>(static_cast<T>(a[lane] >> shift) & mask);
      }
    }
  }
}

#if defined(__x86_64__)
// The same loops compiled for AVX2 (four 64-bit lanes per shift instead of two): the 64-bit
// unpack of a 1M-row id column was a quarter of a delete's instructions.
__attribute__((target("avx2"))) void UnpackBlock64Avx2(const uint8_t* packed, int width, uint64_t* out) {
  UnpackBlock<uint64_t>(packed, width, out);
}
__attribute__((target("avx2"))) void UnpackBlock32Avx2(const uint8_t* packed, int width, uint32_t* out) {
  UnpackBlock<uint32_t>(packed, width, out);
}
bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

}  // namespace

template <typename T>
void UnpackFastLanesBlock(const uint8_t* packed, int width, T* out) {
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, uint64_t>) {
    if (HasAvx2()) return UnpackBlock64Avx2(packed, width, out);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    if (HasAvx2()) return UnpackBlock32Avx2(packed, width, out);
  }
#endif
  UnpackBlock<T>(packed, width, out);
}

template <typename T>
void PackFastLanesBlock(const T* in, int width, uint8_t* packed) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  constexpr int kLanes = kFastLanesBlockValues / kBits;
  if (width == 0) return;
  T words[kFastLanesBlockValues] = {};
  const T mask = width == kBits ? static_cast<T>(~T{0}) : static_cast<T>((T{1} << width) - 1);
  for (int row = 0; row < kBits; ++row) {
    const int bit = row * width;
    const int word = bit / kBits;
    const int shift = bit % kBits;
    const T* src = in + kOrder[row / 8] * 16 + (row % 8) * 128;
    T* lo = words + word * kLanes;
    if (shift + width > kBits) {
      T* hi = words + (word + 1) * kLanes;
      for (int lane = 0; lane < kLanes; ++lane) {
        const T v = static_cast<T>(src[lane] & mask);
        lo[lane] = static_cast<T>(lo[lane] | static_cast<T>(v << shift));
        hi[lane] = static_cast<T>(hi[lane] | static_cast<T>(v >> (kBits - shift)));
      }
    } else {
      for (int lane = 0; lane < kLanes; ++lane) {
        lo[lane] = static_cast<T>(lo[lane] | static_cast<T>((src[lane] & mask) << shift));
      }
    }
  }
  std::memcpy(packed, words, static_cast<size_t>(FastLanesPackedBytes(kBits, width)));
}

template void PackFastLanesBlock<uint8_t>(const uint8_t*, int, uint8_t*);
template void PackFastLanesBlock<uint16_t>(const uint16_t*, int, uint8_t*);
template void PackFastLanesBlock<uint32_t>(const uint32_t*, int, uint8_t*);
template void PackFastLanesBlock<uint64_t>(const uint64_t*, int, uint8_t*);

template void UnpackFastLanesBlock<uint8_t>(const uint8_t*, int, uint8_t*);
template void UnpackFastLanesBlock<uint16_t>(const uint8_t*, int, uint16_t*);
template void UnpackFastLanesBlock<uint32_t>(const uint8_t*, int, uint32_t*);
template void UnpackFastLanesBlock<uint64_t>(const uint8_t*, int, uint64_t*);

}  // namespace lance::encoding
