// Compaction of Lance datasets: merges runs of small fragments into fragments of up to
// `target_rows_per_fragment` rows and materializes deletions (rewrites fragments with many
// deleted rows without them), as lance 12's compact_files.
//
// Plan: fragments are taken in manifest order; a fragment is a candidate when it holds fewer
// live rows than the target or when more than `materialize_deletions_threshold` of its rows
// are deleted. Adjacent candidates form a group, closed once it reaches the target; a group
// of one fragment without deletions is left alone, and a group never mixes fragments covered
// by different sets of indexes. Each group's live rows are rewritten into new fragments and
// one Rewrite transaction replaces the groups.
// Stable row ids: rows keep their ids and their created-at / last-updated-at versions, and
// each index's fragment bitmap lists the new fragments instead of the old ones.
// Otherwise indexes are not remapped: their fragment bitmaps stay as they were, so readers
// (lance 12 included) mask the replaced fragments' rows out of index results and search the
// new fragments without the index until it is optimized (what lance 12 does for an index
// it does not remap).
// The commit is refused with a retryable CommitConflict when a concurrent commit deleted
// rows from, updated, or rewrote a fragment being compacted (transaction.md).
// Safe to call from several threads or processes.
#pragma once

#include <cstdint>
#include <string>

#include "lance/core/result.h"
#include "lance/table/location.h"
#include "lance/table/commit.h"

namespace lance::table {

struct CompactionOptions {
  int64_t target_rows_per_fragment = 1024 * 1024;
  bool materialize_deletions = true;
  double materialize_deletions_threshold = 0.1;  // fraction of deleted rows
  CommitOptions commit;
};

struct CompactionResult {
  CommitInfo commit;  // version 0, attempts 0 when there was nothing to compact
  uint64_t fragments_removed = 0;
  uint64_t fragments_added = 0;
  uint64_t rows_rewritten = 0;
  // Files the new version no longer references (data and deletion files of the removed
  // fragments) and data files it adds, as lance 12's CompactionMetrics count them.
  uint64_t files_removed = 0;
  uint64_t files_added = 0;
};

// Errors: InvalidArgument (target <= 0), NotSupported (2.0 datasets), NotFound,
// CommitConflict.
Result<CompactionResult> CompactFiles(const std::string& uri, const CompactionOptions& options = {});
Result<CompactionResult> CompactFiles(const TableLocation& location,
                                      const CompactionOptions& options = {});

}  // namespace lance::table
