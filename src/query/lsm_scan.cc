// query::LsmScan (lsm_scan.h): the base table and every unmerged flushed generation read
// through the query layer's scan, the WAL tail from storage, newest row per key.
#include "lance/query/lsm_scan.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "lance/columnar/compute.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/memwal/shard_writer.h"
#include "lance/memwal/wal.h"
#include "lance/query/filter.h"
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
  SchemaPtr out_schema = base->schema();
  if (!options.columns.empty()) {
    std::vector<FieldPtr> fields;
    for (const auto& c : options.columns) {
      FieldPtr f = base->schema()->GetFieldByName(c);
      if (!f) return Status::InvalidArgument("{}: no column '{}'", store->DisplayPath(root), c);
      fields.push_back(f);
    }
    out_schema = std::make_shared<Schema>(std::move(fields));
  }
  MemWalIndexDetails details;
  if (auto d = ReadMemWalDetails(*base); d.ok()) details = std::move(*d);
  const std::vector<std::string> pk = PrimaryKeyColumns(base->manifest());
  std::shared_ptr<const Filter> newer_filter;
  if (!options.filter.empty()) {
    LANCE_ASSIGN_OR_RAISE(newer_filter, Filter::MakeForBatch(options.filter, base->schema()));
  }

  std::vector<Piece> pieces;  // the newer sources, oldest first
  LANCE_ASSIGN_OR_RAISE(std::vector<Uuid> shards, ListShards(*store, root));
  for (const Uuid& shard : shards) {
    ShardManifestStore manifests(store, root, shard);
    LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> m, manifests.Latest());
    if (!m) continue;
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
