// lance::dataset::Dataset: the front door of lance-cpp -- a handle on a Lance table that reads
// through the query layer and writes through the table layer's commit path, and that moves
// forward as it writes.
//
//   LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open("/data/t.lance"));
//   query::ScanOptions o;
//   o.filter = "score > 50";
//   LANCE_ASSIGN_OR_RAISE(auto scanner, ds->NewScan(o));
//   LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());          // streaming
//   LANCE_ASSIGN_OR_RAISE(auto deleted, ds->Delete("score < 10"));  // ds is now at the new version
//
// Where: a URI (anything io::ObjectStore::FromUri accepts) or the caller's own ObjectStore and
// the table's root inside it; every read and every write of the handle -- data files,
// deletion files, transactions, manifests, the version hint -- goes through that store.
//
// Versions: a handle is at one version (version()); reads use the snapshot of that version
// current when the call starts (a scanner or reader keeps its snapshot, whatever the handle
// does later). A write through the handle is built on the handle's version (its
// read_version), rebased by the commit loop over what other writers committed since
// (table/commit.h: compatible transactions rebase, others fail with CommitConflict,
// IsRetryable() telling whether running the operation again may succeed), and on success the
// handle's snapshot is swapped, atomically, to the version it committed.
//
// Thread safety: every method may be called from several threads at once. Reads never block
// each other; writes through one handle are serialized (one at a time, each built on the
// version the previous one committed). Handles on the same table (in this or other processes)
// coordinate through the commit path only.
//
// Errors: every method returns Status / Result; no exception escapes (std::bad_alloc becomes
// OutOfMemory, any other exception Internal naming it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/dataset/operations.h"
#include "lance/index/index_cache.h"
#include "lance/index/scalar/create.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/io/object_store.h"
#include "lance/query/scanner.h"
#include "lance/table/commit.h"
#include "lance/table/location.h"
#include "lance/table/snapshot.h"
#include "lance/table/tags.h"
#include "lance/table/versions.h"
#include "lance/table/write.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::dataset {

struct OpenOptions {
  std::optional<uint64_t> version;  // a version (default: the latest)
  std::optional<std::string> tag;   // or a tag (exclusive with version)
  // Where the handle's reads and writes run (scans whose options name no pool, filters of
  // deletes and updates, the encoding of every data file the handle writes); not owned, must
  // outlive the handle and its scanners. null = ThreadPool::Default(). A pool without workers
  // (ThreadPool::Make(0)) runs everything on the calling thread.
  ThreadPool* pool = nullptr;
  // How the handle publishes versions (table/commit.h); null = the store's default.
  std::shared_ptr<table::CommitHandler> commit_handler;
  int max_commit_retries = 100;
  // Flush every commit of the handle to disk before acknowledging it (table::CommitOptions::
  // sync). false is NOT DURABLE (a version acknowledged before a power loss may be lost): for
  // scratch data and like-for-like comparison with lance 12 only. A write's own
  // CommitOptions::sync = false also turns it off for that write.
  bool sync_commits = true;
  // Where the handle's index readers keep what they load (opened index segments, pages, the
  // version's index catalog; lance/index/index_cache.h). Null: the handle makes its own of
  // index_cache_bytes (0: nothing is kept, every query opens the indexes it uses). Shared by
  // the handle's checkouts and by every scanner and write it starts; an engine may give
  // several handles one cache. Dropping the last handle (and scanner) of a cache frees it.
  std::shared_ptr<index::IndexCache> index_cache;
  int64_t index_cache_bytes = index::kDefaultIndexCacheBytes;
  // Where a durable commit of the handle issues its flushes at once (table::CommitOptions::
  // sync_pool). null = `pool` when one is given (so a handle given a pool starts no thread of
  // its own), else the table layer's own flush threads. The store's reads fan out on its own
  // io::ObjectStore::io_pool(): an engine that opens the handle on its own store sets it there.
  ThreadPool* sync_pool = nullptr;
};

// What Dataset::OptimizeIndices did to one index.
struct OptimizedIndex {
  enum class Outcome { kMerged, kUpToDate, kNotSupported };
  std::string name;
  std::string type;  // "BTREE", ... (the reference's names)
  Outcome outcome = Outcome::kUpToDate;
  std::string reason;              // kNotSupported: why
  std::string uuid;                // kMerged: the new segment
  std::string replaced_uuid;       // kMerged: the segment it replaced
  uint64_t version = 0;            // kMerged: the version that holds it
  std::vector<uint32_t> fragment_ids;      // kMerged: what the new segment covers
  std::vector<uint32_t> new_fragment_ids;  // kMerged: of those, the ones no segment covered
  uint64_t num_indexed_rows = 0;           // kMerged: rows trained
};
// "merged", "up_to_date", "not_supported" (what `lance index optimize` and the C ABI print).
const char* OutcomeName(OptimizedIndex::Outcome outcome);

