// MemWAL commands (`lance lsm ...`): turn the LSM write path on (enable), stream upserts and
// deletes through shard writers (write: WAL durability, MemTable, flushes), flush, merge
// generations into the base, read base + generations (+ the WAL tail), and inspect the state
// (status, spec, shards, manifests, WAL entries, the unflushed tail, routing). A `write`
// without --flush leaves its rows durable in the WAL, unflushed, like a reference writer that
// exits without closing: the next writer, `lsm flush` or a strong read replays them.
#include <charconv>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/input_files.h"
#include "cli/lsm_common.h"
#include "lance/columnar/json.h"
#include "lance/io/object_store.h"
#include "lance/memwal/index_details.h"
#include "lance/memwal/enable.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/lsm_read.h"
#include "lance/memwal/memwal_writer.h"
#include "lance/dataset/memwal_gc.h"
#include "lance/dataset/memwal_merge.h"
#include "lance/query/lsm_lookup.h"
#include "lance/query/lsm_scan.h"
#include "lance/query/lsm_plan.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/memwal/shard_writer.h"
#include "lance/memwal/sharding.h"
#include "lance/memwal/wal.h"
#include "lance/table/cleanup.h"
#include "lance/table/snapshot.h"

namespace lance::cli {

namespace {

namespace mw = lance::memwal;
using lsm::Details;
using lsm::Dump;
using lsm::Json;
using lsm::OpenBase;
using lsm::Print;
using lsm::Router;
using lsm::SplitCommas;
using lsm::Table;

struct LsmArgs {
  std::string uri;
  std::string shard;
  std::string input;
  std::string schema;
  std::string primary_key;
  int64_t from = 1;
  bool rows = false;
  std::string bucket;    // enable: COL:N
  std::string identity;  // enable: COL
  bool unsharded = false;
  std::vector<std::string> maintain;
  std::string consistency = "strong";
  std::vector<std::string> columns;
  std::string filter;             // scan
  int64_t offset = 0;             // scan
  int64_t limit = -1;             // scan: -1 = every row
  bool explain = false;           // scan: print the plan
  bool no_index = false;          // scan: filter every row of each source
  std::vector<std::string> keys;  // get: one JSON key each
  std::string keys_file;          // get: JSON lines of keys
  std::string older_than = "1h";  // gc
  bool dry_run = false;           // gc
};

Result<std::vector<mw::Uuid>> ShardsOf(const LsmArgs& a, const io::StoreAndPath& w) {
  if (!a.shard.empty()) {
    LANCE_ASSIGN_OR_RAISE(mw::Uuid id, mw::Uuid::Parse(a.shard));
    return std::vector<mw::Uuid>{id};
  }
  return mw::ListShards(*w.store, w.path);
}

Status Spec(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(Table t, OpenBase(a.uri));
  LANCE_ASSIGN_OR_RAISE(mw::MemWalIndexDetails d, Details(t));
  return Print(mw::MemWalIndexDetailsToJson(d) + "\n");
}

Status Shards(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(a.uri));
  LANCE_ASSIGN_OR_RAISE(std::vector<mw::Uuid> shards, ShardsOf(a, w));
  std::string out;
  for (const mw::Uuid& s : shards) {
    mw::ShardManifestStore store(w.store, w.path, s);
    LANCE_ASSIGN_OR_RAISE(std::optional<mw::ShardManifest> m, store.Latest());
    if (m) out += mw::ShardManifestToJson(*m) + "\n";
  }
  return Print(out);
}

Status Manifests(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(a.uri));
  LANCE_ASSIGN_OR_RAISE(std::vector<mw::Uuid> shards, ShardsOf(a, w));
  std::string out;
  for (const mw::Uuid& s : shards) {
    mw::ShardManifestStore store(w.store, w.path, s);
    LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> versions, store.ListVersions());
    for (uint64_t v : versions) {
      LANCE_ASSIGN_OR_RAISE(mw::ShardManifest m, store.Read(v));
      out += mw::ShardManifestToJson(m) + "\n";
    }
  }
  return Print(out);
}

