#include "lance/core/bit_util.h"

#include <bit>

namespace lance::bit_util {

int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  if (length <= 0) return 0;
  int64_t count = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  // Leading bits up to a byte boundary.
  while (i < end && (i & 7) != 0) count += GetBit(bits, i++);
  // Whole 64-bit words.
  const uint8_t* p = bits + (i >> 3);
  while (end - i >= 64) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    count += std::popcount(word);
    p += 8;
    i += 64;
  }
  while (end - i >= 8) {
    count += std::popcount(static_cast<unsigned>(*p++));
    i += 8;
  }
  while (i < end) count += GetBit(bits, i++);
  return count;
}

void CopyBitmap(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
                int64_t dst_offset) {
  if (length <= 0) return;
  if ((src_offset & 7) == 0 && (dst_offset & 7) == 0) {
    const int64_t whole = length >> 3;
    std::memcpy(dst + (dst_offset >> 3), src + (src_offset >> 3), static_cast<size_t>(whole));
    for (int64_t i = whole * 8; i < length; ++i) {
      SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
    }
    return;
  }
  for (int64_t i = 0; i < length; ++i) {
    SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
  }
}

void SetBitsTo(uint8_t* bits, int64_t offset, int64_t length, bool value) {
  int64_t i = offset;
  const int64_t end = offset + length;
  while (i < end && (i & 7) != 0) SetBitTo(bits, i++, value);
  const int64_t bytes = (end - i) >> 3;
  if (bytes > 0) {
    std::memset(bits + (i >> 3), value ? 0xFF : 0x00, static_cast<size_t>(bytes));
    i += bytes * 8;
  }
  while (i < end) SetBitTo(bits, i++, value);
}

}  // namespace lance::bit_util
