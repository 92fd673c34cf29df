// The canonical JSON writer (rows and single values). Hand-written for speed: it is on the
// CLI's output path. The exact output rules are documented in docs/cli.md ("Canonical rows");
// floats use shortest round-trip digits for their width in one fixed notation, the same as the
// JS reference view in tests/interop/lib/canonical.mjs, so rows compare byte for byte.
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "lance/columnar/float16.h"
#include "lance/columnar/json.h"

namespace lance {

void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;  // start of the pending unescaped run
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

namespace {

// Renders a finite, non-zero number given by its shortest decimal digits (no leading or
// trailing zeros) and n, where value = 0.DIGITS * 10^n. Plain notation for 1e-7 <= |v| < 1e21
// (ECMAScript's thresholds) with at least one fraction digit ("1.0", "0.001"), otherwise
// "d[.ddd]e<exp>" with no "+" ("1e300", "1.5e-7").
void AppendFloatText(bool negative, std::string_view digits, int n, std::string* out) {
  if (negative) out->push_back('-');
  const int k = static_cast<int>(digits.size());
  if (0 < n && n <= 21) {
    if (k <= n) {
      out->append(digits);
      out->append(static_cast<size_t>(n - k), '0');
      out->append(".0");
    } else {
      out->append(digits.substr(0, static_cast<size_t>(n)));
      out->push_back('.');
      out->append(digits.substr(static_cast<size_t>(n)));
    }
  } else if (-6 < n && n <= 0) {
    out->append("0.");
    out->append(static_cast<size_t>(-n), '0');
    out->append(digits);
  } else {
    out->push_back(digits[0]);
    if (k > 1) {
      out->push_back('.');
      out->append(digits.substr(1));
    }
    out->push_back('e');
    fmt::format_to(std::back_inserter(*out), "{}", n - 1);
  }
}

// A decimal split into sign, significant digits (no leading or trailing zeros; empty for
// zero) and n, with value = 0.DIGITS * 10^n.
struct DecimalParts {
  bool negative = false;
  char digits[40];
  int k = 0;
  int n = 0;
  std::string_view view() const { return {digits, static_cast<size_t>(k)}; }
};

// Parses a rendering such as "-1.25e-07", "123.5" or "1e+300" (at most 39 digits kept).
void SplitDecimal(std::string_view text, DecimalParts* p) {
  size_t i = 0;
  p->negative = false;
  p->k = 0;
  if (i < text.size() && text[i] == '-') {
    p->negative = true;
    ++i;
  }
  int point = -1;   // number of mantissa digits before '.'
  int all = 0;      // mantissa digits seen, including leading zeros
  int leading = 0;  // leading zeros skipped
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
    const char c = text[i];
    if (c == '.') {
      point = all;
      continue;
    }
    ++all;
    if (p->k == 0 && c == '0') {
      ++leading;
      continue;
    }
    if (p->k < 39) p->digits[p->k++] = c;
  }
  if (point < 0) point = all;
  int exp10 = 0;
  if (i < text.size()) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) exp_negative = text[i++] == '-';
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      exp10 = exp10 * 10 + (text[i] - '0');
    }
    if (exp_negative) exp10 = -exp10;
  }
  while (p->k > 0 && p->digits[p->k - 1] == '0') --p->k;
  p->n = point - leading + exp10;
}

void AppendParts(const DecimalParts& p, std::string* out) {
  if (p.k == 0) {
    out->append(p.negative ? "-0.0" : "0.0");
    return;
  }
  AppendFloatText(p.negative, p.view(), p.n, out);
}

// Appends a decimal rendering in the canonical float notation.
void AppendFromDecimalText(std::string_view text, std::string* out) {
  DecimalParts p;
  SplitDecimal(text, &p);
  AppendParts(p, out);
}

template <typename F>
bool AppendNonFinite(F v, std::string* out) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
    return true;
  }
  if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return true;
  }
  return false;
}

void AppendDouble(double v, std::string* out) {
  if (AppendNonFinite(v, out)) return;
  char buf[64];
  auto end = fmt::format_to_n(buf, sizeof buf, "{}", v).out;
  AppendFromDecimalText(std::string_view(buf, static_cast<size_t>(end - buf)), out);
}

