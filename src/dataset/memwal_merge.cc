// dataset::MergeMemWalGenerations (memwal_merge.h): a generation's rows and the base's keys
// read through the query layer, the base rows it replaces deleted, its live rows written as
// new fragments, one Update that also moves merged_generations.
#include "lance/dataset/memwal_merge.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "lance/columnar/compute.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/enable.h"
#include "lance/memwal/index_details.h"
#include "lance/memwal/lsm_read.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/memwal/wal.h"
#include "lance/query/scanner.h"
#include "lance/table/commit.h"
#include "lance/table/deletion.h"
#include "lance/table/write.h"

namespace lance::dataset {

using namespace memwal;  // NOLINT: the MemWAL model this merge applies

namespace {

enum class Outcome { kMerged, kSkipped };

// `columns` (empty: all) of every live row of `snap`, through the query layer's scan.
Result<std::vector<RecordBatchPtr>> ScanAll(std::shared_ptr<const table::Snapshot> snap,
                                            std::vector<std::string> columns = {}) {
  query::ScanOptions o;
  o.columns = std::move(columns);
  o.use_index = false;
  LANCE_ASSIGN_OR_RAISE(query::Scanner scanner, query::Scanner::Make(std::move(snap), std::move(o)));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  return reader->ReadAll();
}

Result<RecordBatchPtr> ProjectTo(const RecordBatch& b, const SchemaPtr& out) {
  std::vector<ArrayPtr> cols;
  for (const auto& f : out->fields()) {
    ArrayPtr c = b.GetColumnByName(f->name());
    if (!c) return Status::Corruption("a flushed generation has no column '{}'", f->name());
    cols.push_back(std::move(c));
  }
  return RecordBatch::Make(out, b.num_rows(), std::move(cols));
}

// One attempt at merging generation `g` of `shard` (see merge.h).
Result<Outcome> MergeOne(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                         const Uuid& shard, const FlushedGeneration& g, MergeReport::Merged* out) {
  table::TableLocation loc(store, root);
  LANCE_ASSIGN_OR_RAISE(auto base, table::Snapshot::Open(loc));
  LANCE_ASSIGN_OR_RAISE(MemWalIndexDetails details, ReadMemWalDetails(*base));
  if (details.MergedGenerationOf(shard) >= g.generation) return Outcome::kSkipped;
  // Append-only (no primary key): the generation's rows are appended as they are, no base row
  // is replaced (mem_wal.md: such tables concatenate without dedup).
  const std::vector<std::string> pk = PrimaryKeyColumns(base->manifest());
  std::optional<PrimaryKeyEncoder> enc;
  if (!pk.empty()) {
    LANCE_ASSIGN_OR_RAISE(PrimaryKeyEncoder e, PrimaryKeyEncoder::Make(*base->schema(), pk));
    enc.emplace(std::move(e));
  }
  LANCE_ASSIGN_OR_RAISE(auto gen, OpenGeneration(store, root, shard, g));
  LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> gen_rows, ScanAll(gen));

