// Tags (tags.h): the name rules, and the tag files under _refs/tags/.
#include "lance/table/tags.h"

#include <algorithm>
#include <ctime>
#include <iterator>

#include <fmt/format.h>

#include "lance/table/feature_flags.h"
#include "lance/table/versions.h"
#include "table/unique_ids.h"

namespace lance::table {

namespace {

struct CodeRange {
  uint32_t first;
  uint32_t last;
};

constexpr CodeRange kAlphanumeric[] = {
#include "table/unicode_alnum.inc"
};

bool IsAlphanumeric(uint32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  const auto* it = std::upper_bound(std::begin(kAlphanumeric), std::end(kAlphanumeric), c,
                                    [](uint32_t v, const CodeRange& r) { return v < r.first; });
  return it != std::begin(kAlphanumeric) && c <= std::prev(it)->last;
}

// The code point at s[*i] (well-formed UTF-8), advancing *i; nullopt for malformed bytes.
std::optional<uint32_t> NextCodePoint(std::string_view s, size_t* i) {
  const auto b0 = static_cast<unsigned char>(s[*i]);
  int len = 0;
  uint32_t c = 0;
  if (b0 < 0x80) {
    ++*i;
    return b0;
  } else if ((b0 & 0xe0) == 0xc0) {
    len = 2, c = b0 & 0x1f;
  } else if ((b0 & 0xf0) == 0xe0) {
    len = 3, c = b0 & 0x0f;
  } else if ((b0 & 0xf8) == 0xf0) {
    len = 4, c = b0 & 0x07;
  } else {
    return std::nullopt;
  }
  if (*i + static_cast<size_t>(len) > s.size()) return std::nullopt;
  for (int k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[*i + static_cast<size_t>(k)]);
    if ((b & 0xc0) != 0x80) return std::nullopt;
    c = (c << 6) | (b & 0x3f);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < kMin[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return std::nullopt;
  *i += static_cast<size_t>(len);
  return c;
}

std::string IsoNow() {
  const int64_t ns = internal::NowNs();
  const std::time_t secs = static_cast<std::time_t>(ns / 1000000000LL);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ns % 1000000000LL);
}

std::string TagPath(const TableLocation& loc, const std::string& name) {
  return loc.Path("_refs/tags/" + name + ".json");
}

}  // namespace

Status CheckTagName(std::string_view name) {
  auto invalid = [&](const char* rule) {
    return Status::InvalidArgument("invalid tag name '{}': {}", std::string(name), rule);
  };
  if (name.empty()) return invalid("a tag name cannot be empty");
  if (name.front() == '.') return invalid("a tag name cannot begin with a dot");
  if (name.back() == '.') return invalid("a tag name cannot end with a dot");
  if (name.find("..") != std::string_view::npos) return invalid("a tag name cannot have two consecutive dots");
  if (name.size() >= 5 && name.substr(name.size() - 5) == ".lock") return invalid("a tag name cannot end with .lock");
  for (size_t i = 0; i < name.size();) {
    const auto c = NextCodePoint(name, &i);
    if (!c || !(IsAlphanumeric(*c) || *c == '.' || *c == '-' || *c == '_')) {
      return invalid("its characters must be letters, digits, '.', '-' or '_'");
    }
  }
  return Status::OK();
}

Result<uint64_t> ResolveTag(const TableLocation& location, const std::string& name, OpenStats* stats) {
  LANCE_RETURN_NOT_OK(CheckTagName(name));
  const std::string path = TagPath(location, name);
  if (stats) stats->gets++;
  auto bytes = location.store()->Get(path);
  if (!bytes.ok()) {
    if (bytes.status().IsNotFound()) {
      return Status::NotFound("{}: no tag '{}' ({} does not exist)", location.display(), name,
                              location.store()->DisplayPath(path));
    }
    return bytes.status();
  }
  const BufferPtr& b = *bytes;
  return ParseVersionJson(std::string_view(reinterpret_cast<const char*>(b->data()), static_cast<size_t>(b->size())),
                          path);
}

Status CreateTag(const TableLocation& location, const std::string& name, uint64_t version) {
  LANCE_RETURN_NOT_OK(CheckTagName(name));
  LANCE_ASSIGN_OR_RAISE(CommittedVersion v, LoadVersion(location, version));
  LANCE_RETURN_NOT_OK(CheckCanRead(v.manifest.reader_feature_flags, v.manifest.writer_feature_flags, v.path));
  const std::string now = IsoNow();
  const std::string json = fmt::format(
      "{{\n  \"branch\": null,\n  \"version\": {},\n  \"createdAt\": \"{}\",\n  \"updatedAt\": "
      "\"{}\",\n  \"manifestSize\": {},\n  \"metadata\": {{}}\n}}",
      version, now, now, v.file_size);
  Status put = location.store()->PutIfNotExists(TagPath(location, name), json);
  if (put.IsAlreadyExists()) return Status::AlreadyExists("tag '{}' already exists", name);
  return put;
}

Status CreateTag(const std::string& uri, const std::string& name, uint64_t version) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return CreateTag(location, name, version);
}

Status DeleteTag(const TableLocation& location, const std::string& name) {
  LANCE_RETURN_NOT_OK(CheckTagName(name));
  const std::string path = TagPath(location, name);
  LANCE_ASSIGN_OR_RAISE(bool exists, location.store()->Exists(path));
  if (!exists) return Status::NotFound("no tag '{}'", name);
  return location.store()->Delete(path);
}

Status DeleteTag(const std::string& uri, const std::string& name) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return DeleteTag(location, name);
}

Result<std::vector<TagInfo>> ListTags(const TableLocation& location) {
  auto listed = location.store()->List(location.Path("_refs/tags"));
  if (!listed.ok() && listed.status().IsNotFound()) return std::vector<TagInfo>{};
  LANCE_ASSIGN_OR_RAISE(auto objects, std::move(listed));
  std::vector<TagInfo> tags;
  for (const auto& obj : objects) {
    const std::string base = obj.path.substr(obj.path.rfind('/') + 1);
    if (base.size() <= 5 || base.substr(base.size() - 5) != ".json") continue;
    LANCE_ASSIGN_OR_RAISE(BufferPtr b, location.store()->Get(obj.path));
    LANCE_ASSIGN_OR_RAISE(uint64_t v, ParseVersionJson(std::string_view(reinterpret_cast<const char*>(b->data()),
                                                                        static_cast<size_t>(b->size())),
                                                       obj.path));
    tags.push_back({base.substr(0, base.size() - 5), v});
  }
  std::sort(tags.begin(), tags.end(), [](const TagInfo& a, const TagInfo& b) { return a.name < b.name; });
  return tags;
}

Result<std::vector<TagInfo>> ListTags(const std::string& uri) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return ListTags(location);
}

}  // namespace lance::table
