#include "lance/table/commit.h"

#include <algorithm>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "lance/io/object_store.h"
#include "lance/table/dataset.h"
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

void AppendU32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }
void AppendU64(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }

// The length-prefixed section at `pos` of a manifest file (bounds already checked by
// DecodeManifest).
std::string_view Section(std::string_view file, uint64_t pos) {
  uint32_t len;
  std::memcpy(&len, file.data() + pos, 4);
  return file.substr(pos + 4, len);
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
  LANCE_ASSIGN_OR_RAISE(auto latest, Dataset::Open(uri));
  OpenOptions o;
  o.version = version;
  LANCE_ASSIGN_OR_RAISE(auto old, Dataset::Open(uri, o));
  const TableManifest& lm = latest->manifest();
  LANCE_RETURN_NOT_OK(CheckCanWrite(lm.reader_feature_flags, lm.writer_feature_flags,
                                    latest->manifest_path()));
  LANCE_RETURN_NOT_OK(CheckCanWrite(old->manifest().reader_feature_flags,
                                    old->manifest().writer_feature_flags, old->manifest_path()));
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(uri));
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, sp.store->Get(old->manifest_path()));
  const std::string_view file(reinterpret_cast<const char*>(bytes->data()),
                              static_cast<size_t>(bytes->size()));
  uint64_t pos;
  std::memcpy(&pos, file.data() + file.size() - 16, 8);
  ::lance::table::Manifest pb;
  const std::string_view body = Section(file, pos);
  if (!pb.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return Status::Corruption("{}: the manifest does not decode", old->manifest_path());
  }
  const uint64_t next = lm.version + 1;
  pb.set_version(next);
  const int64_t ns = internal::NowNs();
  pb.mutable_timestamp()->set_seconds(ns / 1000000000LL);
  pb.mutable_timestamp()->set_nanos(static_cast<int32_t>(ns % 1000000000LL));
  // The transaction: a file in _transactions/ and a copy inline in the manifest.
  ::lance::table::Transaction txn;
  txn.set_read_version(lm.version);
  txn.set_uuid(internal::NewUuid());
  txn.mutable_restore()->set_version(version);
  const std::string txn_bytes = txn.SerializeAsString();
  const std::string txn_name = fmt::format("{}-{}.txn", lm.version, txn.uuid());
  pb.set_transaction_file(txn_name);
  pb.clear_transaction_section();
  pb.mutable_writer_version()->set_library("lance-cpp");
  pb.mutable_writer_version()->set_version("0.1.0");
  if (lm.max_fragment_id && (!pb.has_max_fragment_id() || pb.max_fragment_id() < *lm.max_fragment_id)) {
    pb.set_max_fragment_id(*lm.max_fragment_id);  // fragment ids are never reused
  }
  if (pb.next_row_id() < lm.next_row_id) pb.set_next_row_id(lm.next_row_id);

  std::string out;
  if (pb.has_index_section()) {
    const std::string_view idx = Section(file, pb.index_section());
    pb.set_index_section(0);
    AppendU32(&out, static_cast<uint32_t>(idx.size()));
    out.append(idx);
  }
  pb.set_transaction_section(out.size());
  AppendU32(&out, static_cast<uint32_t>(txn_bytes.size()));
  out += txn_bytes;
  const uint64_t manifest_pos = out.size();
  const std::string encoded = pb.SerializeAsString();
  AppendU32(&out, static_cast<uint32_t>(encoded.size()));
  out += encoded;
  AppendU64(&out, manifest_pos);
  out.append("\x00\x00\x02\x00LANC", 8);

  LANCE_RETURN_NOT_OK(sp.store->Put(Join(Join(sp.path, "_transactions"), txn_name), txn_bytes));
  const ManifestNaming naming =
      ParseManifestFileName(latest->manifest_path().substr(latest->manifest_path().rfind('/') + 1))
          ->second;
  const std::string target = Join(Join(sp.path, "_versions"), ManifestFileName(next, naming));
  Status put = sp.store->PutIfNotExists(target, out);
  if (put.IsAlreadyExists()) {
    return Status::CommitConflict("restore of version {}: version {} was committed by another "
                                  "writer first; retry",
                                  version, next);
  }
  LANCE_RETURN_NOT_OK(put);
  LANCE_RETURN_NOT_OK(sp.store->Put(Join(Join(sp.path, "_versions"), "latest_version_hint.json"),
                                    fmt::format("{{\"version\":{}}}", next)));
  return next;
}

Status CreateTag(const std::string& uri, const std::string& name, uint64_t version) {
  LANCE_RETURN_NOT_OK(CheckTagName(name));
  OpenOptions o;
  o.version = version;
  LANCE_ASSIGN_OR_RAISE(auto ds, Dataset::Open(uri, o));
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
