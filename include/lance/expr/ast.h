// The parse tree of a filter or value expression, and the parser that builds it.
//
// The language is the common subset of SQL that lance 12 (DataFusion) filters accept:
// comparisons, AND/OR/NOT, IN, BETWEEN, IS [NOT] NULL/TRUE/FALSE, [NOT] LIKE/ILIKE,
// arithmetic, unary minus, CAST(x AS type), literals (integers, decimals, floats, 'strings'
// with '' as the quote escape, TRUE/FALSE/NULL, DATE '...', TIMESTAMP '...'), column names
// (as written, or quoted with `backquotes` or "double quotes") with a.b.c for struct fields,
// and a few functions (lower, upper, length, abs, coalesce, starts_with, ends_with).
// Keywords are case-insensitive; column names are not.
//
// Nodes are plain values owned through unique_ptr; every node records the byte position in
// the source text where it starts, so later errors (unknown column, type mismatch) can point
// at it. A parsed tree is immutable and safe to read from many threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/type.h"
#include "lance/core/result.h"

namespace lance::expr {

enum class Op : uint8_t {
  kEq, kNe, kLt, kLe, kGt, kGe,  // comparisons
  kAnd, kOr, kNot,               // logic (SQL three-valued)
  kNeg,                          // unary minus
  kAdd, kSub, kMul, kDiv, kMod,  // arithmetic
};
std::string_view OpName(Op op);  // "=", "AND", "-", ...
bool IsArithmetic(Op op);        // + - * / %
// The comparison that holds with its operands swapped (a < b  <=>  b > a); other ops as given.
Op Flip(Op op);

struct Literal {
  enum class Kind : uint8_t { kNull, kBool, kInt, kFloat, kString, kDate, kTimestamp, kBinary };
  Kind kind = Kind::kNull;
  bool bool_value = false;
  int64_t int_value = 0;     // kInt; kDate: days since 1970-01-01; kTimestamp: ns since epoch
  double float_value = 0;    // kFloat
  std::string text;          // kString; kBinary: the bytes; kFloat: the digits as written
};

struct Node;
using NodePtr = std::unique_ptr<Node>;

struct Node {
  Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  // Frees the subtree without recursion, so that a tree of any depth can be destroyed.
  ~Node();

  enum class Kind : uint8_t {
    kLiteral,   // literal
    kColumn,    // path: {"a"} or {"a", "b", "c"} for a.b.c
    kUnary,     // op (kNot, kNeg), args[0]
    kBinary,    // op, args[0], args[1]; AND / OR chains are one n-ary node (args.size() >= 2)
    kIn,        // args[0] IN (args[1..]); negated = NOT IN
    kBetween,   // args[0] BETWEEN args[1] AND args[2]; negated = NOT BETWEEN
    kIsNull,    // args[0] IS NULL; negated = IS NOT NULL
    kIsTrue,    // args[0] IS TRUE; negated = IS NOT TRUE
    kIsFalse,   // args[0] IS FALSE; negated = IS NOT FALSE
    kLike,      // args[0] LIKE args[1]; negated = NOT LIKE; case_insensitive = ILIKE
    kCast,      // CAST(args[0] AS cast_type)
    kCall,      // name(args...), name lower-cased
  };
  Kind kind = Kind::kLiteral;
  int64_t pos = 0;  // byte offset in the source text
  Op op = Op::kEq;
  bool negated = false;
  bool case_insensitive = false;
  Literal literal;
  std::vector<std::string> path;
  DataTypePtr cast_type;
  std::string name;
  std::vector<NodePtr> args;
};

// How deeply `Parse` lets parentheses, IN lists, function arguments, CAST, NOT and unary minus
// nest. Chains of one operator (`a OR b OR ...`, `a + b + ...`) do not nest and are not
// limited. (lance 12's SQL parser refuses ~50 nested parentheses with "recursion limit
// exceeded".)
inline constexpr int kMaxNestingDepth = 256;

// Parses `text`. A chain of AND (or of OR) becomes one n-ary node; a chain of + - (or of
// * / %) a left-deep tree, walked without recursion by everything that reads it. Errors: InvalidArgument naming the position and what was expected, e.g.
// `syntax error at position 6 in filter "a > = 3": expected an expression, found '='`;
// nesting beyond kMaxNestingDepth is InvalidArgument "... nested more than 256 levels deep".
Result<NodePtr> Parse(std::string_view text);

// A fully parenthesized rendering, e.g. `((a > 1) AND (NOT (b IS NULL)))`; for tests and
// error messages.
std::string ToString(const Node& node);

}  // namespace lance::expr
