#include "expr/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "expr/cast.h"
#include "expr/int_division.h"
#include "lance/columnar/builder.h"

namespace lance::expr {

namespace {

Datum ScalarDatum(Scalar s) {
  Datum d;
  d.scalar = std::move(s);
  return d;
}

Scalar BoolScalar(bool valid, bool v) {
  Scalar s;
  s.type = boolean();
  s.valid = valid;
  s.b = v;
  return s;
}

// Writes bit i = pred(i) for i in [0, n), a byte at a time.
template <typename Pred>
void PackBits(int64_t n, uint8_t* out, Pred pred) {
  const int64_t full = n / 8;
  for (int64_t b = 0; b < full; ++b) {
    const int64_t base = b * 8;
    uint8_t byte = 0;
    for (int j = 0; j < 8; ++j) byte |= static_cast<uint8_t>(pred(base + j) ? 1 : 0) << j;
    out[b] = byte;
  }
  if (n % 8) {
    uint8_t byte = 0;
    for (int64_t i = full * 8; i < n; ++i) {
      byte |= static_cast<uint8_t>(pred(i) ? 1 : 0) << (i - full * 8);
    }
    out[full] = byte;
  }
}

Result<BufferPtr> NewBitmap(int64_t n) { return AllocateBuffer(bit_util::BytesForBits(n), true); }

// Validity of `a` (n elements) copied to offset 0, or null when all valid.
Result<BufferPtr> ValidityOf(const Array& a, int64_t n) {
  if (a.type_id() == TypeId::kNull) return NewBitmap(n);  // all null
  if (a.null_count == 0 || a.validity() == nullptr) return BufferPtr();
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, NewBitmap(n));
  bit_util::CopyBitmap(a.validity(), a.offset, n, out->mutable_data(), 0);
  return out;
}

// AND of the validity of the array operands (null = all valid).
Result<BufferPtr> MergeValidity(const Datum& a, const Datum& b, int64_t n) {
  BufferPtr va, vb;
  if (a.is_array()) {
    LANCE_ASSIGN_OR_RAISE(va, ValidityOf(*a.array, n));
  }
  if (b.is_array()) {
    LANCE_ASSIGN_OR_RAISE(vb, ValidityOf(*b.array, n));
  }
  if (!va) return vb;
  if (!vb) return va;
  uint8_t* o = va->mutable_data();
  const uint8_t* p = vb->data();
  for (int64_t i = 0; i < bit_util::BytesForBits(n); ++i) o[i] &= p[i];
  return va;
}

Result<Datum> BoolArray(int64_t n, BufferPtr values, BufferPtr validity) {
  Datum d;
  d.array = Array::Make(boolean(), n, {std::move(validity), std::move(values)});
  return d;
}

Result<Datum> AllNull(const DataTypePtr& type, int64_t n, bool scalar) {
  if (scalar) {
    Scalar s;
    s.type = type;
    return ScalarDatum(s);
  }
  Datum d;
  LANCE_ASSIGN_OR_RAISE(d.array, MakeArrayOfNulls(type, n));
  return d;
}

Op Flip(Op op) {
  switch (op) {
    case Op::kLt: return Op::kGt;
    case Op::kLe: return Op::kGe;
    case Op::kGt: return Op::kLt;
    case Op::kGe: return Op::kLe;
    default: return op;
  }
}

template <Op op, typename T>
inline bool Cmp(T a, T b) {
  if constexpr (op == Op::kEq) return a == b;
  if constexpr (op == Op::kNe) return a != b;
  if constexpr (op == Op::kLt) return a < b;
  if constexpr (op == Op::kLe) return a <= b;
  if constexpr (op == Op::kGt) return a > b;
  return a >= b;
}

template <typename F>
auto DispatchOp(Op op, F&& f) {
  switch (op) {
    case Op::kEq: return f(std::integral_constant<Op, Op::kEq>());
    case Op::kNe: return f(std::integral_constant<Op, Op::kNe>());
    case Op::kLt: return f(std::integral_constant<Op, Op::kLt>());
    case Op::kLe: return f(std::integral_constant<Op, Op::kLe>());
    case Op::kGt: return f(std::integral_constant<Op, Op::kGt>());
    default: return f(std::integral_constant<Op, Op::kGe>());
  }
}

int64_t IntValue(const Scalar& s) { return s.type->id() == TypeId::kBool ? s.b : s.i; }
double FloatValue(const Scalar& s) {
  const TypeId id = s.type->id();
  if (id >= TypeId::kHalfFloat && id <= TypeId::kDouble) return s.d;
  if (id == TypeId::kUInt64) return static_cast<double>(static_cast<uint64_t>(s.i));
  return static_cast<double>(IntValue(s));
}

// Values of a numeric array as int64 / double (or of a bool array as 0/1).
std::vector<int64_t> IntValues(const Array& a) {
  std::vector<int64_t> out(static_cast<size_t>(a.length));
  if (a.type_id() == TypeId::kBool) {
    for (int64_t i = 0; i < a.length; ++i) out[static_cast<size_t>(i)] = a.BoolValue(i);
    return out;
  }
  VisitNative(a, [&](const auto* v) {
    for (int64_t i = 0; i < a.length; ++i) out[static_cast<size_t>(i)] = static_cast<int64_t>(v[i]);
    return 0;
  });
  return out;
}
std::vector<double> FloatValues(const Array& a) {
  std::vector<double> out(static_cast<size_t>(a.length));
  VisitNative(a, [&](const auto* v) {
    for (int64_t i = 0; i < a.length; ++i) out[static_cast<size_t>(i)] = static_cast<double>(v[i]);
    return 0;
  });
  return out;
}

// The values of an integer array as int64: in place for 64-bit integers (int64 and the
// temporal types stored as int64; uint64 reinterpreted, as IntValues converts it), else
// converted into *scratch.
const int64_t* Int64ValuesOf(const Array& a, std::vector<int64_t>* scratch) {
  switch (a.type_id()) {
    case TypeId::kInt64: case TypeId::kUInt64: case TypeId::kDate64: case TypeId::kTime64:
    case TypeId::kTimestamp: case TypeId::kDuration:
      return a.Values<int64_t>();
    default:
      *scratch = IntValues(a);
      return scratch->data();
  }
}

// Integers as 128-bit numbers, so a uint64 above INT64_MAX stays above every int64 (compared
// as int64 it would wrap negative). Used when either side of a comparison is uint64.
using Wide = __int128;
Wide WideValue(const Scalar& s) {
  return s.type->id() == TypeId::kUInt64 ? static_cast<Wide>(static_cast<uint64_t>(s.i))
                                         : static_cast<Wide>(IntValue(s));
}
std::vector<Wide> WideValues(const Array& a) {
  if (a.type_id() != TypeId::kUInt64) {
    const std::vector<int64_t> v = IntValues(a);
    return std::vector<Wide>(v.begin(), v.end());
  }
  std::vector<Wide> out(static_cast<size_t>(a.length));
  const uint64_t* v = a.Values<uint64_t>();
  for (int64_t i = 0; i < a.length; ++i) out[static_cast<size_t>(i)] = static_cast<Wide>(v[i]);
  return out;
}

bool CompareScalars(Op op, Domain domain, const Scalar& a, const Scalar& b) {
  int c = 0;
  switch (domain) {
    case Domain::kString: {
      const int r = a.s.compare(b.s);
      c = r < 0 ? -1 : r > 0 ? 1 : 0;
      break;
    }
    case Domain::kFloat: {
      const int64_t x = FloatKey(FloatValue(a)), y = FloatKey(FloatValue(b));
      c = x < y ? -1 : x > y ? 1 : 0;
      break;
    }
    default: {
      const Wide x = WideValue(a), y = WideValue(b);
      c = x < y ? -1 : x > y ? 1 : 0;
    }
  }
  switch (op) {
    case Op::kEq: return c == 0;
    case Op::kNe: return c != 0;
    case Op::kLt: return c < 0;
    case Op::kLe: return c <= 0;
    case Op::kGt: return c > 0;
    default: return c >= 0;
  }
}

template <typename Offset>
void CompareStringsScalar(Op op, const Array& a, std::string_view s, int64_t n, uint8_t* out) {
  const Offset* off = a.buffers[1]->data_as<Offset>() + a.offset;
  const char* data = a.buffers[2] ? a.buffers[2]->data_as<char>() : "";
  const size_t slen = s.size();
  if (op == Op::kEq || op == Op::kNe) {
    const bool eq = op == Op::kEq;
    PackBits(n, out, [&](int64_t i) {
      const size_t len = static_cast<size_t>(off[i + 1] - off[i]);
      const bool same = len == slen && (slen == 0 || std::memcmp(data + off[i], s.data(), slen) == 0);
      return same == eq;
    });
    return;
  }
  DispatchOp(op, [&](auto o) {
    PackBits(n, out, [&](int64_t i) {
      const std::string_view v(data + off[i], static_cast<size_t>(off[i + 1] - off[i]));
      const int r = v.compare(s);
      return Cmp<decltype(o)::value, int>(r, 0);
    });
    return 0;
  });
}

}  // namespace

