// Writes that need no new data files: restoring an old version and tags.
//
// A restore commits through the commit machinery like every other write (transaction.h): the
// next version's manifest is created only if absent; a writer that loses that race re-reads
// the latest version and tries again, since a restore tolerates every concurrent operation
// transaction.md lists except UpdateMemWalState (it replaces whatever they did). Tags are
// created with put-if-not-exists. The writer feature flags of the manifests involved are
// checked first (unknown bits -> NotSupported).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/table/transaction.h"

namespace lance::table {

// Commits a new version whose content (schema, fragments, config, indexes) is that of
// `version`; returns the new version number. Fragment ids and stable row ids are never
// reused: the new version's max fragment id and next row id are at least the latest's.
// Errors: NotFound (no such version), CommitConflict (an incompatible concurrent commit, or
// options.max_retries lost races), NotSupported (flags).
Result<uint64_t> RestoreVersion(const std::string& uri, uint64_t version);
Result<uint64_t> RestoreVersion(const std::string& uri, uint64_t version,
                                const CommitOptions& options);

struct TagInfo {
  std::string name;
  uint64_t version = 0;
};

// Creates `_refs/tags/{name}.json` naming `version` (which must exist).
// Errors: AlreadyExists, NotFound, InvalidArgument (bad name).
Status CreateTag(const std::string& uri, const std::string& name, uint64_t version);
// Errors: NotFound.
Status DeleteTag(const std::string& uri, const std::string& name);
// Every tag, sorted by name.
Result<std::vector<TagInfo>> ListTags(const std::string& uri);

}  // namespace lance::table
