// FragmentReader: reads columns of one fragment of a table::Snapshot for a row selection.
//
// A read names its output columns as a schema: top-level fields of the snapshot's schema
// (matched by name; the field's Lance id finds the data file holding it, the first file of
// the fragment listing the field or one of its descendants) and the system columns
// "_rowaddr" (fragment id << 32 | row offset) and "_rowid" (the address, or the fragment's
// stable row id with the stable-row-id feature), both uint64. A column that no data file of
// the fragment holds (added after the fragment was written) reads as nulls. Rows come back in
// the selection's order; the selection names physical rows, deleted or not: LiveRows() gives
// the rows the deletion vector keeps.
//
// Open() reads the fragment's deletion file (checked against the manifest's count). With stable
// row ids, the fragment's row-id sequence is decoded on the first read of "_rowid" (once). Data
// files are opened on first use through Snapshot::DataFileReader (cached for the snapshot's
// life).
// Thread-safe: reads may run concurrently (the scan's tasks share one reader per fragment).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/query/row_selection.h"
#include "lance/table/snapshot.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::query {

inline constexpr const char* kRowIdColumn = "_rowid";
inline constexpr const char* kRowAddrColumn = "_rowaddr";

// True for the names of the system columns.
bool IsSystemColumn(const std::string& name);

struct FragmentReadOptions {
  // A single-column read of a string, binary or fixed-width column whose pages are all
  // dictionary pages comes back as a dictionary array (file::ReadOptions::keep_dictionaries):
  // filters then test each dictionary entry once. The batch's schema has the type read.
  bool keep_dictionaries = false;
};

class FragmentReader {
 public:
  // Fragment `index` (its position in snapshot->manifest().fragments). `pool`: where the
  // columns of one read decode in parallel (null: on the caller).
  // Errors: the store's (deletion file), Corruption (deletion file or row ids disagreeing
  // with the manifest), NotSupported (row ids in an external file).
  static Result<std::shared_ptr<const FragmentReader>> Open(
      std::shared_ptr<const table::Snapshot> snapshot, size_t index, ThreadPool* pool);
  ~FragmentReader();

  // When the last holder of this reader lets go, drop the fragment's mapped file pages from
  // memory (table::Snapshot::ReleaseMappedPages): for a scan, which will not come back.
  void ReleaseMappedPagesWhenDone() const { release_pages_ = true; }

  // Opens the fragment's data files now, on the calling thread, instead of on the first read
  // of each (errors are left to the read that needs the file). A scan calls it on its own
  // thread: the readers the snapshot keeps then do not land among a worker's transient decode
  // buffers, where they pinned freed heap (a filtered count grew ~280 KiB per fragment).
  void OpenDataFiles() const;

  const table::Snapshot& snapshot() const { return *snapshot_; }
  size_t index() const { return index_; }
  const table::FragmentInfo& fragment() const;
  uint64_t id() const { return fragment().id; }
  int64_t physical_rows() const { return static_cast<int64_t>(fragment().physical_rows); }
  int64_t live_rows() const { return static_cast<int64_t>(fragment().num_rows()); }
  // Deleted row offsets, ascending.
  const std::vector<uint32_t>& deleted() const { return deleted_; }
  // Deleted rows in [start, start + length).
  int64_t DeletedIn(int64_t start, int64_t length) const;
  // The rows of [start, start + length) that are not deleted: the range itself when none is.
  RowSelection LiveRows(int64_t start, int64_t length) const;
  // Row offset of the `n`-th live row (0-based, in row order). REQUIRES: n < live_rows().
  int64_t NthLiveRow(int64_t n) const;
  bool stable_row_ids() const { return stable_; }
  // The stable row id of each physical row (decoded on first use; empty without the
  // stable-row-id feature). Errors: as Open.
  Result<const std::vector<uint64_t>*> RowIds() const;

  // Reads `columns` (see above) for `rows`. Errors: InvalidArgument (a row out of range, a
  // column the snapshot's schema does not have), NotSupported (a column stored with another
  // type than the schema's), Corruption / IOError from the data files.
  Result<RecordBatchPtr> Read(const SchemaPtr& columns, const RowSelection& rows,
                              const FragmentReadOptions& options = {}) const;

 private:
  FragmentReader() = default;
  struct Source {
    int file = -1;   // index in fragment().files; -1: no file holds the column (nulls)
    int field = -1;  // top-level field index in that file's schema
  };
  Result<Source> SourceOf(const Field& field) const;
  Result<ArrayPtr> ReadColumn(const Field& field, const RowSelection& rows,
                              const FragmentReadOptions& options) const;
  Result<ArrayPtr> SystemColumn(bool row_id, const RowSelection& rows) const;

  std::shared_ptr<const table::Snapshot> snapshot_;
  size_t index_ = 0;
  ThreadPool* pool_ = nullptr;
  std::vector<uint32_t> deleted_;
  bool stable_ = false;
  mutable std::once_flag row_ids_once_;
  mutable Status row_ids_status_;
  mutable std::vector<uint64_t> row_ids_;  // set once under row_ids_once_
  mutable std::mutex mu_;
  mutable std::vector<std::pair<int32_t, Source>> sources_;  // by field id, guarded by mu_
  mutable std::atomic<bool> release_pages_{false};
};

}  // namespace lance::query
