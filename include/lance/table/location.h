// Where a table lives (TableLocation: any ObjectStore plus the table's root path in it), and
// the files a write stages there before it commits (StagedFiles).
//
// Every read and write of table/ takes a TableLocation; the functions that take a URI are thin
// wrappers that make one with TableLocation::FromUri. An engine with its own object store
// builds the location from that store directly.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/result.h"
#include "lance/io/object_store.h"

namespace lance::io {
class LocalObjectStore;
}  // namespace lance::io

namespace lance::table {

// A table: an object store and the path of the table's directory inside it (the directory
// holding _versions/, data/, ...; "" = the store's root). A small value, cheap to copy;
// copies share the store. Thread-safe as its store is.
class TableLocation {
 public:
  TableLocation() = default;
  // Trailing '/' of `root` are dropped.
  TableLocation(std::shared_ptr<io::ObjectStore> store, std::string root);
  // Anything io::ObjectStore::FromUri accepts (a local path, file://, memory://).
  static Result<TableLocation> FromUri(const std::string& uri);

  const std::shared_ptr<io::ObjectStore>& store() const { return store_; }
  const std::string& root() const { return root_; }
  // The root as messages show it (ObjectStore::DisplayPath: a local table's full path).
  std::string display() const;
  // The store path of `relative` (e.g. "_versions/1.manifest") inside the table.
  std::string Path(std::string_view relative) const;

 private:
  std::shared_ptr<io::ObjectStore> store_;
  std::string root_;
};

// The new files of one write (data, deletion and transaction files) that no committed
// version references yet. The commit makes them durable right before it publishes its
// manifest and forgets them once published; if the commit fails for good, it removes them.
//
// On a local filesystem the files are written through a twin of the store that does not
// sync each object (store()), and the commit syncs them all, with the new manifest, in one
// round of flushes (see commit.h). Other stores make each object durable on their own.
//
// One StagedFiles per write operation; thread-safe (files may be written from several threads).
class StagedFiles {
 public:
  explicit StagedFiles(TableLocation location);
  // `will_sync` false: the commit will not sync these files (CommitOptions::sync off), so
  // writing them does not queue their writeback either.
  StagedFiles(TableLocation location, bool will_sync);
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;

  const TableLocation& location() const { return location_; }
  // The store new immutable files of this write go through.
  const std::shared_ptr<io::ObjectStore>& store() const { return file_store_; }
  // Writes `bytes` at the store path `path` (TableLocation::Path of a table-relative path)
  // through store() and records it.
  Status Put(const std::string& path, std::string_view bytes);
  // Records a file written through store() by other means (e.g. a file::FileWriter).
  void Record(const std::string& path);
  // Records a directory this write created below the dataset directory's own subdirectories
  // (e.g. _indices/, which gains an index's directory): the commit syncs it with the files,
  // so that the new entry survives a crash. (Files' own directories are always synced.)
  void RecordDirectory(const std::string& path);
  // Every path recorded and not yet forgotten.
  std::vector<std::string> paths() const;

  // For the commit: the local store without per-object syncs (null on other stores), the
  // recorded paths not yet synced (they count as synced afterwards), and forgetting them all
  // once a version references them.
  const std::shared_ptr<io::LocalObjectStore>& unsynced_local() const { return unsynced_; }
  std::vector<std::string> TakeUnsynced();
  std::vector<std::string> directories() const;
  void Forget();

 private:
  TableLocation location_;
  std::shared_ptr<io::LocalObjectStore> unsynced_;
  std::shared_ptr<io::ObjectStore> file_store_;
  mutable std::mutex mu_;
  std::vector<std::string> unsynced_paths_;
  std::vector<std::string> all_paths_;
  std::vector<std::string> directories_;
};

}  // namespace lance::table
