// Applying an operation to a manifest (internal to the commit loop): the next version's
// manifest from the latest one and a transaction, with new fragment ids, stable row ids and
// row versions assigned, the index section carried over (pruned as lance 12 prunes it) and
// the feature flags computed.
#pragma once

#include <cstdint>

#include "lance/core/result.h"
#include "lance/table/manifest.h"
#include "lance/table/transaction.h"

namespace lance::table::internal {

// The manifest of the next version: `txn`'s operation applied to `latest` (null: the table
// does not exist yet, only an Overwrite creates it), stamped with `now_ns`. Members lance-cpp
// does not model survive from `latest` (they are in the model's unknown fields). The section
// positions of the result are unset (the encoder places the sections).
// Errors: CommitConflict, retryable, when fragments the operation changes are gone or no longer
// as read (Delete, Update, Rewrite); NotSupported for operations lance-cpp cannot apply;
// Internal for a Restore without its source manifest; what the schema conversion says of a
// new schema.
Result<Manifest> ApplyOperation(const Transaction& txn, const Manifest* latest, int64_t now_ns);

}  // namespace lance::table::internal
