// Snapshot: a read-only view of one version of a Lance table.
//
// Opening resolves the version (latest, a number, or a tag under _refs/tags/{name}.json)
// through the version resolver of versions.h, reads and decodes that one manifest and checks
// its reader feature flags. Opening the latest version reads latest_version_hint.json and the
// manifest it names, and checks that the next version does not exist yet (one HEAD); it lists
// _versions/ only when the hint is missing, stale or names a missing manifest.
//
// Reading rows -- filters, streaming scans, takes, counts -- is the query layer's
// (lance/query/scanner.h). Snapshot::Scan is a plain whole-fragment read left for the table
// operations that rewrite rows (merge-insert, schema evolution, compaction) until they move up
// to dataset/: no filter. It reads fragments in manifest order and rows in stored order, skipping rows whose
// offsets the fragment's deletion file lists (Arrow IPC file of uint32 row offsets, or a
// portable 32-bit Roaring bitmap). "_rowaddr" is (fragment id << 32 | row offset);
// "_rowid" equals it unless the dataset has stable row ids, whose per-fragment row-id
// sequences then give the ids.
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

struct ScanOptions {
  std::vector<std::string> columns;  // top-level names, in output order; empty = all
  int64_t offset = 0;                // rows to skip (after deletions)
  std::optional<int64_t> limit;      // at most this many rows
  bool with_row_id = false;          // append "_rowid" (uint64)
  bool with_row_addr = false;        // append "_rowaddr" (uint64)
  // Scan only the fragments with these ids (in manifest order, whatever the order here; ids
  // the version does not have are ignored); unset = every fragment. Offset and limit count
  // rows of the selected fragments.
  std::optional<std::vector<uint64_t>> fragment_ids;
  // At most this many rows per scan batch (a fragment's rows are then split into several
  // batches, zero-copy); 0 = one batch per fragment. Errors: InvalidArgument when negative.
  int64_t batch_size = 0;
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
  // One batch per fragment that contributes rows (none for an empty result), or batches of
  // at most options.batch_size rows.
  Result<std::vector<RecordBatchPtr>> Scan(const ScanOptions& options = {}) const;

  // Output schema of a scan with `options`. Errors: InvalidArgument for an unknown column.
  Result<SchemaPtr> ProjectedSchema(const ScanOptions& options) const;

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

 private:
  Snapshot() = default;
  // Rows `rows` of fragment `index` (every row when null; rows [range_start, range_start +
  // range_length) when null and range_length >= 0).
  // `keep_dictionaries`: file::ReadOptions::keep_dictionaries (columns read as dictionary
  // arrays have that type in the batch's schema).
  Result<RecordBatchPtr> ReadFragment(size_t index, const std::vector<int64_t>* rows,
                                      const ScanOptions& options, const SchemaPtr& out_schema,
                                      int64_t range_start = 0, int64_t range_length = -1,
                                      bool keep_dictionaries = false) const;
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