// Significant digits of the exact decimal value of |x| (every binary float has a finite one)
// and the exponent of its first digit: |x| = 0.DIGITS * 10^point. Trailing zeros removed.
// REQUIRES: x is a float32 or float16 value (their expansions have at most 112 digits).
void ExactDecimal(double x, std::string* digits, int* point) {
  char buf[160];
  auto end = fmt::format_to_n(buf, sizeof buf - 1, "{:.{}e}", std::fabs(x), 120).out;
  *end = '\0';
  const std::string_view text(buf, static_cast<size_t>(end - buf));
  const size_t e = text.find('e');
  digits->clear();
  for (char c : text.substr(0, e)) {
    if (c != '.') digits->push_back(c);
  }
  while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
  *point = std::atoi(buf + e + 1) + 1;
}

// Appends the `digits`-significant-digit decimal nearest to x among those that
// `round_trips` (exact distances; on an exact tie the smaller magnitude, the rule of the JS
// reference view). Only the two decimals bracketing x can qualify: any other is farther from x
// on the same side. Returns false if neither reads back to x.
template <typename RoundTrips>
bool AppendNearestWithDigits(double x, int digits, RoundTrips round_trips,
                             const std::string& exact, int point, std::string* out) {
  // lower = the first `digits` digits of |x| (truncation), upper = lower + one unit.
  std::string lower = exact.substr(0, static_cast<size_t>(digits));
  lower.append(static_cast<size_t>(digits) - lower.size(), '0');
  const std::string_view rest = static_cast<size_t>(digits) < exact.size()
                                    ? std::string_view(exact).substr(static_cast<size_t>(digits))
                                    : std::string_view();
  const int exp10 = point - digits;  // value of the last kept digit
  const char* sign = x < 0 ? "-" : "";
  const std::string lower_text = fmt::format("{}{}e{}", sign, lower, exp10);
  if (rest.empty()) {  // x has at most `digits` digits: it is its own nearest decimal
    AppendFromDecimalText(lower_text, out);
    return true;
  }
  // `lower` is 1 to 17 decimal digits: it fits (std::from_chars does not throw, stoull would).
  uint64_t lower_value = 0;
  std::from_chars(lower.data(), lower.data() + lower.size(), lower_value);
  const std::string upper_text = fmt::format("{}{}e{}", sign, lower_value + 1, exp10);
  const bool lower_ok = lower_value != 0 &&
                        round_trips(std::strtod(lower_text.c_str(), nullptr));
  const bool upper_ok = round_trips(std::strtod(upper_text.c_str(), nullptr));
  if (!lower_ok && !upper_ok) return false;
  // The remainder as a fraction of one unit: below, at or above one half.
  const bool lower_nearer = rest[0] < '5' || rest == "5";
  const bool use_lower = lower_ok && (!upper_ok || lower_nearer);
  AppendFromDecimalText(use_lower ? lower_text : upper_text, out);
  return true;
}

// True when |v| lies exactly halfway below the decimal digits * 10^exp10, i.e. when
// |v| = (2 * digits - 1) * 10^exp10 / 2. Exact integer arithmetic on v = m * 2^e.
bool IsHalfUnitBelow(float v, uint64_t digits, int exp10) {
  int e2;
  const float mant = std::frexp(std::fabs(v), &e2);
  uint64_t m = static_cast<uint64_t>(std::ldexp(mant, 24));
  e2 -= 24;
  // 2|v| = m_odd * 2^a; the target 2 * midpoint = (2 * digits - 1) * 5^exp10 * 2^exp10 has an
  // odd part (2 * digits - 1) * 5^exp10 and a power of two 2^exp10 (for exp10 < 0 the 5s move
  // to the other side).
  const int tz = __builtin_ctzll(m);
  const uint64_t m_odd = m >> tz;
  const int a = e2 + 1 + tz;
  if (a != exp10) return false;
  const unsigned __int128 odd = 2 * static_cast<unsigned __int128>(digits) - 1;
  unsigned __int128 lhs = m_odd;
  unsigned __int128 rhs = odd;
  for (int i = 0; i < (exp10 < 0 ? -exp10 : exp10); ++i) {
    unsigned __int128& side = exp10 < 0 ? lhs : rhs;
    side *= 5;
    if (side > (static_cast<unsigned __int128>(1) << 100)) return false;  // cannot match
  }
  return lhs == rhs;
}

