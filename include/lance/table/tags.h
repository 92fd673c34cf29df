// Tags: names for versions, stored as _refs/tags/{name}.json ({"version": N, ...}, as lance
// 12 writes them), created with put-if-not-exists.
//
// Tag names follow lance 12's rules, here and only here (CheckTagName), for creating,
// deleting and opening alike: non-empty; letters and digits (Unicode ones too, as Rust's
// char::is_alphanumeric: letters, marks that are alphabetic, and numbers of every script),
// '.', '-' and '_' only; not starting or ending with '.', no "..", not ending in ".lock".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/result.h"
#include "lance/table/location.h"

namespace lance::table {

struct OpenStats;

struct TagInfo {
  std::string name;
  uint64_t version = 0;
};

// Errors: InvalidArgument naming the rule `name` breaks.
Status CheckTagName(std::string_view name);

// The version tag `name` names. Errors: InvalidArgument (name), NotFound (no such tag),
// Corruption (a tag file without a version).
Result<uint64_t> ResolveTag(const TableLocation& location, const std::string& name,
                            OpenStats* stats = nullptr);

// Creates `_refs/tags/{name}.json` naming `version` (which must exist).
// Errors: AlreadyExists, NotFound, InvalidArgument (bad name).
Status CreateTag(const TableLocation& location, const std::string& name, uint64_t version);
Status CreateTag(const std::string& uri, const std::string& name, uint64_t version);
// Errors: NotFound, InvalidArgument (bad name).
Status DeleteTag(const TableLocation& location, const std::string& name);
Status DeleteTag(const std::string& uri, const std::string& name);
// Every tag, sorted by name.
Result<std::vector<TagInfo>> ListTags(const TableLocation& location);
Result<std::vector<TagInfo>> ListTags(const std::string& uri);

}  // namespace lance::table