Result<Datum> CompareKernel(Op op, Domain domain, const Datum& a, const Datum& b, int64_t n) {
  if (!a.is_array() && !b.is_array()) {
    if (domain == Domain::kNull || !a.scalar.valid || !b.scalar.valid) {
      return ScalarDatum(BoolScalar(false, false));
    }
    return ScalarDatum(BoolScalar(true, CompareScalars(op, domain, a.scalar, b.scalar)));
  }
  if (!a.is_array()) return CompareKernel(Flip(op), domain, b, a, n);
  if (domain == Domain::kNull) return AllNull(boolean(), n, false);
  const Array& arr = *a.array;
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, NewBitmap(n));
  uint8_t* out = values->mutable_data();
  if (!b.is_array()) {
    const Scalar& s = b.scalar;
    if (!s.valid) return AllNull(boolean(), n, false);
    switch (domain) {
      case Domain::kInt: {
        // In int64, or in 128 bits when a side is uint64 (values above INT64_MAX stay large).
        auto compare_to = [&](auto k) {
          using K = decltype(k);
          if (arr.type_id() == TypeId::kBool) {
            DispatchOp(op, [&](auto o) {
              PackBits(n, out, [&](int64_t i) { return Cmp<decltype(o)::value, K>(arr.BoolValue(i), k); });
              return 0;
            });
            return;
          }
          VisitNative(arr, [&](const auto* v) {
            DispatchOp(op, [&](auto o) {
              PackBits(n, out, [&](int64_t i) { return Cmp<decltype(o)::value, K>(static_cast<K>(v[i]), k); });
              return 0;
            });
            return 0;
          });
        };
        if (arr.type_id() == TypeId::kUInt64 || s.type->id() == TypeId::kUInt64) {
          compare_to(WideValue(s));
        } else {
          compare_to(IntValue(s));
        }
        break;
      }
      case Domain::kFloat: {
        const int64_t k = FloatKey(FloatValue(s));
        VisitNative(arr, [&](const auto* v) {
          DispatchOp(op, [&](auto o) {
            PackBits(n, out, [&](int64_t i) {
              return Cmp<decltype(o)::value, int64_t>(FloatKey(static_cast<double>(v[i])), k);
            });
            return 0;
          });
          return 0;
        });
        break;
      }
      case Domain::kString:
        if (arr.type_id() == TypeId::kFixedSizeBinary) {
          // No offsets: each value is byte_width bytes.
          DispatchOp(op, [&](auto o) {
            PackBits(n, out, [&](int64_t i) {
              return Cmp<decltype(o)::value, int>(arr.GetView(i).compare(s.s), 0);
            });
            return 0;
          });
        } else if (arr.type->has_large_offsets()) {
          CompareStringsScalar<int64_t>(op, arr, s.s, n, out);
        } else {
          CompareStringsScalar<int32_t>(op, arr, s.s, n, out);
        }
        break;
      case Domain::kBool:
        DispatchOp(op, [&](auto o) {
          PackBits(n, out, [&](int64_t i) {
            return Cmp<decltype(o)::value, int>(arr.BoolValue(i), s.b);
          });
          return 0;
        });
        break;
      case Domain::kNull:
        break;
    }
  } else {
    const Array& other = *b.array;
    switch (domain) {
      case Domain::kInt:
      case Domain::kBool: {
        auto compare_pairs = [&](const auto& x, const auto& y) {
          using T = typename std::decay_t<decltype(x)>::value_type;
          DispatchOp(op, [&](auto o) {
            PackBits(n, out, [&](int64_t i) {
              return Cmp<decltype(o)::value, T>(x[static_cast<size_t>(i)], y[static_cast<size_t>(i)]);
            });
            return 0;
          });
        };
        if (arr.type_id() == TypeId::kUInt64 || other.type_id() == TypeId::kUInt64) {
          compare_pairs(WideValues(arr), WideValues(other));
        } else {
          compare_pairs(IntValues(arr), IntValues(other));
        }
        break;
      }
      case Domain::kFloat: {
        const std::vector<double> x = FloatValues(arr), y = FloatValues(other);
        DispatchOp(op, [&](auto o) {
          PackBits(n, out, [&](int64_t i) {
            return Cmp<decltype(o)::value, int64_t>(FloatKey(x[static_cast<size_t>(i)]),
                                                    FloatKey(y[static_cast<size_t>(i)]));
          });
          return 0;
        });
        break;
      }
      case Domain::kString:
        DispatchOp(op, [&](auto o) {
          PackBits(n, out, [&](int64_t i) {
            const int r = arr.GetView(i).compare(other.GetView(i));
            return Cmp<decltype(o)::value, int>(r, 0);
          });
          return 0;
        });
        break;
      case Domain::kNull:
        break;
    }
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, MergeValidity(a, b, n));
  return BoolArray(n, values, validity);
}

