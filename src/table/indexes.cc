// DropIndex (indexes.h): a CreateIndex transaction removing every segment of a user index.
#include "lance/table/indexes.h"

#include "lance/table/versions.h"

namespace lance::table {

Result<CommitInfo> DropIndex(const TableLocation& location, const std::string& name,
                             const CommitOptions& options) {
  if (name.empty()) return Status::InvalidArgument("drop index: the index name is empty");
  LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadLatestWritableVersion(location));
  Transaction::CreateIndex ci;
  for (const auto& x : sv.manifest.indices) {
    if (x.name == name && !IsSystemIndex(x)) ci.removed_indices.push_back(x);
  }
  if (ci.removed_indices.empty()) {
    return Status::NotFound("{}: no index named '{}' (version {})", location.display(), name, sv.version);
  }
  Transaction txn;
  txn.read_version = sv.version;
  txn.operation = std::move(ci);
  return CommitTransaction(location, std::move(txn), options);
}

Result<CommitInfo> DropIndex(const std::string& uri, const std::string& name,
                             const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return DropIndex(location, name, options);
}

}  // namespace lance::table
