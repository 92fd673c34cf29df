// Binding: names to columns (struct fields by path), operand types unified and literals
// coerced to the type they meet, functions and IN lists checked, constant subtrees folded.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "expr/bound_node.h"
#include "expr/cast.h"
#include "expr/kernels.h"
#include "lance/expr/expression.h"

namespace lance::expr {

namespace {

enum class Cat : uint8_t { kNull, kBool, kInt, kFloat, kDecimal, kString, kBinary, kDate, kTimestamp,
                           kOther };

Cat CategoryOf(const DataType& t) {
  switch (t.id()) {
    case TypeId::kNull: return Cat::kNull;
    case TypeId::kBool: return Cat::kBool;
    case TypeId::kHalfFloat:
    case TypeId::kFloat:
    case TypeId::kDouble: return Cat::kFloat;
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: return Cat::kDecimal;
    case TypeId::kString:
    case TypeId::kLargeString: return Cat::kString;
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary: return Cat::kBinary;
    case TypeId::kDate32:
    case TypeId::kDate64: return Cat::kDate;
    case TypeId::kTimestamp: return Cat::kTimestamp;
    default: return t.is_integer() ? Cat::kInt : Cat::kOther;
  }
}

bool IsNumber(Cat c) { return c == Cat::kInt || c == Cat::kFloat || c == Cat::kDecimal; }

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

class Binder {
 public:
  Binder(std::string_view text, const SchemaPtr& schema) : text_(text), schema_(schema) {}

  std::vector<std::string> columns;

  Result<BoundPtr> Bind(const Node& n) {
    // Parse() bounds nesting and keeps chains flat, so this recursion is shallow; the guard
    // holds for any tree.
    if (depth_ >= kMaxBindDepth) {
      return PosError(n.pos, fmt::format("the expression is nested more than {} levels deep",
                                         kMaxBindDepth));
    }
    ++depth_;
    Result<BoundPtr> out = BindNode(n);
    --depth_;
    return out;
  }

 private:
  static constexpr int kMaxBindDepth = 8 * kMaxNestingDepth;