Result<Datum> ArithmeticKernel(Op op, Domain domain, const Datum& a, const Datum& b, int64_t n) {
  const DataTypePtr type = domain == Domain::kFloat ? float64() : int64();
  const bool scalar = !a.is_array() && !b.is_array();
  if (domain == Domain::kNull || (!a.is_array() && !a.scalar.valid) ||
      (!b.is_array() && !b.scalar.valid)) {
    return AllNull(type, n, scalar);
  }
  const int64_t len = scalar ? 1 : n;
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, MergeValidity(a, b, len));
  const uint8_t* valid = validity ? validity->data() : nullptr;
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, AllocateBuffer(len * 8));
  if (domain == Domain::kInt) {
    std::vector<int64_t> xa, xb;
    const int64_t* pa = a.is_array() ? Int64ValuesOf(*a.array, &xa) : nullptr;
    const int64_t* pb = b.is_array() ? Int64ValuesOf(*b.array, &xb) : nullptr;
    const int64_t ka = a.is_array() ? 0 : IntValue(a.scalar);
    const int64_t kb = b.is_array() ? 0 : IntValue(b.scalar);
    int64_t* o = values->mutable_data_as<int64_t>();
    auto run = [&](auto f) -> Status {
      for (int64_t i = 0; i < len; ++i) {
        const uint64_t x = static_cast<uint64_t>(pa ? pa[i] : ka);
        const uint64_t y = static_cast<uint64_t>(pb ? pb[i] : kb);
        o[i] = static_cast<int64_t>(f(x, y));
      }
      return Status::OK();
    };
    switch (op) {
      case Op::kAdd: LANCE_RETURN_NOT_OK(run([](uint64_t x, uint64_t y) { return x + y; })); break;
      case Op::kSub: LANCE_RETURN_NOT_OK(run([](uint64_t x, uint64_t y) { return x - y; })); break;
      case Op::kMul: LANCE_RETURN_NOT_OK(run([](uint64_t x, uint64_t y) { return x * y; })); break;
      default: {
        if (pa && !pb && kb != 0) {
          // A constant divisor: no row can fail, and a multiply replaces the division.
          const SignedDivisor div(kb);
          if (op == Op::kDiv) {
            for (int64_t i = 0; i < len; ++i) o[i] = div.Quotient(pa[i]);
          } else {
            for (int64_t i = 0; i < len; ++i) o[i] = div.Remainder(pa[i]);
          }
          if (valid) {
            for (int64_t i = 0; i < len; ++i) {
              if (!bit_util::GetBit(valid, i)) o[i] = 0;
            }
          }
          break;
        }
        for (int64_t i = 0; i < len; ++i) {
          const int64_t x = pa ? pa[i] : ka;
          const int64_t y = pb ? pb[i] : kb;
          const bool is_valid = valid == nullptr || bit_util::GetBit(valid, i);
          if (!is_valid) {
            o[i] = 0;
            continue;
          }
          if (y == 0) return Status::InvalidArgument("division by zero");
          if (y == -1) {  // avoids INT64_MIN / -1
            o[i] = op == Op::kDiv ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : 0;
            continue;
          }
          o[i] = op == Op::kDiv ? x / y : x % y;
        }
      }
    }
  } else {
    std::vector<double> xa, xb;
    if (a.is_array()) xa = FloatValues(*a.array);
    if (b.is_array()) xb = FloatValues(*b.array);
    const double ka = a.is_array() ? 0 : FloatValue(a.scalar);
    const double kb = b.is_array() ? 0 : FloatValue(b.scalar);
    const double* pa = a.is_array() ? xa.data() : nullptr;
    const double* pb = b.is_array() ? xb.data() : nullptr;
    double* o = values->mutable_data_as<double>();
    for (int64_t i = 0; i < len; ++i) {
      const double x = pa ? pa[i] : ka;
      const double y = pb ? pb[i] : kb;
      switch (op) {
        case Op::kAdd: o[i] = x + y; break;
        case Op::kSub: o[i] = x - y; break;
        case Op::kMul: o[i] = x * y; break;
        case Op::kDiv: o[i] = x / y; break;
        default: o[i] = std::fmod(x, y); break;
      }
    }
  }
  ArrayPtr out = Array::Make(type, len, {validity, values});
  Datum d;
  if (scalar) {
    d.scalar = GetScalar(*out, 0);
  } else {
    d.array = out;
  }
  return d;
}

