// The version resolver and version store (versions.h): the hint, the probe of the next
// version, the listing fallback, both naming schemes; loading a version and its transaction.
#include <map>

#include <fmt/format.h>

#include "lance/table/feature_flags.h"
#include "lance/table/versions.h"
#include "table/legacy_fixups.h"

namespace lance::table {

namespace {

constexpr const char* kVersionsDir = "_versions";
constexpr const char* kHintFile = "_versions/latest_version_hint.json";

std::string BaseName(const std::string& path) {
  const size_t p = path.rfind('/');
  return p == std::string::npos ? path : path.substr(p + 1);
}

std::string_view View(const BufferPtr& b) {
  return std::string_view(reinterpret_cast<const char*>(b->data()), static_cast<size_t>(b->size()));
}

// The version at `path` (named for `version` in scheme `naming`), from its bytes.
Result<CommittedVersion> Decode(const TableLocation& loc, const std::string& path,
                                uint64_t version, ManifestNaming naming, const BufferPtr& bytes) {
  CommittedVersion v;
  v.version = version;
  v.naming = naming;
  v.path = path;
  v.file_size = static_cast<uint64_t>(bytes->size());
  LANCE_ASSIGN_OR_RAISE(v.manifest, DecodeManifest(View(bytes), path, &v.inline_transaction));
  if (v.manifest.version != version) {
    return Status::Corruption("{}: the file name says version {} but the manifest says {}", path,
                              version, v.manifest.version);
  }
  LANCE_RETURN_NOT_OK(internal::ApplyReadFixups(loc, path, &v.manifest));
  return v;
}

// Version `version` under either name (V2 first); NotFound when neither exists.
Result<CommittedVersion> Load(const TableLocation& loc, uint64_t version, OpenStats* stats) {
  for (ManifestNaming n : {ManifestNaming::kV2, ManifestNaming::kLegacy}) {
    const std::string path = loc.Path(std::string(kVersionsDir) + "/" + ManifestFileName(version, n));
    if (stats) stats->gets++;
    auto bytes = loc.store()->Get(path);
    if (bytes.ok()) return Decode(loc, path, version, n, *bytes);
    if (!bytes.status().IsNotFound()) return bytes.status();
  }
  return Status::NotFound("{}: version {} does not exist", loc.display(), version);
}

// The version the hint names, when the hint is readable, that version exists and the next
// one does not; nullopt otherwise (the caller lists).
Result<std::optional<CommittedVersion>> FromHint(const TableLocation& loc, OpenStats* stats) {
  if (stats) stats->gets++;
  auto hint = loc.store()->Get(loc.Path(kHintFile));
  if (!hint.ok()) {
    if (hint.status().IsNotFound()) return std::optional<CommittedVersion>();
    return hint.status();
  }
  auto hinted = ParseVersionJson(View(*hint), "latest_version_hint.json");
  if (!hinted.ok()) return std::optional<CommittedVersion>();  // unreadable: as if absent
  auto v = Load(loc, *hinted, stats);
  if (!v.ok()) {
    if (v.status().IsNotFound()) return std::optional<CommittedVersion>();
    return v.status();
  }
  if (stats) stats->heads++;
  LANCE_ASSIGN_OR_RAISE(bool newer,
                        loc.store()->Exists(loc.Path(std::string(kVersionsDir) + "/" +
                                                     ManifestFileName(*hinted + 1, v->naming))));
  if (newer) return std::optional<CommittedVersion>();
  return std::optional<CommittedVersion>(std::move(*v));
}

}  // namespace

Result<std::vector<VersionFile>> ListVersionFiles(const TableLocation& location, OpenStats* stats) {
  if (stats) stats->lists++;
  LANCE_ASSIGN_OR_RAISE(io::ListResult listed, location.store()->ListDir(location.Path(kVersionsDir)));
  std::map<uint64_t, VersionFile> by_version;
  for (const auto& obj : listed.objects) {
    auto parsed = ParseManifestFileName(BaseName(obj.path));
    // Not a manifest name, or version 0 (`18446744073709551615.manifest`, `0.manifest`:
    // versions start at 1): ignored, as lance 12 ignores them.
    if (!parsed || parsed->first == 0) continue;
    VersionFile f{parsed->first, parsed->second, obj.path, obj.size};
    auto [it, fresh] = by_version.emplace(f.version, f);
    // A version under both names (a table that switched schemes): the V2 name, as loading
    // tries it first.
    if (!fresh && f.naming == ManifestNaming::kV2) it->second = std::move(f);
  }
  std::vector<VersionFile> out;
  out.reserve(by_version.size());
  for (auto& [v, f] : by_version) out.push_back(std::move(f));
  return out;
}

Result<std::optional<CommittedVersion>> LoadLatestVersion(const TableLocation& location,
                                                          OpenStats* stats) {
  LANCE_ASSIGN_OR_RAISE(std::optional<CommittedVersion> hinted, FromHint(location, stats));
  if (hinted) return hinted;
  LANCE_ASSIGN_OR_RAISE(std::vector<VersionFile> files, ListVersionFiles(location, stats));
  if (files.empty()) return std::optional<CommittedVersion>();
  const VersionFile& latest = files.back();
  if (stats) stats->gets++;
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, location.store()->Get(latest.path));
  LANCE_ASSIGN_OR_RAISE(CommittedVersion v, Decode(location, latest.path, latest.version, latest.naming, bytes));
  return std::optional<CommittedVersion>(std::move(v));
}

