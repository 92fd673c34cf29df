// The two commit handlers of commit.h: put-if-not-exists and rename-if-not-exists.
#include "lance/table/commit.h"
#include "table/unique_ids.h"

namespace lance::table {

namespace {

class PutHandler final : public CommitHandler {
 public:
  Status CommitManifest(io::ObjectStore& store, const std::string& path,
                        std::string_view bytes) override {
    return store.PutIfNotExists(path, bytes);
  }
  std::string_view name() const override { return "put-if-not-exists"; }
};

class RenameHandler final : public CommitHandler {
 public:
  Status CommitManifest(io::ObjectStore& store, const std::string& path,
                        std::string_view bytes) override {
    const std::string staging = path + "-" + internal::NewUuid();
    LANCE_RETURN_NOT_OK(store.Put(staging, bytes));
    Status st = store.RenameIfNotExists(staging, path);
    if (!st.ok()) (void)store.Delete(staging);
    return st;
  }
  std::string_view name() const override { return "rename-if-not-exists"; }
};

}  // namespace

std::shared_ptr<CommitHandler> PutIfNotExistsCommitHandler() {
  return std::make_shared<PutHandler>();
}

std::shared_ptr<CommitHandler> RenameIfNotExistsCommitHandler() {
  return std::make_shared<RenameHandler>();
}

}  // namespace lance::table
