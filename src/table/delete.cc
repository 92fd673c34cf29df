// Deletes by row address (DeleteRowAddresses): the rows staged by StageDeletions as the
// deletion files of their fragments and committed as one Delete transaction. Which rows a
// filter selects is the query layer's business (dataset::Dataset::Delete finds them with its
// filter engine, then calls this).
#include "lance/table/deletion.h"
#include "lance/table/feature_flags.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"

namespace lance::table {

Result<DeleteResult> DeleteRowAddresses(const Snapshot& ds,
                                        std::vector<uint64_t> addresses, const std::string& predicate,
                                        const CommitOptions& options) {
  const Manifest& m = ds.manifest();
  LANCE_RETURN_NOT_OK(CheckCanWrite(m.reader_feature_flags, m.writer_feature_flags, ds.manifest_path()));
  const TableLocation& loc = ds.location();
  StagedFiles staged(loc, options.sync);
  LANCE_ASSIGN_OR_RAISE(StagedDeletions deletions, StageDeletions(staged, ds, std::move(addresses)));
  DeleteResult out;
  out.num_deleted_rows = deletions.num_deleted_rows;
  out.removed_fragment_ids = deletions.removed_fragment_ids;
  // Nothing matched: still a version, as lance 12 commits one (its transaction holds only the
  // predicate).
  Transaction::Delete del;
  del.updated_fragments = std::move(deletions.updated_fragments);
  del.deleted_fragment_ids = std::move(deletions.removed_fragment_ids);
  del.predicate = predicate;
  del.rebase = std::move(deletions.rebase);
  Transaction txn;
  txn.read_version = ds.version();
  txn.operation = std::move(del);
  LANCE_ASSIGN_OR_RAISE(out.commit, CommitTransaction(ds, std::move(txn), options, &staged));
  return out;
}


Result<DeleteResult> DeleteRowAddresses(const TableLocation& location, std::vector<uint64_t> addresses,
                                        std::optional<uint64_t> read_version,
                                        const std::string& predicate, const CommitOptions& options) {
  OpenOptions oo;
  oo.version = read_version;
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(location, oo));
  return DeleteRowAddresses(*ds, std::move(addresses), predicate, options);
}

Result<DeleteResult> DeleteRowAddresses(const std::string& uri, std::vector<uint64_t> addresses,
                                        std::optional<uint64_t> read_version,
                                        const std::string& predicate, const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return DeleteRowAddresses(location, std::move(addresses), read_version, predicate, options);
}

}  // namespace lance::table
