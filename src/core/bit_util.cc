#include "lance/core/bit_util.h"

#include <bit>

namespace lance::bit_util {

namespace {

// Set bits of `words` 64-bit words at `p`. The library is built for any x86-64, where
// std::popcount is a call into libgcc (__popcountdi2, a table walk per word); on a CPU with the
// POPCNT instruction (every x86-64 since 2008-2011) the loop is compiled for it and chosen at
// run time, elsewhere a branch-free SWAR count.
int64_t CountWordsPortable(const uint8_t* p, int64_t words) {
  int64_t count = 0;
  for (int64_t k = 0; k < words; ++k) {
    uint64_t x;
    std::memcpy(&x, p + k * 8, 8);
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    count += static_cast<int64_t>((x * 0x0101010101010101ULL) >> 56);
  }
  return count;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt"))) int64_t CountWordsPopcnt(const uint8_t* p, int64_t words) {
  int64_t count = 0;
  for (int64_t k = 0; k < words; ++k) {
    uint64_t x;
    std::memcpy(&x, p + k * 8, 8);
    count += __builtin_popcountll(x);
  }
  return count;
}

int64_t CountWords(const uint8_t* p, int64_t words) {
  static const bool popcnt = __builtin_cpu_supports("popcnt");
  return popcnt ? CountWordsPopcnt(p, words) : CountWordsPortable(p, words);
}
#else
int64_t CountWords(const uint8_t* p, int64_t words) { return CountWordsPortable(p, words); }
#endif

}  // namespace

int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  if (length <= 0) return 0;
  int64_t count = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  // Leading bits up to a byte boundary.
  while (i < end && (i & 7) != 0) count += GetBit(bits, i++);
  // Whole 64-bit words.
  const uint8_t* p = bits + (i >> 3);
  if (end - i >= 64) {
    const int64_t words = (end - i) / 64;
    count += CountWords(p, words);
    p += words * 8;
    i += words * 64;
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
