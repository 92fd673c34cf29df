// RebaseDeletions (rebase.h).
#include "table/rebase.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "lance/table/deletion.h"
#include "lance/table/snapshot.h"

namespace lance::table::internal {

namespace {

bool SameDeletion(const std::optional<DeletionFileInfo>& a, const std::optional<DeletionFileInfo>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || a->SameFile(*b);
}

}  // namespace

Status RebaseDeletions(const TableLocation& location, StagedFiles& staged, Transaction* txn,
                       const CommittedVersion& latest) {
  // Delete and Update record deletions the same way (updated fragments + emptied fragments).
  std::vector<FragmentInfo>* updated = nullptr;
  std::vector<uint64_t>* removed = nullptr;
  DeletionRebase* rebase = nullptr;
  const char* what = "delete";
  if (auto* d = txn->get<Transaction::Delete>()) {
    updated = &d->updated_fragments;
    removed = &d->deleted_fragment_ids;
    rebase = &d->rebase;
  } else if (auto* u = txn->get<Transaction::Update>()) {
    updated = &u->updated_fragments;
    removed = &u->removed_fragment_ids;
    rebase = &u->rebase;
    what = "update";
  } else {
    return Status::OK();
  }
  const Manifest& lm = latest.manifest;
  // Fragments changed without rows to merge: a concurrent change to their deletions cannot
  // be merged. Their base is the read version's deletion file unless given.
  std::optional<Manifest> read_manifest;
  // The deletion file fragment `id` had when the transaction read it.
  auto base_of = [&](uint64_t id) -> Result<std::optional<DeletionFileInfo>> {
    if (auto b = rebase->base.find(id); b != rebase->base.end()) return b->second;
    if (!read_manifest) {
      LANCE_ASSIGN_OR_RAISE(CommittedVersion rv, LoadVersion(location, txn->read_version));
      read_manifest = std::move(rv.manifest);
    }
    const FragmentInfo* rf = read_manifest->FindFragment(id);
    return rf == nullptr ? std::optional<DeletionFileInfo>() : rf->deletion;
  };
  auto check_unmerged = [&](uint64_t id) -> Status {
    if (rebase->deleted_rows.count(id)) return Status::OK();
    const FragmentInfo* lf = lm.FindFragment(id);
    if (lf == nullptr) {
      return Status::RetryableCommitConflict("retryable conflict: fragment {} was removed by a "
                                             "concurrent commit (version {}); run the {} again",
                                             id, latest.version, what);
    }
    LANCE_ASSIGN_OR_RAISE(std::optional<DeletionFileInfo> base, base_of(id));
    if (!SameDeletion(base, lf->deletion)) {
      return Status::RetryableCommitConflict("retryable conflict: the deletions of fragment {} were "
                                             "changed by a concurrent commit (version {}); run the "
                                             "{} again",
                                             id, latest.version, what);
    }
    return Status::OK();
  };
  for (const auto& f : *updated) LANCE_RETURN_NOT_OK(check_unmerged(f.id));
  for (uint64_t id : *removed) LANCE_RETURN_NOT_OK(check_unmerged(id));

  std::shared_ptr<Snapshot> snapshot;  // opened at `latest` on first need
  for (auto& [id, rows] : rebase->deleted_rows) {
    const FragmentInfo* lf = lm.FindFragment(id);
    if (lf == nullptr) {
      return Status::RetryableCommitConflict("retryable conflict: fragment {} was removed by a "
                                             "concurrent commit (version {}); run the {} again",
                                             id, latest.version, what);
    }
    const std::optional<DeletionFileInfo>& current = lf->deletion;
    LANCE_ASSIGN_OR_RAISE(std::optional<DeletionFileInfo> base, base_of(id));
    if (SameDeletion(base, current)) continue;
    if (!snapshot) {
      LANCE_ASSIGN_OR_RAISE(snapshot, Snapshot::Open(location, latest));
    }
    size_t index = 0;
    while (snapshot->manifest().fragments[index].id != id) ++index;
    LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> theirs, snapshot->DeletedRows(index));
    std::vector<uint32_t> common;
    std::set_intersection(theirs.begin(), theirs.end(), rows.begin(), rows.end(),
                          std::back_inserter(common));
    if (!common.empty()) {
      return Status::RetryableCommitConflict("retryable conflict: {} of the rows this {} removes from "
                                             "fragment {} (e.g. offset {}) were deleted by a "
                                             "concurrent commit (version {}); run the {} again",
                                             common.size(), what, id, common[0], latest.version, what);
    }
    std::vector<uint32_t> merged;
    std::set_union(theirs.begin(), theirs.end(), rows.begin(), rows.end(), std::back_inserter(merged));
    // Drop our previous entry for this fragment, then add the merged one.
    updated->erase(std::remove_if(updated->begin(), updated->end(),
                                  [id = id](const FragmentInfo& f) { return f.id == id; }),
                   updated->end());
    removed->erase(std::remove(removed->begin(), removed->end(), id), removed->end());
    if (merged.size() >= lf->physical_rows) {
      removed->push_back(id);
    } else {
      LANCE_ASSIGN_OR_RAISE(DeletionFileInfo d, WriteDeletionFile(staged, id, latest.version, merged));
      FragmentInfo nf = *lf;
      nf.deletion = std::move(d);
      updated->push_back(std::move(nf));
    }
    rebase->base[id] = current;
  }
  return Status::OK();
}

}  // namespace lance::table::internal