  Result<BoundPtr> BindNode(const Node& n) {
    switch (n.kind) {
      case Node::Kind::kLiteral: return BindLiteral(n);
      case Node::Kind::kColumn: return BindColumn(n);
      case Node::Kind::kUnary: {
        LANCE_ASSIGN_OR_RAISE(BoundPtr a, Bind(*n.args[0]));
        if (n.op == Op::kNot) {
          LANCE_RETURN_NOT_OK(RequireBool(*a, n, "NOT"));
          return Make(BoundNode::Kind::kNot, boolean(), std::move(a));
        }
        const Cat c = CategoryOf(*a->type);
        if (c == Cat::kNull) return NullLiteral(int64());
        if (!IsNumber(c)) return TypeError(n, fmt::format("unary minus needs a number, found {}",
                                                          a->type->ToString()));
        const Domain d = c == Cat::kInt ? Domain::kInt : Domain::kFloat;
        if (c == Cat::kDecimal || a->type->id() == TypeId::kHalfFloat) {
          LANCE_ASSIGN_OR_RAISE(a, Coerce(std::move(a), float64(), n));
        }
        BoundPtr out = Make(BoundNode::Kind::kNeg, d == Domain::kInt ? int64() : float64(),
                            std::move(a));
        out->domain = d;
        return Fold(std::move(out));
      }
      case Node::Kind::kBinary: {
        if (n.op == Op::kAnd || n.op == Op::kOr) return BindLogic(n);
        if (IsArithmetic(n.op)) return BindArithmeticChain(n);
        LANCE_ASSIGN_OR_RAISE(BoundPtr a, Bind(*n.args[0]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr b, Bind(*n.args[1]));
        return BindCompare(n.op, std::move(a), std::move(b), n);
      }
      case Node::Kind::kBetween: {
        // x BETWEEN lo AND hi == x >= lo AND x <= hi (x bound twice; binding is cheap).
        LANCE_ASSIGN_OR_RAISE(BoundPtr x1, Bind(*n.args[0]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr lo, Bind(*n.args[1]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr ge, BindCompare(Op::kGe, std::move(x1), std::move(lo), n));
        LANCE_ASSIGN_OR_RAISE(BoundPtr x2, Bind(*n.args[0]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr hi, Bind(*n.args[2]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr le, BindCompare(Op::kLe, std::move(x2), std::move(hi), n));
        BoundPtr out = Make(BoundNode::Kind::kLogic, boolean(), std::move(ge), std::move(le));
        out->op = Op::kAnd;
        if (n.negated) out = Make(BoundNode::Kind::kNot, boolean(), std::move(out));
        return Fold(std::move(out));
      }
      case Node::Kind::kIn: return BindIn(n);
      case Node::Kind::kIsNull:
      case Node::Kind::kIsTrue:
      case Node::Kind::kIsFalse: {
        LANCE_ASSIGN_OR_RAISE(BoundPtr a, Bind(*n.args[0]));
        if (n.kind != Node::Kind::kIsNull) {
          LANCE_RETURN_NOT_OK(RequireBool(*a, n, n.kind == Node::Kind::kIsTrue ? "IS TRUE" : "IS FALSE"));
        }
        BoundPtr out = Make(BoundNode::Kind::kIs, boolean(), std::move(a));
        out->negated = n.negated;
        out->is_what = n.kind == Node::Kind::kIsNull ? IsWhat::kNull
                       : n.kind == Node::Kind::kIsTrue ? IsWhat::kTrue : IsWhat::kFalse;
        return Fold(std::move(out));
      }
      case Node::Kind::kLike: {
        LANCE_ASSIGN_OR_RAISE(BoundPtr a, Bind(*n.args[0]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr p, Bind(*n.args[1]));
        const Cat c = CategoryOf(*a->type);
        if (c != Cat::kString && c != Cat::kNull) {
          return TypeError(n, fmt::format("LIKE needs a string, found {}", a->type->ToString()));
        }
        if (p->kind != BoundNode::Kind::kLiteral) {
          return Status::NotSupported("LIKE at position {} in filter \"{}\": the pattern must be a "
                                      "string literal", n.args[1]->pos, text_);
        }
        if (!p->literal.valid || c == Cat::kNull) return NullLiteral(boolean());
        if (CategoryOf(*p->type) != Cat::kString) {
          return TypeError(*n.args[1], fmt::format("a LIKE pattern must be a string, found {}",
                                                   p->type->ToString()));
        }
        BoundPtr out = Make(BoundNode::Kind::kLike, boolean(), std::move(a));
        out->negated = n.negated;
        LANCE_ASSIGN_OR_RAISE(out->like, LikeMatcher::Compile(p->literal.s, n.case_insensitive));
        return Fold(std::move(out));
      }
      case Node::Kind::kCast: {
        LANCE_ASSIGN_OR_RAISE(BoundPtr a, Bind(*n.args[0]));
        return Coerce(std::move(a), n.cast_type, n);
      }
      case Node::Kind::kCall: return BindCall(n);
    }
    return Status::Internal("unknown node kind");
  }

  // An n-ary AND / OR. Under OR, equality tests of one column against literals (`id = 1 OR
  // id = 2 OR ...`, in any order among other operands) become one IN test: one pass over the
  // column instead of one per literal.
  Result<BoundPtr> BindLogic(const Node& n) {
    std::vector<BoundPtr> args;
    args.reserve(n.args.size());
    for (const NodePtr& a : n.args) {
      LANCE_ASSIGN_OR_RAISE(BoundPtr b, Bind(*a));
      LANCE_RETURN_NOT_OK(RequireBool(*b, *a, OpName(n.op)));
      args.push_back(std::move(b));
    }
    if (n.op == Op::kOr) args = EqualitiesToIn(std::move(args));
    if (args.size() == 1) return std::move(args[0]);
    return MakeLogic(n.op, std::move(args));
  }

  Result<BoundPtr> MakeLogic(Op op, std::vector<BoundPtr> args) {
    BoundPtr out = Make(BoundNode::Kind::kLogic, boolean());
    out->op = op;
    out->args = std::move(args);
    return Fold(std::move(out));
  }

  // A column, a struct field, or a cast of one (a dictionary column read as its values): what
  // an equality test can probe with an IN set. Its identity as text, or "" when `b` is not one.
  static std::string ProbeKey(const BoundNode& b) {
    std::string key;
    const BoundNode* x = &b;
    while (true) {
      key += fmt::format("{}:{}:{}:{};", static_cast<int>(x->kind), x->name, x->field_index,
                         x->type->ToString());
      if (x->kind == BoundNode::Kind::kColumn) return key;
      if ((x->kind != BoundNode::Kind::kCast && x->kind != BoundNode::Kind::kField) ||
          x->args.size() != 1) {
        return "";
      }
      x = x->args[0].get();
    }
  }

  // The IN-set key of `lit` in `domain`, or nullopt when the rewrite does not apply.
  static std::optional<int64_t> InKey(const Scalar& lit, Domain domain) {
    if (!lit.valid || !lit.type) return std::nullopt;
    const TypeId id = lit.type->id();
    switch (domain) {
      case Domain::kBool:
        if (id != TypeId::kBool) return std::nullopt;
        return lit.b ? 1 : 0;
      case Domain::kFloat:
        if (id == TypeId::kDouble || id == TypeId::kFloat) return FloatKey(lit.d);
        if (id == TypeId::kInt64) return FloatKey(static_cast<double>(lit.i));
        return std::nullopt;
      case Domain::kInt:
        if (id == TypeId::kUInt64 || id == TypeId::kFloat || id == TypeId::kDouble ||
            !IsNativeNumeric(id)) {
          return std::nullopt;
        }
        return lit.i;
      default:
        return std::nullopt;
    }
  }

  std::vector<BoundPtr> EqualitiesToIn(std::vector<BoundPtr> args) {
    struct Group {
      std::vector<size_t> members;
      InSet set;
    };
    std::vector<std::pair<std::string, Group>> groups;
    std::vector<int> group_of(args.size(), -1);
    for (size_t i = 0; i < args.size(); ++i) {
      const BoundNode& b = *args[i];
      if (b.kind != BoundNode::Kind::kCompare || b.op != Op::kEq || b.args.size() != 2) continue;
      const bool lit_right = b.args[1]->kind == BoundNode::Kind::kLiteral;
      const BoundNode& probe = *b.args[lit_right ? 0 : 1];
      const BoundNode& lit = *b.args[lit_right ? 1 : 0];
      if (lit.kind != BoundNode::Kind::kLiteral) continue;
      const std::string key = fmt::format("{}|{}", static_cast<int>(b.domain), ProbeKey(probe));
      if (key.back() == '|') continue;  // not a column
      std::optional<int64_t> k;
      if (b.domain == Domain::kString) {
        if (!lit.literal.valid) continue;
      } else {
        k = InKey(lit.literal, b.domain);
        if (!k) continue;
      }
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const auto& g) { return g.first == key; });
      if (it == groups.end()) {
        groups.emplace_back(key, Group{});
        it = groups.end() - 1;
        it->second.set.domain = b.domain;
      }
      it->second.members.push_back(i);
      if (k) {
        it->second.set.keys.push_back(*k);
      } else {
        it->second.set.strings.push_back(lit.literal.s);
      }
      group_of[i] = static_cast<int>(it - groups.begin());
    }
    std::vector<BoundPtr> out;
    for (size_t i = 0; i < args.size(); ++i) {
      const int g = group_of[i];
      if (g < 0 || groups[static_cast<size_t>(g)].second.members.size() < 2) {
        out.push_back(std::move(args[i]));
        continue;
      }
      Group& group = groups[static_cast<size_t>(g)].second;
      if (group.members.front() != i) continue;  // folded into the group's first member
      BoundNode& first = *args[i];
      const bool lit_right = first.args[1]->kind == BoundNode::Kind::kLiteral;
      BoundPtr in = Make(BoundNode::Kind::kIn, boolean(), std::move(first.args[lit_right ? 0 : 1]));
      group.set.Finish();
      in->in_set = std::move(group.set);
      out.push_back(std::move(in));
    }
    return out;
  }

  // A left-deep chain `((a + b) - c) * ...` of any length, bound along its left spine in a
  // loop; operands are bound (recursively) one at a time.
  Result<BoundPtr> BindArithmeticChain(const Node& n) {
    std::vector<const Node*> spine;
    const Node* left = &n;
    while (left->kind == Node::Kind::kBinary && IsArithmetic(left->op)) {
      spine.push_back(left);
      left = left->args[0].get();
    }
    LANCE_ASSIGN_OR_RAISE(BoundPtr acc, Bind(*left));
    for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
      LANCE_ASSIGN_OR_RAISE(BoundPtr b, Bind(*(*it)->args[1]));
      LANCE_ASSIGN_OR_RAISE(acc, BindArithmetic((*it)->op, std::move(acc), std::move(b), **it));
    }
    return acc;
  }
  static BoundPtr Make(BoundNode::Kind kind, DataTypePtr type, BoundPtr a = nullptr,
                       BoundPtr b = nullptr) {
    auto out = std::make_unique<BoundNode>();
    out->kind = kind;
    out->type = std::move(type);
    if (a) out->args.push_back(std::move(a));
    if (b) out->args.push_back(std::move(b));
    return out;
  }

  static BoundPtr NullLiteral(DataTypePtr type) {
    auto out = Make(BoundNode::Kind::kLiteral, type);
    out->literal.type = type;
    return out;
  }

  Status PosError(int64_t pos, const std::string& what) const {
    return Status::InvalidArgument("{} at position {} in filter \"{}\"", what, pos, text_);
  }
  Status TypeError(const Node& n, const std::string& what) const { return PosError(n.pos, what); }

  Status RequireBool(const BoundNode& b, const Node& n, std::string_view what) const {
    const Cat c = CategoryOf(*b.type);
    if (c == Cat::kBool || c == Cat::kNull) return Status::OK();
    return PosError(n.pos, fmt::format("{} needs a boolean operand, found {}", what,
                                       b.type->ToString()));
  }

  // Evaluates a node whose operands are all literals into a literal.
  Result<BoundPtr> Fold(BoundPtr b) {
    for (const auto& a : b->args) {
      if (a->kind != BoundNode::Kind::kLiteral) return b;
    }
    RecordBatch empty(::lance::schema({}), 1, {});
    LANCE_ASSIGN_OR_RAISE(Datum d, Evaluate(*b, empty));
    BoundPtr out = Make(BoundNode::Kind::kLiteral, b->type);
    out->literal = d.is_array() ? GetScalar(*d.array, 0) : d.scalar;
    out->literal.type = b->type;
    return out;
  }

  // `b` converted to `type`: literals now (errors point at `n`), columns by a CAST node.
  Result<BoundPtr> Coerce(BoundPtr b, const DataTypePtr& type, const Node& n) {
    if (b->type->Equals(*type)) return b;
    if (b->kind == BoundNode::Kind::kLiteral) {
      auto s = CastScalar(b->literal, type);
      if (!s.ok()) return PosError(n.pos, s.status().message());
      BoundPtr out = Make(BoundNode::Kind::kLiteral, type);
      out->literal = *s;
      return out;
    }
    const Cat from = CategoryOf(*b->type);
    if (from == Cat::kOther) {
      return PosError(n.pos, fmt::format("cannot cast {} to {}", b->type->ToString(), type->ToString()));
    }
    return Make(BoundNode::Kind::kCast, type, std::move(b));
  }

  Result<BoundPtr> BindLiteral(const Node& n) {
    BoundPtr out = Make(BoundNode::Kind::kLiteral, nullptr);
    Scalar& s = out->literal;
    s.valid = true;
    switch (n.literal.kind) {
      case Literal::Kind::kNull: s.type = null(); s.valid = false; break;
      case Literal::Kind::kBool: s.type = boolean(); s.b = n.literal.bool_value; break;
      case Literal::Kind::kInt: s.type = int64(); s.i = n.literal.int_value; break;
      case Literal::Kind::kFloat: s.type = float64(); s.d = n.literal.float_value; break;
      case Literal::Kind::kString: s.type = utf8(); s.s = n.literal.text; break;
      case Literal::Kind::kBinary: s.type = binary(); s.s = n.literal.text; break;
      case Literal::Kind::kDate: s.type = date32(); s.i = n.literal.int_value; break;
      case Literal::Kind::kTimestamp:
        s.type = timestamp(TimeUnit::kNano);
        s.i = n.literal.int_value;
        break;
    }
    out->type = s.type;
    return out;
  }

  static FieldPtr FindField(const std::vector<FieldPtr>& fields, const std::string& name, int* index) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i]->name() == name) {
        *index = static_cast<int>(i);
        return fields[i];
      }
    }
    FieldPtr found;
    const std::string lower = Lower(name);
    for (size_t i = 0; i < fields.size(); ++i) {
      if (Lower(fields[i]->name()) == lower) {
        if (found) return nullptr;  // ambiguous
        found = fields[i];
        *index = static_cast<int>(i);
      }
    }
    return found;
  }

