// query::PlanLsmScan (lsm_plan.h) and query::LsmScan (lsm_scan.h): the sources of a merged
// read chosen (shards pruned by the filter, merged generations skipped, newest first), each
// planned by the query layer's planner, or point lookups when the filter pins the key.
#include "lance/query/lsm_scan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "lance/columnar/compute.h"
#include "lance/columnar/json.h"
#include "lance/expr/ast.h"
#include "lance/index/scalar/lookup.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/memwal_writer.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/memwal/shard_writer.h"
#include "lance/memwal/sharding.h"
#include "lance/memwal/wal.h"
#include "lance/query/filter.h"
#include "query/lsm_columns.h"
#include "lance/query/lsm_lookup.h"
#include "lance/query/lsm_plan.h"
#include "lance/query/scanner.h"
#include "query/lsm_catchup.h"
#include "query/operators.h"

namespace lance::query {

using namespace memwal;  // NOLINT: the MemWAL model this read merges

namespace {

// The JSON value of `lit` as a key of type `type`: integers for an integer key, strings for a
// string key; nullopt for anything else (a null, a float, a date: the scan path handles it).
std::optional<std::string> KeyJson(const expr::Literal& lit, const DataType& type) {
  if (lit.kind == expr::Literal::Kind::kInt && type.is_integer()) return std::to_string(lit.int_value);
  if (lit.kind == expr::Literal::Kind::kString &&
      (type.id() == TypeId::kString || type.id() == TypeId::kLargeString)) {
    std::string out;
    AppendJsonString(lit.text, &out);
    return out;
  }
  return std::nullopt;
}

// At most this many keys (the product of each key column's pinned values) go to point lookups.
constexpr size_t kMaxPinnedKeys = 4096;

// The keys a filter pins the primary key `pk` (one column or several) to, as a batch of the key
// columns: each key column pinned by a top-level AND conjunct `col = literal`, `literal = col`
// or `col IN (literals)`, the keys being every combination of the columns' values. nullopt when
// a key column is not pinned (or its literals are not of the column's kind), or when there
// would be more than kMaxPinnedKeys keys.
Result<std::optional<RecordBatchPtr>> PinnedKeys(const std::string& filter, const std::vector<FieldPtr>& pk) {
  LANCE_ASSIGN_OR_RAISE(expr::NodePtr root, expr::Parse(filter));
  std::vector<const expr::Node*> conjuncts;
  if (root->kind == expr::Node::Kind::kBinary && root->op == expr::Op::kAnd) {
    for (const auto& a : root->args) conjuncts.push_back(a.get());
  } else {
    conjuncts.push_back(root.get());
  }
  auto literal = [](const expr::Node& n) -> const expr::Literal* {
    return n.kind == expr::Node::Kind::kLiteral ? &n.literal : nullptr;
  };
  // The JSON values one conjunct pins `key` to; empty when it pins none.
  auto pinned_by = [&](const expr::Node& c, const Field& key) {
    auto is_key = [&](const expr::Node& n) {
      return n.kind == expr::Node::Kind::kColumn && n.path.size() == 1 && n.path[0] == key.name();
    };
    std::vector<const expr::Literal*> values;
    if (c.kind == expr::Node::Kind::kBinary && c.op == expr::Op::kEq && c.args.size() == 2) {
      if (is_key(*c.args[0]) && literal(*c.args[1])) values.push_back(literal(*c.args[1]));
      if (is_key(*c.args[1]) && literal(*c.args[0])) values.push_back(literal(*c.args[0]));
    } else if (c.kind == expr::Node::Kind::kIn && !c.negated && !c.args.empty() && is_key(*c.args[0])) {
      for (size_t i = 1; i < c.args.size(); ++i) {
        const expr::Literal* l = literal(*c.args[i]);
        if (!l) return std::vector<std::string>{};
        values.push_back(l);
      }
    }
    std::vector<std::string> out;
    for (const expr::Literal* l : values) {
      std::optional<std::string> v = KeyJson(*l, *key.type());
      if (!v) return std::vector<std::string>{};
      out.push_back(std::move(*v));
    }
    return out;
  };
  std::vector<std::vector<std::string>> per_column;
  size_t combinations = 1;
  for (const FieldPtr& key : pk) {
    std::vector<std::string> values;
    for (const expr::Node* c : conjuncts) {
      values = pinned_by(*c, *key);
      if (!values.empty()) break;
    }
    if (values.empty()) return std::optional<RecordBatchPtr>();
    combinations *= values.size();
    if (combinations > kMaxPinnedKeys) return std::optional<RecordBatchPtr>();
    per_column.push_back(std::move(values));
  }
  std::string lines;
  std::vector<size_t> at(pk.size(), 0);
  for (size_t n = 0; n < combinations; ++n) {
    lines += '{';
    for (size_t k = 0; k < pk.size(); ++k) {
      if (k) lines += ',';
      AppendJsonString(pk[k]->name(), &lines);
      lines += ':' + per_column[k][at[k]];
    }
    lines += "}\n";
    for (size_t k = pk.size(); k-- > 0;) {  // the next combination, the last column fastest
      if (++at[k] < per_column[k].size()) break;
      at[k] = 0;
    }
  }
  std::vector<FieldPtr> fields;
  for (const FieldPtr& key : pk) fields.push_back(field(key->name(), key->type(), true));
  // (A literal the key type cannot hold, e.g. 300 for an int8 key, leaves it to the scan.)
  auto keys = ReadJsonLines(lines, std::make_shared<Schema>(std::move(fields)));
  if (!keys.ok()) return std::optional<RecordBatchPtr>();
  return std::optional<RecordBatchPtr>(std::move(*keys));
}

// The shards a filter's rows can be in under the sharding spec `spec_id`: when the filter pins
// every source column of the spec (as PinnedKeys pins key columns), the shards those values
// route to. nullopt (every shard) otherwise, and when skipping a shard could change the answer:
// in a primary-key table a source column outside the key lets a key's newer row sit in another
// shard than its older one, and the newer row must still hide the older (last write wins
// before the filter).
Result<std::optional<std::vector<ShardTarget>>> FilterShards(const std::string& filter,
                                                             const MemWalIndexDetails& details, uint32_t spec_id,
                                                             const Schema& schema,
                                                             const std::vector<std::string>& pk) {
  using None = std::optional<std::vector<ShardTarget>>;
  const ShardingSpec* spec = details.FindSpec(spec_id);
  if (spec == nullptr) return None();
  std::vector<FieldPtr> sources;
  for (const ShardingField& f : spec->fields) {
    for (int32_t id : f.source_ids) {
      FieldPtr source;
      for (const FieldPtr& top : schema.fields()) {
        if (top->id() == id) source = top;
      }
      if (!source) return None();
      if (!pk.empty() && std::find(pk.begin(), pk.end(), source->name()) == pk.end()) return None();
      if (std::find(sources.begin(), sources.end(), source) == sources.end()) sources.push_back(source);
    }
  }
  if (sources.empty()) return None();  // unsharded: one shard, nothing to prune
  LANCE_ASSIGN_OR_RAISE(std::optional<RecordBatchPtr> values, PinnedKeys(filter, sources));
  if (!values) return None();
  auto router = ShardRouter::Make(*spec, schema);
  if (!router.ok()) return None();
  auto routing = router->Route(**values);
  if (!routing.ok()) return None();
  return None(std::move(routing->shards));
}

// The Explain note of the base source on index catch-up (mem_wal.md "Index catch-up"): each
// base index that index_catchup says lags a shard's merged generation.
std::string CatchupNote(const MemWalIndexDetails& details) {
  std::string note;
  for (const IndexCatchup& c : details.index_catchup) {
    for (const MergedGeneration& g : c.caught_up_generations) {
      const uint64_t merged = details.MergedGenerationOf(g.shard_id);
      if (g.generation >= merged) continue;
      note += fmt::format("{}index {} covers shard {} up to generation {} of {} merged: the rows of "
                          "generations {}..{} are in base fragments it does not cover, filtered there",
                          note.empty() ? "" : "; ", c.index_name, g.shard_id.ToString(), g.generation,
                          merged, g.generation + 1, merged);
    }
  }
  return note;
}

// The columns a source's plan reads: the output's, the key's, and `_tombstone` when it has one.
std::vector<std::string> SourceColumns(const Schema& out, const std::vector<std::string>& pk,
                                       const Schema& source) {
  std::vector<std::string> cols;
  for (const auto& f : out.fields()) cols.push_back(f->name());
  for (const auto& k : pk) {
    if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
  }
  if (source.GetFieldByName(std::string(kTombstoneColumn))) cols.emplace_back(kTombstoneColumn);
  return cols;
}

// The order-preserving encoding (primary_key.h) of `lit` as a value of `f`; nullopt when the
// literal is not of the column's kind or does not fit (the MemTable is then read whole: the
// filter decides), and for a float zero (-0.0 and 0.0 are equal in SQL, not in the encoding).
std::optional<std::string> EncodeLiteral(const expr::Literal& lit, const Field& f) {
  const DataType& type = *f.type();
  const bool floats = type.id() == TypeId::kFloat || type.id() == TypeId::kDouble;
  std::string json;
  if (lit.kind == expr::Literal::Kind::kInt && (type.is_integer() || floats)) {
    if (floats && lit.int_value == 0) return std::nullopt;
    json = std::to_string(lit.int_value);
  } else if (lit.kind == expr::Literal::Kind::kFloat && floats) {
    if (lit.float_value == 0 || lit.float_value != lit.float_value) return std::nullopt;
    json = fmt::format("{}", lit.float_value);
  } else if (auto k = KeyJson(lit, type)) {
    json = std::move(*k);
  } else {
    return std::nullopt;
  }
  auto schema = std::make_shared<Schema>(std::vector<FieldPtr>{field(f.name(), f.type(), true)});
  std::string line = "{";
  AppendJsonString(f.name(), &line);
  line += ":" + json + "}\n";
  auto batch = ReadJsonLines(line, schema);
  if (!batch.ok() || (*batch)->num_rows() != 1 || (*batch)->column(0)->IsNull(0)) return std::nullopt;
  auto enc = PrimaryKeyEncoder::Make(*schema, {f.name()});
  if (!enc.ok()) return std::nullopt;
  auto cols = enc->KeyColumns(**batch);
  if (!cols.ok()) return std::nullopt;
  std::string out;
  enc->Encode(*cols, 0, &out);
  return out;
}

// The in-memory index of `mt` a filter can be answered from: the first top-level AND conjunct
// (nested ANDs flattened) that constrains an indexed column -- `col <op> literal` (=, <, <=,
// >, >=, either side), `col IN (literals)`, `col BETWEEN literal AND literal` -- as the value
// ranges its rows must fall in. The ranges are a superset of the conjunct's rows; the whole
// filter is tested on the candidates.
struct IndexedRanges {
  std::string column;
  std::string index;
  std::vector<ValueRange> ranges;
  std::string text;
};
std::optional<IndexedRanges> RangesOf(const expr::Node& root, const MemTable& mt, const Schema& wal_schema) {
  const std::vector<const expr::Node*> conjuncts = index::scalar::SplitConjuncts(root);
  auto indexed = [&](const expr::Node& n) -> const MemTableIndexSpec* {
    if (n.kind != expr::Node::Kind::kColumn || n.path.size() != 1) return nullptr;
    return mt.IndexOf(n.path[0]);
  };
  auto lit = [](const expr::Node& n) -> const expr::Literal* {
    return n.kind == expr::Node::Kind::kLiteral ? &n.literal : nullptr;
  };
  for (const expr::Node* c : conjuncts) {
    IndexedRanges out;
    const MemTableIndexSpec* spec = nullptr;
    auto encode = [&](const expr::Literal& l) -> std::optional<std::string> {
      FieldPtr f = wal_schema.GetFieldByName(spec->column);
      if (!f) return std::nullopt;
      return EncodeLiteral(l, *f);
    };
    if (c->kind == expr::Node::Kind::kBinary && c->args.size() == 2 &&
        (c->op == expr::Op::kEq || c->op == expr::Op::kLt || c->op == expr::Op::kLe ||
         c->op == expr::Op::kGt || c->op == expr::Op::kGe)) {
      expr::Op op = c->op;
      const expr::Literal* l = nullptr;
      if ((spec = indexed(*c->args[0])) && (l = lit(*c->args[1]))) {
      } else if ((spec = indexed(*c->args[1])) && (l = lit(*c->args[0]))) {
        op = op == expr::Op::kLt ? expr::Op::kGt : op == expr::Op::kLe ? expr::Op::kGe
           : op == expr::Op::kGt ? expr::Op::kLt : op == expr::Op::kGe ? expr::Op::kLe : op;
      } else {
        continue;
      }
      std::optional<std::string> v = encode(*l);
      if (!v) continue;
      ValueRange r;
      switch (op) {
        case expr::Op::kEq: r.lo = *v; r.hi = *v; break;
        case expr::Op::kLt: r.hi = *v; r.hi_inclusive = false; break;
        case expr::Op::kLe: r.hi = *v; break;
        case expr::Op::kGt: r.lo = *v; r.lo_inclusive = false; break;
        default: r.lo = *v; break;
      }
      out.ranges.push_back(std::move(r));
      out.text = fmt::format("{} {} {}", spec->column, expr::OpName(op), l->kind == expr::Literal::Kind::kString ? "'" + l->text + "'" : l->kind == expr::Literal::Kind::kInt ? std::to_string(l->int_value) : l->text);
    } else if (c->kind == expr::Node::Kind::kIn && !c->negated && c->args.size() >= 2 && (spec = indexed(*c->args[0]))) {
      bool all = true;
      for (size_t i = 1; i < c->args.size() && all; ++i) {
        const expr::Literal* l = lit(*c->args[i]);
        std::optional<std::string> v = l ? encode(*l) : std::nullopt;
        if (!v) all = false;
        else out.ranges.push_back(ValueRange{*v, true, *v, true});
      }
      if (!all) continue;
      out.text = fmt::format("{} IN ({} values)", spec->column, c->args.size() - 1);
    } else if (c->kind == expr::Node::Kind::kBetween && !c->negated && c->args.size() == 3 &&
               (spec = indexed(*c->args[0]))) {
      const expr::Literal* lo = lit(*c->args[1]);
      const expr::Literal* hi = lit(*c->args[2]);
      std::optional<std::string> a = lo ? encode(*lo) : std::nullopt;
      std::optional<std::string> b = hi ? encode(*hi) : std::nullopt;
      if (!a || !b) continue;
      out.ranges.push_back(ValueRange{*a, true, *b, true});
      out.text = fmt::format("{} BETWEEN two values", spec->column);
    } else {
      continue;
    }
    out.column = spec->column;
    out.index = spec->name;
    return out;
  }
  return std::nullopt;
}

// The source of a live writer's MemTable `mt` of `shard`: its first `upto` rows, through the
// in-memory index of a column the filter constrains when there is one (use_index).
PlanNodePtr MemTableSource(const Uuid& shard, std::shared_ptr<const MemTable> mt, int64_t upto,
                           const expr::Node* filter, const memwal::LsmReadOptions& options) {
  LsmSourceNode::Spec s;
  s.source = LsmSourceNode::Source::kMemTable;
  s.shard = shard.ToString();
  s.generation = mt->generation();
  s.rows = upto;
  s.memtable_upto = upto;
  if (filter && options.use_index) {
    if (std::optional<IndexedRanges> r = RangesOf(*filter, *mt, *mt->schema())) {
      s.index_column = std::move(r->column);
      s.index_name = std::move(r->index);
      s.ranges = std::move(r->ranges);
      s.ranges_text = std::move(r->text);
    }
  }
  s.memtable = std::move(mt);
  return std::make_shared<LsmSourceNode>(std::move(s), nullptr);
}

// The source of generation `g` of `shard`: its rows (filtered, through its own indexes) and,
// with a filter, the plan reading its keys whole.
Result<PlanNodePtr> GenerationSource(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                                     const Uuid& shard, const FlushedGeneration& g, const Schema& out,
                                     const std::vector<std::string>& pk, const memwal::LsmReadOptions& options,
                                     std::string note, bool* vanished) {
  auto snap = OpenGeneration(store, root, shard, g);
  if (snap.status().IsNotFound()) *vanished = true;
  LANCE_RETURN_NOT_OK(snap.status());
  std::shared_ptr<const table::Snapshot> gen = std::move(*snap);
  LsmSourceNode::Spec s;
  s.source = LsmSourceNode::Source::kGeneration;
  s.shard = shard.ToString();
  s.generation = g.generation;
  s.path = g.path;
  s.version = gen->version();
  s.note = std::move(note);
  s.snapshot = gen;
  for (const auto& f : gen->manifest().fragments) s.rows += static_cast<int64_t>(f.num_rows());
  ScanOptions o;
  o.columns = SourceColumns(out, pk, *gen->schema());
  o.filter = options.filter;
  o.use_index = options.use_index;
  LANCE_ASSIGN_OR_RAISE(Scanner rows, Scanner::Make(gen, o));
  if (!options.filter.empty() && !pk.empty()) {
    ScanOptions k;
    k.columns = pk;
    LANCE_ASSIGN_OR_RAISE(Scanner keys, Scanner::Make(gen, std::move(k)));
    s.keys = keys.plan().root();
  }
  return PlanNodePtr(std::make_shared<LsmSourceNode>(std::move(s), rows.plan().root()));
}

// One plan of every source. `*vanished` is set when a source the plan needs went away under it
// (a generation directory or WAL entries garbage-collected after a merge or flush this read
// did not see): the caller plans again from the newer state.
Result<Plan> PlanOnce(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                      const memwal::LsmReadOptions& options, bool* vanished) {
  if (options.offset < 0 || (options.limit && *options.limit < 0)) {
    return Status::InvalidArgument("{}: LSM read offset and limit must be >= 0", store->DisplayPath(root));
  }
  LANCE_ASSIGN_OR_RAISE(auto base, table::Snapshot::Open(store, root));
  LsmMergeNode::Spec spec;
  spec.table = store->DisplayPath(root);
  spec.store = store;
  spec.root = root;
  spec.table_schema = base->schema();
  LANCE_ASSIGN_OR_RAISE(spec.schema, internal::LsmOutputSchema(base->schema(), options.columns, spec.table));
  spec.offset = options.offset;
  spec.limit = options.limit;
  spec.consistency = options.consistency;
  MemWalIndexDetails details;
  if (auto d = ReadMemWalDetails(*base); d.ok()) details = std::move(*d);
  const std::vector<std::string> pk = PrimaryKeyColumns(base->manifest());
  spec.primary_key = pk;
  if (!options.filter.empty()) {
    LANCE_ASSIGN_OR_RAISE(spec.filter, Filter::MakeForBatch(options.filter, base->schema()));
    if (!pk.empty()) {
      std::vector<FieldPtr> key_fields;
      for (const std::string& k : pk) {
        if (FieldPtr f = base->schema()->GetFieldByName(k)) key_fields.push_back(std::move(f));
      }
      if (key_fields.size() == pk.size()) {
        LANCE_ASSIGN_OR_RAISE(std::optional<RecordBatchPtr> pinned, PinnedKeys(options.filter, key_fields));
        if (pinned) {
          spec.point_keys = std::move(*pinned);
          spec.lookup.consistency = options.consistency;
          spec.lookup.live_writers = options.live_writers;
          if (!options.columns.empty()) {
            spec.lookup.columns = options.columns;
            for (const auto& c : spec.filter->columns()) {
              if (std::find(spec.lookup.columns.begin(), spec.lookup.columns.end(), c) ==
                  spec.lookup.columns.end()) {
                spec.lookup.columns.push_back(c);
              }
            }
          }
          return Plan(std::make_shared<LsmMergeNode>(std::move(spec), std::vector<PlanNodePtr>{}));
        }
      }
    }
  }

  std::vector<PlanNodePtr> newer;  // newest first
  std::map<std::string, ShardManifest> read_shards;  // the shards not pruned, by id
  // The live writers' MemTables and how many rows of each the read sees, taken before any
  // shard manifest is read: a flush after this point leaves its rows both here and in a
  // generation the manifest lists (the same rows: the MemTable's rank newer), never in neither.
  struct Live {
    uint64_t epoch = 0;
    std::vector<std::pair<std::shared_ptr<const MemTable>, int64_t>> memtables;  // newest first
  };
  std::map<std::string, Live> live;
  if (options.consistency == Consistency::kStrong) {
    for (const MemWalWriter* w : options.live_writers) {
      Live l{w->epoch(), {}};
      auto mts = w->MemTables();
      for (auto it = mts.rbegin(); it != mts.rend(); ++it) l.memtables.emplace_back(*it, (*it)->num_rows());
      live[w->shard_id().ToString()] = std::move(l);
    }
  }
  expr::NodePtr filter_ast;
  if (!options.filter.empty() && !live.empty()) {
    LANCE_ASSIGN_OR_RAISE(filter_ast, expr::Parse(options.filter));
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<Uuid> shards, ListShards(*store, root));
  std::map<uint32_t, std::optional<std::vector<ShardTarget>>> filter_shards;  // by spec id
  for (const Uuid& shard : shards) {
    ShardManifestStore manifests(store, root, shard);
    LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> m, manifests.Latest());
    if (!m) continue;
    ++spec.shards;
    if (!options.filter.empty()) {
      auto targets = filter_shards.find(m->shard_spec_id);
      if (targets == filter_shards.end()) {
        LANCE_ASSIGN_OR_RAISE(auto t, FilterShards(options.filter, details, m->shard_spec_id, *base->schema(), pk));
        targets = filter_shards.emplace(m->shard_spec_id, std::move(t)).first;
      }
      if (targets->second && std::none_of(targets->second->begin(), targets->second->end(),
                                          [&](const ShardTarget& t) { return ShardMayHold(*m, t); })) {
        spec.shards_pruned.push_back(shard.ToString());  // no row of this shard can pass the filter
        continue;
      }
    }
    read_shards.emplace(shard.ToString(), *m);
    const auto lw = live.find(shard.ToString());
    if (options.consistency == Consistency::kStrong && lw != live.end() && lw->second.epoch == m->writer_epoch) {
      for (auto& [mt, upto] : lw->second.memtables) {
        if (upto > 0) newer.push_back(MemTableSource(shard, mt, upto, filter_ast.get(), options));
      }
    } else if (options.consistency == Consistency::kStrong) {
      LANCE_ASSIGN_OR_RAISE(std::vector<WalEntry> tail, ReadUnflushedTail(store, root, shard, m));
      // A flush published while the tail was read moves replay_after past entries that
      // garbage collection may already have removed: the tail read would end early.
      LANCE_ASSIGN_OR_RAISE(uint64_t now_version, manifests.LatestVersion());
      if (now_version != m->version) {
        *vanished = true;
        return Status::NotFound("{}: shard {} moved from manifest version {} to {} while its WAL "
                                "tail was read",
                                store->DisplayPath(root), shard.ToString(), m->version, now_version);
      }
      if (!tail.empty()) {
        LsmSourceNode::Spec t;
        t.source = LsmSourceNode::Source::kWalTail;
        t.shard = shard.ToString();
        for (auto& e : tail) {
          t.wal_positions.push_back(e.position);
          for (auto& b : e.batches) {
            t.rows += b->num_rows();
            t.tail_batches.push_back(std::move(b));
          }
        }
        newer.push_back(std::make_shared<LsmSourceNode>(std::move(t), nullptr));
      }
    }
    const uint64_t merged = details.MergedGenerationOf(shard);
    std::vector<FlushedGeneration> gens = m->flushed_generations;
    std::sort(gens.begin(), gens.end(),
              [](const auto& a, const auto& b) { return a.generation > b.generation; });
    for (const FlushedGeneration& g : gens) {
      if (g.generation <= merged) {
        ++spec.skipped_merged;
        continue;
      }
      LANCE_ASSIGN_OR_RAISE(PlanNodePtr source,
                            GenerationSource(store, root, shard, g, *spec.schema, pk, options, "", vanished));
      newer.push_back(std::move(source));
    }
  }

