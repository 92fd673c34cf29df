// query::LsmLookup (lsm_lookup.h): point lookups by primary key over the WAL tail, the flushed
// generations (bloom filter, then _pk_index) and the base table, newest source first.
#include "lance/query/lsm_lookup.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "lance/columnar/compute.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/value.h"
#include "lance/memwal/bloom_filter.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/memwal_writer.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/memwal/shard_writer.h"
#include "lance/memwal/sharding.h"
#include "lance/memwal/wal.h"
#include "lance/query/scanner.h"
#include "query/lsm_columns.h"

namespace lance::query {

using namespace memwal;  // NOLINT: the MemWAL model this lookup reads

namespace {

namespace sc = index::scalar;

// The distinct keys of a lookup and where each was answered.
struct KeySet {
  RecordBatchPtr batch;            // one row per distinct key (the caller's key columns)
  std::vector<ArrayPtr> columns;   // its key columns, in key order
  std::vector<std::string> bytes;  // the tuple encoding of each key
  std::unordered_map<std::string, size_t> index;
  // Per key: the piece and row of its newest row; piece -1 = not answered yet.
  std::vector<std::pair<int, int64_t>> winner;
  std::vector<bool> tombstone;

  bool answered(size_t k) const { return winner[k].first >= 0; }
};

bool IsTombstone(const RecordBatch& b, int64_t row) {
  ArrayPtr t = b.GetColumnByName(kTombstoneColumn);
  return t && !t->IsNull(row) && t->BoolValue(row);
}

// Records row `row` of `piece` as the answer for every key in `want` it holds (keys already
// answered are left alone: the caller visits sources newest first, rows newest last).
Status Answer(const PrimaryKeyEncoder& enc, const RecordBatchPtr& batch, int piece,
              const std::unordered_map<std::string, size_t>& want, KeySet* ks,
              int64_t* answered, bool newest_last) {
  LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc.KeyColumns(*batch));
  std::string key;
  for (int64_t r = 0; r < batch->num_rows(); ++r) {
    key.clear();
    enc.Encode(cols, r, &key);
    auto it = want.find(key);
    if (it == want.end()) continue;
    const size_t k = it->second;
    if (ks->answered(k) && !newest_last) continue;
    if (!ks->answered(k)) ++*answered;
    ks->winner[k] = {piece, r};
    ks->tombstone[k] = IsTombstone(*batch, r);
  }
  return Status::OK();
}

// An IN filter over a one-column key of an integer or string type (nullopt otherwise: the
// caller matches a scan of the key columns instead).
std::optional<std::string> InFilter(const std::string& column, const Array& keys,
                                    const std::vector<size_t>& which) {
  const TypeId id = keys.type_id();
  const bool ints = id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 ||
                    id == TypeId::kInt64 || id == TypeId::kUInt8 || id == TypeId::kUInt16 ||
                    id == TypeId::kUInt32;
  const bool strings = id == TypeId::kString || id == TypeId::kLargeString;
  if (!ints && !strings) return std::nullopt;
  std::string quoted;
  for (char c : column) {
    if (c == '`') return std::nullopt;
    quoted.push_back(c);
  }
  std::string f = fmt::format("`{}` IN (", quoted);
  for (size_t i = 0; i < which.size(); ++i) {
    const int64_t r = static_cast<int64_t>(which[i]);
    if (keys.IsNull(r)) return std::nullopt;
    if (i > 0) f += ", ";
    if (ints) {
      const sc::ScalarValue v = sc::ValueAt(keys, r);
      f += v.kind() == sc::ScalarValue::Kind::kUInt ? std::to_string(v.uint_value())
                                                    : std::to_string(v.int_value());
    } else {
      f.push_back('\'');
      for (char c : keys.GetView(r)) {
        if (c == '\0') return std::nullopt;
        if (c == '\'') f.push_back('\'');
        f.push_back(c);
      }
      f.push_back('\'');
    }
  }
  f += ")";
  return f;
}

struct Lookup {
  const std::shared_ptr<io::ObjectStore>& store;
  const std::string& root;
  const LsmReadOptions& options;
  LsmLookupStats& st;
  bool* vanished;

