// Rebasing a transaction that deletes rows (internal to the commit loop): merging its
// deletion vectors with the ones concurrent commits wrote for the same fragments.
#pragma once

#include "lance/core/result.h"
#include "lance/table/location.h"
#include "lance/table/transaction.h"
#include "lance/table/versions.h"

namespace lance::table::internal {

// Rebases the Delete or Update `txn` onto `latest`: for each fragment whose deletion file
// changed since the transaction read it, the concurrent deletions are read and merged with
// the transaction's (a new cumulative deletion file, staged in `staged`, or the fragment
// removed when no live row is left). Afterwards txn's deletions are relative to `latest`.
// Errors: CommitConflict, retryable, when both deleted a common row, a fragment is gone, or
// a fragment changed that the transaction carries no rows for (DeletionRebase).
Status RebaseDeletions(const TableLocation& location, StagedFiles& staged, Transaction* txn,
                       const CommittedVersion& latest);

}  // namespace lance::table::internal