std::string EntryJson(const mw::Uuid& shard, const mw::WalEntry& e) {
  Json j;
  j["shard_id"] = shard.ToString();
  j["position"] = e.position;
  j["writer_epoch"] = e.writer_epoch;
  j["fence_sentinel"] = e.fence_sentinel;
  j["batches"] = e.batches.size();
  j["rows"] = e.num_rows();
  return Dump(j) + "\n";
}

// Every WAL entry from --from on (headers, or with --rows the rows of the data entries).
Status Wal(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(a.uri));
  LANCE_ASSIGN_OR_RAISE(std::vector<mw::Uuid> shards, ShardsOf(a, w));
  for (const mw::Uuid& s : shards) {
    mw::WalReader reader(w.store, w.path, s);
    LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> positions, reader.ListPositions());
    for (uint64_t p : positions) {
      if (p < static_cast<uint64_t>(a.from)) continue;
      LANCE_ASSIGN_OR_RAISE(std::optional<mw::WalEntry> e, reader.Read(p));
      if (!e) continue;
      std::string out;
      if (!a.rows) {
        out = EntryJson(s, *e);
      } else {
        for (const auto& b : e->batches) LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &out));
      }
      LANCE_RETURN_NOT_OK(Print(out));
    }
  }
  return Status::OK();
}

// The rows no flushed generation covers (replay_after + 1 .. tip, sentinels skipped): what a
// strongly consistent read adds to the flushed data. Read-only: nothing is claimed.
Status Tail(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(a.uri));
  LANCE_ASSIGN_OR_RAISE(std::vector<mw::Uuid> shards, ShardsOf(a, w));
  for (const mw::Uuid& s : shards) {
    mw::ShardManifestStore store(w.store, w.path, s);
    LANCE_ASSIGN_OR_RAISE(std::optional<mw::ShardManifest> m, store.Latest());
    LANCE_ASSIGN_OR_RAISE(std::vector<mw::WalEntry> tail,
                          mw::ReadUnflushedTail(w.store, w.path, s, m));
    std::string out;
    for (const auto& e : tail) {
      if (!a.rows) {
        out += EntryJson(s, e);
        continue;
      }
      for (const auto& b : e.batches) LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &out));
    }
    LANCE_RETURN_NOT_OK(Print(out));
  }
  return Status::OK();
}

Status Route(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(Table t, OpenBase(a.uri));
  LANCE_ASSIGN_OR_RAISE(mw::ShardRouter router, Router(t));
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
  LANCE_RETURN_NOT_OK(ReadInputRows(a.input, a.schema, "", &schema, &batches));
  for (const auto& b : batches) {
    LANCE_ASSIGN_OR_RAISE(mw::ShardRouter::Routing r, router.Route(*b));
    std::string out;
    for (uint32_t s : r.row_shard) {
      const mw::ShardTarget& target = r.shards[s];
      Json values = Json::object();
      for (const auto& v : target.field_values) values[v.field_id] = mw::ShardValueHex(v.value);
      Json j;
      j["shard_id"] = target.shard_id.ToString();
      j["values"] = values;
      out += Dump(j) + "\n";
    }
    LANCE_RETURN_NOT_OK(Print(out));
  }
  return Status::OK();
}

