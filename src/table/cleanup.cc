// Cleanup of old versions (cleanup.h): decide which versions go, collect the files every kept
// version references, delete the manifests and the files only removed versions referenced.
#include "lance/table/cleanup.h"

#include <charconv>
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "lance/table/feature_flags.h"
#include "lance/table/manifest.h"
#include "lance/table/tags.h"
#include "lance/table/versions.h"
#include "table/unique_ids.h"

namespace lance::table {

namespace {

// Paths (relative to the table root) of the files a version references.
void ReferencedFiles(const Manifest& m, std::set<std::string>* out) {
  for (const auto& f : m.fragments) {
    for (const auto& df : f.files) out->insert("data/" + df.path);
    if (f.deletion) out->insert("_deletions/" + f.deletion->FileName(f.id));
  }
  if (!m.transaction_file.empty()) out->insert("_transactions/" + m.transaction_file);
}

}  // namespace

Result<int64_t> ParseDurationSeconds(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 15) {
    return Status::InvalidArgument("duration '{}': expected a number followed by s, m, h, d or w",
                                   text);
  }
  int64_t n = 0;
  std::from_chars(text.data(), text.data() + i, n);  // at most 15 digits: no overflow
  const std::string unit = text.substr(i);
  int64_t mult = 0;
  if (unit.empty() || unit == "s") mult = 1;
  else if (unit == "m" || unit == "min") mult = 60;
  else if (unit == "h") mult = 3600;
  else if (unit == "d") mult = 86400;
  else if (unit == "w") mult = 7 * 86400;
  else {
    return Status::InvalidArgument("duration '{}': unknown unit '{}' (use s, m, h, d or w)", text,
                                   unit);
  }
  return n * mult;
}

Result<CleanupStats> CleanupOldVersions(const std::string& uri, const CleanupOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation loc, TableLocation::FromUri(uri));
  return CleanupOldVersions(loc, options);
}

Result<CleanupStats> CleanupOldVersions(const TableLocation& loc, const CleanupOptions& options) {
  if (!options.older_than_seconds && !options.keep_versions) {
    return Status::InvalidArgument("cleanup: give an age (older than) and/or a number of versions "
                                   "to keep");
  }
  if (options.keep_versions && *options.keep_versions == 0) {
    return Status::InvalidArgument("cleanup: the number of versions to keep must be at least 1");
  }
  if (options.older_than_seconds && *options.older_than_seconds < 0) {
    return Status::InvalidArgument("cleanup: negative age {}", *options.older_than_seconds);
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<VersionFile> files, ListVersionFiles(loc));
  std::map<uint64_t, std::pair<std::string, int64_t>> versions;  // version -> path, size
  for (const auto& f : files) versions[f.version] = {f.path, f.size};
  if (versions.empty()) return Status::NotFound("{}: no dataset (no version in _versions/)", loc.display());
  const uint64_t latest = versions.rbegin()->first;
  {
    LANCE_ASSIGN_OR_RAISE(CommittedVersion lv, LoadVersion(loc, latest));
    LANCE_RETURN_NOT_OK(CheckCanWrite(lv.manifest.reader_feature_flags,
                                      lv.manifest.writer_feature_flags, lv.path));
  }
  std::set<uint64_t> tagged;
  LANCE_ASSIGN_OR_RAISE(auto tags, ListTags(loc));
  for (const auto& t : tags) tagged.insert(t.version);

  const int64_t now_ns = internal::NowNs();
  std::vector<uint64_t> all;
  for (const auto& [v, _] : versions) all.push_back(v);
  std::set<std::string> keep_files, removed_files;
  CleanupStats stats;
  for (size_t k = 0; k < all.size(); ++k) {
    const uint64_t v = all[k];
    LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadVersion(loc, v));
    bool remove = v != latest && !tagged.count(v);
    if (remove && options.keep_versions) remove = all.size() - k > *options.keep_versions;
    if (remove && options.older_than_seconds) {
      const int64_t ts = sv.manifest.timestamp_ns.value_or(0);
      remove = ts < now_ns - *options.older_than_seconds * 1000000000LL;
    }
    if (remove) {
      stats.removed_versions.push_back(v);
      ReferencedFiles(sv.manifest, &removed_files);
    } else {
      ReferencedFiles(sv.manifest, &keep_files);
    }
  }
  // Manifests first: a crash after this point leaves only unreferenced files (removed by a
  // later cleanup), never a manifest naming files that are gone.
  for (uint64_t v : stats.removed_versions) {
    if (!options.dry_run) {
      Status st = loc.store()->Delete(versions[v].first);
      if (!st.ok() && !st.IsNotFound()) return st;
    }
    stats.bytes_removed += static_cast<uint64_t>(versions[v].second);
  }
  // Files on disk under the three directories, with their sizes and ages.
  const int64_t unverified_cutoff = now_ns - options.unverified_age_seconds * 1000000000LL;
  for (const char* dir : {"data", "_deletions", "_transactions"}) {
    LANCE_ASSIGN_OR_RAISE(auto objs, loc.store()->List(loc.Path(dir)));
    for (const auto& obj : objs) {
      const std::string rel = obj.path.substr(loc.root().empty() ? 0 : loc.root().size() + 1);
      if (keep_files.count(rel)) continue;
      const bool referenced_by_removed = removed_files.count(rel) > 0;
      if (!referenced_by_removed && !options.delete_unverified && obj.mtime_ns >= unverified_cutoff) {
        continue;  // maybe a write in progress
      }
      if (!options.dry_run) {
        Status st = loc.store()->Delete(obj.path);
        if (!st.ok() && !st.IsNotFound()) return st;
      }
      stats.bytes_removed += static_cast<uint64_t>(obj.size);
      if (rel.rfind("data/", 0) == 0) ++stats.data_files_removed;
      else if (rel.rfind("_deletions/", 0) == 0) ++stats.deletion_files_removed;
      else ++stats.transaction_files_removed;
    }
  }
  return stats;
}

}  // namespace lance::table
