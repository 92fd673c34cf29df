// IEEE 754 binary16 ("half float") conversions. Arrow stores float16 values as their raw
// uint16 bit patterns; these pure functions convert them to and from float (thread-safe).
#pragma once

#include <cstdint>
#include <cstring>

namespace lance {

// Exact: every half value is representable as a float (NaN payloads keep their top bits).
inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / nan
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;  // +-0
  } else {
    // Subnormal half: normalize into a float.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Round to nearest, ties to even; overflow goes to infinity, NaN stays a (quiet) NaN.
inline uint16_t FloatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan
    if (abs == 0x7f800000u) return sign | 0x7c00u;
    return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
  }
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: infinity
  if (abs < 0x38800000u) {                        // below the smallest normal half (2^-14)
    if (abs < 0x33000000u) return sign;           // below half the smallest subnormal: zero
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14 + 13 - (exp - 127) ... gives subnormal mantissa
    const uint32_t value = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    uint32_t r = value;
    if (rem > halfway || (rem == halfway && (value & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  // Normal: rebias exponent (127 -> 15) and round the 13 dropped mantissa bits.
  uint32_t h = ((abs - 0x38000000u) >> 13);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carry may bump the exponent: fine
  return static_cast<uint16_t>(sign | h);
}

// Correctly rounded double -> half (a plain double -> float -> half chain can round twice):
// the float step rounds to odd, which keeps enough information for the final rounding.
inline uint16_t DoubleToHalf(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d && d == d && f - f == 0) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const double af = f < 0 ? -static_cast<double>(f) : static_cast<double>(f);
    const double ad = d < 0 ? -d : d;
    if (af > ad) --bits;  // truncate toward zero (same sign, magnitude one step down)
    bits |= 1u;           // then mark the result inexact
    std::memcpy(&f, &bits, sizeof f);
  }
  return FloatToHalf(f);
}

}  // namespace lance
