// Bit utilities for Arrow-style LSB-first bitmaps (validity bitmaps, boolean values).
//
// Bit i of a bitmap lives in byte i/8 at position i%8. All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <cstring>

namespace lance::bit_util {

constexpr int64_t BytesForBits(int64_t bits) { return (bits + 7) >> 3; }
constexpr int64_t RoundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
constexpr int64_t RoundUpToMultipleOf8(int64_t v) { return (v + 7) & ~int64_t{7}; }
constexpr int64_t RoundUpToMultipleOf64(int64_t v) { return (v + 63) & ~int64_t{63}; }

inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bits, int64_t i, bool v) {
  bits[i >> 3] = static_cast<uint8_t>((bits[i >> 3] & ~(1u << (i & 7))) | (uint32_t{v} << (i & 7)));
}

// Number of set bits in bits [offset, offset + length).
int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length);

// Copies `length` bits starting at src bit `src_offset` to dst starting at bit `dst_offset`.
void CopyBitmap(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
                int64_t dst_offset);

// Sets bits [offset, offset + length) of `bits` to `value`.
void SetBitsTo(uint8_t* bits, int64_t offset, int64_t length, bool value);

// 64-bit mixer (the finalizer of MurmurHash3): every input bit reaches the high bits, so
// values that differ only in a few bits still spread over a hash table indexed by them.
inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace lance::bit_util
