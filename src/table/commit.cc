#include "lance/table/commit.h"

#include <algorithm>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "lance/io/object_store.h"
#include "lance/table/snapshot.h"
#include "lance/table/feature_flags.h"
#include "lance/table/manifest.h"
#include "table/commit_internal.h"
#include "table/proto/table.pb.h"
#include "table/proto/transaction.pb.h"

namespace lance::table {

namespace {

std::string Join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  return a.back() == '/' ? a + b : a + "/" + b;
}

Status CheckTagName(const std::string& name) {
  if (name.empty() || name.size() > 255 || name == "." || name == ".." ||
      name.find_first_of("/\\\"") != std::string::npos || name.front() == '.') {
    return Status::InvalidArgument("invalid tag name '{}'", name);
  }
  return Status::OK();
}

std::string IsoNow() {
  const int64_t ns = internal::NowNs();
  const std::time_t secs = static_cast<std::time_t>(ns / 1000000000LL);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ns % 1000000000LL);
}

}  // namespace

Result<uint64_t> RestoreVersion(const std::string& uri, uint64_t version) {
  return RestoreVersion(uri, version, CommitOptions{});
}

Result<uint64_t> RestoreVersion(const std::string& uri, uint64_t version,
                                const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(internal::TableLocation loc, internal::Locate(uri));
  LANCE_ASSIGN_OR_RAISE(auto latest, internal::LoadLatest(loc));
  if (!latest) return Status::NotFound("{}: no dataset (no version in _versions/)", uri);
  LANCE_RETURN_NOT_OK(CheckCanWrite(latest->manifest.reader_feature_flags(),
                                    latest->manifest.writer_feature_flags(), latest->path));
  LANCE_ASSIGN_OR_RAISE(internal::StoredVersion old, internal::LoadVersion(loc, version));
  LANCE_RETURN_NOT_OK(CheckCanWrite(old.manifest.reader_feature_flags(),
                                    old.manifest.writer_feature_flags(), old.path));
  internal::CommitRequest req;
  req.txn.set_read_version(latest->version);
  req.txn.mutable_restore()->set_version(version);
  req.restore_source = std::move(old);
  LANCE_ASSIGN_OR_RAISE(CommitInfo ci, internal::Commit(loc, std::move(req), options));
  return ci.version;
}

Status CreateTag(const std::string& uri, const std::string& name, uint64_t version) {
  LANCE_RETURN_NOT_OK(CheckTagName(name));
  OpenOptions o;
  o.version = version;
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(uri, o));
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(uri));
  LANCE_ASSIGN_OR_RAISE(io::ObjectMeta meta, sp.store->Head(ds->manifest_path()));
  const std::string now = IsoNow();
  const std::string json = fmt::format(
      "{{\n  \"branch\": null,\n  \"version\": {},\n  \"createdAt\": \"{}\",\n  \"updatedAt\": "
      "\"{}\",\n  \"manifestSize\": {},\n  \"metadata\": {{}}\n}}",
      version, now, now, meta.size);
  Status put = sp.store->PutIfNotExists(Join(sp.path, "_refs/tags/" + name + ".json"), json);
  if (put.IsAlreadyExists()) return Status::AlreadyExists("tag '{}' already exists", name);
  return put;
}

Status DeleteTag(const std::string& uri, const std::string& name) {
  LANCE_RETURN_NOT_OK(CheckTagName(name));
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(uri));
  const std::string path = Join(sp.path, "_refs/tags/" + name + ".json");
  LANCE_ASSIGN_OR_RAISE(bool exists, sp.store->Exists(path));
  if (!exists) return Status::NotFound("no tag '{}'", name);
  return sp.store->Delete(path);
}

Result<std::vector<TagInfo>> ListTags(const std::string& uri) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(uri));
  auto listed = sp.store->List(Join(sp.path, "_refs/tags"));
  if (!listed.ok() && listed.status().IsNotFound()) return std::vector<TagInfo>{};
  LANCE_ASSIGN_OR_RAISE(auto objects, std::move(listed));
  std::vector<TagInfo> tags;
  for (const auto& obj : objects) {
    const std::string base = obj.path.substr(obj.path.rfind('/') + 1);
    if (base.size() <= 5 || base.substr(base.size() - 5) != ".json") continue;
    LANCE_ASSIGN_OR_RAISE(BufferPtr b, sp.store->Get(obj.path));
    LANCE_ASSIGN_OR_RAISE(uint64_t v, ParseVersionJson(std::string_view(reinterpret_cast<const char*>(b->data()),
                                                                        static_cast<size_t>(b->size())),
                                                       obj.path));
    tags.push_back({base.substr(0, base.size() - 5), v});
  }
  std::sort(tags.begin(), tags.end(), [](const TagInfo& a, const TagInfo& b) { return a.name < b.name; });
  return tags;
}

}  // namespace lance::table
