// Kernels of comparisons, arithmetic, `x % k = c`, negation and function calls over whole
// arrays (kernels.h); the boolean ones (AND/OR/NOT, IS, IN, LIKE) are in predicate_kernels.cc.
#include "expr/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <fmt/format.h>

#include "expr/cast.h"
#include "expr/int_division.h"
#include "expr/kernel_results.h"
#include "lance/columnar/builder.h"

namespace lance::expr {

namespace {

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

namespace {

#if defined(__x86_64__)
// `x % k = c` for c > 0 over int64 values, 64 rows per output word (words of `full` only), four
// rows per AVX2 step: x >= c and rotr((x - c) * inverse, shift) <= limit (RemainderEquals::
// MatchesPositive), the 64-bit multiply as three 32-bit ones. The scalar loop costs ~19
// instructions per row (no 64-bit vector multiply below AVX-512); this ~5.
__attribute__((target("avx2"))) uint64_t ModEqualsPositiveWordAvx2(const int64_t* p,
                                                                   const DivisibilityTest& t,
                                                                   int64_t c) {
  const __m256i cv = _mm256_set1_epi64x(c);
  const __m256i inv = _mm256_set1_epi64x(static_cast<int64_t>(t.inverse()));
  const __m256i inv_hi = _mm256_srli_epi64(inv, 32);
  const __m128i right = _mm_cvtsi32_si128(t.shift());
  const __m128i left = _mm_cvtsi32_si128(64 - t.shift());  // 64: shifts out everything
  const __m256i sign = _mm256_set1_epi64x(std::numeric_limits<int64_t>::min());
  const __m256i limit = _mm256_xor_si256(_mm256_set1_epi64x(static_cast<int64_t>(t.limit())), sign);
  uint64_t word = 0;
  for (int j = 0; j < 64; j += 4) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + j));
    const __m256i d = _mm256_sub_epi64(x, cv);
    const __m256i lo = _mm256_mul_epu32(d, inv);
    const __m256i mid = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(d, 32), inv),
                                         _mm256_mul_epu32(d, inv_hi));
    const __m256i prod = _mm256_add_epi64(lo, _mm256_slli_epi64(mid, 32));
    const __m256i rot = _mm256_or_si256(_mm256_srl_epi64(prod, right), _mm256_sll_epi64(prod, left));
    const __m256i over = _mm256_cmpgt_epi64(_mm256_xor_si256(rot, sign), limit);  // rot > limit
    const __m256i below = _mm256_cmpgt_epi64(cv, x);                             // x < c
    const int miss = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_or_si256(over, below)));
    word |= static_cast<uint64_t>(~miss & 0xf) << j;
  }
  return word;
}

// The same test for 0 < c < k < 2^32, eight rows per step while x - c fits in 32 bits (ids,
// counters: most columns a modulo filter sees): then x >= c, and k divides d = x - c exactly
// when rotr32(d * inverse mod 2^32, shift) <= floor((2^32 - 1) / k) -- the divisibility test
// on 32-bit words, one 32-bit multiply for eight rows instead of three 64-bit-by-parts for
// four. A word with any x - c outside [0, 2^32) (x < c among them) is done again by the 64-bit
// steps. ~2 instructions per row.
__attribute__((target("avx2"))) void ModEqualsPositive32Avx2(const int64_t* v, int64_t full,
                                                            const DivisibilityTest& t, int64_t c,
                                                            uint64_t flip, uint8_t* out) {
  const __m256i cv = _mm256_set1_epi64x(c);
  const __m256i inv = _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(t.inverse())));
  const __m128i right = _mm_cvtsi32_si128(t.shift());
  const __m128i left = _mm_cvtsi32_si128(32 - t.shift());  // 32: shifts out everything
  const __m256i limit = _mm256_set1_epi32(static_cast<int32_t>(t.limit32()));
  const __m256i high = _mm256_set1_epi64x(static_cast<int64_t>(0xffffffff00000000ull));
  for (int64_t w = 0; w < full; ++w) {
    const int64_t* p = v + w * 64;
    uint64_t word = 0;
    __m256i spill = _mm256_setzero_si256();
    for (int j = 0; j < 64; j += 8) {
      const __m256i d0 = _mm256_sub_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + j)), cv);
      const __m256i d1 = _mm256_sub_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + j + 4)), cv);
      spill = _mm256_or_si256(spill, _mm256_or_si256(d0, d1));
      // The low halves of the eight differences, in row order.
      const __m256i lo = _mm256_permute4x64_epi64(
          _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(d0), _mm256_castsi256_ps(d1),
                                                _MM_SHUFFLE(2, 0, 2, 0))),
          _MM_SHUFFLE(3, 1, 2, 0));
      const __m256i prod = _mm256_mullo_epi32(lo, inv);
      const __m256i rot = _mm256_or_si256(_mm256_srl_epi32(prod, right), _mm256_sll_epi32(prod, left));
      const __m256i hit = _mm256_cmpeq_epi32(_mm256_min_epu32(rot, limit), rot);  // rot <= limit
      word |= static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(hit)))) << j;
    }
    if (!_mm256_testz_si256(spill, high)) word = ModEqualsPositiveWordAvx2(p, t, c);
    word ^= flip;
    std::memcpy(out + w * 8, &word, 8);
  }
}

