#include "cli/lsm_common.h"

#include <cstdio>

#include "lance/memwal/generation.h"
#include "lance/memwal/primary_key.h"

namespace lance::cli::lsm {

namespace mw = lance::memwal;

std::string Dump(const Json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

Status Print(const std::string& text) {
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to stdout");
  }
  if (std::fflush(stdout) != 0) return Status::IOError("cannot flush stdout");
  return Status::OK();
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (!s.empty()) {
    const size_t p = s.find(',', start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

Result<Table> OpenBase(const std::string& uri) {
  Table t;
  LANCE_ASSIGN_OR_RAISE(t.where, io::ObjectStore::FromUri(uri));
  LANCE_ASSIGN_OR_RAISE(t.snapshot, table::Snapshot::Open(t.where.store, t.where.path));
  return t;
}

Result<mw::MemWalIndexDetails> Details(const Table& t) {
  for (const auto& idx : t.snapshot->manifest().indices) {
    if (idx.name == mw::kMemWalIndexName) {
      return mw::DecodeMemWalIndexDetails(idx.details, t.snapshot->manifest_path());
    }
  }
  return Status::NotFound("{}: version {} has no MemWAL index ({}); enable the LSM write path "
                          "first",
                          t.snapshot->root(), t.snapshot->version(), mw::kMemWalIndexName);
}

Result<mw::ShardRouter> Router(const Table& t) {
  LANCE_ASSIGN_OR_RAISE(mw::MemWalIndexDetails d, Details(t));
  if (d.sharding_specs.empty()) {
    return Status::Corruption("{}: the MemWAL index has no sharding spec", t.snapshot->location().display());
  }
  return mw::ShardRouter::Make(d.sharding_specs.front(), *t.snapshot->schema());
}

Result<mw::MemWalWriterOptions> WriterOptions(const Table& t, const std::string& primary_key,
                                              const FlushPolicy& policy) {
  mw::MemWalWriterOptions o;
  o.primary_key = primary_key.empty() ? mw::PrimaryKeyColumns(t.snapshot->manifest()) : SplitCommas(primary_key);
  o.shard.table_schema = t.snapshot->schema();
  if (!o.primary_key.empty()) {
    LANCE_ASSIGN_OR_RAISE(o.shard.table_schema, mw::WithPrimaryKey(o.shard.table_schema, o.primary_key));
  }
  o.generation.data_storage_version = t.snapshot->manifest().data_storage_version;
  LANCE_ASSIGN_OR_RAISE(mw::MaintainedIndexes maintained, mw::MaintainedIndexesOf(*t.snapshot));
  o.generation.maintained_indexes = std::move(maintained.built);
  for (const std::string& why : maintained.not_built) {
    std::fprintf(stderr, "lance lsm: maintained index %s; not built in generations\n", why.c_str());
  }
  o.max_rows = policy.max_rows;
  // --max-bytes bounds the MemTables of all the process's shard writers together (each
  // writer's own max_bytes off): one budget, shared by every copy of these options.
  if (policy.max_bytes > 0) o.budget = std::make_shared<mw::MemTableBudget>(policy.max_bytes);
  o.max_bytes = 0;
  o.max_age_ms = policy.max_age_ms;
  o.auto_flush = policy.max_rows > 0 || policy.max_bytes > 0 || policy.max_age_ms > 0;
  return o;
}

}  // namespace lance::cli::lsm
