// Garbage collection of MemWAL shard data (mem_wal.md "Background Jobs"): what merging and
// flushing have made obsolete is removed from _mem_wal/{shard}/.
//
//   * a flushed generation directory ({random8}_gen_{N}/) once N <= merged_generations[shard]
//     of the horizon base version: its rows are in the base table and every reader of that
//     version or a later one skips it;
//   * a directory of generation N that the shard manifest does not record (a failed flush left
//     it and retried into a new directory) once N is below the manifest's current generation
//     and the directory is older than the horizon;
//   * a WAL entry at position P once P <= replay_after_wal_entry_position of the horizon shard
//     manifest: its rows are in a flushed generation and no replay starts at or below it.
//
// The horizon is the newest base version (resp. shard manifest version) written at least
// `older_than_seconds` ago. A reader that loaded an older state and then finds a source gone
// starts its read again (query::LsmScan does), so a zero horizon is correct but makes such
// readers retry; the default keeps an hour.
//
// Fencing compensation (the spec's warning on deleting WAL files): a stalled writer's next WAL
// entry may land in a position collected here without colliding. lance-cpp's shard writers
// re-read the shard's epoch after every WAL write and before acknowledging it (a newer claim
// must exist for a collected position to be written again), so such a write is reported Fenced,
// never acknowledged, and sits below every replay start. Writers of other implementations that
// do not re-check are the caller's to stop before collecting with a short horizon.
//
// Thread-safety: safe to run beside writers, mergers and readers of the table, and beside
// another collector (deleting an object already gone is not an error).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/uuid.h"

namespace lance::dataset {

struct MemWalGcOptions {
  int64_t older_than_seconds = 3600;
  // Only this shard (default every shard).
  std::optional<memwal::Uuid> only_shard;
  // Report what would be removed, remove nothing.
  bool dry_run = false;
  // The current time in nanoseconds since the Unix epoch (0: the clock); for tests.
  int64_t now_ns = 0;
};

struct MemWalGcReport {
  struct Shard {
    memwal::Uuid shard;
    uint64_t merged_generation = 0;  // of the horizon base version
    uint64_t replay_after = 0;       // of the horizon shard manifest
    std::vector<std::string> generation_dirs;  // removed, directory names
    std::vector<uint64_t> wal_positions;       // removed
    int64_t bytes = 0;
  };
  std::vector<Shard> shards;
  int64_t generation_dirs_removed = 0;
  int64_t wal_files_removed = 0;
  int64_t bytes_removed = 0;
};

// Errors: NotFound (no table, or no MemWAL index), IOError, Corruption.
Result<MemWalGcReport> CollectMemWalGarbage(const std::shared_ptr<io::ObjectStore>& store,
                                            const std::string& root,
                                            const MemWalGcOptions& options = {});

}  // namespace lance::dataset
