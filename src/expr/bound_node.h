// The bound form of an expression: the tree Expression holds after binding (names resolved to
// columns, types checked, literals coerced), with the two steps that work on it -- binding a
// parse tree (binder.cc) and evaluating a bound tree on a batch (evaluator.cc). Internal to
// the expr layer.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "expr/datum.h"
#include "expr/kernels.h"
#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/expr/ast.h"

namespace lance::expr {

struct BoundNode {
  BoundNode() = default;
  BoundNode(const BoundNode&) = delete;
  BoundNode& operator=(const BoundNode&) = delete;
  ~BoundNode();  // frees the subtree without recursion (evaluator.cc)

  enum class Kind : uint8_t {
    kLiteral, kColumn, kField, kCompare, kLogic, kNot, kNeg, kArith, kIn, kIs, kLike, kCast, kCall,
    kListHas
  };  // kLogic: n-ary AND / OR (args.size() >= 2); kArith: binary, chains left-deep;
      // kListHas: array_has_any / array_has_all (name) of args[0], a list, over in_set
  Kind kind = Kind::kLiteral;
  DataTypePtr type;
  Op op = Op::kEq;
  Domain domain = Domain::kInt;
  bool negated = false;
  IsWhat is_what = IsWhat::kNull;
  Scalar literal;
  std::string name;  // column: top-level name; call: function
  int field_index = -1;
  InSet in_set;
  LikeMatcher like;
  std::vector<std::unique_ptr<BoundNode>> args;
};

using BoundPtr = std::unique_ptr<BoundNode>;

// Binds `n` (parsed from `text`, which error messages quote) against `schema`; appends the
// top-level columns it reads to *columns. Errors: InvalidArgument naming the position.
Result<BoundPtr> Bind(std::string_view text, const SchemaPtr& schema, const Node& n,
                      std::vector<std::string>* columns);

// Evaluates a bound tree on `batch` (a scalar when it reads no column).
Result<Datum> Evaluate(const BoundNode& b, const RecordBatch& batch);

}  // namespace lance::expr
