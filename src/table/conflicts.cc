// The conflict rules (conflicts.h), one case per operation being committed.
#include "table/conflicts.h"

#include <optional>

namespace lance::table::internal {

namespace {

using T = Transaction;

bool Overlaps(const std::set<uint64_t>& a, const std::set<uint64_t>& b) {
  for (uint64_t x : a) {
    if (b.count(x)) return true;
  }
  return false;
}

// As lance 12: a Rewrite that remaps no index conflicts (retryably) with a concurrent
// CreateIndex only when a new index may cover a fragment the rewrite replaces (it has no
// fragment bitmap, or its bitmap lists one).
Verdict RewriteAfterCreateIndex(const T& ours, const T::CreateIndex& theirs) {
  const std::set<uint64_t> replaced = TouchedFragments(ours);
  for (const auto& x : theirs.new_indices) {
    if (!x.has_fragment_bitmap) return Verdict::kRetryable;
    for (uint32_t id : x.fragment_ids) {
      if (replaced.count(id)) return Verdict::kRetryable;
    }
  }
  return Verdict::kCompatible;
}

// Fragments the new indexes of `ci` may cover (every fragment when one has no bitmap: nullopt).
std::optional<std::set<uint64_t>> Covered(const T::CreateIndex& ci) {
  std::set<uint64_t> ids;
  for (const auto& x : ci.new_indices) {
    if (!x.has_fragment_bitmap) return std::nullopt;
    ids.insert(x.fragment_ids.begin(), x.fragment_ids.end());
  }
  return ids;
}

// CreateIndex, per transaction.md: what replaces the table's state conflicts; a Rewrite or a
// DataReplacement of fragments the new indexes cover is a retryable conflict (lance 12 lets a
// rewrite pass with stable row ids or a fragment reuse index; this library retries instead);
// another CreateIndex of the same system index would need the two merged: retryable too.
Verdict CreateIndexAfter(const T::CreateIndex& ours, const T& theirs) {
  if (theirs.is<T::Overwrite>() || theirs.is<T::Restore>() || theirs.is<T::UpdateMemWalState>()) {
    return Verdict::kIncompatible;
  }
  if (theirs.is<T::Rewrite>() || theirs.is<T::DataReplacement>()) {
    const auto covered = Covered(ours);
    if (!covered) return Verdict::kRetryable;
    for (uint64_t id : TouchedFragments(theirs)) {
      if (covered->count(id)) return Verdict::kRetryable;
    }
    return Verdict::kCompatible;
  }
  if (const auto* other = theirs.get<T::CreateIndex>()) {
    for (const auto& x : ours.new_indices) {
      if (!IsSystemIndex(x)) continue;
      for (const auto& y : other->new_indices) {
        if (y.name == x.name) return Verdict::kRetryable;
      }
    }
  }
  return Verdict::kCompatible;
}

}  // namespace

std::set<uint64_t> TouchedFragments(const Transaction& t) {
  std::set<uint64_t> ids;
  if (const auto* d = t.get<T::Delete>()) {
    for (const auto& f : d->updated_fragments) ids.insert(f.id);
    ids.insert(d->deleted_fragment_ids.begin(), d->deleted_fragment_ids.end());
  } else if (const auto* u = t.get<T::Update>()) {
    for (const auto& f : u->updated_fragments) ids.insert(f.id);
    ids.insert(u->removed_fragment_ids.begin(), u->removed_fragment_ids.end());
  } else if (const auto* r = t.get<T::Rewrite>()) {
    for (const auto& f : r->old_fragments) ids.insert(f.id);
    for (const auto& g : r->groups) {
      for (const auto& f : g.old_fragments) ids.insert(f.id);
    }
  } else if (const auto* m = t.get<T::Merge>()) {
    for (const auto& f : m->fragments) ids.insert(f.id);
  } else if (const auto* r = t.get<T::DataReplacement>()) {
    for (const auto& g : r->replacements) ids.insert(g.fragment_id);
  }
  return ids;
}

Verdict CheckConflict(const Transaction& ours, const Transaction& theirs) {
  if (theirs.is<std::monostate>()) return Verdict::kIncompatible;
  const bool overlap = Overlaps(TouchedFragments(ours), TouchedFragments(theirs));
  // What replaces or forgets the table's state under any operation but a restore.
  const bool replaced = theirs.is<T::Overwrite>() || theirs.is<T::Restore>() ||
                        theirs.is<T::UpdateMemWalState>();
  if (ours.is<T::Append>()) {
    return replaced ? Verdict::kIncompatible : Verdict::kCompatible;
  }
  if (ours.is<T::Delete>() || ours.is<T::Update>()) {
    if (replaced) return Verdict::kIncompatible;
    if (ours.is<T::Update>() && theirs.is<T::Merge>()) return Verdict::kRetryable;
    if ((theirs.is<T::Merge>() || theirs.is<T::Rewrite>() || theirs.is<T::DataReplacement>()) && overlap) {
      return Verdict::kRetryable;
    }
    return Verdict::kCompatible;
  }
  if (const auto* o = ours.get<T::Overwrite>()) {
    if (theirs.is<T::Overwrite>() || theirs.is<T::UpdateMemWalState>()) return Verdict::kRetryable;
    if (theirs.is<T::UpdateConfig>() && !o->config_upsert_values.empty()) return Verdict::kRetryable;
    return Verdict::kCompatible;
  }
  if (ours.is<T::Merge>()) {
    if (replaced || theirs.is<T::Project>()) return Verdict::kIncompatible;
    if (theirs.is<T::Update>() || theirs.is<T::Append>() || theirs.is<T::Delete>() ||
        theirs.is<T::Merge>() || theirs.is<T::Rewrite>() || theirs.is<T::DataReplacement>()) {
      return Verdict::kRetryable;
    }
    return Verdict::kCompatible;
  }
  if (ours.is<T::Project>()) {
    if (replaced) return Verdict::kIncompatible;
    if (theirs.is<T::Project>() || theirs.is<T::Merge>()) return Verdict::kRetryable;
    return Verdict::kCompatible;
  }
  if (ours.is<T::Restore>()) {
    // A restore replaces whatever happened since it read; only a MemWAL state change
    // (which it would silently undo) stops it.
    return theirs.is<T::UpdateMemWalState>() ? Verdict::kIncompatible : Verdict::kCompatible;
  }
  if (ours.is<T::Rewrite>()) {
    if (theirs.is<T::Overwrite>() || theirs.is<T::Restore>()) return Verdict::kIncompatible;
    if (theirs.is<T::Merge>()) return Verdict::kRetryable;
    if (const auto* ci = theirs.get<T::CreateIndex>()) return RewriteAfterCreateIndex(ours, *ci);
    if ((theirs.is<T::DataReplacement>() || theirs.is<T::Delete>() || theirs.is<T::Update>() ||
         theirs.is<T::Rewrite>()) &&
        overlap) {
      return Verdict::kRetryable;
    }
    return Verdict::kCompatible;
  }
  if (const auto* ci = ours.get<T::CreateIndex>()) return CreateIndexAfter(*ci, theirs);
  if (ours.is<T::ReserveFragments>()) {
    return theirs.is<T::Overwrite>() || theirs.is<T::Restore>() ? Verdict::kIncompatible
                                                                : Verdict::kCompatible;
  }
  // Operations this library does not commit (the loop refuses them before any check).
  return Verdict::kRetryable;
}

}  // namespace lance::table::internal
