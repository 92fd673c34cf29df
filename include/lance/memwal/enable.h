// Turning the MemWAL on for a base table (what lancedb's setUnenforcedPrimaryKey +
// setLsmWriteSpec do): the unenforced primary key marked on its columns (fields 12/13 and the
// `lance-schema:unenforced-primary-key:position` metadata; committed as a Project, which lance
// 12 reads like its own UpdateConfig), then the `__lance_mem_wal` system index (CreateIndex:
// no fields, no fragment bitmap, no files, index_version 0, the details inline).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/index_details.h"
#include "lance/memwal/sharding.h"
#include "lance/table/manifest.h"

namespace lance::memwal {

struct EnableOptions {
  std::vector<std::string> primary_key;  // empty: keep the table's (none: append-only)
  ShardingSpec spec;                      // e.g. BucketSpec(...), UnshardedSpec()
  std::vector<std::string> maintained_indexes;
  std::map<std::string, std::string> writer_config_defaults;
};

// Returns the base version that holds the index. Errors: InvalidArgument (unknown key column,
// an invalid spec), AlreadyExists (the table already has a MemWAL index), CommitConflict.
Result<uint64_t> EnableMemWal(const std::shared_ptr<io::ObjectStore>& store,
                              const std::string& root, const EnableOptions& options);

// Rewrites the MemWAL index details held by manifest `m` (e.g. in a commit's amend) through
// `update`. Errors: NotFound (no MemWAL index; `what` names the table), Corruption (details that
// do not decode), those of `update`.
Status UpdateMemWalDetails(table::Manifest* m, std::string_view what,
                           const std::function<Status(MemWalIndexDetails*)>& update);

}  // namespace lance::memwal