  std::shared_ptr<const table::Snapshot> base;
  std::optional<PrimaryKeyEncoder> enc;
  MemWalIndexDetails details;
  KeySet ks;
  std::vector<RecordBatchPtr> pieces;

  int AddPiece(RecordBatchPtr b) {
    pieces.push_back(std::move(b));
    return static_cast<int>(pieces.size()) - 1;
  }

  std::unordered_map<std::string, size_t> Pending(const std::vector<size_t>& keys) const {
    std::unordered_map<std::string, size_t> m;
    for (size_t k : keys) {
      if (!ks.answered(k)) m.emplace(ks.bytes[k], k);
    }
    return m;
  }

  // The shard each distinct key routes to under spec `spec_id`; nullopt when that spec cannot
  // route a key from its key columns (unknown spec, a source column that is not a key column).
  std::optional<std::vector<ShardTarget>> Route(uint32_t spec_id) const {
    const ShardingSpec* spec = details.FindSpec(spec_id);
    if (!spec) return std::nullopt;
    auto router = ShardRouter::Make(*spec, *base->schema());
    if (!router.ok()) return std::nullopt;
    auto routing = router->Route(*ks.batch);
    if (!routing.ok()) return std::nullopt;
    std::vector<ShardTarget> out;
    out.reserve(routing->row_shard.size());
    for (uint32_t s : routing->row_shard) out.push_back(routing->shards[s]);
    return out;
  }

  // A live writer's MemTables (oldest first, taken before the shard manifest was read): each
  // pending key's newest row there, a newer MemTable's answer replacing an older one's.
  Status SearchMemTables(const std::vector<std::shared_ptr<const MemTable>>& memtables,
                         const std::vector<size_t>& mine) {
    const auto want = Pending(mine);
    for (const auto& mt : memtables) {
      ++st.memtables;
      std::unordered_map<const RecordBatch*, int> piece_of;
      for (const auto& [key, k] : want) {
        auto hit = mt->Lookup(key);
        if (!hit) continue;
        auto [it, fresh] = piece_of.try_emplace(hit->first.get(), 0);
        if (fresh) it->second = AddPiece(hit->first);
        if (!ks.answered(k)) ++st.keys_from_memtables;
        ks.winner[k] = {it->second, hit->second};
        ks.tombstone[k] = IsTombstone(*hit->first, hit->second);
      }
    }
    return Status::OK();
  }

  Status SearchTail(const Uuid& shard, ShardManifestStore& manifests, const ShardManifest& m,
                    const std::vector<size_t>& mine) {
    LANCE_ASSIGN_OR_RAISE(std::vector<WalEntry> tail, ReadUnflushedTail(store, root, shard, m));
    LANCE_ASSIGN_OR_RAISE(uint64_t now_version, manifests.LatestVersion());
    if (now_version != m.version) {
      *vanished = true;
      return Status::NotFound("{}: shard {} moved from manifest version {} to {} while its WAL "
                              "tail was read",
                              store->DisplayPath(root), shard.ToString(), m.version, now_version);
    }
    const auto want = Pending(mine);
    for (auto& e : tail) {
      ++st.tail_entries;
      for (auto& b : e.batches) {
        // Newest last: a later row of the tail replaces an earlier answer.
        const int p = AddPiece(b);
        LANCE_RETURN_NOT_OK(Answer(*enc, b, p, want, &ks, &st.keys_from_tail, true));
      }
    }
    return Status::OK();
  }

