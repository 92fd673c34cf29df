// Bringing a scalar index up to date with the rows appended since it was built, as lance 12's
// optimize_indices does for scalar indexes by default (it merges one segment): the newest
// segment of the index and the fragments no segment of it covers are trained again into one
// new segment -- a new uuid, covering the newest segment's fragments still in the table plus
// the unindexed ones, with the parameters the old segment was built with -- that replaces the
// newest segment. Older segments (lance 12 writes several when asked to append deltas) stay as
// they are. The caller trains with BuildScalarIndexSegment (create.h) on the plan's options
// and fragments, and commits every optimized index in one CreateIndex transaction
// (CommitReplacingSegments), as lance 12 does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/index/scalar/create.h"
#include "lance/table/manifest.h"
#include "lance/table/snapshot.h"

namespace lance::index::scalar {

// The options an index segment was built with: its type (from its details) and its
// parameters -- the BTREE page size (page_lookup.lance "batch_size"), the ZONEMAP zone size
// (its details), the BLOOMFILTER zone size and false-positive rate (bloomfilter.lance
// metadata), the INVERTED tokenizer, stop words and positions (metadata.lance params). Name and commit are left
// unset. Errors: NotSupported (not a scalar index: vector and system indexes), Corruption /
// IOError reading its files.
Result<CreateScalarIndexOptions> OptionsOfIndex(const table::Snapshot& at, const table::IndexInfo& segment);

struct ScalarOptimizePlan {
  std::string name;
  std::string column;                 // the indexed top-level column
  ScalarIndexType type = ScalarIndexType::kBTree;
  std::string replaced_uuid;          // the newest segment, merged into the new one
  std::vector<uint32_t> fragment_ids;  // what the new segment covers, ascending
  std::vector<uint32_t> new_fragment_ids;  // of those, the fragments no segment covered
  CreateScalarIndexOptions options;   // name and fragment_ids filled in
  // The new segment keeps the replaced one's dataset_version (lance 12 does: the version the
  // index was first built on).
  uint64_t dataset_version = 0;
};

// The plan to optimize the scalar index `name` of `at`; nullopt when it is up to date (every
// fragment covered, one segment). Errors: NotFound (no user index of that name),
// NotSupported (not a scalar index, or a segment without a fragment bitmap: written by a
// lance too old to say what it covers), those of OptionsOfIndex.
Result<std::optional<ScalarOptimizePlan>> PlanScalarIndexOptimize(const table::Snapshot& at,
                                                                  const std::string& name);

}  // namespace lance::index::scalar
