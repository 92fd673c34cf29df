// Commits: how a new table version is published, and what happens when another writer
// published first.
//
// Every write builds a transaction against the version it read (its read_version), writes
// its data and deletion files, then commits: it writes the transaction to
// _transactions/{read_version}-{uuid}.txn and the next version's manifest (with the same
// transaction inline) through a CommitHandler, which creates the version file only if it
// does not exist. A writer that loses that race reads the transactions committed since its
// read_version and, following the compatibility rules of the public transaction.md:
//   * rebases and retries when they are compatible (append after append/delete/...; delete
//     after a delete of other rows, by merging the two deletion vectors);
//   * fails with CommitConflict otherwise (a retryable conflict - e.g. two deletes of the
//     same rows, a delete of a fragment a compaction rewrote - names itself "retryable": run
//     the whole operation again on the new version; an incompatible one - anything after an
//     overwrite or a restore - does not).
// A version is published exactly once (the handler's create-if-absent decides) and a
// transaction is applied at most once (the loser re-applies its operation to the winner's
// manifest, never the winner's operation).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lance/core/result.h"
#include "lance/io/object_store.h"

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
  std::shared_ptr<CommitHandler> handler;  // null = PutIfNotExistsCommitHandler()
  int max_retries = 100;                   // lost races before giving up (CommitConflict)
};

// What a commit did.
struct CommitInfo {
  uint64_t version = 0;       // the version published
  uint64_t read_version = 0;  // the version the operation was built on (0: new dataset)
  int attempts = 1;           // 1 + lost races
  int rebased = 0;            // concurrent transactions rebased over
};

}  // namespace lance::table