class Dataset {
 public:
  // Opens the table at `uri` / at `root` in `store`.
  // Errors: NotFound (no table, no such version or tag), InvalidArgument (version and tag
  // both set), NotSupported (feature flags), Corruption, the store's.
  static Result<std::shared_ptr<Dataset>> Open(const std::string& uri, OpenOptions options = {});
  static Result<std::shared_ptr<Dataset>> Open(std::shared_ptr<io::ObjectStore> store,
                                               std::string root, OpenOptions options = {});
  static Result<std::shared_ptr<Dataset>> Open(table::TableLocation location,
                                               OpenOptions options = {});

  // Writes the rows of `input` as a new table (params.mode kCreate), appended to it (kAppend,
  // creating it when missing) or replacing it (kOverwrite), and returns a handle at the
  // version committed. Errors: as table::WriteDataset.
  static Result<std::shared_ptr<Dataset>> Write(const std::string& uri, RecordBatchReader& input,
                                                table::WriteParams params = {},
                                                OpenOptions options = {});
  static Result<std::shared_ptr<Dataset>> Write(std::shared_ptr<io::ObjectStore> store,
                                                std::string root, RecordBatchReader& input,
                                                table::WriteParams params = {},
                                                OpenOptions options = {});
  static Result<std::shared_ptr<Dataset>> Write(table::TableLocation location,
                                                RecordBatchReader& input,
                                                table::WriteParams params = {},
                                                OpenOptions options = {});

  // --- the handle's version ---------------------------------------------------------------
  std::shared_ptr<const table::Snapshot> snapshot() const;
  uint64_t version() const { return snapshot()->version(); }
  SchemaPtr schema() const { return snapshot()->schema(); }
  const table::TableLocation& location() const { return location_; }
  const OpenOptions& options() const { return options_; }
  // The handle's index cache (options().index_cache once opened; never null).
  const std::shared_ptr<index::IndexCache>& index_cache() const { return options_.index_cache; }
  // Where the handle's work runs: options().pool, else ThreadPool::Default().
  ThreadPool* pool() const;
  // The latest committed version of the table (a few requests; the handle does not move).
  Result<uint64_t> LatestVersion() const;

  // New handles (same location and options) at a version, a tag, the latest.
  Result<std::shared_ptr<Dataset>> Checkout(uint64_t version) const;
  Result<std::shared_ptr<Dataset>> Checkout(const std::string& tag) const;
  Result<std::shared_ptr<Dataset>> CheckoutLatest() const;
  // Moves this handle to the latest version.
  Status Refresh();

  Result<std::vector<table::VersionInfo>> Versions() const;
  // Commits a new version with the content of `version` (table::RestoreVersion); the handle
  // moves to it. Returns the new version.
  Result<uint64_t> Restore(uint64_t version);
  Status CreateTag(const std::string& name, uint64_t version) const;
  Status DeleteTag(const std::string& name) const;
  Result<std::vector<table::TagInfo>> ListTags() const;

  // --- reads (query/) ---------------------------------------------------------------------
  // A scanner over the handle's current snapshot (options.pool and options.index_cache
  // default to the handle's).
  Result<query::Scanner> NewScan(query::ScanOptions options = {}) const;
  // Rows where `filter` is TRUE (empty: every live row, from the manifest).
  Result<uint64_t> CountRows(const std::string& filter = "") const;
  // Rows at scan positions / with row ids, in the given order, as one batch of `columns`
  // (empty: every column; system columns allowed). Errors: as query::Scanner::Take.
  Result<RecordBatchPtr> Take(const std::vector<uint64_t>& positions,
                              const std::vector<std::string>& columns = {}) const;
  Result<RecordBatchPtr> TakeRowIds(const std::vector<uint64_t>& row_ids,
                                    const std::vector<std::string>& columns = {}) const;

