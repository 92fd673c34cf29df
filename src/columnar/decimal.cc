// Decimal128 text conversions for canonical JSON: unscaled two's complement value + scale.
#include "lance/columnar/json.h"

namespace lance {

std::string Decimal128ToString(__int128 unscaled, int32_t scale) {
  const bool negative = unscaled < 0;
  // Work on the magnitude as unsigned so that the minimum value does not overflow.
  unsigned __int128 mag =
      negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(unscaled)
               : static_cast<unsigned __int128>(unscaled);
  char digits[48];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(mag % 10));
    mag /= 10;
  } while (mag != 0);
  std::string out;
  if (negative) out += '-';
  if (scale <= 0) {
    for (int i = n - 1; i >= 0; --i) out += digits[i];
    if (unscaled != 0) out.append(static_cast<size_t>(-scale), '0');
    return out;
  }
  // Integer part: digits above `scale` (or "0").
  if (n <= scale) {
    out += '0';
  } else {
    for (int i = n - 1; i >= scale; --i) out += digits[i];
  }
  out += '.';
  for (int i = scale - 1; i >= 0; --i) out += i < n ? digits[i] : '0';
  return out;
}

Result<__int128> Decimal128FromString(std::string_view text, int32_t precision, int32_t scale) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  unsigned __int128 mag = 0;
  int significant = 0;  // digits counted against the precision (leading zeros excluded)
  int fraction = 0;
  bool any_digit = false;
  bool in_fraction = false;
  const unsigned __int128 kMax = ~static_cast<unsigned __int128>(0);
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
    if (mag == 0 && c == '0') continue;
    const unsigned digit = static_cast<unsigned>(c - '0');
    if (mag > (kMax - digit) / 10) {
      return Status::InvalidArgument("decimal '{}' overflows decimal128", text);
    }
    mag = mag * 10 + digit;
    ++significant;
  }
  if (!any_digit) return Status::InvalidArgument("invalid decimal '{}'", text);
  for (; fraction < scale; ++fraction) {
    if (mag != 0) {
      if (mag > kMax / 10) return Status::InvalidArgument("decimal '{}' overflows", text);
      mag *= 10;
      ++significant;
    }
  }
  if (scale < 0) {
    // Negative scale: the value must be a multiple of 10^-scale.
    for (int32_t k = 0; k < -scale; ++k) {
      if (mag % 10 != 0) {
        return Status::InvalidArgument("decimal '{}' is not a multiple of 10^{}", text, -scale);
      }
      mag /= 10;
      if (significant > 0) --significant;
    }
  }
  if (significant > precision) {
    return Status::InvalidArgument("decimal '{}' has more than {} digits of precision", text,
                                   precision);
  }
  const unsigned __int128 kSignBit = static_cast<unsigned __int128>(1) << 127;
  if (mag > kSignBit || (mag == kSignBit && !negative)) {
    return Status::InvalidArgument("decimal '{}' overflows decimal128", text);
  }
  // Two's complement negation in unsigned arithmetic (also right for -2^127).
  return static_cast<__int128>(negative ? ~mag + 1 : mag);
}

}  // namespace lance