// Claims every shard with unflushed WAL entries (fencing its writer), replays them and flushes.
Status Flush(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(Table t, OpenBase(a.uri));
  LANCE_ASSIGN_OR_RAISE(mw::MemWalWriterOptions wo, lsm::WriterOptions(t, a.primary_key, {}));
  wo.auto_flush = false;
  LANCE_ASSIGN_OR_RAISE(std::vector<mw::Uuid> shards, ShardsOf(a, t.where));
  std::string out;
  for (const mw::Uuid& s : shards) {
    mw::ShardManifestStore store(t.where.store, t.where.path, s);
    LANCE_ASSIGN_OR_RAISE(std::optional<mw::ShardManifest> m, store.Latest());
    LANCE_ASSIGN_OR_RAISE(std::vector<mw::WalEntry> tail,
                          mw::ReadUnflushedTail(t.where.store, t.where.path, s, m));
    int64_t rows = 0;
    for (const auto& e : tail) rows += e.num_rows();
    Json j;
    j["shard_id"] = s.ToString();
    if (rows > 0) {
      if (m) {
        wo.shard.shard_spec_id = m->shard_spec_id;
        wo.shard.shard_field_values = m->shard_field_entries;
      }
      LANCE_ASSIGN_OR_RAISE(auto w, mw::MemWalWriter::Open(t.where.store, t.where.path, s, wo));
      LANCE_ASSIGN_OR_RAISE(std::optional<mw::FlushedGeneration> g, w->Flush());
      LANCE_RETURN_NOT_OK(w->Close(false));
      if (g) {
        j["generation"] = g->generation;
        j["path"] = g->path;
      }
    }
    j["rows"] = rows;
    out += Dump(j) + "\n";
  }
  return Print(out);
}

// --shard as a shard id, nullopt when not given. Errors: InvalidArgument (not a UUID).
Result<std::optional<mw::Uuid>> OnlyShard(const LsmArgs& a) {
  if (a.shard.empty()) return std::optional<mw::Uuid>();
  LANCE_ASSIGN_OR_RAISE(mw::Uuid id, mw::Uuid::Parse(a.shard));
  return std::optional<mw::Uuid>(id);
}

Status Merge(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(a.uri));
  LANCE_ASSIGN_OR_RAISE(std::optional<mw::Uuid> only, OnlyShard(a));
  LANCE_ASSIGN_OR_RAISE(mw::MergeReport r, dataset::MergeMemWalGenerations(w.store, w.path, only));
  std::string out;
  for (const auto& m : r.merged) {
    Json j;
    j["shard_id"] = m.shard.ToString();
    j["generation"] = m.generation;
    j["version"] = m.version;
    j["rows_upserted"] = m.rows_upserted;
    j["base_rows_replaced"] = m.rows_deleted;
    out += Dump(j) + "\n";
  }
  Json j;
  j["merged"] = r.merged.size();
  j["skipped"] = r.skipped;
  std::fprintf(stderr, "%s\n", Dump(j).c_str());
  return Print(out);
}

Result<mw::ShardingSpec> SpecOf(const LsmArgs& a, const Schema& schema) {
  const int given = (a.bucket.empty() ? 0 : 1) + (a.identity.empty() ? 0 : 1) + (a.unsharded ? 1 : 0);
  if (given != 1) {
    return Status::InvalidArgument("give exactly one of --bucket COL:N, --identity COL, --unsharded");
  }
  if (a.unsharded) return mw::UnshardedSpec();
  const std::string col = a.identity.empty() ? a.bucket.substr(0, a.bucket.find(':')) : a.identity;
  FieldPtr f = schema.GetFieldByName(col);
  if (!f) return Status::InvalidArgument("no column '{}' to shard by", col);
  if (!a.identity.empty()) return mw::IdentitySpec(f->id(), *f->type());
  const size_t colon = a.bucket.find(':');
  int32_t n = 0;
  const std::string num = colon == std::string::npos ? "" : a.bucket.substr(colon + 1);
  const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
  if (num.empty() || ec != std::errc() || p != num.data() + num.size()) {
    return Status::InvalidArgument("--bucket wants COL:N (N buckets, 1..1024), got '{}'", a.bucket);
  }
  return mw::BucketSpec(f->id(), *f->type(), n);
}

