// Boolean kernels (kernels.h): SQL three-valued AND / OR / NOT over 64-bit words of "is true"
// and "is false", IS [NOT] NULL / TRUE / FALSE, [NOT] IN against a sorted set, and [NOT]
// LIKE / ILIKE with a compiled pattern.
#include "expr/kernels.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "expr/kernel_results.h"

namespace lance::expr {

using kernel::AllNull;
using kernel::BoolArray;
using kernel::BoolScalar;
using kernel::FloatValue;
using kernel::IntValue;
using kernel::MergeValidity;
using kernel::NewBitmap;
using kernel::PackBits;
using kernel::ScalarDatum;
using kernel::ValidityOf;

namespace {

// A boolean operand as word bitmaps of "is true" and "is false" (both clear = null).
struct TruthWords {
  std::vector<uint64_t> t, f;
};

Result<TruthWords> Truth(const Datum& d, int64_t n) {
  const size_t words = static_cast<size_t>((n + 63) / 64);
  TruthWords w;
  w.t.assign(words, 0);
  w.f.assign(words, 0);
  if (!d.is_array()) {
    if (d.scalar.valid && d.scalar.type->id() == TypeId::kBool) {
      std::fill((d.scalar.b ? w.t : w.f).begin(), (d.scalar.b ? w.t : w.f).end(), ~uint64_t{0});
    }
    return w;
  }
  const Array& a = *d.array;
  if (a.type_id() == TypeId::kNull) return w;
  std::vector<uint64_t> valid(words, ~uint64_t{0});
  bit_util::CopyBitmap(a.buffers[1]->data(), a.offset, n, reinterpret_cast<uint8_t*>(w.t.data()), 0);
  if (a.null_count > 0 && a.validity()) {
    std::fill(valid.begin(), valid.end(), 0);
    bit_util::CopyBitmap(a.validity(), a.offset, n, reinterpret_cast<uint8_t*>(valid.data()), 0);
  }
  for (size_t i = 0; i < words; ++i) {
    w.f[i] = valid[i] & ~w.t[i];
    w.t[i] &= valid[i];
  }
  return w;
}

Result<Datum> FromTruth(const TruthWords& w, int64_t n, bool scalar) {
  if (scalar) {
    const bool t = w.t[0] & 1, f = w.f[0] & 1;
    return ScalarDatum(BoolScalar(t || f, t));
  }
  const size_t words = w.t.size();
  const int64_t bytes = bit_util::BytesForBits(n);
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, NewBitmap(n));
  std::memcpy(values->mutable_data(), w.t.data(), static_cast<size_t>(bytes));
  bool all_valid = true;
  std::vector<uint64_t> v(words);
  for (size_t i = 0; i < words; ++i) {
    v[i] = w.t[i] | w.f[i];
    const int64_t bits_here = std::min<int64_t>(64, n - static_cast<int64_t>(i) * 64);
    const uint64_t mask = bits_here == 64 ? ~uint64_t{0} : ((uint64_t{1} << bits_here) - 1);
    if ((v[i] & mask) != mask) all_valid = false;
  }
  BufferPtr validity;
  if (!all_valid) {
    LANCE_ASSIGN_OR_RAISE(validity, NewBitmap(n));
    std::memcpy(validity->mutable_data(), v.data(), static_cast<size_t>(bytes));
  }
  return BoolArray(n, values, validity);
}

}  // namespace

Result<Datum> LogicKernel(Op op, const Datum& a, const Datum& b, int64_t n) {
  const bool scalar = !a.is_array() && !b.is_array();
  const int64_t len = scalar ? 1 : n;
  LANCE_ASSIGN_OR_RAISE(TruthWords x, Truth(a, len));
  LANCE_ASSIGN_OR_RAISE(TruthWords y, Truth(b, len));
  for (size_t i = 0; i < x.t.size(); ++i) {
    if (op == Op::kAnd) {
      x.t[i] &= y.t[i];
      x.f[i] |= y.f[i];
    } else {
      x.t[i] |= y.t[i];
      x.f[i] &= y.f[i];
    }
  }
  return FromTruth(x, len, scalar);
}

Result<Datum> NotKernel(const Datum& a, int64_t n) {
  const bool scalar = !a.is_array();
  const int64_t len = scalar ? 1 : n;
  LANCE_ASSIGN_OR_RAISE(TruthWords x, Truth(a, len));
  std::swap(x.t, x.f);
  return FromTruth(x, len, scalar);
}

