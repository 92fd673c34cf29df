// The index catch-up gap of a merged read (mem_wal.md "Index catch-up"): when a base index the
// filter uses lags the merged generations of a shard (index_catchup), the rows those merges
// wrote sit in base fragments the index does not cover; the read takes them from the merged
// generations instead -- each a small Lance dataset whose maintained index answers the filter --
// and reads only the covered fragments of the base.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/memwal/index_details.h"
#include "lance/query/plan.h"
#include "lance/table/snapshot.h"

namespace lance::query::internal {

struct CatchupGap {
  std::vector<std::string> indexes;           // the lagging indexes the base plan uses
  std::vector<uint64_t> uncovered;            // base fragment ids the generations replace
  std::vector<uint64_t> covered;              // the other base fragment ids (still read)
  std::vector<memwal::MergedGeneration> generations;  // merged, to read instead, per shard
};

// The gap of the base's plan `base_plan` (the base read with the filter). It applies only when
// it is exact: every fragment the plan scans without an index was written by MemWAL merges
// (found by walking the versions back from `base`, at most kCatchupMaxVersions), no other
// commit changed those fragments since, and the generations of every merge in that window are
// returned (a merge that wrote no rows -- only tombstones -- deleted rows of the window too).
// nullopt when no lagging index is used or the rule cannot be proved; `*why` then says why
// when an index lags (for Explain), else stays empty.
inline constexpr uint64_t kCatchupMaxVersions = 64;
Result<std::optional<CatchupGap>> FindCatchupGap(const std::shared_ptr<const table::Snapshot>& base,
                                                 const memwal::MemWalIndexDetails& details,
                                                 const PlanNode& base_plan, std::string* why);

}  // namespace lance::query::internal
