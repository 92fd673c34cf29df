// FastLanes bit unpacking, the transposed bit-packing layout Lance 2.1+ uses for
// InlineBitpacking and OutOfLineBitpacking.
//
// A block holds 1024 values of an unsigned type T (8, 16, 32 or 64 bits wide) packed to `width`
// bits each, as 1024 * width / bits(T) words of T. The block is split into 1024 / bits(T)
// lanes; word k of lane l is word `k * lanes + l`, and lane l carries, in bit order, the values
// of rows 0..bits(T)-1 of that lane. The value at (row, lane) is element
//   FL_ORDER[row / 8] * 16 + (row % 8) * 128 + lane,   FL_ORDER = {0, 4, 2, 6, 1, 5, 3, 7}
// of the unpacked block. Functions are pure and thread-safe.
#pragma once

#include <cstdint>

namespace lance::encoding {

inline constexpr int kFastLanesBlockValues = 1024;

// Bytes of one packed block of T values at `width` bits.
constexpr int64_t FastLanesPackedBytes(int type_bits, int width) {
  return int64_t{kFastLanesBlockValues} * width / 8;
}

// Unpacks one block. REQUIRES: `packed` holds FastLanesPackedBytes(bits(T), width) bytes (any
// alignment), 0 <= width <= bits(T), `out` has room for 1024 values.
template <typename T>
void UnpackFastLanesBlock(const uint8_t* packed, int width, T* out);

extern template void UnpackFastLanesBlock<uint8_t>(const uint8_t*, int, uint8_t*);
extern template void UnpackFastLanesBlock<uint16_t>(const uint8_t*, int, uint16_t*);
extern template void UnpackFastLanesBlock<uint32_t>(const uint8_t*, int, uint32_t*);
extern template void UnpackFastLanesBlock<uint64_t>(const uint8_t*, int, uint64_t*);

// Packs one block (the inverse of UnpackFastLanesBlock). REQUIRES: `in` holds 1024 values
// that fit in `width` bits, 0 <= width <= bits(T); `packed` has room for
// FastLanesPackedBytes(bits(T), width) bytes (any alignment).
template <typename T>
void PackFastLanesBlock(const T* in, int width, uint8_t* packed);

extern template void PackFastLanesBlock<uint8_t>(const uint8_t*, int, uint8_t*);
extern template void PackFastLanesBlock<uint16_t>(const uint16_t*, int, uint8_t*);
extern template void PackFastLanesBlock<uint32_t>(const uint32_t*, int, uint8_t*);
extern template void PackFastLanesBlock<uint64_t>(const uint64_t*, int, uint8_t*);

}  // namespace lance::encoding
