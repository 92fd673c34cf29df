// Expression: parsing plus binding into a bound tree (bound_node.h), its split into
// conjuncts, its evaluation, and the reading of boolean masks (TrueIndices, CountTrue).
#include "lance/expr/expression.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "expr/bound_node.h"
#include "lance/core/bit_util.h"
#include "lance/expr/ast.h"

namespace lance::expr {

Expression::~Expression() = default;

Result<std::shared_ptr<const Expression>> Expression::Make(std::string_view text,
                                                           const SchemaPtr& schema) {
  LANCE_ASSIGN_OR_RAISE(NodePtr ast, Parse(text));
  std::shared_ptr<Expression> e(new Expression());
  e->text_ = std::string(text);
  LANCE_ASSIGN_OR_RAISE(e->root_, Bind(e->text_, schema, *ast, &e->columns_));
  e->type_ = e->root_->type;
  return std::shared_ptr<const Expression>(std::move(e));
}

Result<std::shared_ptr<const Expression>> Expression::MakePredicate(std::string_view text,
                                                                    const SchemaPtr& schema) {
  LANCE_ASSIGN_OR_RAISE(auto e, Make(text, schema));
  const TypeId id = e->type()->id();
  if (id != TypeId::kBool && id != TypeId::kNull) {
    return Status::InvalidArgument("filter \"{}\" is {}, not a boolean condition", text,
                                   e->type()->ToString());
  }
  if (id == TypeId::kNull) {
    auto copy = std::shared_ptr<Expression>(new Expression());
    copy->text_ = e->text_;
    copy->type_ = boolean();
    copy->columns_ = e->columns_;
    copy->root_ = std::make_unique<BoundNode>();
    copy->root_->kind = BoundNode::Kind::kLiteral;
    copy->root_->type = boolean();
    copy->root_->literal.type = boolean();
    return std::shared_ptr<const Expression>(std::move(copy));
  }
  return e;
}

namespace {

// Collects the operands of the top-level AND chain of `n`.
void CollectConjuncts(const Node& n, std::vector<const Node*>* out) {
  if (n.kind == Node::Kind::kBinary && n.op == Op::kAnd) {
    for (const NodePtr& a : n.args) CollectConjuncts(*a, out);
    return;
  }
  out->push_back(&n);
}

// A column (or struct field, or dictionary column read as values) compared with literals by
// equality, IN or IS [NOT] NULL.
bool IsPointTest(const BoundNode& b) {
  auto is_column = [](const BoundNode& x) {
    const BoundNode* y = &x;
    while (y->kind == BoundNode::Kind::kCast && !y->args.empty()) y = y->args[0].get();
    return y->kind == BoundNode::Kind::kColumn || y->kind == BoundNode::Kind::kField;
  };
  switch (b.kind) {
    case BoundNode::Kind::kCompare:
      return b.op == Op::kEq &&
             ((is_column(*b.args[0]) && b.args[1]->kind == BoundNode::Kind::kLiteral) ||
              (is_column(*b.args[1]) && b.args[0]->kind == BoundNode::Kind::kLiteral));
    case BoundNode::Kind::kIn:
      return !b.negated && is_column(*b.args[0]);
    case BoundNode::Kind::kIs:
      return b.is_what == IsWhat::kNull && is_column(*b.args[0]);
    default:
      return false;
  }
}

}  // namespace

Result<std::vector<std::shared_ptr<const Expression>>> Expression::MakeConjuncts(
    std::string_view text, const SchemaPtr& schema) {
  LANCE_ASSIGN_OR_RAISE(NodePtr ast, Parse(text));
  std::vector<const Node*> parts;
  CollectConjuncts(*ast, &parts);
  std::vector<std::shared_ptr<const Expression>> points, others;
  for (const Node* part : parts) {
    std::shared_ptr<Expression> e(new Expression());
    e->text_ = std::string(text);
    if (parts.size() > 1) {
      e->part_ = ToString(*part);
      if (e->part_.size() >= 2 && e->part_.front() == '(' && e->part_.back() == ')') {
        e->part_ = e->part_.substr(1, e->part_.size() - 2);
      }
    }
    LANCE_ASSIGN_OR_RAISE(e->root_, Bind(e->text_, schema, *part, &e->columns_));
    const TypeId id = e->root_->type->id();
    if (id != TypeId::kBool && id != TypeId::kNull) {
      return Status::InvalidArgument("filter \"{}\": the condition at position {} is {}, not "
                                     "boolean", text, part->pos, e->root_->type->ToString());
    }
    if (id == TypeId::kNull) {
      // NULL as a condition: never TRUE (a boolean null literal).
      e->root_ = std::make_unique<BoundNode>();
      e->root_->kind = BoundNode::Kind::kLiteral;
      e->root_->type = boolean();
      e->root_->literal.type = boolean();
    }
    e->type_ = boolean();
    (IsPointTest(*e->root_) ? points : others).push_back(std::move(e));
  }
  for (auto& e : others) points.push_back(std::move(e));
  return points;
}

Result<ArrayPtr> Expression::Evaluate(const RecordBatch& batch) const {
  LANCE_ASSIGN_OR_RAISE(Datum d, expr::Evaluate(*root_, batch));
  if (d.is_array()) return d.array;
  d.scalar.type = type_;
  return MakeArrayFromScalar(d.scalar, batch.num_rows());
}

std::vector<int64_t> TrueIndices(const Array& mask) {
  std::vector<int64_t> out;
  if (mask.type_id() != TypeId::kBool) return out;
  const uint8_t* values = mask.buffers[1]->data();
  const uint8_t* valid = mask.null_count > 0 ? mask.validity() : nullptr;
  const int64_t off = mask.offset;
  if (off % 8 == 0) {
    // 64 rows per word: a selective filter's words are mostly zero and skipped at once.
    const uint8_t* v = values + off / 8;
    const uint8_t* w = valid ? valid + off / 8 : nullptr;
    if (!w) out.reserve(static_cast<size_t>(bit_util::CountSetBits(values, off, mask.length)));
    const int64_t words = mask.length / 64;
    for (int64_t k = 0; k < words; ++k) {
      uint64_t word;
      std::memcpy(&word, v + k * 8, 8);
      if (w) {
        uint64_t vw;
        std::memcpy(&vw, w + k * 8, 8);
        word &= vw;
      }
      while (word) {
        out.push_back(k * 64 + std::countr_zero(word));
        word &= word - 1;
      }
    }
    for (int64_t i = words * 64; i < mask.length; ++i) {
      if (mask.IsValid(i) && mask.BoolValue(i)) out.push_back(i);
    }
    return out;
  }
  for (int64_t i = 0; i < mask.length; ++i) {
    if (mask.IsValid(i) && mask.BoolValue(i)) out.push_back(i);
  }
  return out;
}

int64_t CountTrue(const Array& mask) {
  if (mask.type_id() != TypeId::kBool) return 0;
  if (mask.null_count == 0 || !mask.validity()) {
    return bit_util::CountSetBits(mask.buffers[1]->data(), mask.offset, mask.length);
  }
  return static_cast<int64_t>(TrueIndices(mask).size());
}

}  // namespace lance::expr
