// Division, remainder and divisibility of 64-bit integers by a divisor fixed for a whole
// column, as multiplications (a hardware 64-bit division costs tens of cycles per row and
// does not pipeline; a multiply-high costs a few).
//
// SignedDivisor follows SQL / C++ truncating division, the generic kernels' semantics:
// x / k rounds toward zero, x % k has the sign of x, and INT64_MIN / -1 wraps to INT64_MIN
// (the int64 arithmetic wraps). k must not be 0 (the kernels report division by zero first).
#pragma once

#include <bit>
#include <cstdint>

namespace lance::expr {

// n / d for every 64-bit unsigned n and one d >= 1: with l = ceil(log2 d),
// m = floor(2^64 * (2^l - d) / d) + 1 and t = (m * n) >> 64, the quotient is
// (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0) (Granlund and Montgomery, "Division by
// invariant integers using multiplication", 1994, section 4).
class UnsignedDivisor {
 public:
  explicit UnsignedDivisor(uint64_t d) : d_(d) {
    const int l = d == 1 ? 0 : 64 - std::countl_zero(d - 1);
    const uint64_t two_l_minus_d = (l == 64 ? 0 : uint64_t{1} << l) - d;  // mod 2^64
    magic_ = static_cast<uint64_t>((static_cast<unsigned __int128>(two_l_minus_d) << 64) / d) + 1;
    shift1_ = l < 1 ? l : 1;
    shift2_ = l > 1 ? l - 1 : 0;
  }
  uint64_t divisor() const { return d_; }
  uint64_t Quotient(uint64_t n) const {
    const uint64_t t = static_cast<uint64_t>((static_cast<unsigned __int128>(magic_) * n) >> 64);
    return (t + ((n - t) >> shift1_)) >> shift2_;
  }
  uint64_t Remainder(uint64_t n) const { return n - Quotient(n) * d_; }

 private:
  uint64_t d_;
  uint64_t magic_ = 0;
  int shift1_ = 0;
  int shift2_ = 0;
};

// Truncating signed division by k != 0, through the unsigned divisor |k| on |x|.
class SignedDivisor {
 public:
  explicit SignedDivisor(int64_t k)
      : k_sign_(k < 0 ? ~uint64_t{0} : 0), abs_(Abs(k)) {}
  int64_t Quotient(int64_t x) const {
    const uint64_t sign = Sign(x);
    const uint64_t q = abs_.Quotient(Abs(x));
    const uint64_t s = sign ^ k_sign_;  // all ones when the signs differ
    return static_cast<int64_t>((q ^ s) - s);
  }
  int64_t Remainder(int64_t x) const {
    const uint64_t sign = Sign(x);
    const uint64_t r = abs_.Remainder(Abs(x));
    return static_cast<int64_t>((r ^ sign) - sign);
  }

  // |x| as uint64 (2^63 for INT64_MIN) and the sign mask of x (all ones when negative).
  static uint64_t Sign(int64_t x) { return static_cast<uint64_t>(x >> 63); }
  static uint64_t Abs(int64_t x) {
    const uint64_t s = Sign(x);
    return (static_cast<uint64_t>(x) ^ s) - s;
  }

 private:
  uint64_t k_sign_;
  UnsignedDivisor abs_;
};

// Whether d divides n, for every 64-bit unsigned n and one d >= 1, without dividing: with
// d = o * 2^s (o odd) and o' the inverse of o modulo 2^64, d divides n exactly when
// (n * o' mod 2^64) rotated right by s is at most floor((2^64 - 1) / d) (Hacker's Delight,
// section 10-17: multiplying by o' maps the multiples of o onto [0, (2^64 - 1) / o]).
class DivisibilityTest {
 public:
  explicit DivisibilityTest(uint64_t d)
      : shift_(std::countr_zero(d)), limit_(~uint64_t{0} / d),
        limit32_(d <= 0xffffffffu ? 0xffffffffu / static_cast<uint32_t>(d) : 0) {
    const uint64_t odd = d >> shift_;
    uint64_t inv = odd;  // right to 3 bits (odd * odd = 1 mod 8); each step doubles them
    for (int i = 0; i < 5; ++i) inv *= 2 - odd * inv;
    inverse_ = inv;
  }
  bool Divides(uint64_t n) const { return std::rotr(n * inverse_, shift_) <= limit_; }
  // The constants of Divides, for vector kernels.
  int shift() const { return shift_; }
  uint64_t limit() const { return limit_; }
  uint64_t inverse() const { return inverse_; }
  // The same test on 32-bit words, for n < 2^32 and d < 2^32 (fits32()): d divides n exactly
  // when rotr32(n * (inverse() mod 2^32), shift()) <= limit32() -- the inverse of the odd part
  // modulo 2^32 is the low half of the one modulo 2^64.
  bool fits32() const { return limit32_ != 0; }
  uint32_t limit32() const { return limit32_; }
  bool Divides32(uint32_t n) const {
    return std::rotr(n * static_cast<uint32_t>(inverse_), shift_) <= limit32_;
  }

 private:
  int shift_;
  uint64_t limit_;
  uint32_t limit32_;
  uint64_t inverse_ = 0;
};

// Whether x % k == c (SQL truncating remainder) for constant k != 0 and c, for every int64 x:
// the remainder has the sign of x and magnitude |x| mod |k|, so it equals c exactly when
// |x| >= |c|, |k| divides |x| - |c|, and x is not negative if c > 0, negative if c < 0.
class RemainderEquals {
 public:
  RemainderEquals(int64_t k, int64_t c)
      : abs_c_(SignedDivisor::Abs(c)),
        any_sign_(c == 0),
        want_sign_(SignedDivisor::Sign(c)),
        never_(abs_c_ >= SignedDivisor::Abs(k)),
        test_(SignedDivisor::Abs(k)) {}
  // No x matches (|c| >= |k|).
  bool never() const { return never_; }
  bool Matches(int64_t x) const {
    const uint64_t ax = SignedDivisor::Abs(x);
    const bool sign_ok = any_sign_ || SignedDivisor::Sign(x) == want_sign_;
    return sign_ok & (ax >= abs_c_) & test_.Divides(ax - abs_c_);
  }
  // Matches() for one sign of c, with fewer operations per row: c > 0 needs x >= c and
  // |k| | x - c; c < 0 needs x <= c and |k| | c - x; c = 0 needs |k| | |x|.
  bool MatchesPositive(int64_t x, int64_t c) const {
    return (x >= c) & test_.Divides(static_cast<uint64_t>(x) - static_cast<uint64_t>(c));
  }
  bool MatchesNegative(int64_t x, int64_t c) const {
    return (x <= c) & test_.Divides(static_cast<uint64_t>(c) - static_cast<uint64_t>(x));
  }
  bool MatchesZero(int64_t x) const { return test_.Divides(SignedDivisor::Abs(x)); }
  const DivisibilityTest& test() const { return test_; }

 private:
  uint64_t abs_c_;
  bool any_sign_;
  uint64_t want_sign_;
  bool never_;
  DivisibilityTest test_;
};

}  // namespace lance::expr
