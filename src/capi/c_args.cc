#include "capi/c_args.h"

#include <fmt/format.h>

#include "capi/error.h"
#include "lance/columnar/utf8.h"

namespace lance::capi {

Result<std::optional<std::string>> OptionalString(const char* s, std::string_view what) {
  if (s == nullptr) return std::optional<std::string>();
  std::string out(s);
  if (!IsValidUtf8(out)) return Invalid(fmt::format("{} is not valid UTF-8", what));
  return std::optional<std::string>(std::move(out));
}

Result<std::string> RequiredString(const char* s, std::string_view what) {
  LANCE_ASSIGN_OR_RAISE(auto v, OptionalString(s, what));
  if (!v || v->empty()) return Invalid(fmt::format("{} must not be NULL or empty", what));
  return std::move(*v);
}

Result<std::optional<std::vector<std::string>>> StringList(const char* const* list,
                                                           std::string_view what) {
  if (list == nullptr) return std::optional<std::vector<std::string>>();
  std::vector<std::string> out;
  for (size_t i = 0; list[i] != nullptr; ++i) {
    LANCE_ASSIGN_OR_RAISE(auto s, OptionalString(list[i], fmt::format("{}[{}]", what, i)));
    out.push_back(std::move(*s));
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

Result<std::vector<std::string>> StringArray(const char* const* array, size_t n,
                                             std::string_view what) {
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    LANCE_ASSIGN_OR_RAISE(auto s, RequiredString(array[i], fmt::format("{}[{}]", what, i)));
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> StorageOptions(const char* const* kv) {
  std::vector<std::pair<std::string, std::string>> out;
  if (kv == nullptr) return out;
  for (size_t i = 0; kv[i] != nullptr; i += 2) {
    if (kv[i + 1] == nullptr) {
      return Invalid("storage options must be key-value pairs; odd number of entries");
    }
    LANCE_ASSIGN_OR_RAISE(auto k, OptionalString(kv[i], "storage option key"));
    LANCE_ASSIGN_OR_RAISE(auto v, OptionalString(kv[i + 1], "storage option value"));
    out.emplace_back(std::move(*k), std::move(*v));
  }
  return out;
}

}  // namespace lance::capi
