// The commit of a rewrite-rows update (dataset/'s update and merge-insert both end with it):
// the rows moved out deleted where they were, the new fragments holding them added, one
// Update transaction read at the snapshot's version.
#pragma once

#include <cstdint>
#include <vector>

#include "lance/core/result.h"
#include "lance/table/commit.h"
#include "lance/table/snapshot.h"

namespace lance::table {

// Stages the deletion of the rows at `addresses` (row addresses of `ds`, unique, live; any
// order) and commits an Update (rewrite rows) with `fragments` as its new fragments, whose
// files `staged` holds.
Result<CommitInfo> CommitRowUpdate(const TableLocation& location, StagedFiles& staged,
                                   const Snapshot& ds, std::vector<uint64_t> addresses,
                                   std::vector<FragmentInfo> fragments, const CommitOptions& options);

}  // namespace lance::table
