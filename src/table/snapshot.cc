#include "lance/table/snapshot.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "lance/core/thread_pool.h"
#include "lance/file/file_reader.h"
#include "lance/io/local_object_store.h"
#include "lance/table/feature_flags.h"
#include "lance/table/tags.h"
#include "table/field_tree.h"

namespace lance::table {

namespace {

std::string Join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

}  // namespace

Result<std::shared_ptr<Snapshot>> Snapshot::Open(const std::string& uri, OpenOptions options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return Open(location, std::move(options));
}

Result<std::shared_ptr<Snapshot>> Snapshot::Open(std::shared_ptr<io::ObjectStore> store,
                                               std::string root, OpenOptions options) {
  return Open(TableLocation(std::move(store), std::move(root)), std::move(options));
}

Result<std::shared_ptr<Snapshot>> Snapshot::Open(const TableLocation& location, OpenOptions options) {
  if (options.version && options.tag) {
    return Status::InvalidArgument("open {}: give a version or a tag, not both", location.display());
  }
  OpenStats stats;
  std::optional<uint64_t> want = options.version;
  if (options.tag) {
    auto v = ResolveTag(location, *options.tag, &stats);
    if (!v.ok()) {
      return Status(v.status().code(), fmt::format("open {}: {}", location.display(), v.status().message()));
    }
    want = *v;
  }
  CommittedVersion version;
  if (want) {
    LANCE_ASSIGN_OR_RAISE(version, LoadVersion(location, *want, &stats));
  } else {
    LANCE_ASSIGN_OR_RAISE(std::optional<CommittedVersion> latest, LoadLatestVersion(location, &stats));
    if (!latest) {
      return Status::NotFound("{}: not a Lance dataset (no manifest in {}/_versions)",
                              location.display(), location.display());
    }
    version = std::move(*latest);
  }
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<Snapshot> ds, Open(location, std::move(version)));
  ds->stats_ = stats;
  return ds;
}

Result<std::shared_ptr<Snapshot>> Snapshot::Open(const TableLocation& location, CommittedVersion version) {
  std::shared_ptr<Snapshot> ds(new Snapshot());
  ds->readers_ = std::make_shared<ReaderCache>();
  ds->location_ = location;
  ds->manifest_path_ = std::move(version.path);
  ds->manifest_ = std::move(version.manifest);
  LANCE_RETURN_NOT_OK(CheckCanRead(ds->manifest_.reader_feature_flags,
                                   ds->manifest_.writer_feature_flags, ds->manifest_path_));
  for (const auto& f : ds->manifest_.fragments) {
    if (f.num_overlays() > 0) {
      return Status::NotSupported("{}: fragment {} has {} data overlay files, which lance-cpp "
                                  "cannot apply yet",
                                  ds->manifest_path_, f.id, f.num_overlays());
    }
  }
  return ds;
}

Result<std::vector<VersionInfo>> Snapshot::ListVersions() const { return table::ListVersions(location_); }

Result<std::pair<std::shared_ptr<io::ObjectStore>, std::string>> Snapshot::ResolveFile(
    std::optional<uint32_t> base_id, const std::string& dir, const std::string& name) const {
  if (!base_id) return std::make_pair(location_.store(), Join(Join(location_.root(), dir), name));
  for (const auto& b : manifest_.base_paths) {
    if (b.id != *base_id) continue;
    LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(b.path));
    const std::string p = b.is_dataset_root ? Join(Join(sp.path, dir), name) : Join(sp.path, name);
    return std::make_pair(sp.store, p);
  }
  return Status::Corruption("{}: base_id {} is not among the manifest's base paths",
                            manifest_path_, *base_id);
}

struct Snapshot::ReaderCache {
  std::mutex mu;
  // By (fragment index, file index, point reads).
  std::map<std::tuple<size_t, size_t, bool>, std::shared_ptr<const file::FileReader>> readers;
  // The mapped bytes of each fragment's scan readers (by fragment index), for ReleaseMappedPages.
  std::multimap<size_t, BufferPtr> mapped;
};

void Snapshot::ReleaseMappedPages(size_t index) const {
  std::lock_guard<std::mutex> lock(readers_->mu);
  auto [lo, hi] = readers_->mapped.equal_range(index);
  for (auto it = lo; it != hi; ++it) io::ReleaseMappedPages(*it->second);
}