  // The candidate row positions of `keys` in a generation's _pk_index; nullopt when it has none
  // (or a key it cannot be searched for): the caller reads the whole generation.
  Result<std::optional<std::vector<uint64_t>>> ProbePkIndex(const std::string& dir,
                                                            const std::vector<size_t>& keys) {
    auto pk_store = index::IndexStore::Make(store, dir + "/_pk_index");
    auto btree = sc::OpenBTreeIndex(pk_store);
    if (btree.status().IsNotFound()) return std::optional<std::vector<uint64_t>>{};
    LANCE_RETURN_NOT_OK(btree.status());
    std::vector<sc::ScalarValue> values;
    values.reserve(keys.size());
    for (size_t k : keys) {
      if (ks.columns.size() == 1) {
        if (ks.columns[0]->IsNull(static_cast<int64_t>(k))) return std::optional<std::vector<uint64_t>>{};
        values.push_back(sc::ValueAt(*ks.columns[0], static_cast<int64_t>(k)));
      } else {
        values.push_back(sc::ScalarValue::Bytes(ks.bytes[k]));
      }
    }
    sc::SearchOptions so;
    (*btree)->fill_null_rows = false;
    LANCE_ASSIGN_OR_RAISE(sc::SearchResult r, (*btree)->Search(sc::ScalarQuery::In(std::move(values)), so));
    return std::optional<std::vector<uint64_t>>(r.rows.ToVector());
  }

  Status SearchGeneration(const Uuid& shard, const FlushedGeneration& g,
                          const std::vector<size_t>& mine) {
    std::vector<size_t> remaining;
    for (size_t k : mine) {
      if (!ks.answered(k)) remaining.push_back(k);
    }
    if (remaining.empty()) return Status::OK();
    const std::string dir = ShardDirectory(root, shard) + "/" + g.path;
    std::vector<size_t> candidates;
    auto bloom_bytes = store->Get(dir + "/bloom_filter.bin");
    if (bloom_bytes.ok()) {
      LANCE_ASSIGN_OR_RAISE(PrimaryKeyBloomFilter bloom,
                            PrimaryKeyBloomFilter::Deserialize((*bloom_bytes)->view(), dir + "/bloom_filter.bin"));
      for (size_t k : remaining) {
        LANCE_ASSIGN_OR_RAISE(bool maybe, bloom.MightContain(ks.columns, static_cast<int64_t>(k)));
        if (maybe) candidates.push_back(k);
      }
    } else if (bloom_bytes.status().IsNotFound()) {
      // A generation without the sidecar (the reference always writes one; a GC may have
      // removed the directory, which the open below reports).
      candidates = remaining;
    } else {
      return bloom_bytes.status();
    }
    if (candidates.empty()) {
      ++st.generations_skipped;
      return Status::OK();
    }
    ++st.generations_probed;
    auto snap = OpenGeneration(store, root, shard, g);
    if (snap.status().IsNotFound()) *vanished = true;
    LANCE_RETURN_NOT_OK(snap.status());
    ScanOptions so;
    so.use_index = false;
    LANCE_ASSIGN_OR_RAISE(Scanner scanner, Scanner::Make(*snap, so));
    LANCE_ASSIGN_OR_RAISE(std::optional<std::vector<uint64_t>> positions,
                          ProbePkIndex(dir, candidates));
    std::vector<RecordBatchPtr> rows;
    if (positions) {
      if (positions->empty()) return Status::OK();
      const auto& frags = (*snap)->manifest().fragments;
      const uint64_t frag = frags.empty() ? 0 : frags[0].id;
      for (uint64_t& p : *positions) p |= frag << 32;
      // Row ids of live rows only: the older duplicates the deletion vector hides are skipped.
      LANCE_ASSIGN_OR_RAISE(auto reader, scanner.TakeRowIds(std::move(*positions)));
      LANCE_ASSIGN_OR_RAISE(rows, reader->ReadAll());
    } else {
      LANCE_ASSIGN_OR_RAISE(rows, scanner.ToBatches());
    }
    std::vector<size_t> cand_sorted = candidates;
    const auto want = Pending(cand_sorted);
    for (auto& b : rows) {
      st.generation_rows_taken += b->num_rows();
      const int p = AddPiece(b);
      LANCE_RETURN_NOT_OK(Answer(*enc, b, p, want, &ks, &st.keys_from_generations, false));
    }
    return Status::OK();
  }