  std::unordered_set<std::string> keys;
  std::vector<RecordBatchPtr> upserts;
  for (const auto& b : gen_rows) {
    if (enc) {
      LANCE_ASSIGN_OR_RAISE(std::vector<std::string> k, enc->EncodeAll(*b));
      for (auto& x : k) keys.insert(std::move(x));
    }
    ArrayPtr t = b->GetColumnByName(kTombstoneColumn);
    std::vector<int64_t> live;
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      if (!t || t->IsNull(r) || !t->BoolValue(r)) live.push_back(r);
    }
    if (live.empty()) continue;
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr taken, TakeRows(*b, live));
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr p, ProjectTo(*taken, base->schema()));
    out->rows_upserted += p->num_rows();
    upserts.push_back(std::move(p));
  }

  // The base rows the generation replaces or deletes.
  std::vector<uint64_t> addresses;
  if (enc) {
    std::vector<std::string> key_columns = pk;
    key_columns.push_back(query::kRowAddrColumn);
    LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> base_keys, ScanAll(base, key_columns));
    std::string key;
    for (const auto& b : base_keys) {
      LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc->KeyColumns(*b));
      ArrayPtr addr = b->GetColumnByName("_rowaddr");
      if (!addr) return Status::Internal("base scan returned no _rowaddr");
      for (int64_t r = 0; r < b->num_rows(); ++r) {
        key.clear();
        enc->Encode(cols, r, &key);
        if (keys.count(key)) addresses.push_back(addr->Values<uint64_t>()[r]);
      }
    }
  }
  out->rows_deleted = static_cast<int64_t>(addresses.size());

  table::StagedFiles staged(loc);
  LANCE_ASSIGN_OR_RAISE(table::StagedDeletions dels,
                        table::StageDeletions(staged, *base, std::move(addresses)));
  table::Transaction::Update u;
  u.updated_fragments = std::move(dels.updated_fragments);
  u.removed_fragment_ids = std::move(dels.removed_fragment_ids);
  u.rebase = std::move(dels.rebase);
  if (!upserts.empty()) {
    LANCE_ASSIGN_OR_RAISE(u.new_fragments, table::WriteFragments(staged, base->manifest(),
                                                                 base->schema(), upserts,
                                                                 int64_t{1} << 20));
  }
  u.compacted_sstables.push_back(EncodeMergedGeneration({shard, g.generation}));
  table::Transaction txn;
  txn.read_version = base->version();
  txn.operation = std::move(u);

  table::CommitOptions co;
  co.amend = [&](table::Manifest* m) -> Status {
    return memwal::UpdateMemWalDetails(m, root, [&](MemWalIndexDetails* d) -> Status {
      if (d->MergedGenerationOf(shard) >= g.generation) {
        return Status::AlreadyExists("shard {}: generation {} is already merged",
                                     shard.ToString(), g.generation);
      }
      d->RecordMerge(shard, g.generation, !upserts.empty());
      bool found = false;
      for (auto& mg : d->merged_generations) {
        if (mg.shard_id == shard) {
          mg.generation = g.generation;
          found = true;
        }
      }
      if (!found) d->merged_generations.push_back({shard, g.generation});
      return Status::OK();
    });
  };
  Result<table::CommitInfo> info = table::CommitTransaction(loc, std::move(txn), co, &staged);
  if (!info.ok() && info.status().IsAlreadyExists()) return Outcome::kSkipped;
  LANCE_RETURN_NOT_OK(info.status());
  out->version = info->version;
  return Outcome::kMerged;
}

}  // namespace

Result<MergeReport> MergeMemWalGenerations(const std::shared_ptr<io::ObjectStore>& store,
                                           const std::string& root,
                                           const std::optional<Uuid>& only_shard,
                                           int64_t max_generations) {
  MergeReport report;
  std::vector<Uuid> shards;
  if (only_shard) {
    shards.push_back(*only_shard);
  } else {
    LANCE_ASSIGN_OR_RAISE(shards, ListShards(*store, root));
  }
  int64_t done = 0;
  for (const Uuid& shard : shards) {
    ShardManifestStore manifests(store, root, shard);
    LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> m, manifests.Latest());
    if (!m) continue;
    std::vector<FlushedGeneration> gens = m->flushed_generations;
    std::sort(gens.begin(), gens.end(),
              [](const auto& a, const auto& b) { return a.generation < b.generation; });
    for (const FlushedGeneration& g : gens) {
      if (max_generations > 0 && done >= max_generations) return report;
      for (int attempt = 0;; ++attempt) {
        MergeReport::Merged merged;
        merged.shard = shard;
        merged.generation = g.generation;
        Result<Outcome> r = MergeOne(store, root, shard, g, &merged);
        if (!r.ok() && r.status().IsRetryable() && attempt < 16) continue;
        LANCE_RETURN_NOT_OK(r.status());
        if (*r == Outcome::kSkipped) ++report.skipped;
        if (*r == Outcome::kMerged) {
          report.merged.push_back(merged);
          ++done;
        }
        break;
      }
    }
  }
  return report;
}

}  // namespace lance::dataset