Result<std::optional<Datum>> ModCompareKernel(bool negated, const Datum& x, const Scalar& k,
                                              const Scalar& c, int64_t n) {
  if (!x.is_array() || !k.valid || !c.valid) return std::optional<Datum>();
  const Array& arr = *x.array;
  const TypeId id = arr.type_id();
  if (id == TypeId::kBool || !IsNativeNumeric(id) || id == TypeId::kFloat ||
      id == TypeId::kDouble) {
    return std::optional<Datum>();
  }
  const int64_t kv = IntValue(k), cv = IntValue(c);
  if (kv == 0) return std::optional<Datum>();  // the generic path reports division by zero
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, NewBitmap(n));
  uint8_t* out = values->mutable_data();
  const RemainderEquals test(kv, cv);
  if (test.never()) {
    if (negated) std::memset(out, 0xff, static_cast<size_t>(bit_util::BytesForBits(n)));
  } else {
    auto pack = [&](auto match) {
      VisitNative(arr, [&](const auto* v) {
        if (negated) {
          PackBits(n, out, [&](int64_t i) { return !match(static_cast<int64_t>(v[i])); });
        } else {
          PackBits(n, out, [&](int64_t i) { return match(static_cast<int64_t>(v[i])); });
        }
        return 0;
      });
    };
    if (cv > 0) {
      pack([&](int64_t x) { return test.MatchesPositive(x, cv); });
    } else if (cv < 0) {
      pack([&](int64_t x) { return test.MatchesNegative(x, cv); });
    } else {
      pack([&](int64_t x) { return test.MatchesZero(x); });
    }
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, ValidityOf(arr, n));
  LANCE_ASSIGN_OR_RAISE(Datum d, BoolArray(n, values, validity));
  return std::optional<Datum>(std::move(d));
}

