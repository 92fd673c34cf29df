// Syncing a commit's files together (durable_files.h).
#include "table/durable_files.h"

#include <set>

#include "lance/core/thread_pool.h"
#include "lance/io/local_object_store.h"

namespace lance::table::internal {

namespace {

// Threads for the flushes of one commit (a commit syncs its new files, the staged manifest
// and their directories: 6 for a delete), when the caller gives none. Made on first use,
// never destroyed; a commit given a pool never starts them.
ThreadPool* OwnSyncPool() {
  static ThreadPool* pool = [] {
    auto made = ThreadPool::Make(8);
    return made.ok() ? made->release() : ThreadPool::Default();
  }();
  return pool;
}

}  // namespace

std::string ParentPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

Result<std::shared_ptr<io::LocalObjectStore>> UnsyncedTwin(
    const std::shared_ptr<io::ObjectStore>& store, bool start_writeback) {
  auto local = std::dynamic_pointer_cast<io::LocalObjectStore>(store);
  if (local == nullptr) return std::shared_ptr<io::LocalObjectStore>();
  return io::LocalObjectStore::Unsynced(local, start_writeback);
}

Status SyncFiles(const io::LocalObjectStore& store, const std::vector<std::string>& paths,
                 const std::vector<std::string>& extra_dirs, ThreadPool* pool,
                 const std::vector<std::string>& bytes_only) {
  std::set<std::string> files(paths.begin(), paths.end());
  std::set<std::string> dirs(extra_dirs.begin(), extra_dirs.end());
  for (const auto& p : files) dirs.insert(ParentPath(p));
  files.insert(bytes_only.begin(), bytes_only.end());
  std::vector<std::pair<std::string, bool>> items;  // full path, is a directory
  for (const auto& p : files) items.emplace_back(store.FullPath(p), false);
  for (const auto& d : dirs) items.emplace_back(store.FullPath(d), true);
  std::vector<Status> results(items.size());
  // Blocking calls, all issued at once so that the filesystem folds the flushes into one
  // journal commit: on threads of their own (they sleep in the kernel, not on a core), not
  // the CPU pool's two, which would leave the directories waiting behind the files' flushes
  // for a second commit. An engine may give its own (CommitOptions::sync_pool).
  ParallelFor(pool != nullptr ? pool : OwnSyncPool(), static_cast<int64_t>(items.size()), [&](int64_t i) {
    const auto& [full, is_dir] = items[static_cast<size_t>(i)];
    results[static_cast<size_t>(i)] = io::FlushLocalPath(full, is_dir);
  });
  for (const Status& st : results) LANCE_RETURN_NOT_OK(st);
  return Status::OK();
}

}  // namespace lance::table::internal