__attribute__((target("avx2"))) void ModEqualsPositiveAvx2(const int64_t* v, int64_t full,
                                                          const DivisibilityTest& t, int64_t c,
                                                          uint64_t flip, uint8_t* out) {
  for (int64_t w = 0; w < full; ++w) {
    const uint64_t word = ModEqualsPositiveWordAvx2(v + w * 64, t, c) ^ flip;
    std::memcpy(out + w * 8, &word, 8);
  }
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

}  // namespace

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
    // 64 rows per output word, the test's constants held by value (the byte stores of a
    // uint8_t* bitmap would otherwise make the compiler reload them on every row).
    auto pack = [&](auto match) {
      VisitNative(arr, [&, match](const auto* v) {
        const uint64_t flip = negated ? ~uint64_t{0} : 0;
        const int64_t full = n / 64;
        int64_t w = 0;
#if defined(__x86_64__)
        if constexpr (std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(v)>>, int64_t>) {
          if (cv > 0 && HasAvx2()) {
            if (test.test().fits32()) {
              ModEqualsPositive32Avx2(v, full, test.test(), cv, flip, out);
            } else {
              ModEqualsPositiveAvx2(v, full, test.test(), cv, flip, out);
            }
            w = full;
          }
        }
#endif
        for (; w < full; ++w) {
          const auto* p = v + w * 64;
          uint64_t word = 0;
          for (int j = 0; j < 64; ++j) word |= static_cast<uint64_t>(match(static_cast<int64_t>(p[j]))) << j;
          word ^= flip;
          std::memcpy(out + w * 8, &word, 8);
        }
        for (int64_t i = full * 64; i < n; ++i) {
          if (match(static_cast<int64_t>(v[i])) != (negated != 0)) bit_util::SetBit(out, i);
        }
        return 0;
      });
    };
    if (cv > 0) {
      pack([test, cv](int64_t x) { return test.MatchesPositive(x, cv); });
    } else if (cv < 0) {
      pack([test, cv](int64_t x) { return test.MatchesNegative(x, cv); });
    } else {
      pack([test](int64_t x) { return test.MatchesZero(x); });
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
Result<Datum> CallKernel(const std::string& name, const DataTypePtr& type,
                         const std::vector<Datum>& args, int64_t n) {
  bool scalar = true;
  for (const auto& d : args) scalar = scalar && !d.is_array();
  if (name == "contains" && args.size() == 2 && args[0].is_array() && !args[1].is_array() &&
      args[1].scalar.valid && args[0].array->type->is_binary_like()) {
    // contains(column, 'literal'): one search per value over its bytes, no copies.
    const Array& arr = *args[0].array;
    const std::string_view needle = args[1].scalar.s;
    LANCE_ASSIGN_OR_RAISE(BufferPtr values, NewBitmap(n));
    PackBits(n, values->mutable_data(), [&](int64_t i) {
      if (!arr.IsValid(i)) return false;
      const std::string_view v = arr.GetView(i);
      return needle.empty() || memmem(v.data(), v.size(), needle.data(), needle.size()) != nullptr;
    });
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, ValidityOf(arr, n));
    return BoolArray(n, values, validity);
  }
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
        } else if (name == "contains") {
          out.b = x.s.find(y.s) != std::string::npos;
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