Status Enable(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(Table t, OpenBase(a.uri));
  mw::EnableOptions o;
  o.primary_key = SplitCommas(a.primary_key);
  LANCE_ASSIGN_OR_RAISE(o.spec, SpecOf(a, *t.snapshot->schema()));
  o.maintained_indexes = a.maintain;
  LANCE_ASSIGN_OR_RAISE(uint64_t v, mw::EnableMemWal(t.where.store, t.where.path, o));
  LANCE_ASSIGN_OR_RAISE(Table after, OpenBase(a.uri));
  LANCE_ASSIGN_OR_RAISE(mw::MemWalIndexDetails d, Details(after));
  Json j;
  j["version"] = v;
  j["primary_key"] = mw::PrimaryKeyColumns(after.snapshot->manifest());
  j["details"] = Json::parse(mw::MemWalIndexDetailsToJson(d), nullptr, false);
  return Print(Dump(j) + "\n");
}

Result<mw::LsmReadOptions> LsmReadOptionsOf(const LsmArgs& a) {
  mw::LsmReadOptions o;
  if (a.consistency == "strong") {
    o.consistency = mw::Consistency::kStrong;
  } else if (a.consistency == "eventual") {
    o.consistency = mw::Consistency::kEventual;
  } else {
    return Status::InvalidArgument("--consistency is strong or eventual, not '{}'", a.consistency);
  }
  o.columns = a.columns;
  return o;
}

Status Scan(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(a.uri));
  LANCE_ASSIGN_OR_RAISE(mw::LsmReadOptions o, LsmReadOptionsOf(a));
  o.filter = a.filter;
  if (a.offset < 0) return Status::InvalidArgument("--offset must be >= 0, got {}", a.offset);
  o.offset = a.offset;
  if (a.limit >= 0) o.limit = a.limit;
  o.use_index = !a.no_index;
  if (a.explain) {
    LANCE_ASSIGN_OR_RAISE(query::Plan plan, query::PlanLsmScan(w.store, w.path, o));
    return Print(plan.Explain());
  }
  mw::LsmReadStats st;
  LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> rows, query::LsmScan(w.store, w.path, o, &st));
  for (const auto& b : rows) {
    std::string out;
    LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &out));
    LANCE_RETURN_NOT_OK(Print(out));
  }
  Json j;
  j["base_rows"] = st.base_rows;
  j["generations"] = st.generations;
  j["generation_rows"] = st.generation_rows;
  j["merged_generations_skipped"] = st.skipped_merged;
  j["wal_tail_entries"] = st.tail_entries;
  j["wal_tail_rows"] = st.tail_rows;
  j["rows"] = st.result_rows;
  j["point_keys"] = st.point_keys;
  j["shards_pruned"] = st.shards_pruned;
  std::fprintf(stderr, "%s\n", Dump(j).c_str());
  return Status::OK();
}

