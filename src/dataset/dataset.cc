// Dataset: opening, the handle's version, versions and tags, reads through the query layer.
#include "lance/dataset/dataset.h"

#include <fmt/format.h>

#include "dataset/guard.h"
#include "lance/columnar/compute.h"
#include "lance/core/thread_pool.h"
#include "lance/index/vector/index_migration.h"

namespace lance::dataset {

using internal::Guarded;

namespace {

Result<std::shared_ptr<const table::Snapshot>> OpenSnapshot(const table::TableLocation& location,
                                                            const OpenOptions& options) {
  table::OpenOptions o;
  o.version = options.version;
  o.tag = options.tag;
  LANCE_ASSIGN_OR_RAISE(auto snap, table::Snapshot::Open(location, o));
  return std::shared_ptr<const table::Snapshot>(std::move(snap));
}

}  // namespace

Result<std::shared_ptr<Dataset>> Dataset::OpenGuarded(table::TableLocation location,
                                                      OpenOptions options) {
  if (options.version && options.tag) {
    return Status::InvalidArgument("open {}: give a version or a tag, not both", location.display());
  }
  LANCE_ASSIGN_OR_RAISE(auto snap, OpenSnapshot(location, options));
  if (!options.index_cache) options.index_cache = index::IndexCache::Make(options.index_cache_bytes);
  return std::shared_ptr<Dataset>(new Dataset(std::move(location), std::move(options), std::move(snap)));
}

Result<std::shared_ptr<Dataset>> Dataset::Open(table::TableLocation location, OpenOptions options) {
  return Guarded("open", [&]() { return OpenGuarded(std::move(location), std::move(options)); });
}

Result<std::shared_ptr<Dataset>> Dataset::Open(const std::string& uri, OpenOptions options) {
  return Guarded("open", [&]() -> Result<std::shared_ptr<Dataset>> {
    LANCE_ASSIGN_OR_RAISE(auto location, table::TableLocation::FromUri(uri));
    return OpenGuarded(std::move(location), std::move(options));
  });
}

Result<std::shared_ptr<Dataset>> Dataset::Open(std::shared_ptr<io::ObjectStore> store,
                                               std::string root, OpenOptions options) {
  return Guarded("open", [&]() -> Result<std::shared_ptr<Dataset>> {
    if (!store) return Status::InvalidArgument("open: the object store must not be null");
    return OpenGuarded(table::TableLocation(std::move(store), std::move(root)), std::move(options));
  });
}

std::shared_ptr<const table::Snapshot> Dataset::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

ThreadPool* Dataset::PoolOf(const OpenOptions& options) {
  return options.pool != nullptr ? options.pool : ThreadPool::Default();
}

ThreadPool* Dataset::SyncPoolOf(const OpenOptions& options) {
  return options.sync_pool != nullptr ? options.sync_pool : options.pool;
}

ThreadPool* Dataset::pool() const { return PoolOf(options_); }

table::CommitOptions Dataset::CommitOptions() const {
  table::CommitOptions c;
  c.handler = options_.commit_handler;
  c.max_retries = options_.max_commit_retries;
  c.sync = options_.sync_commits;
  c.sync_pool = SyncPoolOf(options_);
  c.migrate_indices = index::vector::MigrateVectorIndexEntries;
  return c;
}

table::CommitOptions Dataset::WithHandle(table::CommitOptions own) const {
  const bool sync = own.sync && options_.sync_commits;
  if (!own.handler) own = CommitOptions();
  own.sync = sync;
  if (own.sync_pool == nullptr) own.sync_pool = SyncPoolOf(options_);
  if (!own.migrate_indices) own.migrate_indices = index::vector::MigrateVectorIndexEntries;
  return own;
}

Status Dataset::MoveTo(uint64_t version) {
  table::OpenOptions o;
  o.version = version;
  LANCE_ASSIGN_OR_RAISE(auto snap, table::Snapshot::Open(location_, o));
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(snap);
  return Status::OK();
}

Status Dataset::Mutate(
    const std::function<Result<uint64_t>(const std::shared_ptr<const table::Snapshot>&)>& op) {
  std::lock_guard<std::mutex> writing(write_mu_);
  LANCE_ASSIGN_OR_RAISE(uint64_t committed, op(snapshot()));
  if (committed == 0) return Status::OK();
  return MoveTo(committed);
}

Result<uint64_t> Dataset::LatestVersion() const {
  return Guarded("latest version", [&]() -> Result<uint64_t> {
    LANCE_ASSIGN_OR_RAISE(auto latest, table::LoadLatestVersion(location_));
    if (!latest) return Status::NotFound("{}: the table has no version", location_.display());
    return latest->version;
  });
}

namespace {

// The options of a new handle: `base`'s pool, commit settings and index cache, at `version`
// or `tag`.
OpenOptions Reopened(const OpenOptions& base, std::optional<uint64_t> version,
                     std::optional<std::string> tag) {
  OpenOptions o;
  o.version = version;
  o.tag = std::move(tag);
  o.pool = base.pool;
  o.sync_pool = base.sync_pool;
  o.commit_handler = base.commit_handler;
  o.max_commit_retries = base.max_commit_retries;
  o.sync_commits = base.sync_commits;
  o.index_cache = base.index_cache;
  o.index_cache_bytes = base.index_cache_bytes;
  return o;
}

}  // namespace

Result<std::shared_ptr<Dataset>> Dataset::Checkout(uint64_t version) const {
  return Guarded("checkout", [&]() {
    return OpenGuarded(location_, Reopened(options_, version, std::nullopt));
  });
}

Result<std::shared_ptr<Dataset>> Dataset::Checkout(const std::string& tag) const {
  return Guarded("checkout", [&]() {
    return OpenGuarded(location_, Reopened(options_, std::nullopt, tag));
  });
}

Result<std::shared_ptr<Dataset>> Dataset::CheckoutLatest() const {
  return Guarded("checkout", [&]() {
    return OpenGuarded(location_, Reopened(options_, std::nullopt, std::nullopt));
  });
}

Status Dataset::Refresh() {
  return Guarded("refresh", [&]() -> Status {
    std::lock_guard<std::mutex> writing(write_mu_);
    LANCE_ASSIGN_OR_RAISE(auto snap, OpenSnapshot(location_, OpenOptions{}));
    std::lock_guard<std::mutex> lock(mu_);
    current_ = std::move(snap);
    return Status::OK();
  });
}

Result<std::vector<table::VersionInfo>> Dataset::Versions() const {
  return Guarded("versions", [&]() { return table::ListVersions(location_); });
}

Result<uint64_t> Dataset::Restore(uint64_t version) {
  return Guarded("restore", [&]() -> Result<uint64_t> {
    uint64_t restored = 0;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto&) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(restored, table::RestoreVersion(location_, version, CommitOptions()));
      return restored;
    }));
    return restored;
  });
}

