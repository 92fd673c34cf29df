// Evaluation of a bound expression on a batch: kernels over whole arrays (kernels.h), tests on
// dictionary-encoded columns once per dictionary entry, `x % k = c` as one fused test.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "expr/bound_node.h"
#include "expr/cast.h"
#include "expr/kernels.h"
#include "lance/expr/expression.h"

namespace lance::expr {

namespace {

Result<Datum> Eval(const BoundNode& b, const RecordBatch& batch, int depth);
Result<ArrayPtr> DecodeDictionary(const Array& a);

// The binder keeps bound trees shallow (n-ary AND / OR, bounded nesting); left-deep arithmetic
// chains are walked in a loop. This bounds the recursion for any tree.
constexpr int kMaxEvalDepth = 8 * kMaxNestingDepth;

// A comparison with a literal, IN, LIKE or IS on a dictionary-encoded column: evaluated
// once per dictionary entry (plus one null entry for null rows), then looked up by each
// row's index, instead of expanding every row's value first. nullopt when `b` is not such a
// node.
Result<std::optional<Datum>> EvalOnDictionary(const BoundNode& b, const RecordBatch& batch,
                                              int depth) {
  const bool shape = (b.kind == BoundNode::Kind::kCompare &&
                      b.args[1]->kind == BoundNode::Kind::kLiteral) ||
                     b.kind == BoundNode::Kind::kIn || b.kind == BoundNode::Kind::kLike ||
                     b.kind == BoundNode::Kind::kIs;
  if (!shape || b.args.empty() || b.args[0]->kind != BoundNode::Kind::kCast ||
      b.args[0]->args.empty() || b.args[0]->args[0]->type->id() != TypeId::kDictionary) {
    return std::optional<Datum>();
  }
  LANCE_ASSIGN_OR_RAISE(Datum x, Eval(*b.args[0]->args[0], batch, depth + 1));
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
    LANCE_ASSIGN_OR_RAISE(Datum lit, Eval(*b.args[1], batch, depth + 1));
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
const BoundNode* ModOfLiteral(const BoundNode& b) {
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
Result<Datum> Eval(const BoundNode& b, const RecordBatch& batch, int depth) {
  if (depth > kMaxEvalDepth) {
    return Status::InvalidArgument("evaluate: the expression is nested more than {} levels deep",
                                   kMaxEvalDepth);
  }
  const int64_t n = batch.num_rows();
  auto arg = [&](size_t k) { return Eval(*b.args[k], batch, depth + 1); };
  {
    LANCE_ASSIGN_OR_RAISE(std::optional<Datum> on_dictionary, EvalOnDictionary(b, batch, depth));
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
        LANCE_ASSIGN_OR_RAISE(Datum x, Eval(*mod->args[0], batch, depth + 1));
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
    case BoundNode::Kind::kLogic: {  // n-ary: operands combined left to right
      LANCE_ASSIGN_OR_RAISE(Datum acc, arg(0));
      for (size_t k = 1; k < b.args.size(); ++k) {
        LANCE_ASSIGN_OR_RAISE(Datum y, arg(k));
        LANCE_ASSIGN_OR_RAISE(acc, LogicKernel(b.op, acc, y, n));
      }
      return acc;
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
      // A left-deep chain `((a + b) - c) * ...`: its left spine evaluated in a loop.
      std::vector<const BoundNode*> spine;
      const BoundNode* left = &b;
      while (left->kind == BoundNode::Kind::kArith) {
        spine.push_back(left);
        left = left->args[0].get();
      }
      LANCE_ASSIGN_OR_RAISE(Datum acc, Eval(*left, batch, depth + 1));
      for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
        LANCE_ASSIGN_OR_RAISE(Datum y, Eval(*(*it)->args[1], batch, depth + 1));
        LANCE_ASSIGN_OR_RAISE(acc, ArithmeticKernel((*it)->op, (*it)->domain, acc, y, n));
      }
      return acc;
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
    case BoundNode::Kind::kListHas: {
      LANCE_ASSIGN_OR_RAISE(Datum x, arg(0));
      return ListHasKernel(b.in_set, b.name == "array_has_all", x, n);
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
Result<ArrayPtr> DecodeDictionary(const Array& a) {
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


}  // namespace

Result<Datum> Evaluate(const BoundNode& b, const RecordBatch& batch) { return Eval(b, batch, 0); }

BoundNode::~BoundNode() {
  // Freed through a worklist: no recursion however deep the tree.
  std::vector<BoundPtr> pending;
  for (BoundPtr& a : args) {
    if (a) pending.push_back(std::move(a));
  }
  while (!pending.empty()) {
    BoundPtr p = std::move(pending.back());
    pending.pop_back();
    for (BoundPtr& a : p->args) {
      if (a) pending.push_back(std::move(a));
    }
    p->args.clear();
  }
}

}  // namespace lance::expr