// Point lookups by primary key: --key values (a JSON scalar for a one-column key, an object of
// the key columns for a composite one) and/or --keys FILE (JSON lines of such objects).
Status LookupKeys(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(Table t, OpenBase(a.uri));
  LANCE_ASSIGN_OR_RAISE(mw::LsmReadOptions o, LsmReadOptionsOf(a));
  const std::vector<std::string> pk = mw::PrimaryKeyColumns(t.snapshot->manifest());
  if (pk.empty()) {
    return Status::InvalidArgument("{}: the table has no primary key (an append-only MemWAL "
                                   "table): use `lance lsm scan`", a.uri);
  }
  if (a.keys.empty() && a.keys_file.empty()) {
    return Status::InvalidArgument("give the keys to look up with --key or --keys FILE");
  }
  std::vector<FieldPtr> fields;
  for (const auto& k : pk) fields.push_back(t.snapshot->schema()->GetFieldByName(k));
  auto key_schema = std::make_shared<Schema>(std::move(fields));
  std::string lines;
  for (const std::string& k : a.keys) {
    Json j = Json::parse(k, nullptr, false);
    if (j.is_discarded()) {
      return Status::InvalidArgument("--key '{}' is not JSON (strings are quoted: --key '\"a\"')", k);
    }
    if (!j.is_object()) {
      if (pk.size() != 1) {
        return Status::InvalidArgument("--key '{}': the primary key has {} columns ({}): give an "
                                       "object such as {{\"{}\": ...}}",
                                       k, pk.size(), fmt::format("{}", fmt::join(pk, ", ")), pk[0]);
      }
      Json obj;
      obj[pk[0]] = std::move(j);
      j = std::move(obj);
    }
    lines += Dump(j) + "\n";
  }
  if (!a.keys_file.empty()) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr file, ReadWhole(a.keys_file));
    lines += std::string(file->view());
    if (!lines.empty() && lines.back() != '\n') lines += "\n";
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr keys, ReadJsonLines(lines, key_schema));
  query::LsmLookupStats st;
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rows, query::LsmLookup(t.where.store, t.where.path, *keys, o, &st));
  std::string out;
  LANCE_RETURN_NOT_OK(AppendJsonLines(*rows, &out));
  LANCE_RETURN_NOT_OK(Print(out));
  Json j;
  j["keys"] = st.keys;
  j["found"] = st.found;
  j["shards_searched"] = st.shards_searched;
  j["shards_pruned"] = st.shards_pruned;
  j["wal_tail_entries"] = st.tail_entries;
  j["generations_skipped_by_bloom_filter"] = st.generations_skipped;
  j["generations_probed"] = st.generations_probed;
  j["generation_rows_taken"] = st.generation_rows_taken;
  j["keys_from_wal_tail"] = st.keys_from_tail;
  j["keys_from_generations"] = st.keys_from_generations;
  j["keys_from_base"] = st.keys_from_base;
  std::fprintf(stderr, "%s\n", Dump(j).c_str());
  return Status::OK();
}

// One line per shard: what was (or, with --dry-run, would be) removed; totals on stderr.
Status Gc(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(a.uri));
  dataset::MemWalGcOptions o;
  LANCE_ASSIGN_OR_RAISE(o.older_than_seconds, table::ParseDurationSeconds(a.older_than));
  o.dry_run = a.dry_run;
  LANCE_ASSIGN_OR_RAISE(o.only_shard, OnlyShard(a));
  LANCE_ASSIGN_OR_RAISE(dataset::MemWalGcReport r, dataset::CollectMemWalGarbage(w.store, w.path, o));
  std::string out;
  for (const auto& s : r.shards) {
    Json j;
    j["shard_id"] = s.shard.ToString();
    j["merged_generation"] = s.merged_generation;
    j["replay_after_wal_entry_position"] = s.replay_after;
    j["generation_dirs"] = s.generation_dirs;
    j["wal_positions"] = s.wal_positions;
    j["bytes"] = s.bytes;
    out += Dump(j) + "\n";
  }
  LANCE_RETURN_NOT_OK(Print(out));
  Json j;
  j[a.dry_run ? "generation_dirs_to_remove" : "generation_dirs_removed"] = r.generation_dirs_removed;
  j[a.dry_run ? "wal_files_to_remove" : "wal_files_removed"] = r.wal_files_removed;
  j[a.dry_run ? "bytes_to_remove" : "bytes_removed"] = r.bytes_removed;
  std::fprintf(stderr, "%s\n", Dump(j).c_str());
  return Status::OK();
}

