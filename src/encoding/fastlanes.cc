#include "encoding/fastlanes.h"

#include <cstring>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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
// The 32- and 64-bit rows with AVX2 intrinsics: a row's lanes are 128 bytes in and 128 bytes
// out, four 256-bit loads (eight when the row straddles two words), shifts, a mask and four
// stores. (The portable loop compiled for AVX2 copied each row's words to the stack as 128-bit
// stores and reloaded them as 256-bit loads, which the store buffer cannot forward: ~5.5
// instructions and a stall per 64-bit value, a quarter of a delete's time on its id column.)
// Every lane of `v` shifted by n bits, right or left, as lanes of T.
template <typename T, bool kRight>
__attribute__((target("avx2"))) inline __m256i Shift(__m256i v, __m128i n) {
  if constexpr (sizeof(T) == 8) {
    return kRight ? _mm256_srl_epi64(v, n) : _mm256_sll_epi64(v, n);
  } else {
    return kRight ? _mm256_srl_epi32(v, n) : _mm256_sll_epi32(v, n);
  }
}

template <typename T>
__attribute__((target("avx2"))) void UnpackBlockAvx2(const uint8_t* packed, int width, T* out) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  constexpr int kRowBytes = kFastLanesBlockValues / kBits * static_cast<int>(sizeof(T));  // 128
  constexpr int kPerVector = 32 / static_cast<int>(sizeof(T));
  if (width == 0) {
    std::memset(out, 0, sizeof(T) * kFastLanesBlockValues);
    return;
  }
  const T m = width == kBits ? static_cast<T>(~T{0}) : static_cast<T>((T{1} << width) - 1);
  const __m256i mask = sizeof(T) == 8 ? _mm256_set1_epi64x(static_cast<int64_t>(m))
                                      : _mm256_set1_epi32(static_cast<int32_t>(m));
  // (Unsigned arithmetic and unrolled lanes: the row's own bookkeeping was as many
  // instructions as its lanes.)
  unsigned bit = 0;
  for (int group = 0; group < kBits / 8; ++group) {  // rows 8 * group .. 8 * group + 7
    T* const base = out + kOrder[group] * 16;
    for (int r = 0; r < 8; ++r, bit += static_cast<unsigned>(width)) {
      const unsigned shift = bit & (kBits - 1);
      const uint8_t* lo = packed + static_cast<size_t>(bit / kBits) * kRowBytes;
      T* dst = base + r * 128;
      const __m128i right = _mm_cvtsi32_si128(static_cast<int>(shift));
      if (shift + static_cast<unsigned>(width) > kBits) {
        const __m128i left = _mm_cvtsi32_si128(static_cast<int>(kBits - shift));
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) {
          const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo + 32 * q));
          const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo + kRowBytes + 32 * q));
          const __m256i v = _mm256_or_si256(Shift<T, true>(a, right), Shift<T, false>(b, left));
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + q * kPerVector), _mm256_and_si256(v, mask));
        }
      } else {
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) {
          const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo + 32 * q));
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + q * kPerVector),
                              _mm256_and_si256(Shift<T, true>(a, right), mask));
        }
      }
    }
  }
}
__attribute__((target("avx2"))) void UnpackBlock64Avx2(const uint8_t* packed, int width, uint64_t* out) {
  UnpackBlockAvx2<uint64_t>(packed, width, out);
}
__attribute__((target("avx2"))) void UnpackBlock32Avx2(const uint8_t* packed, int width, uint32_t* out) {
  UnpackBlockAvx2<uint32_t>(packed, width, out);
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