  Result<BoundPtr> BindColumn(const Node& n) {
    int index = -1;
    FieldPtr f = FindField(schema_->fields(), n.path[0], &index);
    if (!f) {
      std::string names;
      for (const auto& field : schema_->fields()) names += (names.empty() ? "" : ", ") + field->name();
      return Status::InvalidArgument("unknown column '{}' at position {} in filter \"{}\"; columns "
                                     "are: {}", n.path[0], n.pos, text_, names);
    }
    if (std::find(columns.begin(), columns.end(), f->name()) == columns.end()) {
      columns.push_back(f->name());
    }
    BoundPtr out = Make(BoundNode::Kind::kColumn, f->type());
    out->name = f->name();
    std::string path = f->name();
    for (size_t k = 1; k < n.path.size(); ++k) {
      if (f->type()->id() != TypeId::kStruct) {
        return Status::InvalidArgument("'{}' at position {} in filter \"{}\" is {}, not a struct, "
                                       "so it has no field '{}'", path, n.pos, text_,
                                       f->type()->ToString(), n.path[k]);
      }
      int child = -1;
      FieldPtr cf = FindField(f->type()->fields(), n.path[k], &child);
      if (!cf) {
        std::string names;
        for (const auto& c : f->type()->fields()) names += (names.empty() ? "" : ", ") + c->name();
        return Status::InvalidArgument("unknown field '{}' of '{}' at position {} in filter \"{}\"; "
                                       "its fields are: {}", n.path[k], path, n.pos, text_, names);
      }
      BoundPtr field = Make(BoundNode::Kind::kField, cf->type(), std::move(out));
      field->field_index = child;
      out = std::move(field);
      f = cf;
      path += "." + cf->name();
    }
    if (f->type()->id() == TypeId::kDictionary) {
      return Make(BoundNode::Kind::kCast, f->type()->dictionary_value_type(), std::move(out));
    }
    return out;
  }