// One line per shard: epoch, generations (flushed, merged), WAL tail.
Status StatusCmd(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(Table t, OpenBase(a.uri));
  LANCE_ASSIGN_OR_RAISE(mw::MemWalIndexDetails d, Details(t));
  LANCE_ASSIGN_OR_RAISE(std::vector<mw::Uuid> shards, ShardsOf(a, t.where));
  std::string out;
  for (const mw::Uuid& s : shards) {
    mw::ShardManifestStore store(t.where.store, t.where.path, s);
    LANCE_ASSIGN_OR_RAISE(std::optional<mw::ShardManifest> m, store.Latest());
    if (!m) continue;
    LANCE_ASSIGN_OR_RAISE(std::vector<mw::WalEntry> tail,
                          mw::ReadUnflushedTail(t.where.store, t.where.path, s, m));
    int64_t rows = 0;
    for (const auto& e : tail) rows += e.num_rows();
    Json j;
    j["shard_id"] = s.ToString();
    j["status"] = std::string(mw::ShardStatusName(m->status));
    j["writer_epoch"] = m->writer_epoch;
    j["manifest_version"] = m->version;
    j["current_generation"] = m->current_generation;
    Json gens = Json::array();
    for (const auto& g : m->flushed_generations) gens.push_back(g.generation);
    j["flushed_generations"] = gens;
    j["merged_generation"] = d.MergedGenerationOf(s);
    j["replay_after_wal_entry_position"] = m->replay_after_wal_entry_position;
    j["unflushed_wal_entries"] = tail.size();
    j["unflushed_rows"] = rows;
    out += Dump(j) + "\n";
  }
  return Print(out);
}

Status Recover(const LsmArgs& a) {
  LANCE_ASSIGN_OR_RAISE(Table t, OpenBase(a.uri));
  LANCE_ASSIGN_OR_RAISE(mw::Uuid shard, mw::Uuid::Parse(a.shard));
  SchemaPtr table_schema = t.snapshot->schema();
  if (!a.primary_key.empty()) {
    LANCE_ASSIGN_OR_RAISE(table_schema, mw::WithPrimaryKey(table_schema, SplitCommas(a.primary_key)));
  }
  mw::ShardWriterOptions o;
  o.table_schema = table_schema;
  LANCE_ASSIGN_OR_RAISE(auto w, mw::ShardWriter::Open(t.where.store, t.where.path, shard, o));
  int64_t rows = 0;
  for (const auto& e : w->recovered()) rows += e.num_rows();
  Json j;
  j["shard_id"] = shard.ToString();
  j["writer_epoch"] = w->epoch();
  j["sentinel_position"] = w->sentinel_position();
  j["recovered_entries"] = w->recovered().size();
  j["recovered_rows"] = rows;
  LANCE_RETURN_NOT_OK(w->Close());
  return Print(Dump(j) + "\n");
}

}  // namespace