void AppendFloat(float v, std::string* out) {
  if (AppendNonFinite(v, out)) return;
  // fmt's shortest form is the nearest shortest decimal, except that it breaks an exact tie to
  // even, where the canonical form takes the smaller magnitude. So when |v| is exactly halfway
  // below fmt's digits D, the answer is D - 1 if that reads back to v.
  char buf[64];
  auto end = fmt::format_to_n(buf, sizeof buf, "{}", v).out;
  DecimalParts p;
  SplitDecimal(std::string_view(buf, static_cast<size_t>(end - buf)), &p);
  if (p.k > 0 && p.k <= 18) {
    uint64_t digits = 0;
    for (int i = 0; i < p.k; ++i) digits = digits * 10 + static_cast<uint64_t>(p.digits[i] - '0');
    const int exp10 = p.n - p.k;
    if (IsHalfUnitBelow(v, digits, exp10)) {
      char cand[64];
      auto cend = fmt::format_to_n(cand, sizeof cand - 1, "{}{}e{}", p.negative ? "-" : "",
                                   digits - 1, exp10).out;
      *cend = '\0';
      if (digits > 1 && static_cast<float>(std::strtod(cand, nullptr)) == v) {
        AppendFromDecimalText(std::string_view(cand, static_cast<size_t>(cend - cand)), out);
        return;
      }
    }
  }
  AppendParts(p, out);
}

// True when the decimal value `d` rounds (to nearest, ties to even) to the half `bits`.
bool RoundsToHalf(double d, uint16_t bits) {
  const uint16_t mag = bits & 0x7fffu;
  if ((d < 0) != ((bits & 0x8000u) != 0)) return false;
  const double ad = d < 0 ? -d : d;
  const double x = HalfToFloat(mag);
  const double up = mag >= 0x7bffu ? 65536.0 : static_cast<double>(HalfToFloat(mag + 1));
  const double down = mag == 0 ? 0.0 : static_cast<double>(HalfToFloat(mag - 1));
  const double hi = (x + up) / 2;  // exact: halves have few significant bits
  const double lo = (x + down) / 2;
  const bool even = (mag & 1u) == 0;
  return (ad > lo || (ad == lo && even)) && (ad < hi || (ad == hi && even));
}

// Shortest decimal that reads back to the same half value; among those of the shortest length
// the nearest one.
void AppendHalf(uint16_t bits, std::string* out) {
  const float f = HalfToFloat(bits);
  if (AppendNonFinite(f, out)) return;
  if (f == 0) {
    out->append(bits & 0x8000u ? "-0.0" : "0.0");
    return;
  }
  const auto round_trips = [bits](double d) { return RoundsToHalf(d, bits); };
  std::string exact;
  int point;
  ExactDecimal(f, &exact, &point);
  for (int digits = 1; digits <= 9; ++digits) {
    if (AppendNearestWithDigits(f, digits, round_trips, exact, point, out)) return;
  }
  AppendFloat(f, out);  // not reached: 5 significant digits always identify a half
}


template <typename T>
void AppendInt(T v, std::string* out) {
  fmt::format_int f(v);
  out->append(f.data(), f.size());
}

void AppendValue(const Array& a, int64_t i, std::string* out);

void AppendListRange(const Array& child, int64_t start, int64_t n, std::string* out) {
  out->push_back('[');
  for (int64_t k = 0; k < n; ++k) {
    if (k) out->push_back(',');
    AppendValue(child, start + k, out);
  }
  out->push_back(']');
}

