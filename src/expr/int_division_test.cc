// Division by a constant (expr/int_division.h) against the hardware division, and the kernels
// that use it (`x % k`, `x / k`, the fused `x % k = c`) against the generic path, which a
// divisor column takes, on random data with nulls, negative numbers and the int64 extremes.
#include "expr/int_division.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/columnar/json.h"
#include "lance/expr/expression.h"

namespace lance::expr {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::vector<uint64_t> UnsignedDivisors(std::mt19937_64& rng) {
  std::vector<uint64_t> out = {1, 2, 3, 5, 6, 7, 10, 100, 641, 1000, 65535, 65536, 65537,
                               (uint64_t{1} << 32) - 1, uint64_t{1} << 32, (uint64_t{1} << 32) + 1,
                               uint64_t{1} << 62, (uint64_t{1} << 63) - 1, uint64_t{1} << 63,
                               (uint64_t{1} << 63) + 1, ~uint64_t{0} - 1, ~uint64_t{0}};
  for (int i = 0; i < 200; ++i) {
    const uint64_t v = rng() >> (rng() % 64);
    out.push_back(v == 0 ? 1 : v);
  }
  return out;
}

std::vector<uint64_t> UnsignedNumerators(std::mt19937_64& rng, uint64_t d) {
  std::vector<uint64_t> out = {0, 1, d - 1, d, d + 1, 2 * d, 2 * d - 1, ~uint64_t{0},
                               ~uint64_t{0} - 1, uint64_t{1} << 63, (uint64_t{1} << 63) - 1};
  for (int i = 0; i < 300; ++i) out.push_back(rng() >> (rng() % 64));
  for (int i = 0; i < 50; ++i) out.push_back(d * (rng() % 1000));  // multiples (wrapping)
  return out;
}

TEST(IntDivision, UnsignedQuotientAndDivisibilityMatchHardware) {
  std::mt19937_64 rng(7);
  for (uint64_t d : UnsignedDivisors(rng)) {
    const UnsignedDivisor div(d);
    const DivisibilityTest test(d);
    for (uint64_t n : UnsignedNumerators(rng, d)) {
      ASSERT_EQ(div.Quotient(n), n / d) << n << " / " << d;
      ASSERT_EQ(div.Remainder(n), n % d) << n << " % " << d;
      ASSERT_EQ(test.Divides(n), n % d == 0) << n << " % " << d;
    }
  }
}

// SQL semantics: truncation toward zero, the remainder has the dividend's sign, INT64_MIN / -1
// wraps, x % -1 = 0.
int64_t RefQuotient(int64_t x, int64_t k) {
  if (k == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(x));
  return x / k;
}
int64_t RefRemainder(int64_t x, int64_t k) { return k == -1 ? 0 : x % k; }

TEST(IntDivision, SignedQuotientRemainderAndRemainderEquals) {
  std::mt19937_64 rng(11);
  std::vector<int64_t> ks = {1, -1, 2, -2, 3, -3, 7, -7, 100, -100, 1024, kMax, kMin, kMin + 1};
  for (int i = 0; i < 100; ++i) {
    const int64_t v = static_cast<int64_t>(rng()) >> (rng() % 64);
    if (v != 0) ks.push_back(v);
  }
  for (int64_t k : ks) {
    const SignedDivisor div(k);
    std::vector<int64_t> xs = {0, 1, -1, k, -k, k + 1, k - 1, kMin, kMax, kMin + 1, kMax - 1};
    for (int i = 0; i < 200; ++i) xs.push_back(static_cast<int64_t>(rng()) >> (rng() % 64));
    for (int i = 0; i < 50; ++i) {
      xs.push_back(static_cast<int64_t>(static_cast<uint64_t>(k) * (rng() % 2001)) - 1000);
    }
    std::vector<int64_t> cs = {0, 1, -1, 7, -7, kMin, kMax};
    for (int i = 0; i < 6; ++i) cs.push_back(RefRemainder(xs[rng() % xs.size()], k));
    for (int64_t x : xs) {
      ASSERT_EQ(div.Quotient(x), RefQuotient(x, k)) << x << " / " << k;
      ASSERT_EQ(div.Remainder(x), RefRemainder(x, k)) << x << " % " << k;
      for (int64_t c : cs) {
        const RemainderEquals eq(k, c);
        const bool want = RefRemainder(x, k) == c;
        ASSERT_EQ(!eq.never() && eq.Matches(x), want) << x << " % " << k << " = " << c;
        if (eq.never()) continue;
        const bool by_sign = c > 0   ? eq.MatchesPositive(x, c)
                             : c < 0 ? eq.MatchesNegative(x, c)
                                     : eq.MatchesZero(x);
        ASSERT_EQ(by_sign, want) << x << " % " << k << " = " << c << " (by sign)";
      }
    }
  }
}

TEST(IntDivision, DivisibilityOn32BitWords) {
  std::mt19937_64 rng(13);
  std::vector<uint64_t> ds = {1, 2, 3, 7, 100, 1024, 4096, 0xffffffffu, 0x80000000u, 0xfffffffeu};
  for (int i = 0; i < 200; ++i) ds.push_back(1 + (rng() >> (32 + rng() % 32)));
  for (uint64_t d : ds) {
    const DivisibilityTest t(d);
    ASSERT_TRUE(t.fits32()) << d;
    std::vector<uint32_t> ns = {0, 1, 0xffffffffu, static_cast<uint32_t>(d),
                                static_cast<uint32_t>(d - 1), static_cast<uint32_t>(d + 1)};
    for (int i = 0; i < 300; ++i) ns.push_back(static_cast<uint32_t>(rng()));
    for (int i = 0; i < 100; ++i) ns.push_back(static_cast<uint32_t>(d * (rng() % (0xffffffffu / d + 1))));
    for (uint32_t n : ns) ASSERT_EQ(t.Divides32(n), n % d == 0) << n << " by " << d;
  }
  EXPECT_FALSE(DivisibilityTest(0x100000000ull).fits32());
  EXPECT_FALSE(DivisibilityTest(~uint64_t{0}).fits32());
}

// A column of `n` random values of type T (a third of them near 0, the extremes included),
// every fifth row null when `nulls`.
template <typename T>
ArrayPtr RandomColumn(const DataTypePtr& type, int64_t n, bool nulls, std::mt19937_64& rng) {
  auto values = AllocateBuffer(n * static_cast<int64_t>(sizeof(T)));
  auto validity = AllocateBuffer(bit_util::BytesForBits(n), true);
  EXPECT_TRUE(values.ok() && validity.ok());
  T* v = (*values)->template mutable_data_as<T>();
  for (int64_t i = 0; i < n; ++i) {
    T x;
    const uint64_t r = rng();
    std::memcpy(&x, &r, sizeof(T));
    if (i % 3 == 0) x = static_cast<T>(static_cast<int64_t>(r % 2001) - 1000);
    if (i == 1) x = std::numeric_limits<T>::min();
    if (i == 2) x = std::numeric_limits<T>::max();
    v[i] = x;
    if (!nulls || i % 5 != 4) bit_util::SetBit((*validity)->mutable_data(), i);
  }
  return Array::Make(type, n, {nulls ? *validity : nullptr, *values});
}

std::string RenderDivision(const Array& a) {
  std::string out;
  for (int64_t i = 0; i < a.length; ++i) {
    EXPECT_TRUE(AppendJsonValue(a, i, &out).ok());
    out += ",";
  }
  return out;
}

std::string EvalText(const std::string& text, const RecordBatch& batch) {
  auto e = Expression::Make(text, batch.schema());
  if (!e.ok()) return "bind error: " + e.status().message();
  auto r = (*e)->Evaluate(batch);
  if (!r.ok()) return "error: " + r.status().message();
  EXPECT_TRUE((*r)->Validate().ok()) << text;
  return RenderDivision(**r);
}

// Columns x (int64, uint64 or int32 values) and k (the divisor repeated: the generic path).
RecordBatchPtr Batch(const ArrayPtr& x, int64_t k, bool k_nulls = false) {
  const int64_t n = x->length;
  auto values = AllocateBuffer(n * 8);
  auto validity = AllocateBuffer(bit_util::BytesForBits(n), true);
  EXPECT_TRUE(values.ok() && validity.ok());
  for (int64_t i = 0; i < n; ++i) {
    (*values)->mutable_data_as<int64_t>()[i] = k;
    if (!k_nulls || i % 7 != 0) bit_util::SetBit((*validity)->mutable_data(), i);
  }
  auto kcol = Array::Make(int64(), n, {k_nulls ? *validity : nullptr, *values});
  auto s = schema({field("x", x->type), field("k", int64())});
  auto b = RecordBatch::Make(s, n, {x, kcol});
  EXPECT_TRUE(b.ok());
  return *b;
}

// A literal for `v` in filter text (INT64_MIN has no positive form to negate).
std::string Lit(int64_t v) {
  if (v == kMin) return "(-9223372036854775807 - 1)";
  return v < 0 ? fmt::format("({})", v) : fmt::format("{}", v);
}

TEST(IntDivisionKernels, ConstantDivisorAgreesWithDivisorColumn) {
  std::mt19937_64 rng(3);
  const int64_t n = 3000;
  const std::vector<ArrayPtr> columns = {
      RandomColumn<int64_t>(int64(), n, true, rng), RandomColumn<int64_t>(int64(), n, false, rng),
      RandomColumn<uint64_t>(uint64(), n, true, rng), RandomColumn<int32_t>(int32(), n, true, rng),
      RandomColumn<int8_t>(int8(), n, false, rng)};
  const std::vector<int64_t> ks = {1, -1, 2, 3, -3, 7, 100, -100, 4096, kMax, kMin};
  for (const auto& x : columns) {
    for (int64_t k : ks) {
      const auto batch = Batch(x, k);
      for (const char* op : {"%", "/"}) {
        const std::string fast = EvalText(fmt::format("x {} {}", op, Lit(k)), *batch);
        ASSERT_EQ(fast, EvalText(fmt::format("x {} k", op), *batch))
            << x->type->ToString() << " " << op << " " << k;
        ASSERT_EQ(fast.find("error"), std::string::npos) << fast;
      }
      std::vector<int64_t> cs = {0, 1, -1, 7, -7, k - 1, kMin, kMax};
      for (int i = 0; i < 3; ++i) {
        const int64_t r = x->type->id() == TypeId::kInt64 ? x->Values<int64_t>()[rng() % n] : 5;
        cs.push_back(RefRemainder(r, k));
      }
      for (int64_t c : cs) {
        for (const char* cmp : {"=", "<>"}) {
          const std::string want = EvalText(fmt::format("x % k {} {}", cmp, Lit(c)), *batch);
          ASSERT_EQ(EvalText(fmt::format("x % {} {} {}", Lit(k), cmp, Lit(c)), *batch), want)
              << x->type->ToString() << " % " << k << " " << cmp << " " << c;
          ASSERT_EQ(EvalText(fmt::format("{} {} x % {}", Lit(c), cmp, Lit(k)), *batch), want)
              << c << " " << cmp << " x % " << k;
        }
      }
    }
  }
}

// `x % k = c` with 0 < c < k < 2^32 takes 32-bit steps while x - c fits in 32 bits, and the
// 64-bit ones for a word of 64 rows with any other value: ids 0..n with one such value planted
// in some words (negative, below c, at 2^32 + c, huge), against the divisor column.
TEST(IntDivisionKernels, RemainderEqualsOnValuesThatFit32Bits) {
  std::mt19937_64 rng(17);
  const int64_t n = 64 * 40 + 37;
  auto values = AllocateBuffer(n * 8);
  ASSERT_TRUE(values.ok());
  int64_t* v = (*values)->mutable_data_as<int64_t>();
  for (int64_t i = 0; i < n; ++i) v[i] = i * 7 + static_cast<int64_t>(rng() % 5);
  const int64_t planted[] = {-1, 0, 2, kMin, kMax, (int64_t{1} << 32) + 3, (int64_t{1} << 32) + 2,
                             (int64_t{1} << 32) - 1, int64_t{1} << 40};
  for (int w = 0; w < 40; w += 3) v[w * 64 + static_cast<int>(rng() % 64)] = planted[w / 3 % 9];
  const auto x = Array::Make(int64(), n, {nullptr, *values});
  for (int64_t k : {int64_t{3}, int64_t{7}, int64_t{64}, int64_t{100}, int64_t{4096},
                    int64_t{0xffffffff}, int64_t{1} << 32, int64_t{-100}}) {
    const auto batch = Batch(x, k);
    for (int64_t c : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{63}, int64_t{99}, int64_t{0xfffffffe}}) {
      for (const char* cmp : {"=", "<>"}) {
        const std::string want = EvalText(fmt::format("x % k {} {}", cmp, Lit(c)), *batch);
        ASSERT_EQ(EvalText(fmt::format("x % {} {} {}", Lit(k), cmp, Lit(c)), *batch), want)
            << "x % " << k << " " << cmp << " " << c;
        // Sliced: the words start elsewhere in the column.
        const auto sliced = Batch(x->Slice(5, n - 5), k);
        ASSERT_EQ(EvalText(fmt::format("x % {} {} {}", Lit(k), cmp, Lit(c)), *sliced),
                  EvalText(fmt::format("x % k {} {}", cmp, Lit(c)), *sliced))
            << "sliced x % " << k << " " << cmp << " " << c;
      }
    }
  }
}

