// Vectorized kernels of the expression evaluator. Each takes whole arrays (or a scalar
// standing for every row) and loops over native values; the binder has already coerced the
// operands so that a kernel only sees the types its domain allows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "expr/datum.h"
#include "lance/expr/ast.h"

namespace lance::expr {

// How two operands are compared or combined.
enum class Domain : uint8_t {
  kNull,    // one side is the NULL literal: every result is null
  kInt,     // integers, dates, times, timestamps of equal type: compared as int64
  kFloat,   // any number with a float: compared by IEEE total order as double
  kString,  // utf8/binary of any offset width: byte-wise
  kBool,
};

// Comparison of a and b (length n when both are scalars is 1). Result: boolean.
Result<Datum> CompareKernel(Op op, Domain domain, const Datum& a, const Datum& b, int64_t n);
// + - * / % in kInt (int64, wrapping; division by zero is an error) or kFloat (double).
Result<Datum> ArithmeticKernel(Op op, Domain domain, const Datum& a, const Datum& b, int64_t n);
Result<Datum> NegateKernel(Domain domain, const Datum& a, int64_t n);
// `x % k = c` (`<>` when negated) for an integer array x and integer literals k, c in one pass:
// the same result as ArithmeticKernel(kMod) then CompareKernel(kEq / kNe) in kInt, without the
// int64 remainders. nullopt when it does not apply (x is not an integer array, k or c is
// null, k is 0: the generic path reports the division by zero or the nulls).
Result<std::optional<Datum>> ModCompareKernel(bool negated, const Datum& x, const Scalar& k,
                                              const Scalar& c, int64_t n);

// Three-valued AND/OR over boolean (or null-typed) operands; NOT.
Result<Datum> LogicKernel(Op op, const Datum& a, const Datum& b, int64_t n);
Result<Datum> NotKernel(const Datum& a, int64_t n);
// IS [NOT] NULL / TRUE / FALSE: never null.
enum class IsWhat : uint8_t { kNull, kTrue, kFalse };
Result<Datum> IsKernel(IsWhat what, bool negated, const Datum& a, int64_t n);

// The literal list of `x IN (...)`, in x's domain.
struct InSet {
  Domain domain = Domain::kInt;
  std::vector<int64_t> keys;          // kInt: values; kFloat: total-order keys; kBool: 0/1
  std::vector<std::string> strings;   // kString
  bool has_null = false;
  void Finish();                      // sorts and dedups
};
Result<Datum> InKernel(const InSet& set, bool negated, const Datum& a, int64_t n);

// array_has_any (all = false) / array_has_all (all = true) of each list of `a` (list,
// large_list or fixed_size_list of strings, numbers or booleans) over the needles of `set`
// (its domain the items'; has_null: a null item matches): NULL where the list is null.
Result<Datum> ListHasKernel(const InSet& set, bool all, const Datum& a, int64_t n);

// A compiled LIKE pattern: % any run, _ one character (UTF-8), \ escapes the next character.
class LikeMatcher {
 public:
  static Result<LikeMatcher> Compile(const std::string& pattern, bool case_insensitive);
  bool Match(std::string_view s) const;

 private:
  enum class Shape : uint8_t { kExact, kPrefix, kSuffix, kContains, kGeneral };
  Shape shape_ = Shape::kGeneral;
  bool case_insensitive_ = false;
  std::string literal_;  // kExact/kPrefix/kSuffix/kContains: the fixed text
  // kGeneral: pattern as tokens; literal bytes, or kAny (%), kOne (_).
  std::vector<int> tokens_;
};
Result<Datum> LikeKernel(const LikeMatcher& m, bool negated, const Datum& a, int64_t n);

// Scalar functions: lower, upper, length, abs, starts_with, ends_with, coalesce.
Result<Datum> CallKernel(const std::string& name, const DataTypePtr& type,
                         const std::vector<Datum>& args, int64_t n);

// An int64 whose order is the float order lance 12 filters use: IEEE total order (NaN equals
// NaN and sorts above +inf) except that -0.0 equals 0.0 (adding +0.0 turns -0.0 into 0.0).
inline int64_t FloatKey(double d) {
  d += 0.0;
  int64_t b;
  std::memcpy(&b, &d, sizeof(b));
  return b ^ static_cast<int64_t>(static_cast<uint64_t>(b >> 63) >> 1);
}

}  // namespace lance::expr