Status Dataset::CreateTag(const std::string& name, uint64_t version) const {
  return Guarded("create tag", [&]() { return table::CreateTag(location_, name, version); });
}

Status Dataset::DeleteTag(const std::string& name) const {
  return Guarded("delete tag", [&]() { return table::DeleteTag(location_, name); });
}

Result<std::vector<table::TagInfo>> Dataset::ListTags() const {
  return Guarded("list tags", [&]() { return table::ListTags(location_); });
}

Result<query::Scanner> Dataset::NewScan(query::ScanOptions options) const {
  return Guarded("scan", [&]() {
    if (options.pool == nullptr) options.pool = pool();
    if (!options.index_cache) options.index_cache = index_cache();
    return query::Scanner::Make(snapshot(), std::move(options));
  });
}

Result<uint64_t> Dataset::CountRows(const std::string& filter) const {
  return Guarded("count rows", [&]() -> Result<uint64_t> {
    auto snap = snapshot();
    if (filter.empty()) return snap->CountRows();
    query::ScanOptions o;
    o.filter = filter;
    o.pool = pool();
    o.index_cache = index_cache();
    LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(std::move(snap), std::move(o)));
    return scanner.CountRows();
  });
}

namespace {

Result<RecordBatchPtr> TakeOneBatch(std::shared_ptr<const table::Snapshot> snap, ThreadPool* pool,
                                    const std::vector<uint64_t>& ids,
                                    const std::vector<std::string>& columns, bool by_row_id) {
  query::ScanOptions o;
  o.columns = columns;
  o.pool = pool;
  o.batch_size = std::max<int64_t>(1, static_cast<int64_t>(ids.size()));
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(std::move(snap), std::move(o)));
  std::unique_ptr<RecordBatchReader> reader;
  if (by_row_id) {
    LANCE_ASSIGN_OR_RAISE(reader, scanner.TakeRowIds(ids));
  } else {
    LANCE_ASSIGN_OR_RAISE(reader, scanner.Take(ids));
  }
  LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
  return ConcatenateBatches(scanner.schema(), batches);
}

}  // namespace

Result<RecordBatchPtr> Dataset::Take(const std::vector<uint64_t>& positions,
                                     const std::vector<std::string>& columns) const {
  return Guarded("take", [&]() { return TakeOneBatch(snapshot(), pool(), positions, columns, false); });
}

Result<RecordBatchPtr> Dataset::TakeRowIds(const std::vector<uint64_t>& row_ids,
                                           const std::vector<std::string>& columns) const {
  return Guarded("take rows", [&]() { return TakeOneBatch(snapshot(), pool(), row_ids, columns, true); });
}

}  // namespace lance::dataset
