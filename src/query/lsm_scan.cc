// query::LsmScan (lsm_scan.h): the base table and every unmerged flushed generation read
// through the query layer's scan, the WAL tail from storage, newest row per key.
#include "lance/query/lsm_scan.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "lance/columnar/compute.h"
#include "lance/columnar/json.h"
#include "lance/expr/ast.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/memwal/shard_writer.h"
#include "lance/memwal/sharding.h"
#include "lance/memwal/wal.h"
#include "lance/query/filter.h"
#include "query/lsm_columns.h"
#include "lance/query/lsm_lookup.h"
#include "lance/query/scanner.h"

namespace lance::query {

using namespace memwal;  // NOLINT: the MemWAL model this read merges

namespace {

// Every row of `snap` (its columns, deleted rows skipped) through the query layer's scan.
Result<std::vector<RecordBatchPtr>> ScanAll(std::shared_ptr<const table::Snapshot> snap) {
  ScanOptions o;
  o.use_index = false;
  LANCE_ASSIGN_OR_RAISE(Scanner scanner, Scanner::Make(std::move(snap), std::move(o)));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  return reader->ReadAll();
}

struct Piece {
  RecordBatchPtr batch;
  ArrayPtr tombstone;  // null for base rows
};

Result<RecordBatchPtr> Project(const RecordBatch& b, const SchemaPtr& out) {
  std::vector<ArrayPtr> cols;
  for (const auto& f : out->fields()) {
    ArrayPtr c = b.GetColumnByName(f->name());
    if (!c) return Status::Corruption("an LSM source has no column '{}'", f->name());
    cols.push_back(std::move(c));
  }
  return RecordBatch::Make(out, b.num_rows(), std::move(cols));
}

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

// A filtered scan whose filter pins every primary-key column to a few values, answered as point
// lookups (shard pruning, bloom filters, _pk_index; lsm_lookup.h) of those keys, the whole
// filter then applied to each key's newest row -- the rows the full scan would return.
// nullopt when the filter pins no key.
Result<std::optional<std::vector<RecordBatchPtr>>> ScanByLookup(
    const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
    const table::Snapshot& base, const std::vector<std::string>& pk, const SchemaPtr& out_schema,
    const Filter& filter, const memwal::LsmReadOptions& options, LsmReadStats& st) {
  if (pk.empty()) return std::optional<std::vector<RecordBatchPtr>>();
  std::vector<FieldPtr> key_fields;
  for (const std::string& k : pk) {
    FieldPtr f = base.schema()->GetFieldByName(k);
    if (!f) return std::optional<std::vector<RecordBatchPtr>>();
    key_fields.push_back(std::move(f));
  }
  auto pinned = PinnedKeys(options.filter, key_fields);
  LANCE_RETURN_NOT_OK(pinned.status());  // (it bound as a filter, so it parses)
  if (!*pinned) return std::optional<std::vector<RecordBatchPtr>>();
  memwal::LsmReadOptions lo;
  lo.consistency = options.consistency;
  if (!options.columns.empty()) {
    lo.columns = options.columns;
    for (const auto& c : filter.columns()) {
      if (std::find(lo.columns.begin(), lo.columns.end(), c) == lo.columns.end()) lo.columns.push_back(c);
    }
  }
  LsmLookupStats ls;
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rows, LsmLookup(store, root, ***pinned, lo, &ls));
  st = {};
  st.point_keys = ls.keys;
  st.shards_pruned = ls.shards_pruned;
  st.tail_entries = ls.tail_entries;
  st.generations = ls.generations_probed;
  st.generation_rows = ls.generation_rows_taken;
  std::vector<RecordBatchPtr> out;
  if (rows->num_rows() == 0) return std::optional<std::vector<RecordBatchPtr>>(std::move(out));
  LANCE_ASSIGN_OR_RAISE(std::vector<int64_t> pass, filter.EvaluateBatch(*rows));
  if (!pass.empty()) {
    if (static_cast<int64_t>(pass.size()) != rows->num_rows()) {
      LANCE_ASSIGN_OR_RAISE(rows, TakeRows(*rows, pass));
    }
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr projected, Project(*rows, out_schema));
    st.result_rows = projected->num_rows();
    out.push_back(std::move(projected));
  }
  return std::optional<std::vector<RecordBatchPtr>>(std::move(out));
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

// One read of every source. `*vanished` is set when a source the read planned on went away
// under it (a generation directory or WAL entries garbage-collected after a merge or flush
// this read did not see): the caller reads again from the newer state.
//
// The newer sources (generations, WAL tail: small, bounded by the MemTable) are read whole and
// their newest row per key chosen; the base is scanned through the query layer with the filter
// pushed down (its indexes used), and a base row survives when no newer source holds its key.
// The filter then applies to the newer winners, so a newer row that fails it still hides the
// older base row that passes (last write wins before the filter, as the spec reads it).
Result<std::vector<RecordBatchPtr>> LsmScanOnce(const std::shared_ptr<io::ObjectStore>& store,
                                                const std::string& root,
                                                const memwal::LsmReadOptions& options,
                                                LsmReadStats& st, bool* vanished) {
  st = {};
  LANCE_ASSIGN_OR_RAISE(auto base, table::Snapshot::Open(store, root));
  LANCE_ASSIGN_OR_RAISE(SchemaPtr out_schema,
                        internal::LsmOutputSchema(base->schema(), options.columns, store->DisplayPath(root)));
  MemWalIndexDetails details;
  if (auto d = ReadMemWalDetails(*base); d.ok()) details = std::move(*d);
  const std::vector<std::string> pk = PrimaryKeyColumns(base->manifest());
  std::shared_ptr<const Filter> newer_filter;
  if (!options.filter.empty()) {
    LANCE_ASSIGN_OR_RAISE(newer_filter, Filter::MakeForBatch(options.filter, base->schema()));
    LANCE_ASSIGN_OR_RAISE(auto looked_up,
                          ScanByLookup(store, root, *base, pk, out_schema, *newer_filter, options, st));
    if (looked_up) return std::move(*looked_up);
  }

  std::vector<Piece> pieces;  // the newer sources, oldest first
  LANCE_ASSIGN_OR_RAISE(std::vector<Uuid> shards, ListShards(*store, root));
  std::map<uint32_t, std::optional<std::vector<ShardTarget>>> filter_shards;  // by spec id
  for (const Uuid& shard : shards) {
    ShardManifestStore manifests(store, root, shard);
    LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> m, manifests.Latest());
    if (!m) continue;
    if (!options.filter.empty()) {
      auto targets = filter_shards.find(m->shard_spec_id);
      if (targets == filter_shards.end()) {
        LANCE_ASSIGN_OR_RAISE(auto t, FilterShards(options.filter, details, m->shard_spec_id, *base->schema(), pk));
        targets = filter_shards.emplace(m->shard_spec_id, std::move(t)).first;
      }
      if (targets->second && std::none_of(targets->second->begin(), targets->second->end(),
                                          [&](const ShardTarget& t) { return ShardMayHold(*m, t); })) {
        ++st.shards_pruned;  // no row of this shard can pass the filter
        continue;
      }
    }
    const uint64_t merged = details.MergedGenerationOf(shard);
    std::vector<FlushedGeneration> gens = m->flushed_generations;
    std::sort(gens.begin(), gens.end(),
              [](const auto& a, const auto& b) { return a.generation < b.generation; });
    for (const FlushedGeneration& g : gens) {
      if (g.generation <= merged) {
        ++st.skipped_merged;
        continue;
      }
      auto snap = OpenGeneration(store, root, shard, g);
      if (snap.status().IsNotFound()) *vanished = true;
      LANCE_RETURN_NOT_OK(snap.status());
      auto scanned = ScanAll(*snap);
      if (scanned.status().IsNotFound()) *vanished = true;
      LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> rows, std::move(scanned));
      ++st.generations;
      for (auto& b : rows) {
        st.generation_rows += b->num_rows();
        ArrayPtr t = b->GetColumnByName(kTombstoneColumn);
        pieces.push_back({std::move(b), std::move(t)});
      }
    }
    if (options.consistency == Consistency::kStrong) {
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
      for (auto& e : tail) {
        ++st.tail_entries;
        for (auto& b : e.batches) {
          st.tail_rows += b->num_rows();
          ArrayPtr t = b->GetColumnByName(kTombstoneColumn);
          pieces.push_back({std::move(b), std::move(t)});
        }
      }
    }
  }

  // Winners among the newer sources: the newest row of each key (append-only: every row).
  std::optional<PrimaryKeyEncoder> enc;
  if (!pk.empty()) {
    LANCE_ASSIGN_OR_RAISE(PrimaryKeyEncoder e, PrimaryKeyEncoder::Make(*base->schema(), pk));
    enc.emplace(std::move(e));
  }
  std::vector<std::vector<int64_t>> keep(pieces.size());
  std::unordered_map<std::string, std::pair<uint32_t, uint32_t>> newest;
  if (!enc) {
    for (size_t p = 0; p < pieces.size(); ++p) {
      for (int64_t r = 0; r < pieces[p].batch->num_rows(); ++r) keep[p].push_back(r);
    }
  } else {
    std::string key;
    for (size_t p = 0; p < pieces.size(); ++p) {
      LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc->KeyColumns(*pieces[p].batch));
      for (int64_t r = 0; r < pieces[p].batch->num_rows(); ++r) {
        key.clear();
        enc->Encode(cols, r, &key);
        newest.insert_or_assign(key, std::make_pair(static_cast<uint32_t>(p), static_cast<uint32_t>(r)));
      }
    }
    for (const auto& [k, loc] : newest) keep[loc.first].push_back(loc.second);
    for (auto& rows : keep) std::sort(rows.begin(), rows.end());
  }

  // The base: filtered in the scan, then every row whose key a newer source holds dropped.
  std::vector<RecordBatchPtr> out;
  {
    ScanOptions o;
    o.use_index = true;
    o.filter = options.filter;
    for (const auto& f : out_schema->fields()) o.columns.push_back(f->name());
    for (const auto& k : pk) {
      if (std::find(o.columns.begin(), o.columns.end(), k) == o.columns.end()) o.columns.push_back(k);
    }
    LANCE_ASSIGN_OR_RAISE(Scanner scanner, Scanner::Make(base, std::move(o)));
    LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
    std::string key;
    while (true) {
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->Next());
      if (!b) break;
      st.base_rows += b->num_rows();
      if (!newest.empty()) {
        LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc->KeyColumns(*b));
        std::vector<int64_t> rows;
        rows.reserve(static_cast<size_t>(b->num_rows()));
        for (int64_t r = 0; r < b->num_rows(); ++r) {
          key.clear();
          enc->Encode(cols, r, &key);
          if (!newest.count(key)) rows.push_back(r);
        }
        if (rows.empty()) continue;
        if (static_cast<int64_t>(rows.size()) != b->num_rows()) {
          LANCE_ASSIGN_OR_RAISE(b, TakeRows(*b, rows));
        }
      }
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr projected, Project(*b, out_schema));
      st.result_rows += projected->num_rows();
      out.push_back(std::move(projected));
    }
  }
  for (size_t p = 0; p < pieces.size(); ++p) {
    std::vector<int64_t>& rows = keep[p];
    if (const ArrayPtr& t = pieces[p].tombstone) {
      rows.erase(std::remove_if(rows.begin(), rows.end(),
                                [&](int64_t r) { return !t->IsNull(r) && t->BoolValue(r); }),
                 rows.end());
    }
    if (rows.empty()) continue;
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr taken, TakeRows(*pieces[p].batch, rows));
    if (newer_filter) {
      LANCE_ASSIGN_OR_RAISE(std::vector<int64_t> pass, newer_filter->EvaluateBatch(*taken));
      if (pass.empty()) continue;
      if (static_cast<int64_t>(pass.size()) != taken->num_rows()) {
        LANCE_ASSIGN_OR_RAISE(taken, TakeRows(*taken, pass));
      }
    }
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr projected, Project(*taken, out_schema));
    st.result_rows += projected->num_rows();
    out.push_back(std::move(projected));
  }
  return out;
}

}  // namespace

Result<std::vector<RecordBatchPtr>> LsmScan(const std::shared_ptr<io::ObjectStore>& store,
                                            const std::string& root, const memwal::LsmReadOptions& options,
                                            LsmReadStats* stats) {
  LsmReadStats local;
  LsmReadStats& st = stats ? *stats : local;
  constexpr int kAttempts = 8;
  for (int attempt = 1;; ++attempt) {
    bool vanished = false;
    Result<std::vector<RecordBatchPtr>> r = LsmScanOnce(store, root, options, st, &vanished);
    if (r.ok() || !vanished || attempt == kAttempts) return r;
  }
}

}  // namespace lance::query