  LsmSourceNode::Spec b;
  b.source = LsmSourceNode::Source::kBase;
  b.path = spec.table;
  b.version = base->version();
  b.snapshot = base;
  for (const auto& f : base->manifest().fragments) b.rows += static_cast<int64_t>(f.num_rows());
  b.note = CatchupNote(details);
  ScanOptions o;
  o.columns = SourceColumns(*spec.schema, pk, *base->schema());
  o.filter = options.filter;
  o.use_index = options.use_index;
  LANCE_ASSIGN_OR_RAISE(Scanner base_rows, Scanner::Make(base, o));
  if (!options.filter.empty() && options.use_index) {
    // The index catch-up gap (lsm_catchup.h): the merged generations answer for the base
    // fragments a lagging index does not cover.
    std::string why;
    LANCE_ASSIGN_OR_RAISE(std::optional<internal::CatchupGap> gap,
                          internal::FindCatchupGap(base, details, *base_rows.plan().root(), &why));
    std::vector<PlanNodePtr> gap_sources;
    if (gap) {
      std::sort(gap->generations.begin(), gap->generations.end(), [](const auto& x, const auto& y) {
        return x.shard_id.ToString() != y.shard_id.ToString() ? x.shard_id.ToString() < y.shard_id.ToString()
                                                              : x.generation > y.generation;
      });
      const std::string fragments = fmt::format("{}", fmt::join(gap->uncovered, ", "));
      for (const MergedGeneration& mg : gap->generations) {
        const std::string id = mg.shard_id.ToString();
        if (std::find(spec.shards_pruned.begin(), spec.shards_pruned.end(), id) != spec.shards_pruned.end()) {
          continue;  // no row of the shard passes the filter
        }
        const auto m = read_shards.find(id);
        const FlushedGeneration* g = nullptr;
        if (m != read_shards.end()) {
          for (const auto& f : m->second.flushed_generations) {
            if (f.generation == mg.generation) g = &f;
          }
        }
        if (g == nullptr) {
          why = fmt::format("index catch-up gap not read from the generations: generation {} of "
                            "shard {} is gone (garbage-collected)", mg.generation, id);
          gap.reset();
          break;
        }
        bool gone = false;
        auto source = GenerationSource(store, root, mg.shard_id, *g, *spec.schema, pk, options,
                                       fmt::format("merged into the base; read for the index catch-up "
                                                   "gap instead of base fragments [{}]", fragments),
                                       &gone);
        if (!source.ok() && gone) {  // collected since the shard manifest was read
          why = fmt::format("index catch-up gap not read from the generations: generation {} of "
                            "shard {} is gone (garbage-collected)", mg.generation, id);
          gap.reset();
          break;
        }
        LANCE_RETURN_NOT_OK(source.status());
        gap_sources.push_back(std::move(*source));
      }
    }
    if (gap) {
      o.fragment_ids = gap->covered;
      LANCE_ASSIGN_OR_RAISE(base_rows, Scanner::Make(base, o));
      b.note = fmt::format("index catch-up gap of {}: base fragments [{}] (written by the merges "
                           "read above) are not read, only the fragments the index covers",
                           fmt::join(gap->indexes, ", "), fmt::format("{}", fmt::join(gap->uncovered, ", ")));
      spec.catchup_generations = static_cast<int64_t>(gap_sources.size());
      for (auto& g : gap_sources) newer.push_back(std::move(g));
    } else if (!why.empty()) {
      b.note += (b.note.empty() ? "" : "; ") + why;
    }
  }
  newer.push_back(std::make_shared<LsmSourceNode>(std::move(b), base_rows.plan().root()));
  return Plan(std::make_shared<LsmMergeNode>(std::move(spec), std::move(newer)));
}

}  // namespace

