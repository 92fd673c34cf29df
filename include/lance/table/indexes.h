// Index maintenance that needs no index files: dropping an index from the manifest.
//
// lance-cpp builds no index files yet; these operate on the index section lance 12 (or any
// writer) recorded. Commits go through the commit loop of commit.h.
#pragma once

#include <string>

#include "lance/core/result.h"
#include "lance/table/commit.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"
#include "lance/table/snapshot.h"

namespace lance::table {

// (IsSystemIndex, the indexes lance keeps for itself that listings of user indexes leave out,
// is in manifest.h.)

// Removes every segment of the user index `name` from the index section of `at` (a
// CreateIndex transaction built on that version listing them as removed, as lance 12's
// drop_index; the commit loop rebases it over later versions); the index files stay under
// _indices/ until cleanup. Errors: NotFound (no user index of that name in `at`),
// InvalidArgument (empty name), NotSupported (feature flags), CommitConflict.
Result<CommitInfo> DropIndex(const Snapshot& at, const std::string& name,
                             const CommitOptions& options = {});

}  // namespace lance::table