Result<Datum> NegateKernel(Domain domain, const Datum& a, int64_t n) {
  Scalar zero;
  zero.type = domain == Domain::kFloat ? float64() : int64();
  zero.valid = true;
  return ArithmeticKernel(Op::kSub, domain, ScalarDatum(zero), a, n);
}

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

Result<Datum> CallKernel(const std::string& name, const DataTypePtr& type,
                         const std::vector<Datum>& args, int64_t n) {
  bool scalar = true;
  for (const auto& d : args) scalar = scalar && !d.is_array();
  const int64_t len = scalar ? 1 : n;
  auto arg = [&](size_t k, int64_t i) -> Scalar {
    const Datum& d = args[k];
    return d.is_array() ? GetScalar(*d.array, i) : d.scalar;
  };
  LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
  LANCE_RETURN_NOT_OK(builder->Reserve(len));
  for (int64_t i = 0; i < len; ++i) {
    Scalar out;
    out.type = type;
    if (name == "coalesce") {
      for (size_t k = 0; k < args.size() && !out.valid; ++k) {
        Scalar s = arg(k, i);
        if (!s.valid) continue;
        LANCE_ASSIGN_OR_RAISE(out, CastScalar(s, type));
      }
    } else {
      const Scalar x = arg(0, i);
      Scalar y;
      if (args.size() > 1) y = arg(1, i);
      const bool valid = x.valid && (args.size() < 2 || y.valid);
      out.valid = valid;
      if (valid) {
        if (name == "lower" || name == "upper") {
          out.s = x.s;
          for (char& c : out.s) {
            if (name == "lower" && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
            if (name == "upper" && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
          }
        } else if (name == "length") {
          int64_t chars = 0;
          for (char c : x.s) chars += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
          out.i = chars;
        } else if (name == "abs") {
          if (type->id() == TypeId::kDouble) {
            out.d = std::fabs(x.d);
          } else {
            out.i = x.i < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x.i)) : x.i;
          }
        } else if (name == "starts_with") {
          out.b = std::string_view(x.s).substr(0, y.s.size()) == y.s;
        } else if (name == "ends_with") {
          out.b = x.s.size() >= y.s.size() && x.s.compare(x.s.size() - y.s.size(), y.s.size(), y.s) == 0;
        } else {
          return Status::Internal("unknown function {}", name);
        }
      }
    }
    LANCE_RETURN_NOT_OK(AppendScalar(builder.get(), out));
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr result, builder->Finish());
  Datum d;
  if (scalar) {
    d.scalar = GetScalar(*result, 0);
  } else {
    d.array = result;
  }
  return d;
}

}  // namespace lance::expr
