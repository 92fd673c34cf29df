// Binding (names -> columns, types checked, literals coerced) and evaluation of expressions.
#include "lance/expr/expression.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "expr/cast.h"
#include "expr/kernels.h"
#include "lance/expr/ast.h"

namespace lance::expr {

struct BoundNode {
  enum class Kind : uint8_t {
    kLiteral, kColumn, kField, kCompare, kLogic, kNot, kNeg, kArith, kIn, kIs, kLike, kCast, kCall
  };
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

namespace {

using BoundPtr = std::unique_ptr<BoundNode>;

enum class Cat : uint8_t { kNull, kBool, kInt, kFloat, kDecimal, kString, kBinary, kDate, kTimestamp,
                           kOther };

Cat CategoryOf(const DataType& t) {
  switch (t.id()) {
    case TypeId::kNull: return Cat::kNull;
    case TypeId::kBool: return Cat::kBool;
    case TypeId::kHalfFloat:
    case TypeId::kFloat:
    case TypeId::kDouble: return Cat::kFloat;
    case TypeId::kDecimal128: return Cat::kDecimal;
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
        LANCE_ASSIGN_OR_RAISE(BoundPtr a, Bind(*n.args[0]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr b, Bind(*n.args[1]));
        switch (n.op) {
          case Op::kAnd:
          case Op::kOr: {
            LANCE_RETURN_NOT_OK(RequireBool(*a, *n.args[0], OpName(n.op)));
            LANCE_RETURN_NOT_OK(RequireBool(*b, *n.args[1], OpName(n.op)));
            BoundPtr out = Make(BoundNode::Kind::kLogic, boolean(), std::move(a), std::move(b));
            out->op = n.op;
            return Fold(std::move(out));
          }
          case Op::kEq: case Op::kNe: case Op::kLt: case Op::kLe: case Op::kGt: case Op::kGe:
            return BindCompare(n.op, std::move(a), std::move(b), n);
          default:
            return BindArithmetic(n.op, std::move(a), std::move(b), n);
        }
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

 private:
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
    LANCE_ASSIGN_OR_RAISE(Datum d, Eval(*b, empty));
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
        if (id == TypeId::kDecimal128 || id == TypeId::kHalfFloat) {
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
      BoundPtr out;
      for (size_t i = 1; i < n.args.size(); ++i) {
        LANCE_ASSIGN_OR_RAISE(BoundPtr xi, Bind(*n.args[0]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr item, Bind(*n.args[i]));
        LANCE_ASSIGN_OR_RAISE(BoundPtr eq, BindCompare(Op::kEq, std::move(xi), std::move(item), *n.args[i]));
        if (!out) {
          out = std::move(eq);
        } else {
          out = Make(BoundNode::Kind::kLogic, boolean(), std::move(out), std::move(eq));
          out->op = Op::kOr;
        }
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
      if (id == TypeId::kDecimal128 || id == TypeId::kHalfFloat) {
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

  Result<BoundPtr> BindCall(const Node& n) {
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
                                         "char_length, abs, coalesce, starts_with, ends_with)",
                                         n.name));
    }
    BoundPtr out = Make(BoundNode::Kind::kCall, type);
    out->name = name;
    out->args = std::move(args);
    return Fold(std::move(out));
  }

 public:
  // A comparison with a literal, IN, LIKE or IS on a dictionary-encoded column: evaluated
  // once per dictionary entry (plus one null entry for null rows), then looked up by each
  // row's index, instead of expanding every row's value first. nullopt when `b` is not such a
  // node.
  static Result<std::optional<Datum>> EvalOnDictionary(const BoundNode& b, const RecordBatch& batch) {
    const bool shape = (b.kind == BoundNode::Kind::kCompare &&
                        b.args[1]->kind == BoundNode::Kind::kLiteral) ||
                       b.kind == BoundNode::Kind::kIn || b.kind == BoundNode::Kind::kLike ||
                       b.kind == BoundNode::Kind::kIs;
    if (!shape || b.args.empty() || b.args[0]->kind != BoundNode::Kind::kCast ||
        b.args[0]->args.empty() || b.args[0]->args[0]->type->id() != TypeId::kDictionary) {
      return std::optional<Datum>();
    }
    LANCE_ASSIGN_OR_RAISE(Datum x, Eval(*b.args[0]->args[0], batch));
    if (!x.is_array() || x.array->type_id() != TypeId::kDictionary || !x.array->dictionary) {
      return Status::InvalidArgument("evaluate: a dictionary column without its dictionary");
    }
    const Array& d = *x.array;
    const ArrayPtr& dict = d.dictionary;
    if (!dict->type->Equals(*b.args[0]->type)) {
      return Status::InvalidArgument("evaluate: dictionary values are {}, the expression was bound "
                                     "to {}", dict->type->ToString(), b.args[0]->type->ToString());
    }
    LANCE_ASSIGN_OR_RAISE(ArrayPtr null_entry, MakeArrayOfNulls(dict->type, 1));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr entries, Concatenate({dict, null_entry}));
    const int64_t ne = entries->length;
    Datum values;
    values.array = entries;
    Datum per_entry;
    if (b.kind == BoundNode::Kind::kCompare) {
      LANCE_ASSIGN_OR_RAISE(Datum lit, Eval(*b.args[1], batch));
      LANCE_ASSIGN_OR_RAISE(per_entry, CompareKernel(b.op, b.domain, values, lit, ne));
    } else if (b.kind == BoundNode::Kind::kIn) {
      LANCE_ASSIGN_OR_RAISE(per_entry, InKernel(b.in_set, b.negated, values, ne));
    } else if (b.kind == BoundNode::Kind::kLike) {
      LANCE_ASSIGN_OR_RAISE(per_entry, LikeKernel(b.like, b.negated, values, ne));
    } else {
      LANCE_ASSIGN_OR_RAISE(per_entry, IsKernel(b.is_what, b.negated, values, ne));
    }
    if (!per_entry.is_array()) return std::optional<Datum>(per_entry);  // the same for every row
    const Array& pe = *per_entry.array;
    const int64_t n = batch.num_rows();
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBuffer(bit_util::BytesForBits(n), true));
    LANCE_ASSIGN_OR_RAISE(BufferPtr valid, AllocateBuffer(bit_util::BytesForBits(n), true));
    int64_t nulls = 0;
    const int64_t null_index = ne - 1;
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = null_index;
      if (d.IsValid(i)) {
        k = d.DictionaryIndex(i);
        if (k < 0 || k >= null_index) {
          return Status::InvalidArgument("evaluate: dictionary index {} of {} entries", k, null_index);
        }
      }
      if (pe.IsNull(k)) {
        ++nulls;
        continue;
      }
      bit_util::SetBit(valid->mutable_data(), i);
      if (pe.BoolValue(k)) bit_util::SetBit(bits->mutable_data(), i);
    }
    Datum out;
    out.array = Array::Make(boolean(), n, {nulls > 0 ? valid : nullptr, bits});
    return std::optional<Datum>(out);
  }

  // The `x % k` operand of a comparison `x % k = c` / `<>` (either side) with integer literals
  // k and c, else null.
  static const BoundNode* ModOfLiteral(const BoundNode& b) {
    if (b.domain != Domain::kInt || (b.op != Op::kEq && b.op != Op::kNe)) return nullptr;
    auto is_literal = [](const BoundNode& n) { return n.kind == BoundNode::Kind::kLiteral; };
    for (size_t side = 0; side < 2; ++side) {
      const BoundNode& m = *b.args[side];
      if (m.kind == BoundNode::Kind::kArith && m.op == Op::kMod && m.domain == Domain::kInt &&
          is_literal(*m.args[1]) && !is_literal(*m.args[0]) && is_literal(*b.args[1 - side])) {
        return &m;
      }
    }
    return nullptr;
  }

  // Evaluation (also used for constant folding).
  static Result<Datum> Eval(const BoundNode& b, const RecordBatch& batch) {
    const int64_t n = batch.num_rows();
    auto arg = [&](size_t k) { return Eval(*b.args[k], batch); };
    {
      LANCE_ASSIGN_OR_RAISE(std::optional<Datum> on_dictionary, EvalOnDictionary(b, batch));
      if (on_dictionary) return std::move(*on_dictionary);
    }
    switch (b.kind) {
      case BoundNode::Kind::kLiteral: {
        Datum d;
        d.scalar = b.literal;
        return d;
      }
      case BoundNode::Kind::kColumn: {
        ArrayPtr col = batch.GetColumnByName(b.name);
        if (!col) return Status::InvalidArgument("evaluate: the batch has no column '{}'", b.name);
        if (!col->type->Equals(*b.type)) {
          return Status::InvalidArgument("evaluate: column '{}' is {}, the expression was bound to {}",
                                         b.name, col->type->ToString(), b.type->ToString());
        }
        if (col->length != n) return Status::InvalidArgument("evaluate: column '{}' length", b.name);
        Datum d;
        d.array = col;
        return d;
      }
      case BoundNode::Kind::kField: {
        LANCE_ASSIGN_OR_RAISE(Datum parent, arg(0));
        const Array& s = *parent.array;
        ArrayPtr child = s.children[static_cast<size_t>(b.field_index)]->Slice(s.offset, s.length);
        if (s.null_count > 0 && s.validity()) {
          // A null struct makes its fields null: AND the parent's validity into the child's.
          auto copy = std::make_shared<Array>(*child);
          if (copy->type_id() == TypeId::kNull) {
            Datum d;
            d.array = copy;
            return d;
          }
          LANCE_ASSIGN_OR_RAISE(BufferPtr v, AllocateBuffer(bit_util::BytesForBits(copy->offset + n), true));
          uint8_t* bits = v->mutable_data();
          int64_t nulls = 0;
          for (int64_t i = 0; i < n; ++i) {
            const bool valid = s.IsValid(i) && child->IsValid(i);
            if (valid) {
              bit_util::SetBit(bits, copy->offset + i);
            } else {
              ++nulls;
            }
          }
          if (copy->buffers.empty()) copy->buffers.push_back(nullptr);
          copy->buffers[0] = v;
          copy->null_count = nulls;
          child = copy;
        }
        Datum d;
        d.array = child;
        return d;
      }
      case BoundNode::Kind::kCompare: {
        if (const BoundNode* mod = ModOfLiteral(b)) {
          // `x % k = c`: one pass over x (ModCompareKernel) when it applies.
          const BoundNode& c = *b.args[mod == b.args[0].get() ? 1 : 0];
          LANCE_ASSIGN_OR_RAISE(Datum x, Eval(*mod->args[0], batch));
          LANCE_ASSIGN_OR_RAISE(std::optional<Datum> fused,
                                ModCompareKernel(b.op == Op::kNe, x, mod->args[1]->literal,
                                                 c.literal, n));
          if (fused) return std::move(*fused);
          Datum k;
          k.scalar = mod->args[1]->literal;
          LANCE_ASSIGN_OR_RAISE(Datum r, ArithmeticKernel(Op::kMod, Domain::kInt, x, k, n));
          Datum cd;
          cd.scalar = c.literal;
          return mod == b.args[0].get() ? CompareKernel(b.op, b.domain, r, cd, n)
                                        : CompareKernel(b.op, b.domain, cd, r, n);
        }
        LANCE_ASSIGN_OR_RAISE(Datum x, arg(0));
        LANCE_ASSIGN_OR_RAISE(Datum y, arg(1));
        return CompareKernel(b.op, b.domain, x, y, n);
      }
      case BoundNode::Kind::kLogic: {
        LANCE_ASSIGN_OR_RAISE(Datum x, arg(0));
        LANCE_ASSIGN_OR_RAISE(Datum y, arg(1));
        return LogicKernel(b.op, x, y, n);
      }
      case BoundNode::Kind::kNot: {
        LANCE_ASSIGN_OR_RAISE(Datum x, arg(0));
        return NotKernel(x, n);
      }
      case BoundNode::Kind::kNeg: {
        LANCE_ASSIGN_OR_RAISE(Datum x, arg(0));
        return NegateKernel(b.domain, x, n);
      }
      case BoundNode::Kind::kArith: {
        LANCE_ASSIGN_OR_RAISE(Datum x, arg(0));
        LANCE_ASSIGN_OR_RAISE(Datum y, arg(1));
        return ArithmeticKernel(b.op, b.domain, x, y, n);
      }
      case BoundNode::Kind::kIn: {
        LANCE_ASSIGN_OR_RAISE(Datum x, arg(0));
        return InKernel(b.in_set, b.negated, x, n);
      }
      case BoundNode::Kind::kIs: {
        LANCE_ASSIGN_OR_RAISE(Datum x, arg(0));
        return IsKernel(b.is_what, b.negated, x, n);
      }
      case BoundNode::Kind::kLike: {
        LANCE_ASSIGN_OR_RAISE(Datum x, arg(0));
        return LikeKernel(b.like, b.negated, x, n);
      }
      case BoundNode::Kind::kCast: {
        LANCE_ASSIGN_OR_RAISE(Datum x, arg(0));
        Datum d;
        if (x.is_array()) {
          if (x.array->type_id() == TypeId::kDictionary) {
            LANCE_ASSIGN_OR_RAISE(d.array, DecodeDictionary(*x.array));
            return d;
          }
          LANCE_ASSIGN_OR_RAISE(d.array, Cast(x.array, b.type));
        } else {
          LANCE_ASSIGN_OR_RAISE(d.scalar, CastScalar(x.scalar, b.type));
        }
        return d;
      }
      case BoundNode::Kind::kCall: {
        std::vector<Datum> args;
        for (size_t k = 0; k < b.args.size(); ++k) {
          LANCE_ASSIGN_OR_RAISE(Datum x, arg(k));
          args.push_back(std::move(x));
        }
        return CallKernel(b.name, b.type, args, n);
      }
    }
    return Status::Internal("unknown bound node");
  }

  // Values of a dictionary array, decoded (for filters on dictionary-encoded strings).
  static Result<ArrayPtr> DecodeDictionary(const Array& a) {
    LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(a.dictionary->type));
    for (int64_t i = 0; i < a.length; ++i) {
      if (a.IsNull(i)) {
        LANCE_RETURN_NOT_OK(builder->AppendNull());
        continue;
      }
      LANCE_RETURN_NOT_OK(AppendScalar(builder.get(), GetScalar(*a.dictionary, a.DictionaryIndex(i))));
    }
    return builder->Finish();
  }