Result<Datum> IsKernel(IsWhat what, bool negated, const Datum& a, int64_t n) {
  if (!a.is_array()) {
    bool r = false;
    switch (what) {
      case IsWhat::kNull: r = !a.scalar.valid; break;
      case IsWhat::kTrue: r = a.scalar.valid && a.scalar.b; break;
      case IsWhat::kFalse: r = a.scalar.valid && !a.scalar.b; break;
    }
    return ScalarDatum(BoolScalar(true, r != negated));
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, NewBitmap(n));
  uint8_t* out = values->mutable_data();
  const Array& arr = *a.array;
  if (what == IsWhat::kNull) {
    PackBits(n, out, [&](int64_t i) { return arr.IsNull(i) != negated; });
  } else {
    const bool want = what == IsWhat::kTrue;
    const bool is_null_type = arr.type_id() == TypeId::kNull;
    PackBits(n, out, [&](int64_t i) {
      const bool r = !is_null_type && arr.IsValid(i) && arr.BoolValue(i) == want;
      return r != negated;
    });
  }
  return BoolArray(n, values, nullptr);
}

void InSet::Finish() {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::sort(strings.begin(), strings.end());
  strings.erase(std::unique(strings.begin(), strings.end()), strings.end());
}

Result<Datum> InKernel(const InSet& set, bool negated, const Datum& a, int64_t n) {
  auto contains_key = [&](int64_t k) {
    return set.keys.size() <= 8 ? std::find(set.keys.begin(), set.keys.end(), k) != set.keys.end()
                                : std::binary_search(set.keys.begin(), set.keys.end(), k);
  };
  auto contains_string = [&](std::string_view s) {
    auto it = std::lower_bound(set.strings.begin(), set.strings.end(), s,
                               [](const std::string& x, std::string_view y) { return x < y; });
    return it != set.strings.end() && *it == s;
  };
  // Found -> TRUE; not found -> NULL when the list holds a NULL, else FALSE; then NOT IN
  // negates the non-null results.
  if (!a.is_array()) {
    if (!a.scalar.valid || set.domain == Domain::kNull) return ScalarDatum(BoolScalar(false, false));
    bool found = false;
    switch (set.domain) {
      case Domain::kString: found = contains_string(a.scalar.s); break;
      case Domain::kFloat: found = contains_key(FloatKey(FloatValue(a.scalar))); break;
      default:
        found = (a.scalar.type->id() != TypeId::kUInt64 || a.scalar.i >= 0) &&
                contains_key(IntValue(a.scalar));
        break;
    }
    if (!found && set.has_null) return ScalarDatum(BoolScalar(false, false));
    return ScalarDatum(BoolScalar(true, found != negated));
  }
  if (set.domain == Domain::kNull) return AllNull(boolean(), n, false);
  const Array& arr = *a.array;
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, NewBitmap(n));
  uint8_t* out = values->mutable_data();
  switch (set.domain) {
    case Domain::kString:
      PackBits(n, out, [&](int64_t i) { return contains_string(arr.GetView(i)); });
      break;
    case Domain::kFloat:
      VisitNative(arr, [&](const auto* v) {
        PackBits(n, out, [&](int64_t i) { return contains_key(FloatKey(static_cast<double>(v[i]))); });
        return 0;
      });
      break;
    case Domain::kBool:
      PackBits(n, out, [&](int64_t i) { return contains_key(arr.BoolValue(i) ? 1 : 0); });
      break;
    default:
      if (arr.type_id() == TypeId::kUInt64) {
        // The keys are int64: a uint64 above INT64_MAX equals none of them.
        const uint64_t* v = arr.Values<uint64_t>();
        PackBits(n, out, [&](int64_t i) {
          return v[i] <= static_cast<uint64_t>(INT64_MAX) && contains_key(static_cast<int64_t>(v[i]));
        });
        break;
      }
      VisitNative(arr, [&](const auto* v) {
        PackBits(n, out, [&](int64_t i) { return contains_key(static_cast<int64_t>(v[i])); });
        return 0;
      });
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, ValidityOf(arr, n));
  if (set.has_null) {
    // Rows not found become null.
    if (!validity) {
      LANCE_ASSIGN_OR_RAISE(validity, NewBitmap(n));
      std::memset(validity->mutable_data(), 0xff, static_cast<size_t>(bit_util::BytesForBits(n)));
    }
    uint8_t* v = validity->mutable_data();
    for (int64_t i = 0; i < bit_util::BytesForBits(n); ++i) v[i] &= out[i];
  }
  if (negated) {
    for (int64_t i = 0; i < bit_util::BytesForBits(n); ++i) out[i] = static_cast<uint8_t>(~out[i]);
  }
  return BoolArray(n, values, validity);
}

