#include "lance/index/scalar/lookup.h"

#include <algorithm>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "lance/index/index_metadata.h"
#include "lance/index/scalar/ngram.h"
#include "lance/index/scalar/scalar_index.h"

namespace lance::index::scalar {

namespace {

bool ReadableType(const std::string& t) {
  return t == "BTREE" || t == "BITMAP" || t == "LABEL_LIST" || t == "ZONEMAP" || t == "BLOOMFILTER" ||
         t == "NGRAM" || t == "FM";
}

int64_t PerUnitNanos(TimeUnit u) {
  switch (u) {
    case TimeUnit::kSecond: return 1000000000;
    case TimeUnit::kMilli: return 1000000;
    case TimeUnit::kMicro: return 1000;
    case TimeUnit::kNano: return 1;
  }
  return 1;
}

// `lit` as a key of a column of type `type`; nullopt when the comparison is not one an index
// answers exactly (the filter keeps it).
std::optional<ScalarValue> KeyOf(const expr::Literal& lit, const DataType& type) {
  using K = expr::Literal::Kind;
  if (lit.kind == K::kNull) return ScalarValue::Null();
  switch (type.id()) {
    case TypeId::kBool:
      if (lit.kind == K::kBool) return ScalarValue::Bool(lit.bool_value);
      return std::nullopt;
    case TypeId::kInt8: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
    case TypeId::kUInt8: case TypeId::kUInt16: case TypeId::kUInt32: case TypeId::kUInt64:
    case TypeId::kHalfFloat: case TypeId::kFloat: case TypeId::kDouble:
      if (lit.kind == K::kInt) return ScalarValue::Int(lit.int_value);
      if (lit.kind == K::kFloat) return ScalarValue::Float(lit.float_value);
      return std::nullopt;
    case TypeId::kDate32:
      if (lit.kind == K::kDate) return ScalarValue::Int(lit.int_value);
      return std::nullopt;
    case TypeId::kDate64:
      if (lit.kind == K::kDate) return ScalarValue::Int(lit.int_value * 86400000);
      return std::nullopt;
    case TypeId::kTimestamp: {
      if (lit.kind != K::kTimestamp) return std::nullopt;
      const int64_t per = PerUnitNanos(type.unit());
      if (lit.int_value % per != 0) return std::nullopt;
      return ScalarValue::Int(lit.int_value / per);
    }
    case TypeId::kString: case TypeId::kLargeString:
      if (lit.kind == K::kString) return ScalarValue::Bytes(lit.text);
      return std::nullopt;
    case TypeId::kBinary: case TypeId::kLargeBinary:
      if (lit.kind == K::kString || lit.kind == K::kBinary) return ScalarValue::Bytes(lit.text);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// '%abc%' with no other wildcard or escape -> "abc" (not empty: '%%' matches every string,
// an FM index none).
std::optional<std::string> LikeInfix(const std::string& pattern) {
  if (pattern.size() < 3 || pattern.front() != '%' || pattern.back() != '%') return std::nullopt;
  const std::string p = pattern.substr(1, pattern.size() - 2);
  if (p.find_first_of("%_\\") != std::string::npos) return std::nullopt;
  return p;
}

// 'abc%' with no other wildcard or escape -> "abc".
std::optional<std::string> LikePrefix(const std::string& pattern) {
  if (pattern.size() < 2 || pattern.back() != '%') return std::nullopt;
  const std::string p = pattern.substr(0, pattern.size() - 1);
  if (p.find_first_of("%_\\") != std::string::npos) return std::nullopt;
  return p;
}

}  // namespace

struct ScalarIndexCatalog::Impl {
  table::TableLocation location;
  SchemaPtr schema;
  std::vector<uint32_t> fragments;  // of the version, ascending
  std::map<uint32_t, uint64_t> physical_rows;  // of each fragment
  std::weak_ptr<IndexCache> cache;
  std::shared_ptr<IndexCache> owned_cache;  // when Make was given none
  struct Slot {
    table::IndexInfo info;
    int32_t keyed_field = -1;
    std::string type;
    DataTypePtr key_type;           // the keyed column's type
    std::vector<uint32_t> covered;  // info's bitmap ∩ the version's fragments
    mutable std::mutex mu;
    mutable std::shared_ptr<ScalarIndex> opened;
  };
  std::vector<std::unique_ptr<Slot>> slots;

  // How well an index of `type` answers `q`: 0 best, -1 not at all. Substring filters go to
  // an NGRAM index only, and an NGRAM index answers nothing else; comparisons go to an exact
  // index (BTREE, BITMAP) before a ZONEMAP, and to a BLOOMFILTER last and only for =, IN and
  // IS NULL (lance 12's BloomFilterQueryParser). LABEL_LIST and FM answer their own
  // functions (MatchText), not these.
  static int Suitability(const std::string& type, const IndexQuery& q) {
    if (const auto* tq = std::get_if<TextQuery>(&q)) return type == "NGRAM" && NGramNarrows(tq->substring) ? 0 : -1;
    if (std::holds_alternative<LabelListQuery>(q)) return type == "LABEL_LIST" ? 0 : -1;
    const auto& sq = std::get<ScalarQuery>(q);
    if (type == "BTREE" || type == "BITMAP") return 0;
    if (type == "ZONEMAP") return 1;
    if (type == "BLOOMFILTER") {
      const bool point = sq.op == ScalarQuery::Op::kEquals || sq.op == ScalarQuery::Op::kIn ||
                         sq.op == ScalarQuery::Op::kIsNull;
      return point ? 2 : -1;
    }
    return -1;
  }

  // The index of column `field_id` best suited to `q` (the first in manifest order among
  // equals), or nullptr: a column may carry several (a BITMAP and an NGRAM index on one
  // string column, say), each answering what it can.
  const Slot* BestSlotFor(int32_t field_id, const IndexQuery& q, size_t* at) const {
    const Slot* best = nullptr;
    int best_rank = 0;
    for (size_t i = 0; i < slots.size(); ++i) {
      if (slots[i]->keyed_field != field_id) continue;
      const int rank = Suitability(slots[i]->type, q);
      if (rank < 0 || (best != nullptr && rank >= best_rank)) continue;
      best = slots[i].get();
      best_rank = rank;
      *at = i;
    }
    return best;
  }

  // The first FM index keyed on `field_id` (it may sit behind another index of the column,
  // e.g. an INVERTED one, as lance 12 allows).
  const Slot* FmSlotFor(int32_t field_id, size_t* at) const {
    for (size_t i = 0; i < slots.size(); ++i) {
      if (slots[i]->keyed_field == field_id && slots[i]->type == "FM") {
        *at = i;
        return slots[i].get();
      }
    }
    return nullptr;
  }

  // contains(col, 'x') (exact, as lance 12 plans it) and col LIKE '%x%' (an FM answer
  // rechecked by the filter: the sanitized needle also matches stored \x00 / \xFF).
  std::optional<IndexedLeaf> MatchText(const expr::Node& n) const {
    using NK = expr::Node::Kind;
    const expr::Node* col = nullptr;
    std::optional<std::string> needle;
    bool recheck = false;
    if (n.kind == NK::kUnary && n.op == expr::Op::kNot && n.args.size() == 1 && n.args[0]->kind == NK::kCall) {
      auto inner = MatchText(*n.args[0]);
      if (!inner) return std::nullopt;
      std::get<TextQuery>(inner->query).negated = true;
      return inner;
    }
    if (n.kind == NK::kCall && n.name == "contains" && n.args.size() == 2 &&
        n.args[1]->kind == NK::kLiteral && n.args[1]->literal.kind == expr::Literal::Kind::kString) {
      col = n.args[0].get();
      needle = n.args[1]->literal.text;
    } else if (n.kind == NK::kLike && !n.negated && !n.case_insensitive && n.args.size() == 2 &&
               n.args[1]->kind == NK::kLiteral && n.args[1]->literal.kind == expr::Literal::Kind::kString) {
      col = n.args[0].get();
      needle = LikeInfix(n.args[1]->literal.text);
      recheck = true;
    }
    if (!needle || col->kind != NK::kColumn || col->path.size() != 1) return std::nullopt;
    const int idx = schema->GetFieldIndex(col->path[0]);
    if (idx < 0 || !schema->field(idx)->type()->is_binary_like()) return std::nullopt;
    size_t at = 0;
    const Slot* slot = FmSlotFor(schema->field(idx)->id(), &at);
    if (slot == nullptr) return std::nullopt;
    IndexedLeaf leaf;
    leaf.column = schema->field(idx)->name();
    leaf.index_name = slot->info.name;
    leaf.index_type = slot->type;
    leaf.index_slot = at;
    leaf.query = TextQuery{*needle, recheck};
    return leaf;
  }

  // array_has_any(col, make_array(v, ...)), array_has_all(...), array_contains(col, v) (and
  // their aliases) on a list column with a LABEL_LIST index. A NULL needle (which DataFusion
  // matches with a null item; the index never does) or none at all is left to the filter.
  std::optional<IndexedLeaf> MatchLabelList(const expr::Node& n) const {
    using NK = expr::Node::Kind;
    if (n.kind != NK::kCall || n.args.size() != 2) return std::nullopt;
    const std::string& f = n.name;
    const bool any = f == "array_has_any" || f == "list_has_any";
    const bool all = f == "array_has_all" || f == "list_has_all";
    const bool one = f == "array_contains" || f == "array_has" || f == "list_has" || f == "list_contains";
    if (!any && !all && !one) return std::nullopt;
    const expr::Node& c = *n.args[0];
    if (c.kind != NK::kColumn || c.path.size() != 1) return std::nullopt;
    const int idx = schema->GetFieldIndex(c.path[0]);
    if (idx < 0) return std::nullopt;
    const Field& field = *schema->field(idx);
    const TypeId lt = field.type()->id();
    if (lt != TypeId::kList && lt != TypeId::kLargeList) return std::nullopt;
    std::vector<const expr::Node*> needles;
    if (one) {
      needles.push_back(n.args[1].get());
    } else {
      const expr::Node& arr = *n.args[1];
      if (arr.kind != NK::kCall || (arr.name != "make_array" && arr.name != "make_list")) return std::nullopt;
      for (const auto& a : arr.args) needles.push_back(a.get());
    }
    if (needles.empty()) return std::nullopt;
    std::vector<ScalarValue> labels;
    for (const expr::Node* v : needles) {
      if (v->kind != NK::kLiteral || v->literal.kind == expr::Literal::Kind::kNull) return std::nullopt;
      auto key = KeyOf(v->literal, *field.type()->value_type());
      if (!key || key->is_null()) return std::nullopt;
      labels.push_back(std::move(*key));
    }
    IndexQuery q = all ? LabelListQuery::HasAll(std::move(labels)) : LabelListQuery::HasAny(std::move(labels));
    size_t at = 0;
    const Slot* slot = BestSlotFor(field.id(), q, &at);
    if (slot == nullptr) return std::nullopt;
    IndexedLeaf leaf;
    leaf.column = field.name();
    leaf.index_name = slot->info.name;
    leaf.index_type = slot->type;
    leaf.index_slot = at;
    leaf.query = std::move(q);
    return leaf;
  }

  std::optional<IndexedLeaf> MatchLeaf(const expr::Node& n) const {
    using NK = expr::Node::Kind;
    if (auto text = MatchText(n)) return text;
    if (auto labels = MatchLabelList(n)) return labels;
    auto column_of = [&](const expr::Node& c, Field const** field) -> bool {
      if (c.kind != NK::kColumn || c.path.size() != 1) return false;
      const int idx = schema->GetFieldIndex(c.path[0]);
      if (idx < 0) return false;
      *field = schema->field(idx).get();
      return true;
    };
    const Field* field = nullptr;
    std::optional<IndexQuery> q;
    if (n.kind == NK::kBinary && n.args.size() == 2) {
      const expr::Node* col = n.args[0].get();
      const expr::Node* lit = n.args[1].get();
      expr::Op op = n.op;
      if (col->kind == NK::kLiteral) {
        std::swap(col, lit);
        op = expr::Flip(op);
      }
      if (lit->kind != NK::kLiteral || !column_of(*col, &field)) return std::nullopt;
      auto key = KeyOf(lit->literal, *field->type());
      if (!key) return std::nullopt;
      switch (op) {
        case expr::Op::kEq: q = ScalarQuery::Equals(*key); break;
        case expr::Op::kLt: q = ScalarQuery::LessThan(*key); break;
        case expr::Op::kLe: q = ScalarQuery::LessEq(*key); break;
        case expr::Op::kGt: q = ScalarQuery::GreaterThan(*key); break;
        case expr::Op::kGe: q = ScalarQuery::GreaterEq(*key); break;
        default: return std::nullopt;
      }
    } else if (n.kind == NK::kBetween && !n.negated && n.args.size() == 3) {
      if (!column_of(*n.args[0], &field) || n.args[1]->kind != NK::kLiteral ||
          n.args[2]->kind != NK::kLiteral) {
        return std::nullopt;
      }
      auto lo = KeyOf(n.args[1]->literal, *field->type());
      auto hi = KeyOf(n.args[2]->literal, *field->type());
      if (!lo || !hi) return std::nullopt;
      q = ScalarQuery::Between(*lo, *hi);
    } else if (n.kind == NK::kIn && !n.negated && !n.args.empty()) {
      if (!column_of(*n.args[0], &field)) return std::nullopt;
      std::vector<ScalarValue> values;
      for (size_t i = 1; i < n.args.size(); ++i) {
        if (n.args[i]->kind != NK::kLiteral) return std::nullopt;
        auto key = KeyOf(n.args[i]->literal, *field->type());
        if (!key) return std::nullopt;
        values.push_back(std::move(*key));
      }
      q = ScalarQuery::In(std::move(values));
    } else if (n.kind == NK::kIsNull && n.args.size() == 1) {
      if (!column_of(*n.args[0], &field)) return std::nullopt;
      q = n.negated ? ScalarQuery::IsNotNull() : ScalarQuery::IsNull();
    } else if (n.kind == NK::kLike && !n.negated && !n.case_insensitive && n.args.size() == 2) {
      if (!column_of(*n.args[0], &field) || n.args[1]->kind != NK::kLiteral ||
          n.args[1]->literal.kind != expr::Literal::Kind::kString ||
          !field->type()->is_binary_like()) {
        return std::nullopt;
      }
      if (auto infix = LikeInfix(n.args[1]->literal.text)) {
        q = TextQuery{*infix};
      } else {
        auto prefix = LikePrefix(n.args[1]->literal.text);
        if (!prefix) return std::nullopt;
        q = ScalarQuery::StartsWith(*prefix);
      }
    } else if (n.kind == NK::kCall && n.name == "contains" && n.args.size() == 2) {
      if (!column_of(*n.args[0], &field) || n.args[1]->kind != NK::kLiteral ||
          n.args[1]->literal.kind != expr::Literal::Kind::kString ||
          !field->type()->is_binary_like()) {
        return std::nullopt;
      }
      q = TextQuery{n.args[1]->literal.text};
    } else {
      return std::nullopt;
    }
    if (!IsIndexableKeyType(*field->type())) return std::nullopt;
    size_t at = 0;
    const Slot* slot = BestSlotFor(field->id(), *q, &at);
    if (slot == nullptr) return std::nullopt;
    IndexedLeaf leaf;
    leaf.column = field->name();
    leaf.index_name = slot->info.name;
    leaf.index_type = slot->type;
    leaf.index_slot = at;
    leaf.query = std::move(*q);
    return leaf;
  }

  bool MatchOr(const expr::Node& n, std::vector<IndexedLeaf>* out) const {
    // OR chains are one n-ary node (ast.h).
    if (n.kind == expr::Node::Kind::kBinary && n.op == expr::Op::kOr && n.args.size() >= 2) {
      for (const auto& a : n.args) {
        if (!MatchOr(*a, out)) return false;
      }
      return true;
    }
    auto leaf = MatchLeaf(n);
    if (!leaf) return false;
    out->push_back(std::move(*leaf));
    return true;
  }

  Result<std::shared_ptr<ScalarIndex>> Open(size_t at) const {
    if (at >= slots.size()) return Status::InvalidArgument("index slot {} of {}", at, slots.size());
    const Slot& s = *slots[at];
    std::lock_guard<std::mutex> lock(s.mu);
    if (!s.opened) {
      LANCE_ASSIGN_OR_RAISE(s.opened, OpenScalarIndex(OpenIndexStore(location, s.info, cache.lock()), s.info, s.key_type));
    }
    return s.opened;
  }
};

ScalarIndexCatalog::ScalarIndexCatalog(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ScalarIndexCatalog::~ScalarIndexCatalog() = default;

std::shared_ptr<ScalarIndexCatalog> ScalarIndexCatalog::Make(const table::TableLocation& location,
                                                             const table::Manifest& manifest,
                                                             std::shared_ptr<IndexCache> cache) {
  auto impl = std::make_unique<Impl>();
  impl->location = location;
  impl->schema = manifest.schema;
  for (const auto& f : manifest.fragments) {
    impl->fragments.push_back(static_cast<uint32_t>(f.id));
    impl->physical_rows[static_cast<uint32_t>(f.id)] = f.physical_rows;
  }
  std::sort(impl->fragments.begin(), impl->fragments.end());
  if (!cache) impl->owned_cache = std::make_shared<IndexCache>();
  impl->cache = cache ? cache : impl->owned_cache;
  for (const auto& x : manifest.indices) {
    if (table::IsSystemIndex(x)) continue;
    const std::string type = table::IndexTypeName(x);
    std::vector<int32_t> keyed;
    for (int32_t f : x.fields) {
      if (std::find(x.covering_fields.begin(), x.covering_fields.end(), f) == x.covering_fields.end()) {
        keyed.push_back(f);
      }
    }
    auto slot = std::make_unique<Impl::Slot>();
    slot->info = x;
    slot->type = type;
    // An index whose type has no reader here, or that keys several columns, still takes its
    // column's place (lance 12 consults only the first index of a column).
    slot->keyed_field = keyed.size() == 1 && ReadableType(type) ? keyed[0] : -1;
    if (keyed.size() == 1 && !ReadableType(type)) slot->keyed_field = -2 - keyed[0];
    if (keyed.size() == 1) {
      for (const auto& f : manifest.schema->fields()) {
        if (f->id() == keyed[0]) slot->key_type = f->type();
      }
    }
    if (x.has_fragment_bitmap) {
      std::set_intersection(x.fragment_ids.begin(), x.fragment_ids.end(), impl->fragments.begin(),
                            impl->fragments.end(), std::back_inserter(slot->covered));
    }
    impl->slots.push_back(std::move(slot));
  }
  return std::shared_ptr<ScalarIndexCatalog>(new ScalarIndexCatalog(std::move(impl)));
}

std::shared_ptr<ScalarIndexCatalog> ScalarIndexCatalog::Cached(const std::shared_ptr<IndexCache>& cache,
                                                               const table::TableLocation& location,
                                                               const table::Manifest& manifest) {
  if (!cache) return Make(location, manifest);
  // A recreated table may reuse a version number, never the index uuids.
  std::string key = fmt::format("scalar-catalog:{}:{}@{}", static_cast<const void*>(location.store().get()),
                                location.root(), manifest.version);
  for (const auto& x : manifest.indices) key += ":" + x.uuid;
  auto made = cache->GetOrLoadAs<ScalarIndexCatalog>(
      key, [&]() -> Result<std::pair<std::shared_ptr<const ScalarIndexCatalog>, int64_t>> {
        auto c = Make(location, manifest, cache);
        // What an opened index keeps outside the cache's pages (file metadata, a BTree's page
        // lookup, a zone list) is not measured: a fixed estimate per index.
        const int64_t bytes = 4096 + 4096 * static_cast<int64_t>(c->num_indexes());
        return std::pair<std::shared_ptr<const ScalarIndexCatalog>, int64_t>(std::move(c), bytes);
      });
  if (!made.ok()) return Make(location, manifest, cache);  // not reached: the loader cannot fail
  return std::const_pointer_cast<ScalarIndexCatalog>(*made);
}

std::vector<uint32_t> ScalarIndexCatalog::Covered(const IndexPlan& plan) const {
  std::vector<uint32_t> out;
  bool first = true;
  for (const IndexedConjunct& c : plan.lookups) {
    for (const IndexedLeaf& leaf : c.leaves) {
      const auto& covered = impl_->slots.at(leaf.index_slot)->covered;
      if (first) {
        out = covered;
        first = false;
        continue;
      }
      std::vector<uint32_t> both;
      std::set_intersection(out.begin(), out.end(), covered.begin(), covered.end(), std::back_inserter(both));
      out = std::move(both);
    }
  }
  return out;
}

bool ScalarIndexCatalog::empty() const {
  return std::none_of(impl_->slots.begin(), impl_->slots.end(),
                      [](const auto& s) { return s->keyed_field >= 0; });
}

std::optional<IndexedConjunct> ScalarIndexCatalog::MatchConjunct(const expr::Node& conjunct) const {
  IndexedConjunct out;
  if (!impl_->MatchOr(conjunct, &out.leaves)) return std::nullopt;
  return out;
}

Result<ConjunctAnswer> ScalarIndexCatalog::Answer(const IndexedConjunct& conjunct, ThreadPool* pool) const {
  ConjunctAnswer out;
  bool first = true;
  for (const IndexedLeaf& leaf : conjunct.leaves) {
    const auto& covered = impl_->slots.at(leaf.index_slot)->covered;
    if (first) {
      out.covered = covered;
      first = false;
    } else {
      std::vector<uint32_t> both;
      std::set_intersection(out.covered.begin(), out.covered.end(), covered.begin(), covered.end(),
                            std::back_inserter(both));
      out.covered = std::move(both);
    }
  }
  for (const IndexedLeaf& leaf : conjunct.leaves) {
    LANCE_ASSIGN_OR_RAISE(std::shared_ptr<ScalarIndex> index, impl_->Open(leaf.index_slot));
    SearchOptions so;
    so.fragments = out.covered;
    so.pool = pool;
    LANCE_ASSIGN_OR_RAISE(SearchResult r, index->Search(leaf.query, so));
    const auto* tq = std::get_if<TextQuery>(&leaf.query);
    out.exact = out.exact && r.exact && !(tq && tq->recheck);
    if (tq && tq->negated) {
      RowSet all;
      for (uint32_t f : out.covered) {
        const uint64_t base = uint64_t{f} << 32;
        const auto it = impl_->physical_rows.find(f);
        if (it != impl_->physical_rows.end()) all.InsertRange(base, base + it->second);
      }
      all -= r.rows;
      r.rows = std::move(all);
    }
    out.rows |= r.rows;
  }
  out.rows.RetainFragments(out.covered);
  return out;
}

IndexPlan ScalarIndexCatalog::PlanConjuncts(const std::vector<const expr::Node*>& conjuncts) const {
  IndexPlan plan;
  // lookup position of the range lookup of each index slot
  std::vector<std::pair<size_t, size_t>> ranges;
  for (size_t i = 0; i < conjuncts.size(); ++i) {
    auto m = MatchConjunct(*conjuncts[i]);
    if (!m) continue;
    m->sources = {i};
    const ScalarQuery* q = m->leaves.size() == 1 ? std::get_if<ScalarQuery>(&m->leaves[0].query) : nullptr;
    if (q != nullptr && q->op == ScalarQuery::Op::kRange) {
      const size_t slot = m->leaves[0].index_slot;
      auto it = std::find_if(ranges.begin(), ranges.end(), [&](const auto& r) { return r.first == slot; });
      if (it != ranges.end()) {
        ScalarQuery& into = std::get<ScalarQuery>(plan.lookups[it->second].leaves[0].query);
        // The tighter bound of each side (ties: the exclusive one).
        if (q->lower && (!into.lower || Compare(q->lower->value, into.lower->value) > 0 ||
                         (Compare(q->lower->value, into.lower->value) == 0 && !q->lower->inclusive))) {
          into.lower = q->lower;
        }
        if (q->upper && (!into.upper || Compare(q->upper->value, into.upper->value) < 0 ||
                         (Compare(q->upper->value, into.upper->value) == 0 && !q->upper->inclusive))) {
          into.upper = q->upper;
        }
        plan.lookups[it->second].sources.push_back(i);
        continue;
      }
      ranges.emplace_back(slot, plan.lookups.size());
    }
    plan.lookups.push_back(std::move(*m));
  }
  for (const auto& l : plan.lookups) plan.answered.insert(plan.answered.end(), l.sources.begin(), l.sources.end());
  std::sort(plan.answered.begin(), plan.answered.end());
  return plan;
}

Result<std::optional<uint64_t>> ScalarIndexCatalog::EstimateRows(const IndexedConjunct& lookup) const {
  std::optional<uint64_t> total = 0;
  for (const IndexedLeaf& leaf : lookup.leaves) {
    LANCE_ASSIGN_OR_RAISE(auto index, impl_->Open(leaf.index_slot));
    LANCE_ASSIGN_OR_RAISE(std::optional<uint64_t> e, index->EstimateMatches(leaf.query));
    if (!e) return std::optional<uint64_t>();
    *total += *e;
  }
  return total;
}

Result<std::optional<uint64_t>> ScalarIndexCatalog::EstimateRows(const IndexPlan& plan) const {
  std::optional<uint64_t> best;
  for (const IndexedConjunct& c : plan.lookups) {
    LANCE_ASSIGN_OR_RAISE(std::optional<uint64_t> e, EstimateRows(c));
    if (!e) return std::optional<uint64_t>();
    if (!best || *e < *best) best = e;
  }
  return best;
}

Result<IndexPlan> ScalarIndexCatalog::DropBroadLookups(IndexPlan plan, double max_cost, const LookupCostFn& cost) const {
  if (plan.lookups.size() < 2) return plan;
  std::vector<std::optional<double>> est;
  for (const IndexedConjunct& c : plan.lookups) {
    LANCE_ASSIGN_OR_RAISE(std::optional<uint64_t> e, EstimateRows(c));
    if (!e) {
      est.emplace_back();
      continue;
    }
    est.emplace_back(cost ? cost(c, *e) : static_cast<double>(*e));
  }
  // The smallest known estimate; unknown ones (label lists, text indexes) count as selective.
  size_t best = 0;
  for (size_t i = 0; i < est.size(); ++i) {
    if (!est[i]) {
      best = i;
      break;
    }
    if (est[best] && *est[i] < *est[best]) best = i;
  }
  IndexPlan out;
  for (size_t i = 0; i < plan.lookups.size(); ++i) {
    if (i == best || !est[i] || *est[i] <= max_cost) out.lookups.push_back(std::move(plan.lookups[i]));
  }
  for (const auto& l : out.lookups) out.answered.insert(out.answered.end(), l.sources.begin(), l.sources.end());
  std::sort(out.answered.begin(), out.answered.end());
  return out;
}

Result<ConjunctAnswer> ScalarIndexCatalog::AnswerAll(const IndexPlan& plan, ThreadPool* pool) const {
  ConjunctAnswer out;
  bool first = true;
  for (const IndexedConjunct& c : plan.lookups) {
    LANCE_ASSIGN_OR_RAISE(ConjunctAnswer a, Answer(c, pool));
    out.exact = out.exact && a.exact;
    if (first) {
      out = std::move(a);
      first = false;
      continue;
    }
    std::vector<uint32_t> both;
    std::set_intersection(out.covered.begin(), out.covered.end(), a.covered.begin(), a.covered.end(),
                          std::back_inserter(both));
    out.covered = std::move(both);
    out.rows &= a.rows;
    out.rows.RetainFragments(out.covered);
    if (out.rows.empty()) break;
  }
  return out;
}

std::string IndexPlan::ToString() const {
  std::string out;
  for (const auto& l : lookups) out += (out.empty() ? "" : " AND ") + l.ToString();
  return out;
}

Result<std::shared_ptr<ScalarIndex>> ScalarIndexCatalog::IndexAt(size_t slot) const {
  return impl_->Open(slot);
}
const table::IndexInfo& ScalarIndexCatalog::InfoAt(size_t slot) const { return impl_->slots.at(slot)->info; }
size_t ScalarIndexCatalog::num_indexes() const { return impl_->slots.size(); }
std::shared_ptr<IndexCache> ScalarIndexCatalog::cache() const { return impl_->cache.lock(); }

bool IndexedLeaf::exact() const {
  const auto* tq = std::get_if<TextQuery>(&query);
  return IsExactIndexType(index_type) && !(tq && tq->recheck);
}

std::string IndexedConjunct::ToString() const {
  std::string out;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (i > 0) out += " OR ";
    const IndexedLeaf& l = leaves[i];
    std::string q;
    if (const auto* sq = std::get_if<ScalarQuery>(&l.query)) q = sq->ToString(l.column);
    else if (const auto* lq = std::get_if<LabelListQuery>(&l.query)) q = lq->ToString(l.column);
    else if (const auto* tq = std::get_if<TextQuery>(&l.query)) q = tq->ToString(l.column);
    out += q + "@" + l.index_name + "(" + l.index_type + ")";
  }
  return leaves.size() > 1 ? "(" + out + ")" : out;
}

std::vector<const expr::Node*> SplitConjuncts(const expr::Node& filter) {
  std::vector<const expr::Node*> out;
  std::vector<const expr::Node*> stack = {&filter};
  while (!stack.empty()) {
    const expr::Node* n = stack.back();
    stack.pop_back();
    // AND chains are one n-ary node (ast.h); conjuncts keep their order.
    if (n->kind == expr::Node::Kind::kBinary && n->op == expr::Op::kAnd && n->args.size() >= 2) {
      for (size_t i = n->args.size(); i-- > 0;) stack.push_back(n->args[i].get());
    } else {
      out.push_back(n);
    }
  }
  return out;
}

}  // namespace lance::index::scalar
