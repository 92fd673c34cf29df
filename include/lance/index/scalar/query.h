// What a scalar index is asked, and what it answers.
//
// A planner hands one conjunct on the indexed column (already bound to the column: operands
// are literals) to the index that is keyed on that column and gets back the row ids that
// satisfy it, either exactly or as a superset that the planner must recheck:
//
//   ScalarQuery     =, <, <=, >, >=, BETWEEN, IN (...), IS NULL, IS NOT NULL, LIKE 'prefix%'
//                   (BTREE, BITMAP exactly; ZONEMAP, BLOOMFILTER as supersets)
//   LabelListQuery  array_has_any / array_has_all / array_contains on list<T> (LABEL_LIST)
//   TextQuery       contains(col, 'x') / LIKE '%x%' (NGRAM, a superset; FM, exact for contains)
//
// SQL three-valued logic: `rows` are the rows where the predicate is TRUE; `null_rows` the
// rows where it is NULL (the column, or a label list, is null), so that NOT p = (covered rows)
// - rows - null_rows. Rows of fragments the index does not cover never appear.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "lance/index/row_set.h"
#include "lance/index/scalar/value.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::index::scalar {

struct RangeBound {
  ScalarValue value;
  bool inclusive = true;
};

struct ScalarQuery {
  enum class Op { kEquals, kRange, kIn, kIsNull, kIsNotNull, kPrefix };
  Op op = Op::kEquals;
  ScalarValue value;                // kEquals (a null value matches nothing), kPrefix (bytes)
  std::optional<RangeBound> lower;  // kRange; absent = unbounded
  std::optional<RangeBound> upper;
  std::vector<ScalarValue> values;  // kIn (null entries match nothing)

  static ScalarQuery Equals(ScalarValue v);
  static ScalarQuery LessThan(ScalarValue v);
  static ScalarQuery LessEq(ScalarValue v);
  static ScalarQuery GreaterThan(ScalarValue v);
  static ScalarQuery GreaterEq(ScalarValue v);
  // lo <= x <= hi (SQL BETWEEN); a lower bound above the upper one matches nothing.
  static ScalarQuery Between(ScalarValue lo, ScalarValue hi);
  static ScalarQuery Range(std::optional<RangeBound> lo, std::optional<RangeBound> hi);
  static ScalarQuery In(std::vector<ScalarValue> values);
  static ScalarQuery IsNull();
  static ScalarQuery IsNotNull();
  // LIKE 'prefix%' on strings / binary (byte prefix).
  static ScalarQuery StartsWith(std::string prefix);

  // Whether `v` satisfies the query (TRUE; NULL and FALSE are both false) -- the brute-force
  // meaning the indexes implement, for tests and rechecks.
  bool Matches(const ScalarValue& v) const;
  // "x = 5", "x IN (1, 2)", "x >= 3 AND x < 7", ... with `column` for x.
  std::string ToString(std::string_view column = "x") const;
};

struct LabelListQuery {
  enum class Op { kHasAny, kHasAll };
  Op op = Op::kHasAny;
  std::vector<ScalarValue> labels;

  static LabelListQuery HasAny(std::vector<ScalarValue> labels);
  static LabelListQuery HasAll(std::vector<ScalarValue> labels);
  // array_contains(col, v) = array_has_any(col, [v]).
  static LabelListQuery Contains(ScalarValue label);
  // Brute force over one list: `list` null -> NULL (nullopt); null items never match.
  std::optional<bool> Matches(const std::optional<std::vector<ScalarValue>>& list) const;
  std::string ToString(std::string_view column = "x") const;
};

struct TextQuery {
  std::string substring;  // contains(col, substring), LIKE '%substring%'
  bool recheck = false;   // the planner rechecks the rows (LIKE: the sanitized needle is looser)
  // NOT contains(...): answered by the catalog as every row of the covered fragments but the
  // matches -- null rows kept, as lance 12 answers it from an FM index.
  bool negated = false;
  // "contains(x, Utf8(\"abc\"))", as lance 12 prints the query.
  std::string ToString(std::string_view column = "x") const;
};

using IndexQuery = std::variant<ScalarQuery, LabelListQuery, TextQuery>;

struct SearchResult {
  RowSet rows;       // predicate TRUE (exact) or possibly TRUE (!exact)
  RowSet null_rows;  // predicate NULL (exact results only; empty when !exact)
  bool exact = true;
};

struct SearchOptions {
  // Only rows of these fragments are wanted (ascending); nullopt = every covered fragment.
  // Indexes that can skip work for other fragments do (zone maps); the rest filter.
  std::optional<std::vector<uint32_t>> fragments;
  // Where an index may fan its work out (the query's pool); null = on the caller only.
  ThreadPool* pool = nullptr;
};

}  // namespace lance::index::scalar