void RegisterLsmCommands(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<LsmArgs>();
  CLI::App* lsm = app.add_subcommand(
      "lsm",
      "MemWAL: the LSM streaming-write path of a table (mem_wal.md)");
  lsm->footer(R"(A MemWAL table takes streaming upserts and deletes through shards. Each shard's writer
makes every batch durable in its write-ahead log (_mem_wal/{shard}/wal/) before it is
acknowledged, keeps it in a MemTable, and flushes the MemTable as a small Lance dataset (a
"generation"). Readers see base + generations (+ the unflushed WAL tail), newest row per
primary key wins. `merge` folds generations into the base table.

Typical session:
  lance lsm enable t.lance --primary-key id --bucket id:4     # once
  lance lsm write t.lance --input rows.arrows --flush          # upserts (Arrow IPC / JSON lines)
  lance lsm write t.lance --input keys.jsonl --schema s.json --delete   # deletes by key
  lance lsm scan t.lance                                      # base + generations + WAL tail
  lance lsm stats t.lance                                     # per shard: epoch, generations
  lance lsm flush t.lance                                     # flush what writers left in the WAL
  lance lsm merge t.lance                                     # generations -> base table
The reference (lance 12 via lancedb) reads the same state: its query() = `lsm scan
--consistency eventual` after a flush.)");
  lsm->require_subcommand(1);
  auto uri = [&](CLI::App* c) { c->add_option("uri", args->uri, "Table URI")->required(); };
  auto shard = [&](CLI::App* c, bool required) {
    auto* o = c->add_option("--shard", args->shard, "Shard id (UUID); default every shard");
    if (required) o->required();
  };
  auto* enable = lsm->add_subcommand(
      "enable", "Turn the MemWAL on: mark the primary key and install the sharding spec (the "
                "__lance_mem_wal index)");
  uri(enable);
  enable->add_option("--primary-key", args->primary_key,
                     "Primary-key columns, comma separated (last write wins per key); omit for "
                     "an append-only table");
  enable->add_option("--bucket", args->bucket, "Shard by bucket(COL, N): COL:N, N in 1..1024");
  enable->add_option("--identity", args->identity, "Shard by the raw value of COL");
  enable->add_flag("--unsharded", args->unsharded, "One shard");
  enable->add_option("--maintain", args->maintain, "Base-table indexes to maintain (scalar ones: each flush builds them in the generation with the base index's type and parameters)");
  registry.OnRun(enable, [args] { return Enable(*args); });
  auto* scan = lsm->add_subcommand(
      "scan", "Print every visible row (canonical JSON lines): base + unmerged generations, plus "
              "the unflushed WAL tail with strong consistency; counts on stderr");
  uri(scan);
  scan->add_option("--consistency", args->consistency,
                   "strong (default: includes every acknowledged write, from any process) or "
                   "eventual (flushed generations only, what lance 12's query() sees)");
  scan->add_option("--columns", args->columns, "Columns to print, comma separated (default all)")
      ->delimiter(',');
  scan->add_option("--filter,--where", args->filter,
                   "SQL-like condition on each key's newest row, e.g. \"s = 'x' AND id > 5\" "
                   "(pushed into the base scan, where its scalar indexes answer it; one that "
                   "pins the primary key, \"id = 5\" or \"id IN (1, 2)\", is answered by point "
                   "lookups of those keys, only in the shards they route to)");
  scan->add_option("--offset", args->offset, "Merged rows to skip (WAL tail, generations newest first, then the base)");
  scan->add_option("--limit", args->limit, "At most this many rows");
  scan->add_flag("--no-index", args->no_index,
                 "Filter every row of each source (no scalar index of the base or of a generation answers it; the same rows)");
  scan->add_flag("--explain", args->explain,
                 "Print the plan instead of the rows: each source (WAL tail, generations, base) "
                 "with its own plan and the indexes it uses, the shards pruned");
  registry.OnRun(scan, [args] { return Scan(*args); });
  auto* get = lsm->add_subcommand(
      "get", "Point lookups by primary key: the newest visible row of each key (canonical JSON "
             "lines, in key order; absent keys print nothing), what was read on stderr");
  get->footer(R"(Newest source first: the WAL tail (strong), the unmerged generations newest first, then the
base. Only the shards a key routes to are read; a generation whose bloom_filter.bin rules the
key out is skipped unread, else its _pk_index gives the rows to take.
  lance lsm get t.lance --key 42 --key 7
  lance lsm get t.lance --key '"user-3"' --consistency eventual
  lance lsm get t.lance --key '{"a": 1, "b": "x"}'      # a composite key
  lance lsm get t.lance --keys keys.jsonl --columns id,s)");
  uri(get);
  get->add_option("--key", args->keys,
                  "A key: JSON scalar (one-column key) or object of the key columns; repeatable");
  get->add_option("--keys", args->keys_file, "JSON lines of key objects");
  get->add_option("--consistency", args->consistency,
                  "strong (default: the unflushed WAL tail too) or eventual");
  get->add_option("--columns", args->columns, "Columns to print, comma separated (default all)")
      ->delimiter(',');
  registry.OnRun(get, [args] { return LookupKeys(*args); });
  auto* status = lsm->add_subcommand(
      "stats", "Per shard: writer epoch, flushed and merged generations, unflushed WAL rows (alias status)");
  status->alias("status");
  uri(status);
  shard(status, false);
  registry.OnRun(status, [args] { return StatusCmd(*args); });
  auto* flush = lsm->add_subcommand(
      "flush", "Claim each shard with unflushed WAL entries (fencing its writer), replay them and "
               "flush them as a generation");
  uri(flush);
  shard(flush, false);
  registry.OnRun(flush, [args] { return Flush(*args); });
  auto* merge = lsm->add_subcommand(
      "merge", "Merge flushed generations into the base table (ascending per shard; "
               "merged_generations updated in the same commit)");
  uri(merge);
  shard(merge, false);
  registry.OnRun(merge, [args] { return Merge(*args); });
  auto* gc = lsm->add_subcommand(
      "gc", "Remove shard data merging and flushing made obsolete: generation directories "
            "already merged into the base, WAL entries already in a flushed generation");
  gc->footer(R"(What goes (per shard, as of the horizon: the newest base version and shard manifest written at
least --older-than ago):
  * {random8}_gen_N/ with N <= merged_generations[shard] of the horizon base version;
  * {random8}_gen_N/ the shard manifest does not record (a failed flush's leftover), N below
    its current generation, last written before the horizon;
  * wal/ entries at positions <= replay_after_wal_entry_position of the horizon manifest.
Readers that planned on a removed source read again; a stalled lance-cpp writer whose next WAL
entry lands in a removed position is fenced before it acknowledges. Prints one JSON line per
shard (generation_dirs, wal_positions, bytes) and the totals on stderr.
  lance lsm gc t.lance                      # keep what the last hour may still be reading
  lance lsm gc t.lance --older-than 0s --dry-run)");
  uri(gc);
  shard(gc, false);
  gc->add_option("--older-than", args->older_than,
                 "Horizon age: 30s, 15m, 1h, 7d (default 1h; 0s = the latest state)");
  gc->add_flag("--dry-run", args->dry_run, "Print what would be removed, remove nothing");
  registry.OnRun(gc, [args] { return Gc(*args); });
  auto* spec = lsm->add_subcommand("spec", "Print the MemWAL index details as JSON");
  uri(spec);
  registry.OnRun(spec, [args] { return Spec(*args); });
  auto* shards = lsm->add_subcommand("shards", "Print each shard's latest manifest as JSON");
  uri(shards);
  shard(shards, false);
  registry.OnRun(shards, [args] { return Shards(*args); });
  auto* manifests = lsm->add_subcommand("manifests", "Print every shard manifest version");
  uri(manifests);
  shard(manifests, false);
  registry.OnRun(manifests, [args] { return Manifests(*args); });
  auto* wal = lsm->add_subcommand("wal", "Print WAL entries (headers, or --rows)");
  uri(wal);
  shard(wal, false);
  wal->add_option("--from", args->from, "First position");
  wal->add_flag("--rows", args->rows, "Print the rows of data entries (canonical JSON lines)");
  registry.OnRun(wal, [args] { return Wal(*args); });
  auto* tail = lsm->add_subcommand("tail", "Print the unflushed WAL tail (headers, or --rows)");
  uri(tail);
  shard(tail, false);
  tail->add_flag("--rows", args->rows, "Print the rows (canonical JSON lines)");
  registry.OnRun(tail, [args] { return Tail(*args); });
  auto* route = lsm->add_subcommand("route", "Print the shard of every input row");
  uri(route);
  route->add_option("--input", args->input, "Rows (Arrow IPC, JSON lines with --schema, CSV)")
      ->required();
  route->add_option("--schema", args->schema, "Schema JSON of JSON-lines input");
  registry.OnRun(route, [args] { return Route(*args); });
  lsm::RegisterLsmWrite(lsm, registry);
  auto* recover = lsm->add_subcommand(
      "recover", "Claim a shard, fence its previous writer and replay its WAL tail");
  uri(recover);
  shard(recover, true);
  recover->add_option("--primary-key", args->primary_key, "Primary-key columns");
  registry.OnRun(recover, [args] { return Recover(*args); });
}

}  // namespace lance::cli