Result<std::shared_ptr<const file::FileReader>> Snapshot::DataFileReader(size_t index, size_t file,
                                                                        bool point_reads) const {
  const auto key = std::make_tuple(index, file, point_reads);
  {
    std::lock_guard<std::mutex> lock(readers_->mu);
    auto it = readers_->readers.find(key);
    if (it != readers_->readers.end()) return it->second;
  }
  // Opened outside the lock (I/O); two threads racing on one file keep the first reader.
  if (index >= manifest_.fragments.size() || file >= manifest_.fragments[index].files.size()) {
    return Status::InvalidArgument("{}: no data file {} of fragment {} ({} fragments)",
                                   manifest_path_, file, index, manifest_.fragments.size());
  }
  const FragmentInfo& frag = manifest_.fragments[index];
  const DataFileInfo& df = frag.files[file];
  LANCE_ASSIGN_OR_RAISE(auto loc, ResolveFile(df.base_id, "data", df.path));
  // Local files are memory-mapped by Get() (and memory objects are already in memory): the
  // reader then slices pages out of the mapping instead of a pread and a copy per range
  // (a 1000-row take issues thousands). Other stores read only the ranges a read needs.
  BufferPtr mapped;
  auto open = [&]() -> Result<std::unique_ptr<file::FileReader>> {
    const std::string_view scheme = loc.first->scheme();
    if ((scheme != "file" && scheme != "memory") || (point_reads && scheme == "file")) {
      return file::FileReader::Open(loc.first, loc.second);
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, loc.first->Get(loc.second));
    if (scheme == "file") mapped = bytes;
    return file::FileReader::Open(std::move(bytes));
  };
  auto opened = open();
  if (!opened.ok()) {
    return Status(opened.status().code(), fmt::format("fragment {}: {}: {}", frag.id, loc.first->DisplayPath(loc.second),
                                                      opened.status().message()));
  }
  std::shared_ptr<const file::FileReader> reader(std::move(*opened));
  // Every cheap invariant the manifest gives, before a row is trusted: another fragment's file
  // of the same row count would otherwise read as this fragment's rows.
  if (static_cast<uint64_t>(reader->num_rows()) != frag.physical_rows) {
    return Status::Corruption("fragment {}: data file {} has {} rows, the manifest says {}",
                              frag.id, df.path, reader->num_rows(), frag.physical_rows);
  }
  if (df.size_bytes != 0 && static_cast<uint64_t>(reader->size_bytes()) != df.size_bytes) {
    return Status::Corruption("fragment {}: data file {} is {} bytes, the manifest says {}",
                              frag.id, df.path, reader->size_bytes(), df.size_bytes);
  }
  for (int32_t c : df.column_indices) {
    if (c >= reader->num_columns()) {
      return Status::Corruption("fragment {}: the manifest reads column {} of data file {}, which "
                                "has {} columns", frag.id, c, df.path, reader->num_columns());
    }
  }
  std::lock_guard<std::mutex> lock(readers_->mu);
  auto [it, inserted] = readers_->readers.emplace(key, std::move(reader));
  if (inserted && mapped) readers_->mapped.emplace(index, std::move(mapped));
  return it->second;
}

Result<std::vector<uint32_t>> Snapshot::DeletedRows(size_t index) const {
  if (index >= manifest_.fragments.size()) {
    return Status::InvalidArgument("{}: no fragment at index {}", manifest_path_, index);
  }
  const FragmentInfo& frag = manifest_.fragments[index];
  if (!frag.deletion) return std::vector<uint32_t>{};
  const std::string name = frag.deletion->FileName(frag.id);
  LANCE_ASSIGN_OR_RAISE(auto loc, ResolveFile(frag.deletion->base_id, "_deletions", name));
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, loc.first->Get(loc.second));
  LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> rows,
                        DecodeDeletionFile(bytes, frag.deletion->type, loc.second));
  if (!rows.empty() && rows.back() >= frag.physical_rows) {
    return Status::Corruption("{}: deleted row offset {} but fragment {} has {} rows", loc.second,
                              rows.back(), frag.id, frag.physical_rows);
  }
  return rows;
}

Result<std::vector<uint64_t>> Snapshot::RowIds(size_t index) const {
  if (index >= manifest_.fragments.size()) {
    return Status::InvalidArgument("{}: no fragment at index {}", manifest_path_, index);
  }
  const FragmentInfo& frag = manifest_.fragments[index];
  if (!(manifest_.reader_feature_flags & kFlagStableRowIds)) {
    std::vector<uint64_t> ids(frag.physical_rows);
    for (uint64_t i = 0; i < frag.physical_rows; ++i) ids[i] = (frag.id << 32) | i;
    return ids;
  }
  if (frag.has_external_row_ids()) {
    return Status::NotSupported("{}: fragment {} stores its row ids in an external file",
                                manifest_path_, frag.id);
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ids, DecodeRowIdSequence(frag.inline_row_ids));
  if (ids.size() != frag.physical_rows) {
    return Status::Corruption("{}: fragment {} has {} row ids for {} rows", manifest_path_, frag.id,
                              ids.size(), frag.physical_rows);
  }
  return ids;
}

}  // namespace lance::table