  Status SearchBase(const std::vector<std::string>& pk, const std::vector<std::string>& columns) {
    std::vector<size_t> remaining;
    for (size_t k = 0; k < ks.bytes.size(); ++k) {
      if (!ks.answered(k)) remaining.push_back(k);
    }
    if (remaining.empty()) return Status::OK();
    st.keys_from_base = static_cast<int64_t>(remaining.size());
    ScanOptions so;
    so.columns = columns;
    if (pk.size() == 1) {
      if (auto f = InFilter(pk[0], *ks.columns[0], remaining)) so.filter = *f;
    }
    LANCE_ASSIGN_OR_RAISE(Scanner scanner, Scanner::Make(base, so));
    LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
    const auto want = Pending(remaining);
    int64_t found = 0;
    while (true) {
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->Next());
      if (!b) break;
      const int p = AddPiece(b);
      LANCE_RETURN_NOT_OK(Answer(*enc, b, p, want, &ks, &found, false));
    }
    return Status::OK();
  }

  Result<RecordBatchPtr> Run(const RecordBatch& keys) {
    st = {};
    if (!options.filter.empty()) {
      return Status::InvalidArgument("{}: point lookups take no filter ('{}'): filter the rows "
                                     "they return, or use an LSM scan with the filter",
                                     store->DisplayPath(root), options.filter);
    }
    LANCE_ASSIGN_OR_RAISE(base, table::Snapshot::Open(store, root));
    const std::vector<std::string> pk = PrimaryKeyColumns(base->manifest());
    if (pk.empty()) {
      return Status::InvalidArgument("{}: point lookups need a primary key, and this table has "
                                     "none (an append-only MemWAL table: use a scan)",
                                     store->DisplayPath(root));
    }
    LANCE_ASSIGN_OR_RAISE(SchemaPtr out_schema,
                          internal::LsmOutputSchema(base->schema(), options.columns, store->DisplayPath(root)));
    // What the base scan reads: the output columns and the key columns.
    std::vector<std::string> base_columns;
    for (const auto& f : out_schema->fields()) base_columns.push_back(f->name());
    for (const auto& k : pk) {
      if (std::find(base_columns.begin(), base_columns.end(), k) == base_columns.end()) {
        base_columns.push_back(k);
      }
    }
    LANCE_ASSIGN_OR_RAISE(PrimaryKeyEncoder e, PrimaryKeyEncoder::Make(*base->schema(), pk));
    enc.emplace(std::move(e));
    if (auto d = ReadMemWalDetails(*base); d.ok()) details = std::move(*d);

    // The distinct keys, in order of first appearance.
    LANCE_ASSIGN_OR_RAISE(std::vector<std::string> all, enc->EncodeAll(keys));
    std::vector<int64_t> first;
    for (size_t r = 0; r < all.size(); ++r) {
      if (ks.index.emplace(all[r], ks.bytes.size()).second) {
        ks.bytes.push_back(std::move(all[r]));
        first.push_back(static_cast<int64_t>(r));
      }
    }
    LANCE_ASSIGN_OR_RAISE(ks.batch, TakeRows(keys, first));
    LANCE_ASSIGN_OR_RAISE(ks.columns, enc->KeyColumns(*ks.batch));
    ks.winner.assign(ks.bytes.size(), {-1, 0});
    ks.tombstone.assign(ks.bytes.size(), false);
    st.keys = static_cast<int64_t>(ks.bytes.size());

    // The live writers' MemTables, taken before any shard manifest is read: a flush after this
    // point leaves its rows both here and in a generation the manifest lists, never in neither.
    struct Live {
      uint64_t epoch = 0;
      std::vector<std::shared_ptr<const MemTable>> memtables;  // oldest first
    };
    std::map<std::string, Live> live;
    if (options.consistency == Consistency::kStrong) {
      for (const MemWalWriter* w : options.live_writers) {
        live[w->shard_id().ToString()] = Live{w->epoch(), w->MemTables()};
      }
    }
    LANCE_ASSIGN_OR_RAISE(std::vector<Uuid> shards, ListShards(*store, root));
    std::map<uint32_t, std::optional<std::vector<ShardTarget>>> routes;
    for (const Uuid& shard : shards) {
      ShardManifestStore manifests(store, root, shard);
      LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> m, manifests.Latest());
      if (!m) continue;
      auto route = routes.find(m->shard_spec_id);
      if (route == routes.end()) route = routes.emplace(m->shard_spec_id, Route(m->shard_spec_id)).first;
      std::vector<size_t> mine;
      for (size_t k = 0; k < ks.bytes.size(); ++k) {
        if (!ks.answered(k) && (!route->second || ShardMayHold(*m, (*route->second)[k]))) mine.push_back(k);
      }
      if (mine.empty()) {
        ++st.shards_pruned;
        continue;
      }
      ++st.shards_searched;
      if (options.consistency == Consistency::kStrong) {
        const auto w = live.find(shard.ToString());
        if (w != live.end() && w->second.epoch == m->writer_epoch) {
          LANCE_RETURN_NOT_OK(SearchMemTables(w->second.memtables, mine));
        } else {
          LANCE_RETURN_NOT_OK(SearchTail(shard, manifests, *m, mine));
        }
      }
      const uint64_t merged = details.MergedGenerationOf(shard);
      std::vector<FlushedGeneration> gens = m->flushed_generations;
      std::sort(gens.begin(), gens.end(),
                [](const auto& a, const auto& b) { return a.generation > b.generation; });
      for (const FlushedGeneration& g : gens) {
        if (g.generation <= merged) break;
        LANCE_RETURN_NOT_OK(SearchGeneration(shard, g, mine));
      }
    }
    LANCE_RETURN_NOT_OK(SearchBase(pk, base_columns));

