// DropIndex (indexes.h): a CreateIndex transaction removing every segment of a user index.
#include "lance/table/indexes.h"

#include "lance/table/feature_flags.h"

namespace lance::table {

Result<CommitInfo> DropIndex(const Snapshot& at, const std::string& name,
                             const CommitOptions& options) {
  if (name.empty()) return Status::InvalidArgument("drop index: the index name is empty");
  const Manifest& m = at.manifest();
  LANCE_RETURN_NOT_OK(CheckCanWrite(m.reader_feature_flags, m.writer_feature_flags, at.manifest_path()));
  Transaction::CreateIndex ci;
  for (const auto& x : m.indices) {
    if (x.name == name && !IsSystemIndex(x)) ci.removed_indices.push_back(x);
  }
  if (ci.removed_indices.empty()) {
    return Status::NotFound("{}: no index named '{}' (version {})", at.location().display(), name,
                            at.version());
  }
  Transaction txn;
  txn.read_version = at.version();
  txn.operation = std::move(ci);
  return CommitTransaction(at.location(), std::move(txn), options);
}

}  // namespace lance::table
