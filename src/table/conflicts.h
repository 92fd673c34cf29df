// The conflict rules of the commit loop (internal): whether a transaction being committed
// tolerates one committed since its read version, per the compatibility lists of the public
// transaction.md.
#pragma once

#include <cstdint>
#include <set>

#include "lance/table/transaction.h"

namespace lance::table::internal {

enum class Verdict {
  kCompatible,    // commit on top of it (a Delete/Update is then rebased over deletions)
  kRetryable,     // refuse; the operation may be run again on the new version
  kIncompatible,  // refuse for good
};

// Whether `ours` (being committed) tolerates `theirs` (committed after ours.read_version).
// Delete/Update over Delete/Update of the same fragments is compatible here: the rebase of
// deletion vectors merges or refuses afterwards.
Verdict CheckConflict(const Transaction& ours, const Transaction& theirs);

// Ids of the existing fragments an operation modifies or removes (not the ones it adds).
std::set<uint64_t> TouchedFragments(const Transaction& t);

}  // namespace lance::table::internal
