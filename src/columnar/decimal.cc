// Decimal text conversions for canonical JSON and CSV: unscaled two's complement values of 16
// (decimal128) or 32 (decimal256) bytes, plus a scale. One routine serves both widths: it works
// on the magnitude as little-endian 64-bit limbs.
#include <cstdlib>
#include <cstring>

#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"

namespace lance {
namespace {

constexpr int kMaxLimbs = 4;

struct Magnitude {
  uint64_t limb[kMaxLimbs] = {};
  int n = 0;  // limbs in use (2 for decimal128, 4 for decimal256)
  bool IsZero() const {
    for (int i = 0; i < n; ++i) {
      if (limb[i] != 0) return false;
    }
    return true;
  }
  // this = this * 10 + digit; false on overflow of n limbs.
  bool MulAdd10(unsigned digit) {
    UInt128 carry = digit;
    for (int i = 0; i < n; ++i) {
      const UInt128 v = static_cast<UInt128>(limb[i]) * 10 + carry;
      limb[i] = static_cast<uint64_t>(v);
      carry = v >> 64;
    }
    return carry == 0;
  }
  // this /= d; returns the remainder.
  uint64_t DivMod(uint64_t d) {
    UInt128 rem = 0;
    for (int i = n - 1; i >= 0; --i) {
      const UInt128 cur = (rem << 64) | limb[i];
      limb[i] = static_cast<uint64_t>(cur / d);
      rem = cur % d;
    }
    return static_cast<uint64_t>(rem);
  }
  void Negate() {  // two's complement in n limbs
    uint64_t carry = 1;
    for (int i = 0; i < n; ++i) {
      const uint64_t v = ~limb[i] + carry;
      carry = (carry != 0 && v == 0) ? 1 : 0;
      limb[i] = v;
    }
  }
  bool TopBit() const { return (limb[n - 1] >> 63) != 0; }
};

Magnitude Load(const uint64_t* limbs, int n, bool* negative) {
  Magnitude m;
  m.n = n;
  std::memcpy(m.limb, limbs, static_cast<size_t>(n) * 8);
  *negative = m.TopBit();
  if (*negative) m.Negate();  // the minimum value stays 2^(64n-1), read as unsigned below
  return m;
}

std::string ToText(const uint64_t* limbs, int n, int32_t scale) {
  bool negative = false;
  Magnitude mag = Load(limbs, n, &negative);
  const bool zero = mag.IsZero();
  char digits[80];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + mag.DivMod(10));
  } while (!mag.IsZero());
  std::string out;
  if (negative) out += '-';
  if (scale <= 0) {
    for (int i = count - 1; i >= 0; --i) out += digits[i];
    if (!zero) out.append(static_cast<size_t>(-scale), '0');
    return out;
  }
  // Integer part: digits above `scale` (or "0").
  if (count <= scale) {
    out += '0';
  } else {
    for (int i = count - 1; i >= scale; --i) out += digits[i];
  }
  out += '.';
  for (int i = scale - 1; i >= 0; --i) out += i < count ? digits[i] : '0';
  return out;
}