namespace {

constexpr int kAnyRun = -1;   // %
constexpr int kAnyChar = -2;  // _

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

// Length in bytes of the UTF-8 character starting with byte c (1 for invalid bytes).
int Utf8Len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xe) return 3;
  if ((c >> 3) == 0x1e) return 4;
  return 1;
}

bool MatchTokens(const std::vector<int>& p, size_t pi, std::string_view s, size_t si) {
  // Iterative matching with backtracking to the last %.
  size_t star_p = std::string::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == kAnyChar) {
      si += static_cast<size_t>(Utf8Len(static_cast<unsigned char>(s[si])));
      ++pi;
    } else if (pi < p.size() && p[pi] == kAnyRun) {
      star_p = pi++;
      star_s = si;
    } else if (pi < p.size() && p[pi] >= 0 && static_cast<char>(p[pi]) == s[si]) {
      ++pi;
      ++si;
    } else if (star_p != std::string::npos) {
      pi = star_p + 1;
      star_s += static_cast<size_t>(Utf8Len(static_cast<unsigned char>(s[star_s])));
      si = star_s;
    } else {
      return false;
    }
  }
  if (si > s.size()) return false;
  while (pi < p.size() && p[pi] == kAnyRun) ++pi;
  return pi == p.size();
}

}  // namespace

Result<LikeMatcher> LikeMatcher::Compile(const std::string& pattern_in, bool case_insensitive) {
  LikeMatcher m;
  m.case_insensitive_ = case_insensitive;
  const std::string pattern = case_insensitive ? LowerAscii(pattern_in) : pattern_in;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      if (i + 1 < pattern.size()) {
        m.tokens_.push_back(static_cast<unsigned char>(pattern[++i]));
      } else {
        m.tokens_.push_back('\\');
      }
    } else if (c == '%') {
      if (m.tokens_.empty() || m.tokens_.back() != kAnyRun) m.tokens_.push_back(kAnyRun);
    } else if (c == '_') {
      m.tokens_.push_back(kAnyChar);
    } else {
      m.tokens_.push_back(static_cast<unsigned char>(c));
    }
  }
  // Recognize literal, literal%, %literal and %literal%.
  size_t begin = 0, end = m.tokens_.size();
  const bool lead = end > 0 && m.tokens_[0] == kAnyRun;
  if (lead) ++begin;
  const bool trail = end > begin && m.tokens_[end - 1] == kAnyRun;
  if (trail) --end;
  bool fixed = true;
  std::string lit;
  for (size_t i = begin; i < end; ++i) {
    if (m.tokens_[i] < 0) {
      fixed = false;
      break;
    }
    lit += static_cast<char>(m.tokens_[i]);
  }
  if (fixed) {
    m.literal_ = lit;
    m.shape_ = lead && trail ? Shape::kContains : lead ? Shape::kSuffix
                                               : trail ? Shape::kPrefix : Shape::kExact;
  }
  return m;
}

bool LikeMatcher::Match(std::string_view s_in) const {
  std::string lowered;
  std::string_view s = s_in;
  if (case_insensitive_) {
    lowered = LowerAscii(s_in);
    s = lowered;
  }
  switch (shape_) {
    case Shape::kExact: return s == literal_;
    case Shape::kPrefix: return s.substr(0, literal_.size()) == literal_;
    case Shape::kSuffix:
      return s.size() >= literal_.size() && s.substr(s.size() - literal_.size()) == literal_;
    case Shape::kContains: return s.find(literal_) != std::string_view::npos;
    case Shape::kGeneral: return MatchTokens(tokens_, 0, s, 0);
  }
  return false;
}

Result<Datum> LikeKernel(const LikeMatcher& m, bool negated, const Datum& a, int64_t n) {
  if (!a.is_array()) {
    if (!a.scalar.valid) return ScalarDatum(BoolScalar(false, false));
    return ScalarDatum(BoolScalar(true, m.Match(a.scalar.s) != negated));
  }
  const Array& arr = *a.array;
  if (arr.type_id() == TypeId::kNull) return AllNull(boolean(), n, false);
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, NewBitmap(n));
  PackBits(n, values->mutable_data(), [&](int64_t i) {
    return arr.IsValid(i) && (m.Match(arr.GetView(i)) != negated);
  });
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, ValidityOf(arr, n));
  return BoolArray(n, values, validity);
}


}  // namespace lance::expr
