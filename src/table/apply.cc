// ApplyOperation (apply.h): one case per operation lance-cpp commits.
#include "table/apply.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "lance/table/feature_flags.h"
#include "lance/table/row_ids.h"

namespace lance::table::internal {

namespace {

using T = Transaction;

bool SameDeletion(const std::optional<DeletionFileInfo>& a, const std::optional<DeletionFileInfo>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || a->SameFile(*b);
}

// The fragments of `m` with the deletion files of `updated` and without `removed`: what a
// delete or an update (`what`) does to the existing fragments of the version before `version`.
// Errors: CommitConflict (retryable) when one of those fragments is no longer there.
Status ApplyDeletions(Manifest* m, const std::vector<FragmentInfo>& updated_list,
                      const std::vector<uint64_t>& removed_ids, const char* what, uint64_t version) {
  std::map<uint64_t, const FragmentInfo*> updated;
  for (const auto& f : updated_list) updated[f.id] = &f;
  const std::set<uint64_t> removed(removed_ids.begin(), removed_ids.end());
  std::vector<FragmentInfo> out;
  out.reserve(m->fragments.size());
  size_t seen = 0;
  for (auto& f : m->fragments) {
    if (removed.count(f.id)) {
      ++seen;
      continue;
    }
    if (auto it = updated.find(f.id); it != updated.end()) {
      ++seen;
      f.deletion = it->second->deletion;
    }
    out.push_back(std::move(f));
  }
  if (seen != updated.size() + removed.size()) {
    return Status::RetryableCommitConflict("retryable conflict: a fragment this {} changes no longer "
                                           "exists at version {}",
                                           what, version - 1);
  }
  m->fragments = std::move(out);
  return Status::OK();
}

// An index's fragment bitmap after a Rewrite (RebaseFragmentIds). False when no group touched it.
Result<bool> RebaseBitmap(IndexInfo* x, const T::Rewrite& rw, const std::vector<std::vector<uint32_t>>& new_ids) {
  LANCE_ASSIGN_OR_RAISE(std::optional<std::vector<uint32_t>> ids, RebaseFragmentIds(x->fragment_ids, rw, new_ids, x->name));
  if (!ids) return false;
  x->fragment_ids = std::move(*ids);
  return true;
}

// The indexes after a Rewrite on a table with stable row ids: every bitmap rebased.
Status RebaseIndexBitmaps(std::vector<IndexInfo>* indices, const T::Rewrite& rw,
                          const std::vector<std::vector<uint32_t>>& new_ids) {
  for (auto& x : *indices) {
    if (!x.has_fragment_bitmap) continue;  // coverage unknown: left as is, as lance 12
    LANCE_RETURN_NOT_OK(RebaseBitmap(&x, rw, new_ids).status());
  }
  return Status::OK();
}

// Whether two uuids in text form are the same (hex digits compared without case, hyphens ignored).
bool SameUuid(const std::string& a, const std::string& b) {
  auto digits = [](const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
  };
  return digits(a) == digits(b);
}

// The indexes after a Rewrite without stable row ids (lance 12's handle_rewrite_indices):
// each remapped one (by its old uuid) takes the new uuid, files, details and index version,
// and its bitmap is rebased; its name, fields, dataset version and creation time stay.
// Errors: RetryableCommitConflict when a remapped index is no longer there (dropped or
// replaced by a concurrent commit: compact again), InvalidArgument for one listed twice or
// without a fragment bitmap.
Status ApplyRewrittenIndices(std::vector<IndexInfo>* indices, const T::Rewrite& rw,
                             const std::vector<std::vector<uint32_t>>& new_ids, uint64_t version) {
  std::set<size_t> done;
  for (const auto& ri : rw.rewritten_indices) {
    size_t k = 0;
    while (k < indices->size() && !SameUuid((*indices)[k].uuid, ri.old_id)) ++k;
    if (k == indices->size()) {
      return Status::RetryableCommitConflict("retryable conflict: index {} this compaction remapped was "
                                             "dropped or replaced by a concurrent commit (version {}); "
                                             "compact again",
                                             ri.old_id, version - 1);
    }
    IndexInfo& x = (*indices)[k];
    if (!done.insert(k).second) {
      return Status::InvalidArgument("rewrite: index {} is remapped twice", ri.old_id);
    }
    if (!x.has_fragment_bitmap) {
      return Status::InvalidArgument("rewrite: index {} ('{}') has no fragment bitmap to remap", ri.old_id,
                                     x.name);
    }
    LANCE_RETURN_NOT_OK(RebaseBitmap(&x, rw, new_ids).status());
    x.uuid = ri.new_id;
    if (ri.has_new_index_details) {
      x.details_type_url = ri.new_index_details_type_url;
      x.details = ri.new_index_details;
    }
    x.index_version = static_cast<int32_t>(ri.new_index_version);
    x.files = ri.new_index_files;
  }
  return Status::OK();
}

// The data storage version a new table takes from its first data file ("2.2" without one).
std::string StorageVersionOf(const std::vector<FragmentInfo>& fragments) {
  for (const auto& f : fragments) {
    for (const auto& d : f.files) return std::to_string(d.major) + "." + std::to_string(d.minor);
  }
  return "2.2";
}

}  // namespace

Result<Manifest> ApplyOperation(const Transaction& txn, const Manifest* latest, int64_t now_ns) {
  Manifest m;
  const auto* overwrite = txn.get<T::Overwrite>();
  bool stable = false;
  if (latest) {
    m = *latest;
    stable = (m.reader_feature_flags & kFlagStableRowIds) != 0;
  } else {
    if (!overwrite) return Status::Internal("only an Overwrite creates a table");
    m.data_file_format = "lance";
    m.data_storage_version = overwrite->data_storage_version.empty()
                                 ? StorageVersionOf(overwrite->fragments)
                                 : overwrite->data_storage_version;
    stable = overwrite->new_table.enable_stable_row_ids;
    // Sticky from now on (ComputeFeatureFlags carries the bit over).
    if (stable) m.reader_feature_flags = m.writer_feature_flags = kFlagStableRowIds;
    m.base_paths = overwrite->initial_bases;
  }
  const uint64_t version = latest ? latest->version + 1 : 1;
  uint64_t next_frag = m.NextFragmentId();
  uint64_t next_row_id = m.next_row_id;
  bool assigned = false;
  bool schema_changed = false;

  // Stable row ids, update / merge-insert: the created-at version of each row it moves (by
  // row id), read from the rows it replaces, which are live in the latest version (a
  // concurrent change to them is a conflict).
  std::map<uint64_t, uint64_t> moved_created_at;
  if (const auto* u = txn.get<T::Update>(); u && stable) {
    for (const auto& f : m.fragments) {
      auto rows = u->rebase.deleted_rows.find(f.id);
      if (rows == u->rebase.deleted_rows.end() || f.inline_row_ids.empty()) continue;
      LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ids, DecodeRowIdSequence(f.inline_row_ids));
      LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> created, RowVersions(f, true));
      for (uint32_t offset : rows->second) {
        if (offset < ids.size() && offset < created.size()) moved_created_at[ids[offset]] = created[offset];
      }
    }
  }
  auto add_new = [&](const FragmentInfo& src) -> Status {
    FragmentInfo f = src;
    f.id = next_frag++;
    assigned = true;
    if (stable) {
      const uint64_t n = f.physical_rows;
      // Rows moved by an update or a compaction arrive with their ids; new rows get fresh ones.
      const bool moved = f.has_row_ids();
      if (!moved) {
        f.inline_row_ids = RowIdRange(next_row_id, n);
        next_row_id += n;
      }
      // As lance 12: a compaction brings its rows' versions along (set by compaction.cc);
      // rows an update moves keep their created-at version and are last updated now; new
      // rows are created and last updated now.
      if (f.inline_created_at_versions.empty() && !f.external_created_at_versions) {
        if (moved && !moved_created_at.empty() && !f.inline_row_ids.empty()) {
          LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ids, DecodeRowIdSequence(f.inline_row_ids));
          std::vector<uint64_t> created(ids.size(), version);
          for (size_t i = 0; i < ids.size(); ++i) {
            auto it = moved_created_at.find(ids[i]);
            if (it != moved_created_at.end()) created[i] = it->second;
          }
          f.inline_created_at_versions = EncodeVersionRuns(created.data(), created.size());
        } else {
          f.inline_created_at_versions = VersionRun(n, version);
        }
      }
      if (f.inline_last_updated_at_versions.empty() && !f.external_last_updated_at_versions) {
        f.inline_last_updated_at_versions = VersionRun(n, version);
      }
    }
    m.fragments.push_back(std::move(f));
    return Status::OK();
  };

  if (const auto* a = txn.get<T::Append>()) {
    for (const auto& f : a->fragments) LANCE_RETURN_NOT_OK(add_new(f));
  } else if (overwrite) {
    const T::Overwrite& o = *overwrite;
    m.fragments.clear();
    m.fields = o.schema;
    m.schema_metadata = o.schema_metadata;
    for (const auto& [k, v] : o.config_upsert_values) m.config[k] = v;
    // Indexes describe the old rows.
    m.indices.clear();
    m.index_section_unknown_fields.clear();
    m.reader_feature_flags &= ~kFlagCoveredIndexMetadata;
    m.writer_feature_flags &= ~kFlagCoveredIndexMetadata;
    if (latest && !o.data_storage_version.empty()) {
      m.data_file_format = "lance";
      m.data_storage_version = o.data_storage_version;
    }
    for (const auto& f : o.fragments) LANCE_RETURN_NOT_OK(add_new(f));
    schema_changed = true;
  } else if (const auto* d = txn.get<T::Delete>()) {
    LANCE_RETURN_NOT_OK(ApplyDeletions(&m, d->updated_fragments, d->deleted_fragment_ids, "delete", version));
  } else if (const auto* mg = txn.get<T::Merge>()) {
    // Stable row ids, as lance 12: a merge that adds a column or changes a column's type
    // (new data files) makes every row of the fragments it gave new files last updated
    // now. (Our rewrite of a struct after dropping a child is a Merge too, but lance 12
    // only edits the schema there: no top-level name or type changes, no refresh.)
    bool refresh = false;
    if (stable) {
      std::map<std::string, std::string> old_types;
      for (const auto& f : m.fields) {
        if (f.parent_id == -1) old_types[f.name] = f.logical_type;
      }
      for (const auto& f : mg->schema) {
        if (f.parent_id != -1) continue;
        auto it = old_types.find(f.name);
        refresh = refresh || it == old_types.end() || it->second != f.logical_type;
      }
    }
    std::map<uint64_t, std::set<std::string>> old_files;
    for (const auto& f : m.fragments) {
      for (const auto& df : f.files) old_files[f.id].insert(df.path);
    }
    m.fragments = mg->fragments;
    if (refresh) {
      for (auto& f : m.fragments) {
        const auto& before = old_files[f.id];
        const bool new_files = std::any_of(f.files.begin(), f.files.end(),
                                           [&](const DataFileInfo& df) { return !before.count(df.path); });
        if (new_files) {
          f.inline_last_updated_at_versions = VersionRun(f.physical_rows, version);
          f.external_last_updated_at_versions.reset();
        }
      }
    }
    m.fields = mg->schema;
    if (!mg->schema_metadata.empty()) m.schema_metadata = mg->schema_metadata;
    schema_changed = true;
  } else if (const auto* p = txn.get<T::Project>()) {
    m.fields = p->schema;
    schema_changed = true;
  } else if (const auto* u = txn.get<T::Update>()) {
    // Deletion files of the fragments the rows left, fragments left empty removed, the
    // rewritten rows appended as new fragments.
    LANCE_RETURN_NOT_OK(ApplyDeletions(&m, u->updated_fragments, u->removed_fragment_ids, "update", version));
    for (const auto& f : u->new_fragments) LANCE_RETURN_NOT_OK(add_new(f));
  } else if (const auto* r = txn.get<T::Restore>()) {
    // The restored version's manifest (schema, fragments, config, indexes, its own flags),
    // with fragment ids and row ids continuing after the latest version's.
    if (!r->source) return Status::Internal("a restore without the version to restore");
    const uint64_t max_frag = next_frag == 0 ? 0 : next_frag - 1;
    const bool had_fragments = m.max_fragment_id.has_value() || !m.fragments.empty();
    next_row_id = std::max<uint64_t>(next_row_id, r->source->next_row_id);
    m = *r->source;
    stable = (m.reader_feature_flags & kFlagStableRowIds) != 0;
    if (had_fragments) {
      m.max_fragment_id = static_cast<uint32_t>(std::max<uint64_t>(max_frag, m.max_fragment_id.value_or(0)));
    }
    if (!stable && next_row_id > m.next_row_id) m.next_row_id = next_row_id;
    m.transaction_file.clear();
  } else if (const auto* rw = txn.get<T::Rewrite>()) {
    // Each group's old fragments must be exactly as read (same deletion file); the group's
    // new fragments take the place of its first old fragment.
    std::map<uint64_t, const FragmentInfo*> current;
    for (const auto& f : m.fragments) current[f.id] = &f;
    std::map<uint64_t, size_t> first_of_group;
    std::set<uint64_t> old_ids;
    for (size_t g = 0; g < rw->groups.size(); ++g) {
      const auto& olds = rw->groups[g].old_fragments;
      for (size_t k = 0; k < olds.size(); ++k) {
        const FragmentInfo& of = olds[k];
        auto it = current.find(of.id);
        if (it == current.end() || !SameDeletion(of.deletion, it->second->deletion)) {
          return Status::RetryableCommitConflict("retryable conflict: fragment {} was changed or removed "
                                                 "by a concurrent commit (version {}); compact again",
                                                 of.id, version - 1);
        }
        old_ids.insert(of.id);
        if (k == 0) first_of_group[of.id] = g;
      }
    }
    std::vector<FragmentInfo> old;
    old.swap(m.fragments);
    // The ids each group's new fragments got: the ones reserved beforehand (a ReserveFragments
    // commit, as lance 12 does when it remaps indexes), else fresh ones, as lance 12 assigns
    // them (an id of 0 is "not assigned").
    std::vector<std::vector<uint32_t>> new_ids(rw->groups.size());
    for (auto& f : old) {
      if (!old_ids.count(f.id)) {
        m.fragments.push_back(std::move(f));
        continue;
      }
      auto g = first_of_group.find(f.id);
      if (g == first_of_group.end()) continue;
      for (const auto& nf : rw->groups[g->second].new_fragments) {
        if (nf.id != 0) {
          if (nf.id >= next_frag) {
            return Status::InvalidArgument("rewrite: new fragment id {} was never reserved (next id {})",
                                           nf.id, next_frag);
          }
          m.fragments.push_back(nf);
          assigned = true;
        } else {
          LANCE_RETURN_NOT_OK(add_new(nf));
        }
        new_ids[g->second].push_back(static_cast<uint32_t>(m.fragments.back().id));
      }
    }
    // Indexes: with stable row ids they still find every row by its id, so (as lance 12)
    // each index's fragment bitmap trades a group's old fragments for its new ones.
    // Without, their row addresses point into the old fragments, which this version no
    // longer has: an index the rewrite remapped (rewritten_indices: a new segment with the
    // rows' new addresses) takes its new uuid, files and the new fragments in its bitmap, as
    // lance 12 does; one it did not remap stays as it was, so readers mask the vanished
    // fragments' rows out of its results (as for wholly deleted fragments) and scan the
    // new, unindexed fragments directly.
    if (stable) {
      LANCE_RETURN_NOT_OK(RebaseIndexBitmaps(&m.indices, *rw, new_ids));
    } else {
      LANCE_RETURN_NOT_OK(ApplyRewrittenIndices(&m.indices, *rw, new_ids, version));
    }
  } else if (const auto* ci = txn.get<T::CreateIndex>()) {
    // As lance 12: indexes named like a new one or listed as removed (by uuid) leave, the
    // new ones join.
    std::vector<IndexInfo> out;
    for (auto& x : m.indices) {
      bool gone = false;
      for (const auto& n : ci->new_indices) gone = gone || n.name == x.name;
      for (const auto& r : ci->removed_indices) gone = gone || SameUuid(r.uuid, x.uuid);
      if (!gone) out.push_back(std::move(x));
    }
    out.insert(out.end(), ci->new_indices.begin(), ci->new_indices.end());
    m.indices = std::move(out);
  } else if (const auto* rf = txn.get<T::ReserveFragments>()) {
    // Ids nothing holds yet, for a rewrite to come.
    next_frag += rf->num_fragments;
    assigned = rf->num_fragments > 0;
  } else {
    return Status::NotSupported("committing a {} transaction is not implemented", txn.operation_name());
  }

  if (!m.indices.empty()) {
    // As lance 12 on every commit: an index on a field the new schema lacks (dropped, or
    // retyped under a new id) leaves the section; system indexes stay.
    std::vector<int32_t> ids;
    ids.reserve(m.fields.size());
    for (const auto& f : m.fields) ids.push_back(f.id);
    m.indices = RetainRelevantIndices(std::move(m.indices), ids);
  }
  if (m.indices.empty()) m.index_section_unknown_fields.clear();
  if (assigned || m.max_fragment_id) {
    const uint64_t max_id = next_frag == 0 ? 0 : next_frag - 1;
    m.max_fragment_id = static_cast<uint32_t>(std::max<uint64_t>(max_id, m.max_fragment_id.value_or(0)));
  }
  if (stable) m.next_row_id = next_row_id;
  if (schema_changed) LANCE_RETURN_NOT_OK(m.RebuildSchema());
  m.version = version;
  m.timestamp_ns = now_ns;
  m.writer_library = "lance-cpp";
  m.writer_version = "0.1.0";
  m.writer_prerelease.reset();
  m.writer_build_metadata.reset();
  m.tag.clear();
  m.index_section.reset();
  m.transaction_section.reset();
  const FeatureFlags flags = ComputeFeatureFlags(m);
  m.reader_feature_flags = flags.reader;
  m.writer_feature_flags = flags.writer;
  return m;
}

}  // namespace lance::table::internal

namespace lance::table {

Result<std::optional<std::vector<uint32_t>>> RebaseFragmentIds(const std::vector<uint32_t>& covered,
                                                               const Transaction::Rewrite& rw,
                                                               const std::vector<std::vector<uint32_t>>& new_ids,
                                                               const std::string& name) {
  std::set<uint32_t> ids(covered.begin(), covered.end());
  bool touched = false;
  for (size_t g = 0; g < rw.groups.size(); ++g) {
    const auto& old = rw.groups[g].old_fragments;
    size_t in = 0;
    for (const auto& f : old) in += ids.count(static_cast<uint32_t>(f.id));
    if (in == 0) continue;
    if (in != old.size()) {
      return Status::InvalidArgument("compaction: a rewrite group mixes fragments index '{}' "
                                     "covers with fragments it does not",
                                     name);
    }
    for (const auto& f : old) ids.erase(static_cast<uint32_t>(f.id));
    ids.insert(new_ids[g].begin(), new_ids[g].end());
    touched = true;
  }
  if (!touched) return std::optional<std::vector<uint32_t>>();
  return std::optional<std::vector<uint32_t>>(std::vector<uint32_t>(ids.begin(), ids.end()));
}

}  // namespace lance::table
