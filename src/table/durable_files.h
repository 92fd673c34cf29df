// Durable publication of a commit's files on a local filesystem with as few waits for the
// disk as crash safety needs (internal; used by the commit machinery).
//
// The argument. A version exists, for readers and for other writers, from the moment its
// manifest has its name in _versions/. From then on every object the manifest names must be
// complete, and once the commit is acknowledged that must survive a crash. So before the
// manifest gets its name:
//   (1) every new file it references (data files, deletion files, the transaction file) has
//       its bytes on disk (fdatasync; the size is part of what it flushes) and its name on
//       disk (fsync of its directory, once per directory; the dataset directory too, since
//       data/, _deletions/ or _transactions/ may have just been created in it; for a new
//       dataset every ancestor up to "/", since mkdir -p may have created them);
//   (2) the manifest's own bytes are on disk: it is written under a staging name in
//       _versions/ and fdatasync'ed (the staging name itself need not survive: _versions/ is
//       not synced in this round, only after the rename, (4));
// then (3) the staging file is renamed to the version's name only if that name is free (the
// commit point: exactly one writer wins a version; a loser deletes its staging file and
// rebases), and (4) _versions/ is fsynced before the commit is acknowledged.
// (1) and (2) do not depend on each other, so they are issued together from several threads
// and cost about one flush of the disk; (4) is the second. Writing each object with its own
// file + directory fsync, one after the other, cost 8-10 flushes per commit.
// The staged files of (1) and the staging manifest of (2) are written in place under their
// final (unique) names, not under a temporary name renamed over them
// (io::LocalObjectStore::PutNew): until (3) no version names them and no reader lists their
// directories to find files, so nobody can see one half written; the rename of a temporary
// name made nothing more durable either (durability comes from the syncs of (1) and (2)). A
// crash while one is written leaves it partial and unreferenced, as a crash before (3) leaves
// complete ones: cleanup's business.
// latest_version_hint.json is not synced at all: readers treat a missing, stale or unreadable
// hint as absent (they check the next version's name, else list _versions/), so losing it in
// a crash loses nothing.
// A crash before (3) leaves unreferenced files and a staging manifest, which no reader parses
// as a version (its name does not end in ".manifest"); cleanup removes unreferenced files.
//
// The files of a commit are recorded by StagedFiles (location.h). Stateless functions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/io/local_object_store.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::table::internal {

// A store over the same filesystem root as `store` that does not sync objects on publication,
// when `store` is a LocalObjectStore (null otherwise: other stores make each object durable
// on their own).
// `start_writeback` off: a twin that does not queue writeback either (files nothing will sync).
Result<std::shared_ptr<io::LocalObjectStore>> UnsyncedTwin(const std::shared_ptr<io::ObjectStore>& store,
                                                           bool start_writeback = true);

// Makes the objects `paths` of `store` durable: each file fdatasync'ed, each of their
// directories and `extra_dirs` (store paths) fsynced, all at once from the threads of `pool`
// (CommitOptions::sync_pool: null = the flush threads of this file, 8, started on first use;
// a pool without workers = one after the other on the calling thread). The files of
// `bytes_only` are fdatasync'ed too, but their directories are not synced for them: a file
// whose name is never needed after a crash (the staged manifest, which the rename gives
// its real name and the second round makes durable).
// Errors: IOError naming the first file or directory that failed.
Status SyncFiles(const io::LocalObjectStore& store, const std::vector<std::string>& paths,
                 const std::vector<std::string>& extra_dirs, ThreadPool* pool,
                 const std::vector<std::string>& bytes_only = {});

// The store path of `path`'s parent directory ("" for a top-level object).
std::string ParentPath(const std::string& path);

}  // namespace lance::table::internal
