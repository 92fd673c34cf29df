// Commits: how a new table version is published, and what happens when another writer
// published first.
//
// A write builds a Transaction (transaction.h) against the version it read (its
// read_version), writes its data and deletion files (write.h, deletion.h) as StagedFiles,
// then commits: CommitTransaction writes the transaction to
// _transactions/{read_version}-{uuid}.txn and the next version's manifest (with the same
// transaction inline) through a CommitHandler, which creates the version file only if it
// does not exist. A writer that loses that race reads the transactions committed since its
// read version and, following the compatibility rules of the public transaction.md:
//   * rebases and retries when they are compatible (append after append/delete/...; delete
//     after a delete of other rows, by merging the two deletion vectors);
//   * fails with CommitConflict otherwise. A retryable conflict (two deletes of the same rows,
//     a delete of a fragment a compaction rewrote, ...) is Status::RetryableCommitConflict
//     (IsRetryable()): run the whole operation again on the new version. An incompatible one
//     (anything after an overwrite or a restore) is not retryable.
// A version is published exactly once (the handler's create-if-absent decides) and a
// transaction is applied at most once (the loser re-applies its operation to the winner's
// manifest, never the winner's operation).
//
// Durability (unless CommitOptions::sync is off): the staged files and the new manifest are
// made durable before the manifest takes its version's name; on a local filesystem in one round of flushes (the manifest is
// staged under a temporary name, then renamed if the name is free). The latest-version hint
// is moved forward after a commit, never synced (readers treat a stale hint as a hint).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"
#include "lance/table/transaction.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::table {

// Publishes a manifest file at `path` only if nothing is there yet.
class CommitHandler {
 public:
  virtual ~CommitHandler() = default;
  // Errors: AlreadyExists when the version was taken (the race was lost); IOError.
  virtual Status CommitManifest(io::ObjectStore& store, const std::string& path,
                                std::string_view bytes) = 0;
  virtual std::string_view name() const = 0;
};

// ObjectStore::PutIfNotExists on the version file (the default).
std::shared_ptr<CommitHandler> PutIfNotExistsCommitHandler();
// Writes "{path}-{uuid}" first, then ObjectStore::RenameIfNotExists onto the version file
// (for stores without conditional puts); the staging object is removed on a lost race.
std::shared_ptr<CommitHandler> RenameIfNotExistsCommitHandler();

struct CommitOptions {
  // null = PutIfNotExistsCommitHandler() (on a local filesystem: the staged rename above).
  std::shared_ptr<CommitHandler> handler;
  int max_retries = 100;  // lost races before giving up (CommitConflict, retryable)
  // Called on every attempt with the manifest the operation made from the latest version,
  // before it is published: for state kept inside the manifest that must change in the same
  // commit (e.g. the MemWAL index's merged generations, updated with the merged rows). It may
  // run several times; its error aborts the commit (staged files removed) and is returned.
  std::function<Status(Manifest*)> amend;
  // The commit-time migrations of index entries that only an index's own files can tell
  // (lance 12 runs them on every commit into an older table; the index layer's
  // index::vector::MigrateVectorIndexEntries, which dataset::Dataset sets here). Called on every
  // attempt, after the table's own migrations, with the version committed on (null for a new
  // table) and the manifest about to be published; its error aborts the commit.
  std::function<Status(const TableLocation&, const Manifest* previous, Manifest*)> migrate_indices;
  // Durability. true (the default): the staged files, the manifest and their directories are
  // flushed (fdatasync / fsync) before the version is acknowledged, so a committed version
  // survives a crash or power loss. false: NOT DURABLE -- nothing is flushed (the files are
  // still published under their names atomically, so readers never see a partial version), and
  // a version acknowledged shortly before a power loss may vanish or be left pointing at lost
  // files. Only for scratch data and for comparing like for like with lance 12, which flushes
  // nothing on local datasets. Stores other than the local filesystem make objects durable on
  // their own; this changes nothing there.
  bool sync = true;
  // Where a durable commit issues its flushes, all at once (not owned; must outlive the
  // commit). null: the table layer's own 8 flush threads, started on first use and shared by
  // the process (they sleep in the kernel, not on a core); a pool without workers
  // (ThreadPool::Make(0)): one flush after the other on the calling thread, no thread used.
  ThreadPool* sync_pool = nullptr;
};

// What a commit did.
struct CommitInfo {
  uint64_t version = 0;       // the version published (0: nothing was committed)
  uint64_t read_version = 0;  // the version the operation was built on (0: new dataset)
  int attempts = 1;           // 1 + lost races
  int rebased = 0;            // concurrent transactions rebased over
  std::shared_ptr<const Manifest> manifest;  // the version published (null when none)
};

// Commits `txn` as the next version of the table at `location` (see above): the loop of load
// latest -> check the transactions committed after txn.read_version -> rebase (merge
// deletion vectors) -> apply the operation to the latest manifest -> publish, again on a lost
// race. `staged` holds the files the transaction's fragments name (null: none); the commit
// records its transaction file there, syncs them with the manifest, forgets them on success
// and removes them when it fails for good. New fragments get their ids (and, with stable row
// ids, their row ids and row versions) here.
//
// Errors: CommitConflict (incompatible, or retryable: IsRetryable()); NotFound (an operation
// other than Overwrite on a missing table); NotSupported (feature flags of the latest
// version; an operation this library cannot apply: UpdateConfig, DataReplacement, Clone,
// UpdateBases, DataOverlay, UpdateMemWalState, AppendFragmentReuseTransitions); IOError.
Result<CommitInfo> CommitTransaction(const TableLocation& location, Transaction txn,
                                     const CommitOptions& options = {},
                                     StagedFiles* staged = nullptr);

class Snapshot;
// The same, for an operation built on `read` (txn.read_version must be read.version()): while
// no later version exists (one probe of the next version's name), `read`'s manifest is the
// latest and is not loaded and decoded again. Same errors.
Result<CommitInfo> CommitTransaction(const Snapshot& read, Transaction txn,
                                     const CommitOptions& options = {},
                                     StagedFiles* staged = nullptr);

}  // namespace lance::table