  // Brings a and b to a comparable pair of types; sets *domain.
  Status Unify(BoundPtr* a, BoundPtr* b, const Node& n, Domain* domain, std::string_view what) {
    Cat ca = CategoryOf(*(*a)->type), cb = CategoryOf(*(*b)->type);
    if (ca == Cat::kNull || cb == Cat::kNull) {
      *domain = Domain::kNull;
      return Status::OK();
    }
    // A string literal meets a typed value: read the literal as that type.
    auto literal_string = [](const BoundPtr& x) {
      return x->kind == BoundNode::Kind::kLiteral && CategoryOf(*x->type) == Cat::kString;
    };
    if (literal_string(*b) && ca != Cat::kString && ca != Cat::kBinary && ca != Cat::kOther) {
      const DataTypePtr t = ca == Cat::kInt ? ((*a)->type->id() == TypeId::kUInt64 ? int64() : int64())
                          : ca == Cat::kFloat || ca == Cat::kDecimal ? float64() : (*a)->type;
      LANCE_ASSIGN_OR_RAISE(*b, Coerce(std::move(*b), t, n));
      cb = CategoryOf(*(*b)->type);
    } else if (literal_string(*a) && cb != Cat::kString && cb != Cat::kBinary && cb != Cat::kOther) {
      const DataTypePtr t = cb == Cat::kInt ? int64()
                          : cb == Cat::kFloat || cb == Cat::kDecimal ? float64() : (*b)->type;
      LANCE_ASSIGN_OR_RAISE(*a, Coerce(std::move(*a), t, n));
      ca = CategoryOf(*(*a)->type);
    }
    if ((ca == Cat::kString || ca == Cat::kBinary) && (cb == Cat::kString || cb == Cat::kBinary)) {
      *domain = Domain::kString;
      return Status::OK();
    }
    if (ca == Cat::kBool && cb == Cat::kBool) {
      *domain = Domain::kBool;
      return Status::OK();
    }
    if (IsNumber(ca) && IsNumber(cb)) {
      if (ca == Cat::kInt && cb == Cat::kInt) {
        *domain = Domain::kInt;
        return Status::OK();
      }
      *domain = Domain::kFloat;
      for (BoundPtr* x : {a, b}) {
        const TypeId id = (*x)->type->id();
        if (id == TypeId::kDecimal128 || id == TypeId::kDecimal256 || id == TypeId::kHalfFloat) {
          LANCE_ASSIGN_OR_RAISE(*x, Coerce(std::move(*x), float64(), n));
        }
      }
      return Status::OK();
    }
    if ((ca == Cat::kDate || ca == Cat::kTimestamp) && (cb == Cat::kDate || cb == Cat::kTimestamp)) {
      *domain = Domain::kInt;
      if ((*a)->type->Equals(*(*b)->type)) return Status::OK();
      // A literal that converts exactly to the column's type meets the column in its own
      // unit, so the column is compared without converting every value.
      for (auto [lit, col] : {std::pair{a, b}, std::pair{b, a}}) {
        if ((*lit)->kind != BoundNode::Kind::kLiteral || (*col)->kind == BoundNode::Kind::kLiteral) {
          continue;
        }
        auto there = CastScalar((*lit)->literal, (*col)->type);
        if (!there.ok()) continue;
        auto back = CastScalar(*there, (*lit)->type);
        if (back.ok() && back->i == (*lit)->literal.i) {
          LANCE_ASSIGN_OR_RAISE(*lit, Coerce(std::move(*lit), (*col)->type, n));
          return Status::OK();
        }
      }
      // Different units: both to the timestamp of the finer side (or ns).
      DataTypePtr t = timestamp(TimeUnit::kNano);
      if (ca == Cat::kTimestamp && cb == Cat::kDate) t = timestamp((*a)->type->unit());
      if (cb == Cat::kTimestamp && ca == Cat::kDate) t = timestamp((*b)->type->unit());
      if (ca == Cat::kTimestamp && cb == Cat::kTimestamp) {
        t = timestamp(std::max((*a)->type->unit(), (*b)->type->unit()));
      }
      if (ca == Cat::kDate && cb == Cat::kDate) t = date64();
      // Keep a literal on the side that is cheaper to convert: convert the literal when the
      // other side already has type t.
      for (BoundPtr* x : {a, b}) {
        if (!(*x)->type->Equals(*t)) {
          // Preserve the timezone of a column's type.
          LANCE_ASSIGN_OR_RAISE(*x, Coerce(std::move(*x), t, n));
        }
      }
      return Status::OK();
    }
    // A time32 column meets an integer literal: lance 12 compares the integer in the column's
    // unit (it refuses integers against time64, duration and dates, and so do we).
    for (auto [col, lit] : {std::pair{a, b}, std::pair{b, a}}) {
      if ((*col)->type->id() == TypeId::kTime32 && (*lit)->kind == BoundNode::Kind::kLiteral &&
          CategoryOf(*(*lit)->type) == Cat::kInt) {
        *domain = Domain::kInt;
        return Status::OK();
      }
    }
    if (ca == Cat::kOther && (*a)->type->Equals(*(*b)->type) && IsNativeNumeric((*a)->type->id())) {
      *domain = Domain::kInt;  // time32/time64/duration of one unit
      return Status::OK();
    }
    return PosError(n.pos, fmt::format("cannot {} {} with {}", what, (*a)->type->ToString(),
                                       (*b)->type->ToString()));
  }

