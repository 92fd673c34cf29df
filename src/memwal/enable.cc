#include "lance/memwal/enable.h"

#include <chrono>

#include "lance/memwal/primary_key.h"
#include "lance/memwal/uuid.h"
#include "lance/memwal/wal.h"
#include "lance/table/commit.h"
#include "lance/table/snapshot.h"

namespace lance::memwal {

Status UpdateMemWalDetails(table::Manifest* m, std::string_view what,
                           const std::function<Status(MemWalIndexDetails*)>& update) {
  for (auto& idx : m->indices) {
    if (idx.name != kMemWalIndexName) continue;
    LANCE_ASSIGN_OR_RAISE(MemWalIndexDetails d, DecodeMemWalIndexDetails(idx.details, what));
    LANCE_RETURN_NOT_OK(update(&d));
    idx.details = EncodeMemWalIndexDetails(d);
    return Status::OK();
  }
  return Status::NotFound("{}: version {} has no MemWAL index ({})", what, m->version, kMemWalIndexName);
}

Result<uint64_t> EnableMemWal(const std::shared_ptr<io::ObjectStore>& store,
                              const std::string& root, const EnableOptions& options) {
  table::TableLocation loc(store, root);
  LANCE_ASSIGN_OR_RAISE(auto base, table::Snapshot::Open(loc));
  for (const auto& idx : base->manifest().indices) {
    if (idx.name == kMemWalIndexName) {
      return Status::AlreadyExists("{}: the table already has a MemWAL index (version {})", loc.display(),
                                   base->version());
    }
  }
  LANCE_RETURN_NOT_OK(ValidateShardingSpec(options.spec, *base->schema()));
  uint64_t version = base->version();
  if (!options.primary_key.empty() && PrimaryKeyColumns(base->manifest()) != options.primary_key) {
    std::vector<file::LanceField> fields = base->manifest().fields;
    for (auto& f : fields) {
      f.unenforced_primary_key = false;
      f.unenforced_primary_key_position = 0;
      std::erase_if(f.metadata, [](const auto& kv) { return kv.first == kPrimaryKeyPositionKey; });
    }
    for (size_t i = 0; i < options.primary_key.size(); ++i) {
      bool found = false;
      for (auto& f : fields) {
        if (f.parent_id != -1 || f.name != options.primary_key[i]) continue;
        f.unenforced_primary_key = true;
        f.unenforced_primary_key_position = static_cast<uint32_t>(i + 1);
        f.metadata.emplace_back(std::string(kPrimaryKeyPositionKey), std::to_string(i + 1));
        found = true;
      }
      if (!found) {
        return Status::InvalidArgument("{}: primary-key column '{}' is not a top-level column",
                                       root, options.primary_key[i]);
      }
    }
    table::Transaction txn;
    txn.read_version = version;
    table::Transaction::Project p;
    p.schema = std::move(fields);
    p.preserves_nullability = true;
    txn.operation = std::move(p);
    LANCE_ASSIGN_OR_RAISE(table::CommitInfo ci, table::CommitTransaction(loc, std::move(txn)));
    version = ci.version;
  }
  MemWalIndexDetails d = DetailsForSpec(options.spec, options.maintained_indexes,
                                        options.writer_config_defaults);
  table::IndexInfo idx;
  idx.uuid = Uuid::RandomV4().ToString();
  idx.name = std::string(kMemWalIndexName);
  idx.dataset_version = version;
  idx.details_type_url = std::string(kMemWalDetailsTypeUrl);
  idx.details = EncodeMemWalIndexDetails(d);
  idx.index_version = 0;
  idx.created_at_ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                std::chrono::system_clock::now().time_since_epoch())
                                                .count());
  table::Transaction txn;
  txn.read_version = version;
  table::Transaction::CreateIndex ci;
  ci.new_indices.push_back(std::move(idx));
  txn.operation = std::move(ci);
  LANCE_ASSIGN_OR_RAISE(table::CommitInfo info, table::CommitTransaction(loc, std::move(txn)));
  return info.version;
}

}  // namespace lance::memwal
