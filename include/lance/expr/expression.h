// Expression: a parsed filter or value expression bound to a schema, evaluated a batch at a
// time.
//
// Make() parses the text and binds it: every column name is resolved against the schema
// (exact name first, then a unique case-insensitive match), types are checked and literals
// are coerced to the type they meet (`d > '2024-01-01'` on a date column compares dates).
// Evaluate() runs vectorized kernels over whole arrays: a column compared with a literal is
// one tight loop over the column's native values, string equality compares views in place.
//
// Semantics follow SQL (and lance 12's DataFusion filters) for the common cases: NULL
// propagates through comparisons and arithmetic, AND/OR/NOT are three-valued, a filter keeps
// only rows where it is TRUE. Floats compare as lance 12's filters do (checked by the interop
// test): NaN equals NaN and sorts above +inf, and -0.0 equals 0.0. Integer arithmetic is done in int64
// (wrapping), anything with a float or decimal in double; integer division by zero is an
// error. Decimal columns compare and compute as double (not exactly as DataFusion's decimal
// arithmetic; equality on values with more than 15 significant digits may differ).
//
// An Expression is immutable after Make() and safe to evaluate from many threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/type.h"
#include "lance/core/result.h"

namespace lance::expr {

struct BoundNode;  // internal

class Expression {
 public:
  // Parses `text` and binds it to `schema`. Errors: InvalidArgument pointing at the position,
  // e.g. `unknown column 'scroe' at position 0 in filter "scroe > 5"; columns are: id, score`,
  // or a type mismatch naming both types.
  static Result<std::shared_ptr<const Expression>> Make(std::string_view text,
                                                        const SchemaPtr& schema);
  // Like Make() and also requires a boolean result (a filter). Errors: InvalidArgument.
  static Result<std::shared_ptr<const Expression>> MakePredicate(std::string_view text,
                                                                 const SchemaPtr& schema);
  // The conjuncts of the predicate `text`: the operands of its top-level AND chain ("a AND
  // (b AND c)" gives a, b, c), each bound on its own; a predicate without a top-level AND is its
  // only conjunct. A row satisfies the predicate exactly when every conjunct is TRUE for it
  // (three-valued AND), so a scan may evaluate them one after the other on the rows still in
  // play. Order: conjuncts that compare a column with literals by =, IN or IS [NOT] NULL first
  // (usually the most selective and cheapest), then the others, each group in text order.
  // Errors: as MakePredicate (each conjunct must be boolean).
  static Result<std::vector<std::shared_ptr<const Expression>>> MakeConjuncts(
      std::string_view text, const SchemaPtr& schema);
  ~Expression();

  const std::string& text() const { return text_; }
  // What this expression evaluates, for plans and messages: text() for Make / MakePredicate;
  // for a conjunct of MakeConjuncts its operand of the AND chain, as expr::ToString prints it
  // without the outer parentheses (text() stays the whole predicate, which errors name).
  const std::string& part() const { return part_.empty() ? text_ : part_; }
  // The result type. Integer arithmetic yields int64, float/decimal arithmetic float64.
  const DataTypePtr& type() const { return type_; }
  // Top-level columns the expression reads, in first-use order (a.b.c reads "a").
  const std::vector<std::string>& columns() const { return columns_; }

  // Evaluates over `batch`, which must hold (at least) columns() by name with the types of
  // the bound schema. Returns an array of type() and batch.num_rows() elements.
  // Errors: InvalidArgument for a missing column or a row-level failure (integer division
  // by zero, a CAST that cannot convert a value).
  Result<ArrayPtr> Evaluate(const RecordBatch& batch) const;

 private:
  Expression() = default;
  std::string text_;
  std::string part_;  // empty: text_
  DataTypePtr type_;
  std::vector<std::string> columns_;
  std::unique_ptr<BoundNode> root_;
};

// Converts `array` to `to` (the CAST rules: numbers, strings, booleans, dates, timestamps,
// decimals). Errors: InvalidArgument for a value that does not convert (overflow, unparsable
// text), NotSupported for an unsupported pair of types.
Result<ArrayPtr> Cast(const ArrayPtr& array, const DataTypePtr& to);

// Positions of the elements of a boolean array that are TRUE (null counts as false).
std::vector<int64_t> TrueIndices(const Array& mask);
int64_t CountTrue(const Array& mask);

}  // namespace lance::expr