Result<CommittedVersion> LoadVersion(const TableLocation& location, uint64_t version,
                                     OpenStats* stats) {
  return Load(location, version, stats);
}

Result<CommittedVersion> LoadLatestWritableVersion(const TableLocation& location) {
  LANCE_ASSIGN_OR_RAISE(auto latest, LoadLatestVersion(location));
  if (!latest) {
    return Status::NotFound("{}: no dataset (no version in _versions/)", location.display());
  }
  LANCE_RETURN_NOT_OK(CheckCanWrite(latest->manifest.reader_feature_flags,
                                    latest->manifest.writer_feature_flags, latest->path));
  return std::move(*latest);
}

Result<std::optional<Transaction>> LoadTransaction(const TableLocation& location,
                                                   const CommittedVersion& v) {
  if (!v.inline_transaction.empty()) {
    LANCE_ASSIGN_OR_RAISE(Transaction t, DecodeTransaction(v.inline_transaction,
                                                           v.path + " (inline transaction)"));
    return std::optional<Transaction>(std::move(t));
  }
  if (v.manifest.transaction_file.empty()) return std::optional<Transaction>();
  const std::string path = location.Path("_transactions/" + v.manifest.transaction_file);
  LANCE_ASSIGN_OR_RAISE(BufferPtr buf, location.store()->Get(path));
  LANCE_ASSIGN_OR_RAISE(Transaction t, DecodeTransaction(View(buf), path));
  return std::optional<Transaction>(std::move(t));
}

Result<std::vector<VersionInfo>> ListVersions(const TableLocation& location) {
  LANCE_ASSIGN_OR_RAISE(std::vector<VersionFile> files, ListVersionFiles(location));
  std::vector<VersionInfo> out;
  out.reserve(files.size());
  for (const auto& f : files) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, location.store()->Get(f.path));
    LANCE_ASSIGN_OR_RAISE(Manifest m, DecodeManifest(View(bytes), f.path));
    LANCE_RETURN_NOT_OK(internal::ApplyReadFixups(location, f.path, &m, /*tolerate_missing=*/true));
    VersionInfo vi;
    vi.version = f.version;
    vi.naming = f.naming;
    vi.timestamp_ns = m.timestamp_ns;
    vi.num_rows = m.num_rows();
    vi.num_fragments = m.fragments.size();
    out.push_back(vi);
  }
  return out;
}

}  // namespace lance::table
