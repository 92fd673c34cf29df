// Little-endian loads from page bytes (unaligned; the formats are little-endian and so is
// every machine this builds for). Internal to the encoding layer.
#pragma once

#include <cstdint>
#include <cstring>

namespace lance::encoding {

// A T stored at p.
template <typename T>
T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// An unsigned integer of `bytes` bytes (at most 8) stored at p.
inline uint64_t LoadLE(const char* p, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, static_cast<size_t>(bytes));
  return v;
}

}  // namespace lance::encoding
