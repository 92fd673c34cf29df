// RestoreVersion (versions.h): a Restore transaction read at the latest version.
#include "lance/table/feature_flags.h"
#include "lance/table/versions.h"

namespace lance::table {

Result<uint64_t> RestoreVersion(const TableLocation& location, uint64_t version,
                                const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(CommittedVersion latest, LoadLatestWritableVersion(location));
  LANCE_ASSIGN_OR_RAISE(CommittedVersion old, LoadVersion(location, version));
  LANCE_RETURN_NOT_OK(CheckCanWrite(old.manifest.reader_feature_flags,
                                    old.manifest.writer_feature_flags, old.path));
  Transaction txn;
  txn.read_version = latest.version;
  auto& restore = txn.operation.emplace<Transaction::Restore>();
  restore.version = version;
  restore.source = std::move(old.manifest);
  LANCE_ASSIGN_OR_RAISE(CommitInfo ci, CommitTransaction(location, std::move(txn), options));
  return ci.version;
}

Result<uint64_t> RestoreVersion(const std::string& uri, uint64_t version, const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return RestoreVersion(location, version, options);
}

}  // namespace lance::table