  // --- writes (each commits one version; the handle moves to it) -----------------------------
  // Errors of every write: CommitConflict (IsRetryable() when running it again may succeed),
  // NotSupported (feature flags), the store's, and the operation's own (see table/).
  // Every write is built on the handle's version; the operations that change rows or columns
  // read them through the query layer (operations.h says what each does).
  Result<table::WriteResult> Append(RecordBatchReader& input, table::WriteParams params = {});
  Result<table::WriteResult> Overwrite(RecordBatchReader& input, table::WriteParams params = {});
  // Deletes the live rows where `filter` is TRUE (found by the query layer's filter engine).
  Result<table::DeleteResult> Delete(const std::string& filter);
  // Deletes rows by address (fragment id << 32 | offset) of the handle's version.
  Result<table::DeleteResult> DeleteRowAddresses(std::vector<uint64_t> addresses,
                                                 const std::string& predicate = "");
  // SET column = expression [, ...] WHERE filter (operations.h).
  Result<UpdateResult> Update(const std::vector<std::pair<std::string, std::string>>& assignments,
                              const std::string& where, UpdateParams params = {});
  Result<MergeInsertResult> MergeInsert(RecordBatchReader& input, MergeInsertParams params);
  Result<table::CommitInfo> AddColumns(const std::vector<ColumnExpression>& columns);
  Result<table::CommitInfo> AddColumnsFromData(RecordBatchReader& input);
  Result<table::CommitInfo> AddColumnsJoined(RecordBatchReader& input,
                                             const std::vector<std::string>& on);
  Result<table::CommitInfo> AddNullColumns(const SchemaPtr& schema);
  Result<table::CommitInfo> DropColumns(const std::vector<std::string>& paths);
  Result<table::CommitInfo> AlterColumns(const std::vector<ColumnAlteration>& alterations);
  Result<table::CommitInfo> AlterColumnType(const std::string& column, const std::string& type_name);
  Result<CompactionResult> Compact(CompactionOptions options = {});
  // Builds a BTREE / BITMAP / LABEL_LIST index on `column` and commits it, serialized with the
  // handle's other writes; the handle then reads the new version. The index covers the
  // fragments of the handle's version, its rows read through the query layer. Errors: as
  // index::scalar::CreateScalarIndex.
  Result<index::scalar::CreatedIndex> CreateScalarIndex(const std::string& column,
                                                        index::scalar::CreateScalarIndexOptions options = {});
  // Builds an IVF_FLAT / IVF_PQ index on the vector column `column` (lance 12's format,
  // index::vector::CreateVectorIndex) over the handle's version and commits it, serialized
  // with the handle's other writes; the handle then reads the new version. Its training rows
  // are read through the query layer (query::CollectTrainingData). options.pool defaults to
  // the handle's pool. Errors: as index::vector::CreateVectorIndex.
  Result<index::vector::IvfBuildSummary> CreateVectorIndex(const std::string& column,
                                                           index::vector::IvfBuildOptions options = {});
  // Brings indexes up to date with the fragments appended since they were built, as lance 12's
  // optimize_indices does by default for scalar indexes (index::scalar::PlanScalarIndexOptimize:
  // the newest segment and the unindexed fragments retrained into one new segment that
  // replaces it, with the index's own parameters, keeping its dataset_version); one commit
  // for every index that changes (as lance 12: one version).
  // `names` empty: every user index. Vector indexes are reported kNotSupported (not yet
  // optimized: rebuild them with CreateVectorIndex and replace); naming one in `names` is
  // an error. Errors: NotFound (a name with no index), NotSupported, CommitConflict, the
  // build's errors.
  Result<std::vector<OptimizedIndex>> OptimizeIndices(const std::vector<std::string>& names = {});
  // Removes every segment of the user index `name` (a CreateIndex transaction).
  // Errors: NotFound (no such index in the handle's version), CommitConflict.
  Result<table::CommitInfo> DropIndex(const std::string& name);

 private:
  Dataset(table::TableLocation location, OpenOptions options,
          std::shared_ptr<const table::Snapshot> snapshot)
      : location_(std::move(location)), options_(std::move(options)), current_(std::move(snapshot)) {}
  static Result<std::shared_ptr<Dataset>> OpenGuarded(table::TableLocation location,
                                                      OpenOptions options);

  table::CommitOptions CommitOptions() const;
  // An operation's own commit options with the handle's: the handle's as a whole when they
  // name no handler (as before), and sync only when both ask for it.
  table::CommitOptions WithHandle(table::CommitOptions own) const;
  // The pools `options` resolve to (see OpenOptions::pool and sync_pool).
  static ThreadPool* PoolOf(const OpenOptions& options);
  static ThreadPool* SyncPoolOf(const OpenOptions& options);
  // Runs `op` on the handle's snapshot with the handle's other writes held off; `op` returns
  // the version it committed (0: none), which the handle then moves to.
  Status Mutate(const std::function<Result<uint64_t>(const std::shared_ptr<const table::Snapshot>&)>& op);
  Status MoveTo(uint64_t version);

  table::TableLocation location_;
  OpenOptions options_;
  mutable std::mutex mu_;  // guards current_
  std::shared_ptr<const table::Snapshot> current_;
  std::mutex write_mu_;  // serializes writes through the handle
};

}  // namespace lance::dataset
