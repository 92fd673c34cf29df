// Merging flushed generations into the base table (mem_wal.md "Background Jobs", "Merger
// conflict"): per shard, in ascending generation order, each generation not yet covered by
// merged_generations[shard] is applied with merge-insert semantics in ONE Update commit that
// also sets merged_generations[shard] = g in the MemWAL index (and lists the generation in the
// transaction's compacted_sstables, as lance does):
//   * the base rows whose key the generation holds (as a live row or as a tombstone) are
//     deleted (deletion vectors), the generation's live rows (its deletion vector applied,
//     tombstones dropped, `_tombstone` removed) are added as new fragments.
// On a lost commit race the commit loop rebases; before publishing it re-reads the index of the
// version it commits on, and when merged_generations[shard] already reaches g (another merger
// won) the generation is skipped -- never merged twice. A retryable conflict (the concurrent
// merger deleted the same base rows) reloads and retries the generation from the top.
// A reader of any version sees each row once: a generation is in the base exactly from the
// version whose index says it is merged, and readers skip it from that version on.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/merge.h"
#include "lance/memwal/uuid.h"

namespace lance::dataset {

// Merges every unmerged flushed generation of every shard (or of `only_shard`), at most
// `max_generations` (0: all). Errors: NotFound (no MemWAL index), IOError, CommitConflict.
Result<memwal::MergeReport> MergeMemWalGenerations(
    const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
    const std::optional<memwal::Uuid>& only_shard = std::nullopt, int64_t max_generations = 0);

}  // namespace lance::dataset
