// The versions of a table: finding them (the one version resolver every reader and writer of
// table/ uses), loading a version with its transaction, listing them, restoring one.
//
// Resolving the latest version costs O(1) requests: latest_version_hint.json, the manifest
// of the version it names (either naming scheme), and one HEAD of the next version's name
// (same scheme) to check that the hint is not stale. A missing, unreadable or stale hint, or
// a hint naming a missing manifest, falls back to listing _versions/ (the latest is the
// highest version of either scheme there). A given version is found by its two possible
// names, V2 first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/table/commit.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"
#include "lance/table/transaction.h"

namespace lance::table {

// Object requests a resolution made (for checking the O(1) latest-version path).
struct OpenStats {
  int gets = 0;
  int heads = 0;
  int lists = 0;
};

// One manifest file in _versions/.
struct VersionFile {
  uint64_t version = 0;
  ManifestNaming naming = ManifestNaming::kV2;
  std::string path;  // store path
  int64_t size = 0;  // bytes (0 when resolved without a listing)
};

// One committed version, as stored: where, its manifest, and the transaction recorded inline.
struct CommittedVersion {
  uint64_t version = 0;
  ManifestNaming naming = ManifestNaming::kV2;
  std::string path;  // store path of the manifest file
  uint64_t file_size = 0;  // bytes of the manifest file
  Manifest manifest;
  std::string inline_transaction;  // serialized Transaction ("" when the manifest has none)
};

// Every manifest file in _versions/ of either scheme, ascending by version (none: empty).
// Errors: the store's (a missing _versions/ is not an error).
Result<std::vector<VersionFile>> ListVersionFiles(const TableLocation& location,
                                                  OpenStats* stats = nullptr);

// The latest version (see above); nullopt when the table has no version.
// Errors: Corruption (a manifest that does not decode, or whose version is not its name's),
// the store's.
Result<std::optional<CommittedVersion>> LoadLatestVersion(const TableLocation& location,
                                                          OpenStats* stats = nullptr);

// Version `version`. Errors: NotFound (neither name exists), as LoadLatestVersion.
Result<CommittedVersion> LoadVersion(const TableLocation& location, uint64_t version,
                                     OpenStats* stats = nullptr);

// The latest version, which lance-cpp must be able to write: NotFound when there is none
// (naming the table), what CheckCanWrite says of its feature flags.
Result<CommittedVersion> LoadLatestWritableVersion(const TableLocation& location);

// The transaction that produced `v` (inline section, else its _transactions/ file); nullopt
// when the version records none. Errors: Corruption, the store's.
Result<std::optional<Transaction>> LoadTransaction(const TableLocation& location,
                                                   const CommittedVersion& v);

struct VersionInfo {
  uint64_t version = 0;
  ManifestNaming naming = ManifestNaming::kV2;
  std::optional<int64_t> timestamp_ns;
  uint64_t num_rows = 0;
  size_t num_fragments = 0;
};

// Every version in _versions/, ascending, each manifest decoded.
Result<std::vector<VersionInfo>> ListVersions(const TableLocation& location);

// Commits a new version whose content (schema, fragments, config, indexes) is that of
// `version`; returns the new version number. Fragment ids and stable row ids are never
// reused: the new version's max fragment id and next row id are at least the latest's. A
// restore tolerates every concurrent operation transaction.md lists except
// UpdateMemWalState (it replaces whatever they did).
// Errors: NotFound (no such version), CommitConflict, NotSupported (flags of either version).
Result<uint64_t> RestoreVersion(const TableLocation& location, uint64_t version,
                                const CommitOptions& options = {});
Result<uint64_t> RestoreVersion(const std::string& uri, uint64_t version,
                                const CommitOptions& options = {});

}  // namespace lance::table