TEST(IntDivisionKernels, ZeroNullAndSlicedOperands) {
  std::mt19937_64 rng(5);
  const auto x = RandomColumn<int64_t>(int64(), 100, true, rng);
  const auto batch = Batch(x, 0);
  // A zero divisor fails as the generic path does, fused with a comparison or not.
  EXPECT_EQ(EvalText("x % 0 = 1", *batch), "error: division by zero");
  EXPECT_EQ(EvalText("x % 0", *batch), "error: division by zero");
  EXPECT_EQ(EvalText("x / 0", *batch), "error: division by zero");
  EXPECT_EQ(EvalText("x % k = 1", *batch), "error: division by zero");
  // ... except over rows that are all null.
  const auto all_null = Batch(x->Slice(4, 1), 0);
  EXPECT_EQ(EvalText("x % 0 = 1", *all_null), "null,");
  EXPECT_EQ(EvalText("x / 0", *all_null), "null,");
  // NULL operands make every row null.
  EXPECT_EQ(EvalText("x % NULL = 1", *all_null), "null,");
  EXPECT_EQ(EvalText("x % 3 = NULL", *Batch(x->Slice(0, 2), 3)), "null,null,");
  // Sliced columns (an offset into the buffers and the validity bitmap).
  for (int64_t off : {1, 3, 8, 13}) {
    const auto sliced = Batch(x->Slice(off, 50), 7);
    EXPECT_EQ(EvalText("x % 7 = 3", *sliced), EvalText("x % k = 3", *sliced)) << off;
    EXPECT_EQ(EvalText("x % 7 <> -3", *sliced), EvalText("x % k <> -3", *sliced)) << off;
    const auto negative = Batch(x->Slice(off, 50), -7);
    EXPECT_EQ(EvalText("x / -7", *negative), EvalText("x / k", *negative)) << off;
    EXPECT_EQ(EvalText("x % -7 = 3", *negative), EvalText("x % k = 3", *negative)) << off;
  }
  // Values checked by hand: signs follow the dividend; INT64_MIN.
  auto b = ReadJsonLines("{\"x\":-7}\n{\"x\":7}\n{\"x\":-9223372036854775808}\n{\"x\":null}\n{\"x\":10}\n",
                         schema({field("x", int64())}));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(EvalText("x % 3", **b), "-1,1,-2,null,1,");
  EXPECT_EQ(EvalText("x % -3", **b), "-1,1,-2,null,1,");
  EXPECT_EQ(EvalText("x / -3", **b), "2,-2,3074457345618258602,null,-3,");
  EXPECT_EQ(EvalText("x / -1", **b), "7,-7,-9223372036854775808,null,-10,");
  EXPECT_EQ(EvalText("x % 3 = -1", **b), "true,false,false,null,false,");
  EXPECT_EQ(EvalText("x % 3 = 1", **b), "false,true,false,null,true,");
  EXPECT_EQ(EvalText("x % 3 <> 1", **b), "true,false,true,null,false,");
  EXPECT_EQ(EvalText("x % 2 = 0", **b), "false,false,true,null,true,");
  EXPECT_EQ(EvalText("x % 3 = 5", **b), "false,false,false,null,false,");
  EXPECT_EQ(EvalText("x % (-9223372036854775807 - 1) = 0", **b), "false,false,true,null,false,");
}

}  // namespace
}  // namespace lance::expr
