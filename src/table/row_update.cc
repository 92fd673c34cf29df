// CommitRowUpdate (row_update.h).
#include "lance/table/row_update.h"

#include "lance/table/deletion.h"

namespace lance::table {

Result<CommitInfo> CommitRowUpdate(const TableLocation& location, StagedFiles& staged,
                                   const Snapshot& ds, std::vector<uint64_t> addresses,
                                   std::vector<FragmentInfo> fragments, const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(StagedDeletions deletions, StageDeletions(staged, ds, std::move(addresses)));
  Transaction::Update update;
  update.updated_fragments = std::move(deletions.updated_fragments);
  update.removed_fragment_ids = std::move(deletions.removed_fragment_ids);
  update.rebase = std::move(deletions.rebase);
  update.new_fragments = std::move(fragments);
  update.update_mode = 0;  // rewrite rows
  Transaction txn;
  txn.read_version = ds.version();
  txn.operation = std::move(update);
  // Built on `ds` at its own location: its manifest serves as the latest while it is.
  if (location.store() == ds.location().store() && location.root() == ds.location().root()) {
    return CommitTransaction(ds, std::move(txn), options, &staged);
  }
  return CommitTransaction(location, std::move(txn), options, &staged);
}

}  // namespace lance::table
