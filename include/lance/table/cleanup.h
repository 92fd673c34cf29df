// Cleanup of old versions: removes the manifests of versions nobody needs any more and the
// files only they referenced, as lance 12's cleanup_old_versions does.
//
// A version is removed when it is not the latest, no tag points at it, and it matches every
// criterion given: its timestamp is older than `older_than_seconds`, it is not among the
// newest `keep_versions` versions. Files under data/, _deletions/ and _transactions/ that a
// removed version referenced and no kept version references are deleted. Files that no
// manifest references at all (left behind by failed or in-progress writes) are deleted only
// when they are older than `unverified_age_seconds` (7 days by default), or always with
// `delete_unverified` — a write still running could otherwise lose its files. Index files
// (_indices/) are never touched.
//
// Not atomic: a crash midway leaves some unreferenced files, which a later cleanup removes.
// Safe against concurrent writers as long as they do not read versions being removed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/table/location.h"

namespace lance::table {

struct CleanupOptions {
  std::optional<int64_t> older_than_seconds;  // remove versions older than now - this
  std::optional<uint64_t> keep_versions;      // always keep the newest N versions (N >= 1)
  int64_t unverified_age_seconds = 7 * 24 * 3600;
  bool delete_unverified = false;
  bool dry_run = false;  // report what would be removed, delete nothing
};

struct CleanupStats {
  std::vector<uint64_t> removed_versions;  // ascending
  uint64_t data_files_removed = 0;
  uint64_t deletion_files_removed = 0;
  uint64_t transaction_files_removed = 0;
  uint64_t bytes_removed = 0;  // data + deletion + transaction + manifest files
};

// "7d", "12h", "30m", "45s", "2w" or a plain number of seconds. Errors: InvalidArgument.
Result<int64_t> ParseDurationSeconds(const std::string& text);

// Removes old versions of the dataset at `uri` (see above). Errors: InvalidArgument (neither
// criterion given, keep_versions 0), NotFound (no dataset), IOError, Corruption.
Result<CleanupStats> CleanupOldVersions(const std::string& uri, const CleanupOptions& options);
Result<CleanupStats> CleanupOldVersions(const TableLocation& location, const CleanupOptions& options);

}  // namespace lance::table