namespace internal {

Result<std::unique_ptr<RecordBatchReader>> OpenLsmPointLookups(std::shared_ptr<const LsmMergeNode> node,
                                                               const ExecOptions& /*options*/,
                                                               std::shared_ptr<LsmReadStats> stats) {
  const LsmMergeNode::Spec& spec = node->spec();
  LsmLookupStats ls;
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rows, LsmLookup(spec.store, spec.root, *spec.point_keys, spec.lookup, &ls));
  LsmReadStats st;
  st.point_keys = ls.keys;
  st.shards_pruned = ls.shards_pruned;
  st.tail_entries = ls.tail_entries;
  st.generations = ls.generations_probed;
  st.generation_rows = ls.generation_rows_taken;
  std::vector<RecordBatchPtr> out;
  if (rows->num_rows() > 0) {
    LANCE_ASSIGN_OR_RAISE(std::vector<int64_t> pass, spec.filter->EvaluateBatch(*rows));
    if (!pass.empty()) {
      if (static_cast<int64_t>(pass.size()) != rows->num_rows()) {
        LANCE_ASSIGN_OR_RAISE(rows, TakeRows(*rows, pass));
      }
      const int64_t start = std::min(spec.offset, rows->num_rows());
      int64_t len = rows->num_rows() - start;
      if (spec.limit) len = std::min(len, *spec.limit);
      if (len > 0) {
        LANCE_ASSIGN_OR_RAISE(RecordBatchPtr projected, internal::ProjectByName(*rows->Slice(start, len), spec.schema));
        st.result_rows = projected->num_rows();
        out.push_back(std::move(projected));
      }
    }
  }
  if (stats) *stats = st;
  return std::unique_ptr<RecordBatchReader>(new VectorRecordBatchReader(spec.schema, std::move(out)));
}

}  // namespace internal