Status FromText(std::string_view text, int32_t precision, int32_t scale, int n,
                std::string_view type_name, uint64_t* out) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  Magnitude mag;
  mag.n = n;
  int significant = 0;  // digits counted against the precision (leading zeros excluded)
  int fraction = 0;
  bool any_digit = false;
  bool in_fraction = false;
  auto overflow = [&] {
    return Status::InvalidArgument("decimal '{}' overflows {}", text, type_name);
  };
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !in_fraction) {
      in_fraction = true;
      continue;
    }
    if (c < '0' || c > '9') {
      return Status::InvalidArgument("invalid decimal '{}': unexpected '{}'", text, c);
    }
    any_digit = true;
    if (in_fraction) {
      if (fraction >= scale) {
        if (c != '0') {
          return Status::InvalidArgument("decimal '{}' has more than {} fraction digits", text,
                                         scale);
        }
        continue;
      }
      ++fraction;
    }
    if (mag.IsZero() && c == '0') continue;
    if (!mag.MulAdd10(static_cast<unsigned>(c - '0'))) return overflow();
    ++significant;
  }
  if (!any_digit) return Status::InvalidArgument("invalid decimal '{}'", text);
  for (; fraction < scale; ++fraction) {
    if (!mag.IsZero()) {
      if (!mag.MulAdd10(0)) return overflow();
      ++significant;
    }
  }
  if (scale < 0) {
    // Negative scale: the value must be a multiple of 10^-scale.
    for (int32_t k = 0; k < -scale; ++k) {
      Magnitude probe = mag;
      if (probe.DivMod(10) != 0) {
        return Status::InvalidArgument("decimal '{}' is not a multiple of 10^{}", text, -scale);
      }
      mag = probe;
      if (significant > 0) --significant;
    }
  }
  if (significant > precision) {
    return Status::InvalidArgument("decimal '{}' has more than {} digits of precision", text,
                                   precision);
  }
  // The magnitude must fit the signed range: below 2^(64n-1), or equal to it when negative.
  if (mag.TopBit()) {
    bool exactly_min = (mag.limb[n - 1] << 1) == 0;
    for (int k = 0; k + 1 < n && exactly_min; ++k) exactly_min = mag.limb[k] == 0;
    if (!(negative && exactly_min)) return overflow();
  }
  if (negative) mag.Negate();
  std::memcpy(out, mag.limb, static_cast<size_t>(n) * 8);
  return Status::OK();
}

void Int128Limbs(Int128 v, uint64_t out[2]) {
  const UInt128 u = static_cast<UInt128>(v);
  out[0] = static_cast<uint64_t>(u);
  out[1] = static_cast<uint64_t>(u >> 64);
}

}  // namespace

std::string Decimal128ToString(Int128 unscaled, int32_t scale) {
  uint64_t limbs[2];
  Int128Limbs(unscaled, limbs);
  return ToText(limbs, 2, scale);
}

Result<Int128> Decimal128FromString(std::string_view text, int32_t precision, int32_t scale) {
  uint64_t limbs[2];
  LANCE_RETURN_NOT_OK(FromText(text, precision, scale, 2, "decimal128", limbs));
  return static_cast<Int128>((static_cast<UInt128>(limbs[1]) << 64) | limbs[0]);
}

std::string Decimal256ToString(const Int256& unscaled, int32_t scale) {
  return ToText(unscaled.limbs.data(), 4, scale);
}

Result<Int256> Decimal256FromString(std::string_view text, int32_t precision, int32_t scale) {
  Int256 v;
  LANCE_RETURN_NOT_OK(FromText(text, precision, scale, 4, "decimal256", v.limbs.data()));
  return v;
}

double Decimal256ToDouble(const Int256& unscaled, int32_t scale) {
  // Through the exact text, so that the result is correctly rounded (limb arithmetic in
  // doubles would round more than once).
  const std::string text = Decimal256ToString(unscaled, scale);
  return std::strtod(text.c_str(), nullptr);
}

Status AppendDecimalText(ArrayBuilder* builder, std::string_view text) {
  const DataType& type = *builder->type();
  if (type.id() == TypeId::kDecimal128) {
    LANCE_ASSIGN_OR_RAISE(auto v, Decimal128FromString(text, type.precision(), type.scale()));
    return static_cast<Decimal128Builder*>(builder)->Append(v);
  }
  if (type.id() == TypeId::kDecimal256) {
    LANCE_ASSIGN_OR_RAISE(auto v, Decimal256FromString(text, type.precision(), type.scale()));
    return static_cast<Decimal256Builder*>(builder)->Append(v);
  }
  return Status::InvalidArgument("decimal text '{}' given to a {} builder", text, type.ToString());
}

}  // namespace lance
