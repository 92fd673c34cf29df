// LocalObjectStore: an ObjectStore over a local POSIX filesystem, rooted at a directory.
//
// Object "a/b/c" is the regular file <root>/a/b/c; parent directories are created on demand.
// Publication protocol (why readers never see partial objects and writes are durable):
//   Put:             write <dir>/.lance-tmp.<name>.<unique>, fsync it, rename() over the
//                    target, fsync the directory.
//   PutIfNotExists:  write and fsync a unique temp file, link() it to the target (fails with
//                    EEXIST if taken; renameat2(RENAME_NOREPLACE) where links are not
//                    supported), fsync the directory, unlink the temp.
// A crash can leave temp files behind; List/ListDir never show them and RemoveTempFiles()
// sweeps old ones. Files are never modified in place, so memory maps handed out by Get()
// stay valid after the object is replaced or deleted.
//
// Thread-safety: safe for concurrent use by any number of threads and processes.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "lance/io/object_store.h"

namespace lance::io {

struct LocalObjectStoreOptions {
  // Get() memory-maps objects at least this large; smaller ones are read with pread.
  int64_t mmap_threshold = 1024 * 1024;
  // fsync files and directories on publication. Off only for throwaway data (tests, benches).
  bool sync = true;
  // With `sync` off: still start the kernel's writeback of each MiB written through OpenWriter
  // (sync_file_range, Linux), so that a later fsync of the file -- a commit syncing the files it
  // staged -- waits only for the last of it. Advisory; durability comes from that fsync alone.
  bool start_writeback = false;
};

class LocalObjectStore : public ObjectStore {
 public:
  // A store rooted at `root_dir` (an absolute or relative directory, created if missing).
  // Errors: IOError when the root cannot be created or is not a directory.
  static Result<std::shared_ptr<LocalObjectStore>> Make(
      const std::string& root_dir, const LocalObjectStoreOptions& options = {});

  const std::string& root() const { return root_; }
  // A store over the same root with the same options but `sync` off and `start_writeback` on
  // (`store` itself when it does not sync): for files a caller makes durable later in bulk, or
  // not at all. Made once per store.
  static std::shared_ptr<LocalObjectStore> Unsynced(const std::shared_ptr<LocalObjectStore>& store);
  // The same with `start_writeback` as given: off for files nothing will fsync (a commit with
  // CommitOptions::sync off), where queuing their writeback only costs system calls.
  static std::shared_ptr<LocalObjectStore> Unsynced(const std::shared_ptr<LocalObjectStore>& store,
                                                    bool start_writeback);
  // The filesystem path of an object (no validation).
  std::string FullPath(std::string_view path) const;

  std::string_view scheme() const override { return "file"; }
  std::string DisplayPath(std::string_view path) const override { return FullPath(path); }
  Result<BufferPtr> Get(std::string_view path) override;
  Result<BufferPtr> GetRange(std::string_view path, int64_t offset, int64_t length) override;
  Result<std::vector<BufferPtr>> GetRanges(std::string_view path,
                                           const std::vector<Range>& ranges) override;
  Result<ObjectMeta> Head(std::string_view path) override;
  Result<TailRead> GetTail(std::string_view path, int64_t max_length) override;
  Status Put(std::string_view path, std::string_view bytes) override;
  Status PutIfNotExists(std::string_view path, std::string_view bytes) override;
  Status Delete(std::string_view path) override;
  Result<std::vector<ObjectMeta>> List(std::string_view prefix) override;
  Result<ListResult> ListDir(std::string_view prefix) override;
  Status RemoveEmptyDirectories(std::string_view prefix) override;
  Status Copy(std::string_view src, std::string_view dst) override;
  Status CopyIfNotExists(std::string_view src, std::string_view dst) override;
  Status RenameIfNotExists(std::string_view src, std::string_view dst) override;
  Result<std::unique_ptr<ObjectReader>> OpenReader(std::string_view path) override;
  Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view path,
                                                   bool overwrite = true) override;

  // Writes `bytes` as the new object `path` under its own name, with no temporary name and no
  // rename: one create (O_EXCL), one write, one close. A reader can see the object while it is
  // being written, so this is only for objects nobody looks for until the caller publishes
  // something naming them (a commit's staged files: StagedFiles, table/location.h). On a
  // failed write the partial object is removed; a crash can leave it, unreferenced, for
  // cleanup. With `sync` on, the file and its directory are fsynced before it returns.
  // Errors: AlreadyExists when `path` exists (nothing is written), IOError.
  Status PutNew(std::string_view path, std::string_view bytes);

  // Deletes temp files under `prefix` last modified more than `min_age_seconds` ago (left by
  // crashed writers; a younger one may belong to a live writer). Returns how many went.
  Result<int64_t> RemoveTempFiles(std::string_view prefix, int64_t min_age_seconds);

  // Temp files currently present under `prefix` (for crash tests and diagnostics).
  Result<std::vector<std::string>> ListTempFiles(std::string_view prefix);

 private:
  LocalObjectStore(std::string root, LocalObjectStoreOptions options)
      : root_(std::move(root)), options_(options) {}
  friend class LocalObjectWriter;

  std::string root_;  // no trailing '/', except "/" itself
  LocalObjectStoreOptions options_;
  std::once_flag unsynced_once_;
  std::shared_ptr<LocalObjectStore> unsynced_;
  std::once_flag no_writeback_once_;
  std::shared_ptr<LocalObjectStore> no_writeback_;
};

// Drops the pages of `bytes` resident in this process when `bytes` is a whole mapping made by
// LocalObjectStore::Get (a later read of them faults them in again from the file, with the same
// bytes): what a scan calls behind itself so that its memory follows what it holds, not what it
// has read. Returns false (and does nothing) for any other buffer.
bool ReleaseMappedPages(const Buffer& bytes);

// fdatasync (a file) or fsync (a directory: its entries are its data) of the filesystem path
// `full`. Errors: IOError naming the path.
Status FlushLocalPath(const std::string& full, bool directory);

// Flushes (fsync / fdatasync) issued so far in this process by every LocalObjectStore and by
// FlushLocalPath: for tests that check what a write makes durable (and what it does not).
int64_t LocalFlushCount();

}  // namespace lance::io