  Result<BoundPtr> BindCompare(Op op, BoundPtr a, BoundPtr b, const Node& n) {
    Domain d;
    LANCE_RETURN_NOT_OK(Unify(&a, &b, n, &d, "compare"));
    // Timestamps with different time zones: the same instants, compared as int64.
    BoundPtr out = Make(BoundNode::Kind::kCompare, boolean(), std::move(a), std::move(b));
    out->op = op;
    out->domain = d;
    return Fold(std::move(out));
  }

  Result<BoundPtr> BindArithmetic(Op op, BoundPtr a, BoundPtr b, const Node& n) {
    const Cat ca = CategoryOf(*a->type), cb = CategoryOf(*b->type);
    if ((ca != Cat::kNull && !IsNumber(ca) && !(ca == Cat::kString && a->kind == BoundNode::Kind::kLiteral)) ||
        (cb != Cat::kNull && !IsNumber(cb) && !(cb == Cat::kString && b->kind == BoundNode::Kind::kLiteral)) ||
        (!IsNumber(ca) && !IsNumber(cb) && ca != Cat::kNull && cb != Cat::kNull)) {
      return PosError(n.pos, fmt::format("'{}' needs numbers, found {} and {}", OpName(op),
                                         a->type->ToString(), b->type->ToString()));
    }
    Domain d;
    LANCE_RETURN_NOT_OK(Unify(&a, &b, n, &d, fmt::format("apply '{}' to", OpName(op))));
    if (d == Domain::kNull) {
      const Cat other = ca == Cat::kNull ? cb : ca;
      return NullLiteral(other == Cat::kInt || other == Cat::kNull ? int64() : float64());
    }
    BoundPtr out = Make(BoundNode::Kind::kArith, d == Domain::kInt ? int64() : float64(),
                        std::move(a), std::move(b));
    out->op = op;
    out->domain = d;
    return Fold(std::move(out));
  }

