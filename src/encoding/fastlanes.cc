#include "encoding/fastlanes.h"

#include <cstring>

namespace lance::encoding {

namespace {
constexpr int kOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

template <typename T>
T LoadWord(const uint8_t* packed, int64_t index) {
  T word;
  std::memcpy(&word, packed + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return word;
}
}  // namespace

template <typename T>
void UnpackFastLanesBlock(const uint8_t* packed, int width, T* out) {
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
    if (shift + width > kBits) {
      const uint8_t* hi = lo + kLanes * sizeof(T);
      for (int lane = 0; lane < kLanes; ++lane) {
        const T a = LoadWord<T>(lo, lane);
        const T b = LoadWord<T>(hi, lane);
        dst[lane] = static_cast<T>(static_cast<T>((a >> shift) | static_cast<T>(b << (kBits - shift))) & mask);
      }
    } else {
      for (int lane = 0; lane < kLanes; ++lane) {
        dst[lane] = static_cast<T>(static_cast<T>(LoadWord<T>(lo, lane) >> shift) & mask);
      }
    }
  }
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
