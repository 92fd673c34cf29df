// TableLocation and StagedFiles (location.h).
#include "lance/table/location.h"

#include "lance/io/local_object_store.h"
#include "table/durable_files.h"

namespace lance::table {

TableLocation::TableLocation(std::shared_ptr<io::ObjectStore> store, std::string root)
    : store_(std::move(store)), root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

Result<TableLocation> TableLocation::FromUri(const std::string& uri) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(uri));
  return TableLocation(std::move(sp.store), std::move(sp.path));
}

std::string TableLocation::display() const {
  return store_ == nullptr ? root_ : store_->DisplayPath(root_);
}

std::string TableLocation::Path(std::string_view relative) const {
  return io::JoinPath(root_, std::string(relative));
}

StagedFiles::StagedFiles(TableLocation location) : StagedFiles(std::move(location), true) {}

StagedFiles::StagedFiles(TableLocation location, bool will_sync) : location_(std::move(location)) {
  // Without a twin (a store of another kind, or one that cannot be opened) every object is
  // synced as it is written: slower commits, the same guarantees.
  auto twin = internal::UnsyncedTwin(location_.store(), will_sync);
  if (twin.ok()) unsynced_ = std::move(*twin);
  file_store_ = unsynced_ ? std::static_pointer_cast<io::ObjectStore>(unsynced_) : location_.store();
}

Status StagedFiles::Put(const std::string& path, std::string_view bytes) {
  // A staged file has a name of its own (a uuid or random id) that nothing references before
  // the commit publishes its manifest, and no reader lists data/, _deletions/ or _transactions/
  // to find files: written in place, it needs no temporary name and no rename (durable_files.h).
  // A name that is somehow taken is replaced atomically, as before.
  Status st = unsynced_ ? unsynced_->PutNew(path, bytes) : file_store_->Put(path, bytes);
  if (st.IsAlreadyExists()) st = file_store_->Put(path, bytes);
  LANCE_RETURN_NOT_OK(st);
  Record(path);
  return Status::OK();
}

void StagedFiles::Record(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  unsynced_paths_.push_back(path);
  all_paths_.push_back(path);
}

void StagedFiles::RecordDirectory(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  directories_.push_back(path);
}

std::vector<std::string> StagedFiles::directories() const {
  std::lock_guard<std::mutex> lock(mu_);
  return directories_;
}

std::vector<std::string> StagedFiles::paths() const {
  std::lock_guard<std::mutex> lock(mu_);
  return all_paths_;
}

std::vector<std::string> StagedFiles::TakeUnsynced() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  out.swap(unsynced_paths_);
  return out;
}

void StagedFiles::Forget() {
  std::lock_guard<std::mutex> lock(mu_);
  unsynced_paths_.clear();
  all_paths_.clear();
}

}  // namespace lance::table