void AppendValue(const Array& a, int64_t i, std::string* out) {
  if (!a.IsValid(i)) {
    out->append("null");
    return;
  }
  const DataType& type = *a.type;
  switch (type.id()) {
    case TypeId::kNull: out->append("null"); return;
    case TypeId::kBool: out->append(a.BoolValue(i) ? "true" : "false"); return;
    case TypeId::kInt8: AppendInt(a.Values<int8_t>()[i], out); return;
    case TypeId::kInt16: AppendInt(a.Values<int16_t>()[i], out); return;
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: AppendInt(a.Values<int32_t>()[i], out); return;
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration: AppendInt(a.Values<int64_t>()[i], out); return;
    case TypeId::kUInt8: AppendInt(a.Values<uint8_t>()[i], out); return;
    case TypeId::kUInt16: AppendInt(a.Values<uint16_t>()[i], out); return;
    case TypeId::kUInt32: AppendInt(a.Values<uint32_t>()[i], out); return;
    case TypeId::kUInt64: AppendInt(a.Values<uint64_t>()[i], out); return;
    case TypeId::kHalfFloat: AppendHalf(a.Values<uint16_t>()[i], out); return;
    case TypeId::kFloat: AppendFloat(a.Values<float>()[i], out); return;
    case TypeId::kDouble: AppendDouble(a.Values<double>()[i], out); return;
    case TypeId::kString:
    case TypeId::kLargeString: AppendJsonString(a.GetView(i), out); return;
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      out->push_back('"');
      out->append(Base64Encode(a.GetView(i)));
      out->push_back('"');
      return;
    case TypeId::kDecimal128: {
      __int128 v;
      std::memcpy(&v, a.buffers[1]->data() + (a.offset + i) * 16, sizeof v);
      out->push_back('"');
      out->append(Decimal128ToString(v, type.scale()));
      out->push_back('"');
      return;
    }
    case TypeId::kDecimal256: {
      Int256 v;
      std::memcpy(v.limbs.data(), a.buffers[1]->data() + (a.offset + i) * 32, sizeof v.limbs);
      out->push_back('"');
      out->append(Decimal256ToString(v, type.scale()));
      out->push_back('"');
      return;
    }
    case TypeId::kList:
    case TypeId::kLargeList: {
      const int64_t start = a.ValueOffset(i);
      AppendListRange(*a.children[0], start, a.ValueOffset(i + 1) - start, out);
      return;
    }
    case TypeId::kFixedSizeList:
      AppendListRange(*a.children[0], (a.offset + i) * type.list_size(), type.list_size(), out);
      return;
    case TypeId::kMap: {
      const Array& entries = *a.children[0];
      const int64_t start = a.ValueOffset(i);
      const int64_t end = a.ValueOffset(i + 1);
      out->push_back('[');
      for (int64_t k = start; k < end; ++k) {
        if (k != start) out->push_back(',');
        out->push_back('[');
        AppendValue(*entries.children[0], entries.offset + k, out);
        out->push_back(',');
        AppendValue(*entries.children[1], entries.offset + k, out);
        out->push_back(']');
      }
      out->push_back(']');
      return;
    }
    case TypeId::kStruct:
      out->push_back('{');
      for (int f = 0; f < type.num_fields(); ++f) {
        if (f) out->push_back(',');
        AppendJsonString(type.field(f)->name(), out);
        out->push_back(':');
        AppendValue(*a.children[static_cast<size_t>(f)], a.offset + i, out);
      }
      out->push_back('}');
      return;
    case TypeId::kDictionary:
      AppendValue(*a.dictionary, a.DictionaryIndex(i), out);
      return;
  }
}

}  // namespace

Status AppendJsonValue(const Array& array, int64_t i, std::string* out) {
  AppendValue(array, i, out);
  return Status::OK();
}

Status AppendJsonLines(const RecordBatch& batch, std::string* out) {
  const Schema& schema = *batch.schema();
  std::vector<std::string> keys;
  keys.reserve(static_cast<size_t>(schema.num_fields()));
  for (int c = 0; c < schema.num_fields(); ++c) {
    std::string key = c == 0 ? "{" : ",";
    AppendJsonString(schema.field(c)->name(), &key);
    key.push_back(':');
    keys.push_back(std::move(key));
  }
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    if (schema.num_fields() == 0) out->push_back('{');
    for (int c = 0; c < schema.num_fields(); ++c) {
      out->append(keys[static_cast<size_t>(c)]);
      AppendValue(*batch.column(c), r, out);
    }
    out->append("}\n");
  }
  return Status::OK();
}

}  // namespace lance