  Result<BoundPtr> BindIn(const Node& n) {
    bool all_literals = true;
    for (size_t i = 1; i < n.args.size(); ++i) {
      LANCE_ASSIGN_OR_RAISE(BoundPtr item, Bind(*n.args[i]));
      all_literals = all_literals && item->kind == BoundNode::Kind::kLiteral;
    }
    LANCE_ASSIGN_OR_RAISE(BoundPtr x, Bind(*n.args[0]));
    if (!all_literals || x->kind == BoundNode::Kind::kLiteral) {
      // x IN (a, b) == x = a OR x = b (the same three-valued result).
      std::vector<BoundPtr> eqs;
      for (size_t i = 1; i < n.args.size(); ++i) {
        LANCE_ASSIGN_OR_RAISE(BoundPtr xi, Bind(*n.args[0]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr item, Bind(*n.args[i]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr eq, BindCompare(Op::kEq, std::move(xi), std::move(item), *n.args[i]));
        eqs.push_back(std::move(eq));
      }
      BoundPtr out;
      if (eqs.size() == 1) {
        out = std::move(eqs[0]);
      } else {
        LANCE_ASSIGN_OR_RAISE(out, MakeLogic(Op::kOr, std::move(eqs)));
      }
      if (n.negated) out = Make(BoundNode::Kind::kNot, boolean(), std::move(out));
      return Fold(std::move(out));
    }
    InSet set;
    set.domain = Domain::kNull;
    const DataTypePtr xtype = x->type;
    // Decide the domain from x and every item (a float item makes an int column compare as float).
    std::vector<BoundPtr> items;
    for (size_t i = 1; i < n.args.size(); ++i) {
      LANCE_ASSIGN_OR_RAISE(BoundPtr probe_x, Bind(*n.args[0]));
      LANCE_ASSIGN_OR_RAISE(BoundPtr item, Bind(*n.args[i]));
      Domain d;
      LANCE_RETURN_NOT_OK(Unify(&probe_x, &item, *n.args[i], &d, "compare"));
      if (d == Domain::kNull) {
        set.has_null = true;
        continue;
      }
      if (set.domain == Domain::kNull || d == Domain::kFloat) set.domain = d;
      if (probe_x->kind != BoundNode::Kind::kColumn && probe_x->kind != BoundNode::Kind::kField &&
          !probe_x->type->Equals(*xtype) && d != Domain::kFloat) {
        // x itself would need converting (e.g. mixed temporal units): use the OR form.
        all_literals = false;
      }
      items.push_back(std::move(item));
    }
    if (CategoryOf(*xtype) == Cat::kNull) set.domain = Domain::kNull;
    if (set.domain == Domain::kFloat) {
      const TypeId id = xtype->id();
      if (id == TypeId::kDecimal128 || id == TypeId::kDecimal256 || id == TypeId::kHalfFloat) {
        LANCE_ASSIGN_OR_RAISE(x, Coerce(std::move(x), float64(), n));
      }
    }
    if (!all_literals) {

      return PosError(n.pos, "IN list items of mixed temporal types are not supported");
    }
    for (const auto& item : items) {
      const Scalar& s = item->literal;
      switch (set.domain) {
        case Domain::kString: set.strings.push_back(s.s); break;
        case Domain::kFloat: {
          const TypeId id = s.type->id();
          const double v = id == TypeId::kDouble || id == TypeId::kFloat ? s.d
                           : id == TypeId::kBool ? s.b : static_cast<double>(s.i);
          set.keys.push_back(FloatKey(v));
          break;
        }
        case Domain::kBool: set.keys.push_back(s.b); break;
        default: set.keys.push_back(s.i); break;
      }
    }
    set.Finish();
    BoundPtr out = Make(BoundNode::Kind::kIn, boolean(), std::move(x));
    out->negated = n.negated;
    out->in_set = std::move(set);
    return out;
  }

  // array_has_any(list, make_array(v, ...)) / array_has_all(...) / array_contains(list, v)
  // (aliases array_has, list_has, list_contains, list_has_any, list_has_all), as lance 12's
  // DataFusion answers them: a null list is NULL; a null needle matches a null item
  // (array_contains(list, NULL) is NULL); array_has_all of no needle is TRUE, array_has_any
  // of none FALSE. Needles are literals of the items' kind (numbers convert between int and
  // float, as DataFusion casts them).
  Result<BoundPtr> BindListHas(const Node& n, const std::string& fn) {
    if (n.args.size() != 2) {
      return PosError(n.pos, fmt::format("{}() takes 2 arguments, found {}", n.name, n.args.size()));
    }
    LANCE_ASSIGN_OR_RAISE(BoundPtr list, Bind(*n.args[0]));
    const TypeId lt = list->type->id();
    if (lt != TypeId::kList && lt != TypeId::kLargeList && lt != TypeId::kFixedSizeList) {
      return PosError(n.args[0]->pos, fmt::format("{}() needs a list column, found {}", n.name, list->type->ToString()));
    }
    const DataTypePtr& item = list->type->value_type();
    const Cat ic = CategoryOf(*item);
    std::vector<const Node*> needles;
    if (fn == "array_contains") {
      needles.push_back(n.args[1].get());
    } else {
      const Node& arr = *n.args[1];
      if (arr.kind != Node::Kind::kCall || (arr.name != "make_array" && arr.name != "make_list")) {
        return PosError(arr.pos, fmt::format("{}() needs make_array(value, ...) as its second argument", n.name));
      }
      for (const auto& a : arr.args) needles.push_back(a.get());
    }
    InSet set;
    switch (ic) {
      case Cat::kString: set.domain = Domain::kString; break;
      case Cat::kBool: set.domain = Domain::kBool; break;
      case Cat::kInt: set.domain = Domain::kInt; break;
      case Cat::kFloat: set.domain = Domain::kFloat; break;
      default:
        return PosError(n.args[0]->pos, fmt::format("{}() on a list of {} is not supported (strings, numbers and "
                                                    "booleans are)",
                                                    n.name, item->ToString()));
    }
    std::vector<Scalar> values;
    for (const Node* a : needles) {
      LANCE_ASSIGN_OR_RAISE(BoundPtr v, Bind(*a));
      if (v->kind != BoundNode::Kind::kLiteral) {
        return PosError(a->pos, fmt::format("{}() compares with literal values only", n.name));
      }
      const Cat vc = CategoryOf(*v->type);
      if (vc == Cat::kNull || !v->literal.valid) {
        set.has_null = true;
        continue;
      }
      const bool numbers = IsNumber(vc) && (ic == Cat::kInt || ic == Cat::kFloat);
      if (vc != ic && !numbers) {
        return PosError(a->pos, fmt::format("{}() compares items of {} with {}", n.name, item->ToString(),
                                            v->type->ToString()));
      }
      if (vc == Cat::kFloat && ic == Cat::kInt) set.domain = Domain::kFloat;  // 5.0 matches 5, 5.5 nothing
      values.push_back(v->literal);
    }
    if (fn == "array_contains" && set.has_null) return NullLiteral(boolean());
    for (const Scalar& v : values) {
      switch (set.domain) {
        case Domain::kString: set.strings.push_back(v.s); break;
        case Domain::kBool: set.keys.push_back(v.b ? 1 : 0); break;
        case Domain::kFloat: {
          const TypeId id = v.type->id();
          set.keys.push_back(FloatKey(id == TypeId::kDouble || id == TypeId::kFloat ? v.d : static_cast<double>(v.i)));
          break;
        }
        default: set.keys.push_back(v.i); break;
      }
    }
    set.Finish();
    const bool all = fn == "array_has_all";
    if (set.keys.empty() && set.strings.empty() && !set.has_null) {
      auto out = Make(BoundNode::Kind::kLiteral, boolean());
      out->literal.type = boolean();
      out->literal.valid = true;
      out->literal.b = all;
      return out;
    }
    BoundPtr out = Make(BoundNode::Kind::kListHas, boolean(), std::move(list));
    out->name = all ? "array_has_all" : "array_has_any";
    out->in_set = std::move(set);
    return out;
  }

  Result<BoundPtr> BindCall(const Node& n) {
    {
      static const std::pair<const char*, const char*> kListFunctions[] = {
          {"array_has_any", "array_has_any"}, {"list_has_any", "array_has_any"},
          {"array_has_all", "array_has_all"}, {"list_has_all", "array_has_all"},
          {"array_contains", "array_contains"}, {"array_has", "array_contains"},
          {"list_has", "array_contains"},     {"list_contains", "array_contains"}};
      for (const auto& [alias, fn] : kListFunctions) {
        if (n.name == alias) return BindListHas(n, fn);
      }
    }
    std::vector<BoundPtr> args;
    for (const auto& a : n.args) {
      LANCE_ASSIGN_OR_RAISE(BoundPtr b, Bind(*a));
      args.push_back(std::move(b));
    }
    auto arity = [&](size_t want) -> Status {
      if (args.size() != want) {
        return PosError(n.pos, fmt::format("{}() takes {} argument{}, found {}", n.name, want,
                                           want == 1 ? "" : "s", args.size()));
      }
      return Status::OK();
    };
    auto need_string = [&](size_t k) -> Status {
      const Cat c = CategoryOf(*args[k]->type);
      if (c == Cat::kString || c == Cat::kNull) return Status::OK();
      return PosError(n.args[k]->pos, fmt::format("{}() needs a string, found {}", n.name,
                                                  args[k]->type->ToString()));
    };
    DataTypePtr type;
    std::string name = n.name;
    if (name == "lower" || name == "upper") {
      LANCE_RETURN_NOT_OK(arity(1));
      LANCE_RETURN_NOT_OK(need_string(0));
      type = utf8();
    } else if (name == "length" || name == "char_length" || name == "character_length") {
      LANCE_RETURN_NOT_OK(arity(1));
      LANCE_RETURN_NOT_OK(need_string(0));
      name = "length";
      type = int32();
    } else if (name == "abs") {
      LANCE_RETURN_NOT_OK(arity(1));
      const Cat c = CategoryOf(*args[0]->type);
      if (!IsNumber(c) && c != Cat::kNull) {
        return PosError(n.pos, fmt::format("abs() needs a number, found {}", args[0]->type->ToString()));
      }
      type = c == Cat::kInt || c == Cat::kNull ? int64() : float64();
      LANCE_ASSIGN_OR_RAISE(args[0], Coerce(std::move(args[0]), type, n));
    } else if (name == "contains") {
      // contains(s, t): t occurs in s (bytes; an empty t occurs in every string). On binary
      // columns too (the FM index keys them); the needle is a string literal.
      LANCE_RETURN_NOT_OK(arity(2));
      if (CategoryOf(*args[0]->type) != Cat::kBinary) LANCE_RETURN_NOT_OK(need_string(0));
      LANCE_RETURN_NOT_OK(need_string(1));
      type = boolean();
    } else if (name == "starts_with" || name == "ends_with") {
      LANCE_RETURN_NOT_OK(arity(2));
      LANCE_RETURN_NOT_OK(need_string(0));
      LANCE_RETURN_NOT_OK(need_string(1));
      type = boolean();
    } else if (name == "coalesce") {
      if (args.empty()) return PosError(n.pos, "coalesce() needs at least one argument");
      type = null();
      for (const auto& a : args) {
        const Cat c = CategoryOf(*a->type);
        if (c == Cat::kNull) continue;
        if (type->id() == TypeId::kNull) {
          type = a->type;
        } else if (IsNumber(c) && IsNumber(CategoryOf(*type)) && !type->Equals(*a->type)) {
          type = c == Cat::kInt && CategoryOf(*type) == Cat::kInt ? int64() : float64();
        }
      }
      if (type->id() == TypeId::kNull) return NullLiteral(null());
      for (auto& a : args) {
        if (CategoryOf(*a->type) == Cat::kNull) continue;
        LANCE_ASSIGN_OR_RAISE(a, Coerce(std::move(a), type, n));
      }
    } else {
      return PosError(n.pos, fmt::format("unknown function '{}' (known: lower, upper, length, "
                                         "char_length, abs, coalesce, contains, starts_with, ends_with, "
                                         "array_has_any, array_has_all, array_contains)",
                                         n.name));
    }
    BoundPtr out = Make(BoundNode::Kind::kCall, type);
    out->name = name;
    out->args = std::move(args);
    return Fold(std::move(out));
  }

 private:
  std::string_view text_;
  SchemaPtr schema_;
  int depth_ = 0;
};

}  // namespace

Result<BoundPtr> Bind(std::string_view text, const SchemaPtr& schema, const Node& n,
                      std::vector<std::string>* columns) {
  Binder binder(text, schema);
  LANCE_ASSIGN_OR_RAISE(BoundPtr b, binder.Bind(n));
  for (auto& c : binder.columns) columns->push_back(std::move(c));
  return b;
}

}  // namespace lance::expr
