// The argument conventions of the C ABI, read into C++ values with lance-c's checks: C strings
// (UTF-8), NULL-terminated string lists, key/value storage options, counted string arrays.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/result.h"

namespace lance::capi {

// `s` as a string; nullopt for NULL. Errors: InvalidArgument naming `what` for invalid UTF-8.
Result<std::optional<std::string>> OptionalString(const char* s, std::string_view what);
// A string that must be present and non-empty ("<what> must not be NULL or empty").
Result<std::string> RequiredString(const char* s, std::string_view what);

// A NULL-terminated list of strings; nullopt for a NULL list ("all columns").
Result<std::optional<std::vector<std::string>>> StringList(const char* const* list,
                                                           std::string_view what);

// `n` strings of `array`, each required non-empty ("<what>[i] must not be NULL or empty").
Result<std::vector<std::string>> StringArray(const char* const* array, size_t n,
                                             std::string_view what);

// NULL-terminated key/value pairs {"k", "v", ..., NULL}; empty for NULL. Errors:
// InvalidArgument for an odd number of entries.
Result<std::vector<std::pair<std::string, std::string>>> StorageOptions(const char* const* kv);

}  // namespace lance::capi
