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

namespace lance::table {

// (IsSystemIndex, the indexes lance keeps for itself that listings of user indexes leave out,
// is in manifest.h.)

// Removes every segment of the user index `name` from the latest version's index section (a
// CreateIndex transaction listing them as removed, as lance 12's drop_index); the index files
// stay under _indices/ until cleanup. Errors: NotFound (no dataset, or no user index of that
// name), InvalidArgument (empty name), CommitConflict.
Result<CommitInfo> DropIndex(const std::string& uri, const std::string& name,
                             const CommitOptions& options = {});
Result<CommitInfo> DropIndex(const TableLocation& location, const std::string& name,
                             const CommitOptions& options = {});

}  // namespace lance::table
