// Writes that need no new data files: restoring an old version and tags.
//
// A commit writes the next version's manifest with put-if-not-exists (so two writers racing
// for the same version cannot both win: the loser gets CommitConflict), in the naming scheme
// the dataset already uses, then rewrites latest_version_hint.json. The writer feature flags
// of the manifests involved are checked first (unknown bits -> NotSupported).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lance/core/result.h"

namespace lance::table {

// Commits a new version whose content (schema, fragments, config, indexes) is that of
// `version`; returns the new version number. Errors: NotFound (no such version),
// CommitConflict (another writer committed the same version first), NotSupported (flags).
Result<uint64_t> RestoreVersion(const std::string& uri, uint64_t version);

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
