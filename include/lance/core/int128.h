// Wide integers: the unscaled values of decimal128 columns (a GCC/Clang extension type, named
// here once so that public headers stay clean under -Wpedantic) and of decimal256 columns
// (four little-endian 64-bit limbs, two's complement, as Arrow stores them).
#pragma once

#include <array>
#include <cstdint>

namespace lance {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

struct Int256 {
  std::array<uint64_t, 4> limbs{};  // limbs[0] is the least significant
  bool negative() const { return (limbs[3] >> 63) != 0; }
  friend bool operator==(const Int256&, const Int256&) = default;
};

}  // namespace lance