    // One row per found key, in key order: each piece's winning rows taken and projected,
    // concatenated, then put in key order.
    std::vector<std::vector<int64_t>> rows_of(pieces.size());
    std::vector<std::pair<int, size_t>> slot(ks.bytes.size(), {-1, 0});
    for (size_t k = 0; k < ks.bytes.size(); ++k) {
      if (!ks.answered(k) || ks.tombstone[k]) continue;
      const auto [p, r] = ks.winner[k];
      slot[k] = {p, rows_of[static_cast<size_t>(p)].size()};
      rows_of[static_cast<size_t>(p)].push_back(r);
    }
    std::vector<RecordBatchPtr> parts;
    std::vector<int64_t> part_offset(pieces.size(), 0);
    int64_t total = 0;
    for (size_t p = 0; p < pieces.size(); ++p) {
      if (rows_of[p].empty()) continue;
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr taken, TakeRows(*pieces[p], rows_of[p]));
      std::vector<ArrayPtr> cols;
      for (const auto& f : out_schema->fields()) {
        ArrayPtr c = taken->GetColumnByName(f->name());
        if (!c) return Status::Corruption("{}: an LSM source has no column '{}'", store->DisplayPath(root), f->name());
        cols.push_back(std::move(c));
      }
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr projected,
                            RecordBatch::Make(out_schema, taken->num_rows(), std::move(cols)));
      part_offset[p] = total;
      total += projected->num_rows();
      parts.push_back(std::move(projected));
    }
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr all_rows, ConcatenateBatches(out_schema, parts));
    std::vector<int64_t> order;
    for (size_t k = 0; k < ks.bytes.size(); ++k) {
      if (slot[k].first < 0) continue;
      order.push_back(part_offset[static_cast<size_t>(slot[k].first)] + static_cast<int64_t>(slot[k].second));
    }
    st.found = static_cast<int64_t>(order.size());
    return TakeRows(*all_rows, order);
  }
};

}  // namespace

Result<RecordBatchPtr> LsmLookup(const std::shared_ptr<io::ObjectStore>& store,
                                 const std::string& root, const RecordBatch& keys,
                                 const memwal::LsmReadOptions& options, LsmLookupStats* stats) {
  LsmLookupStats local;
  LsmLookupStats& st = stats ? *stats : local;
  constexpr int kAttempts = 8;
  for (int attempt = 1;; ++attempt) {
    bool vanished = false;
    Lookup lookup{store, root, options, st, &vanished, {}, {}, {}, {}, {}};
    Result<RecordBatchPtr> r = lookup.Run(keys);
    if (r.ok() || !vanished || attempt == kAttempts) return r;
  }
}

}  // namespace lance::query