 private:
  std::string_view text_;
  SchemaPtr schema_;
};

}  // namespace

Expression::~Expression() = default;

Result<std::shared_ptr<const Expression>> Expression::Make(std::string_view text,
                                                           const SchemaPtr& schema) {
  LANCE_ASSIGN_OR_RAISE(NodePtr ast, Parse(text));
  std::shared_ptr<Expression> e(new Expression());
  e->text_ = std::string(text);
  Binder binder(e->text_, schema);
  LANCE_ASSIGN_OR_RAISE(e->root_, binder.Bind(*ast));
  e->type_ = e->root_->type;
  e->columns_ = std::move(binder.columns);
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
    CollectConjuncts(*n.args[0], out);
    CollectConjuncts(*n.args[1], out);
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
    Binder binder(e->text_, schema);
    LANCE_ASSIGN_OR_RAISE(e->root_, binder.Bind(*part));
    e->columns_ = std::move(binder.columns);
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
  LANCE_ASSIGN_OR_RAISE(Datum d, Binder::Eval(*root_, batch));
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
    const uint8_t* v = values + off / 8;
    const uint8_t* w = valid ? valid + off / 8 : nullptr;
    const int64_t full = mask.length / 8;
    for (int64_t b = 0; b < full; ++b) {
      uint32_t byte = v[b];
      if (w) byte &= w[b];
      while (byte) {
        out.push_back(b * 8 + __builtin_ctz(byte));
        byte &= byte - 1;
      }
    }
    for (int64_t i = full * 8; i < mask.length; ++i) {
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
