// Snapshot: a read-only view of one version of a Lance table.
//
// Opening resolves the version (latest, a number, or a tag under _refs/tags/{name}.json)
// through the version resolver of versions.h, reads and decodes that one manifest and checks
// its reader feature flags. Opening the latest version reads latest_version_hint.json and the
// manifest it names, and checks that the next version does not exist yet (one HEAD); it lists
// _versions/ only when the hint is missing, stale or names a missing manifest.
//
// A snapshot reads no rows: reading rows -- scans, filters, takes, counts -- is the query
// layer's (lance/query/fragment_reader.h, lance/query/scanner.h), on the data file readers,
// deletion vectors (Arrow IPC file of uint32 row offsets, or a portable 32-bit Roaring
// bitmap) and row-id sequences a snapshot hands out.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/table/deletion.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"
#include "lance/table/row_ids.h"
#include "lance/table/versions.h"

namespace lance::file {
class FileReader;
}  // namespace lance::file

namespace lance::table {

struct OpenOptions {
  std::optional<uint64_t> version;  // exact version
  std::optional<std::string> tag;   // a tag name (exclusive with version)
};

class Snapshot {
 public:
  // `uri` is anything io::ObjectStore::FromUri accepts (a local path, file://, memory://).
  static Result<std::shared_ptr<Snapshot>> Open(const std::string& uri, OpenOptions options = {});
  static Result<std::shared_ptr<Snapshot>> Open(std::shared_ptr<io::ObjectStore> store,
                                               std::string root, OpenOptions options = {});
  static Result<std::shared_ptr<Snapshot>> Open(const TableLocation& location,
                                               OpenOptions options = {});
  // A version already loaded (versions.h): no request is made; the reader flags are checked.
  static Result<std::shared_ptr<Snapshot>> Open(const TableLocation& location,
                                               CommittedVersion version);

  const Manifest& manifest() const { return manifest_; }
  uint64_t version() const { return manifest_.version; }
  const SchemaPtr& schema() const { return manifest_.schema; }
  const std::string& root() const { return location_.root(); }
  const TableLocation& location() const { return location_; }
  const std::string& manifest_path() const { return manifest_path_; }
  const OpenStats& open_stats() const { return stats_; }

  // Every version in _versions/, ascending, each manifest decoded.
  Result<std::vector<VersionInfo>> ListVersions() const;

  // Rows not deleted, from fragment metadata.
  uint64_t CountRows() const { return manifest_.num_rows(); }
  // Deleted row offsets of fragment `index` (position in manifest().fragments), sorted.
  Result<std::vector<uint32_t>> DeletedRows(size_t index) const;
  // Row ids of fragment `index`, one per physical row.
  Result<std::vector<uint64_t>> RowIds(size_t index) const;

  // The reader of data file `file` of fragment `index`, opened on first use and kept for the
  // dataset's life (data files are immutable), so that scans in chunks, counts and takes
  // neither re-read nor re-parse a file's metadata (nor lose the reader's page caches).
  // Thread-safe. Errors: the store's, Corruption (row count differs from the manifest).
  // Local files are memory-mapped; with `point_reads` a second reader of the file reads byte
  // ranges instead. (Takes use the mapping: on the bench table, ranged reads of the large
  // columns cost as much CPU and more wall time on a loaded machine.)
  Result<std::shared_ptr<const file::FileReader>> DataFileReader(size_t index, size_t file,
                                                                 bool point_reads = false) const;
  // Drops the resident pages of fragment `index`'s memory-mapped data files from this process
  // (the readers stay; pages fault back in from the file if read again): a scan calls it for
  // each fragment it has passed, so its memory does not grow with the dataset. Thread-safe.
  void ReleaseMappedPages(size_t index) const;

 private:
  Snapshot() = default;
  Result<std::pair<std::shared_ptr<io::ObjectStore>, std::string>> ResolveFile(
      std::optional<uint32_t> base_id, const std::string& dir, const std::string& name) const;

  struct ReaderCache;  // opened data files, by (fragment index, file index)

  TableLocation location_;
  std::string manifest_path_;
  Manifest manifest_;
  OpenStats stats_;
  std::shared_ptr<ReaderCache> readers_;
};

}  // namespace lance::table