Result<Plan> PlanLsmScan(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                         const memwal::LsmReadOptions& options) {
  constexpr int kAttempts = 8;
  for (int attempt = 1;; ++attempt) {
    bool vanished = false;
    Result<Plan> r = PlanOnce(store, root, options, &vanished);
    if (r.ok() || !vanished || attempt == kAttempts) return r;
  }
}

Result<std::vector<RecordBatchPtr>> LsmScan(const std::shared_ptr<io::ObjectStore>& store,
                                            const std::string& root, const memwal::LsmReadOptions& options,
                                            LsmReadStats* stats) {
  constexpr int kAttempts = 8;
  for (int attempt = 1;; ++attempt) {
    LANCE_ASSIGN_OR_RAISE(Plan plan, PlanLsmScan(store, root, options));
    auto st = std::make_shared<LsmReadStats>();
    Result<std::vector<RecordBatchPtr>> rows = [&]() -> Result<std::vector<RecordBatchPtr>> {
      LANCE_ASSIGN_OR_RAISE(auto reader, ExecuteLsmScan(plan, Planner::ExecOptionsOf(ScanOptions{}), st));
      return reader->ReadAll();
    }();
    // A source removed while it was read (garbage collection after a merge this plan did not
    // see): the newer state has its rows elsewhere; plan again.
    if (!rows.ok() && rows.status().IsNotFound() && attempt < kAttempts) continue;
    if (stats) *stats = *st;
    return rows;
  }
}

}  // namespace lance::query
