// Compaction (Dataset::Compact, operations.h): plan groups of adjacent small or
// deletion-heavy fragments of the handle's version, read each group's live rows through the
// query layer (a Scanner of the group's fragments with _rowid), write them with table's
// fragment writer, commit one Rewrite transaction. Without stable row ids the scalar, INVERTED
// and IVF indexes lance 12 remaps (index/scalar/remap.h, fts/inverted_writer.h,
// index/vector/remap.h) are remapped first, as
// lance 12 does: the new
// fragments' ids are reserved (a ReserveFragments commit), each index covering a rewritten
// group is rewritten into a new segment with the rows' new addresses, and the Rewrite lists
// them (rewritten_indices). ZONEMAP and BLOOMFILTER indexes, whose zones are runs of row
// positions, are trained again over the fragments they cover after the rewrite and listed the
// same way, so that a compaction leaves every index covering every row it covered (lance 12
// leaves those two covering the vanished fragments until an optimize of the indexes).

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "dataset/guard.h"
#include "lance/dataset/dataset.h"
#include "lance/index/fts/inverted_writer.h"
#include "lance/index/index_metadata.h"
#include "lance/index/scalar/optimize.h"
#include "lance/index/scalar/remap.h"
#include "lance/index/vector/remap.h"
#include "lance/query/index_training.h"
#include "lance/table/feature_flags.h"
#include "lance/table/row_ids.h"
#include "lance/table/snapshot.h"
#include "lance/table/transaction.h"
#include "lance/table/write.h"

namespace lance::dataset {

using internal::Guarded;
using table::FragmentInfo;
using table::IndexInfo;
using table::Manifest;
using table::Snapshot;
using table::Transaction;

namespace {

// The indexes of `tm` a compaction of the fragments `rewritten` remaps: the kinds lance 12
// remaps that this library remaps too, with a fragment bitmap naming one of those fragments.
std::vector<size_t> IndexesToRemap(const Manifest& tm, const std::vector<uint64_t>& rewritten) {
  std::vector<size_t> out;
  for (size_t k = 0; k < tm.indices.size(); ++k) {
    const IndexInfo& x = tm.indices[k];
    if (!x.has_fragment_bitmap ||
        (!index::scalar::RemappedOnCompaction(x) && !index::scalar::RetrainedOnCompaction(x) &&
         !index::vector::RemappedOnCompaction(x) && table::IndexTypeName(x) != index::fts::kInvertedTypeName)) {
      continue;
    }
    bool hit = false;
    for (uint64_t id : rewritten) {
      hit = hit || std::binary_search(x.fragment_ids.begin(), x.fragment_ids.end(), static_cast<uint32_t>(id));
    }
    if (hit) out.push_back(k);
  }
  return out;
}

// Reserves `n` fragment ids with a ReserveFragments commit (as lance 12 does before it remaps
// indexes: the remapped files name the new fragments) and returns the first.
Result<uint64_t> ReserveFragmentIds(const table::TableLocation& location, uint64_t read_version, uint32_t n,
                                    const table::CommitOptions& options) {
  Transaction txn;
  txn.read_version = read_version;
  txn.operation = Transaction::ReserveFragments{n, {}};
  LANCE_ASSIGN_OR_RAISE(table::CommitInfo ci, table::CommitTransaction(location, std::move(txn), options));
  if (!ci.manifest || !ci.manifest->max_fragment_id || *ci.manifest->max_fragment_id + 1 < n) {
    return Status::Internal("compaction: the ReserveFragments commit (version {}) reserved no ids", ci.version);
  }
  return static_cast<uint64_t>(*ci.manifest->max_fragment_id) + 1 - n;
}

// Stable row ids: the created-at and last-updated-at versions of the live rows of the old
// fragments at `positions` (scan order), cut along `fragments` (their new home, in the same
// order), as lance 12's compaction keeps them.
Status CarryVersions(const Snapshot& ds, const std::vector<size_t>& positions,
                     std::vector<FragmentInfo>* fragments) {
  std::vector<uint64_t> created, updated;
  for (size_t i : positions) {
    const FragmentInfo& f = ds.manifest().fragments[i];
    LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> c, table::RowVersions(f, true));
    LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> u, table::RowVersions(f, false));
    LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> deleted, ds.DeletedRows(i));
    size_t d = 0;
    for (size_t r = 0; r < c.size(); ++r) {
      while (d < deleted.size() && deleted[d] < r) ++d;
      if (d < deleted.size() && deleted[d] == r) continue;
      created.push_back(c[r]);
      updated.push_back(u[r]);
    }
  }
  size_t pos = 0;
  for (auto& f : *fragments) {
    const size_t n = static_cast<size_t>(f.physical_rows);
    if (pos + n > created.size()) {
      return Status::Internal("compaction: {} live rows read, more written", created.size());
    }
    f.inline_created_at_versions = table::EncodeVersionRuns(created.data() + pos, n);
    f.inline_last_updated_at_versions = table::EncodeVersionRuns(updated.data() + pos, n);
    pos += n;
  }
  if (pos != created.size()) {
    return Status::Internal("compaction: {} live rows read, {} written", created.size(), pos);
  }
  return Status::OK();
}

// The fragments of `tm` after the rewrite `rw` (its new fragments' ids assigned), in the order
// the commit leaves them: each group's new fragments where its first old fragment was.
std::vector<FragmentInfo> FragmentsAfter(const Manifest& tm, const Transaction::Rewrite& rw) {
  std::map<uint64_t, const Transaction::RewriteGroup*> first;
  std::set<uint64_t> gone;
  for (const auto& g : rw.groups) {
    if (!g.old_fragments.empty()) first.emplace(g.old_fragments.front().id, &g);
    for (const auto& f : g.old_fragments) gone.insert(f.id);
  }
  std::vector<FragmentInfo> out;
  for (const FragmentInfo& f : tm.fragments) {
    if (auto it = first.find(f.id); it != first.end()) {
      out.insert(out.end(), it->second->new_fragments.begin(), it->second->new_fragments.end());
    }
    if (gone.count(f.id) == 0) out.push_back(f);
  }
  return out;
}

// Trains the ZONEMAP / BLOOMFILTER segment `info` again, with the parameters it was built with,
// over the fragments it covers once `rw` is committed (a group's new fragments replace its old
// ones when the segment covered them; `after`: the table as the rewrite leaves it), into a new
// directory through `staged`. Returns what the Rewrite lists for it.
Result<Transaction::RewrittenIndex> RetrainIndex(const Snapshot& ds, const std::shared_ptr<const Snapshot>& after,
                                                 const IndexInfo& info, const Transaction::Rewrite& rw,
                                                 ThreadPool* pool, table::StagedFiles* staged) {
  LANCE_ASSIGN_OR_RAISE(std::string column, index::KeyedColumn(ds.manifest(), info, ds.location().display()));
  // What the commit will say it covers (table's rule for the bitmap of every index a Rewrite
  // lists), trained in the order of the table after the rewrite.
  std::vector<std::vector<uint32_t>> new_ids;
  for (const auto& g : rw.groups) {
    new_ids.emplace_back();
    for (const auto& f : g.new_fragments) new_ids.back().push_back(static_cast<uint32_t>(f.id));
  }
  LANCE_ASSIGN_OR_RAISE(std::optional<std::vector<uint32_t>> rebased,
                        table::RebaseFragmentIds(info.fragment_ids, rw, new_ids, info.name));
  const std::set<uint32_t> covered = rebased ? std::set<uint32_t>(rebased->begin(), rebased->end())
                                             : std::set<uint32_t>(info.fragment_ids.begin(), info.fragment_ids.end());
  std::vector<uint64_t> trained;
  for (const FragmentInfo& f : after->manifest().fragments) {
    if (covered.count(static_cast<uint32_t>(f.id)) != 0) trained.push_back(f.id);
  }
  LANCE_ASSIGN_OR_RAISE(index::scalar::CreateScalarIndexOptions o, index::scalar::OptionsOfIndex(ds, info));
  o.name = info.name;
  o.replace = true;
  o.pool = pool;
  o.fragment_ids = std::vector<uint32_t>(trained.begin(), trained.end());
  auto rows = [&](const Snapshot&, const std::string& column) {
    return query::CollectTrainingData(after, column, trained, pool);
  };
  LANCE_ASSIGN_OR_RAISE(index::scalar::BuiltSegment built,
                        index::scalar::BuildScalarIndexSegment(*after, column, rows, o, staged));
  Transaction::RewrittenIndex ri;
  ri.old_id = info.uuid;
  ri.new_id = built.segment.uuid;
  ri.has_new_index_details = true;
  ri.new_index_details_type_url = built.segment.details_type_url;
  ri.new_index_details = built.segment.details;
  ri.new_index_version = static_cast<uint32_t>(built.segment.index_version);
  ri.new_index_files = built.segment.files;
  return ri;
}

// Without stable row ids: reserves the ids of the new fragments of `rw` (set in place), maps
// every old address of the rewritten fragments to its new one (the rows of group g were
// written in the order of `addresses[g]`; rows not read were deleted) and writes the remapped
// copy of each index `to_remap` (positions in the manifest) into a new segment through
// `staged`. Returns what the Rewrite lists for them.
Result<std::vector<Transaction::RewrittenIndex>> RemapIndexes(
    const std::shared_ptr<const Snapshot>& snap, const std::vector<std::vector<size_t>>& groups,
    const std::vector<std::vector<uint64_t>>& addresses, const std::vector<size_t>& to_remap,
    const table::CommitOptions& commit, ThreadPool* pool, Transaction::Rewrite* rw, table::StagedFiles* staged) {
  const Snapshot& ds = *snap;
  const Manifest& tm = ds.manifest();
  uint32_t n = 0;
  for (const auto& g : rw->groups) n += static_cast<uint32_t>(g.new_fragments.size());
  uint64_t next = 0;
  if (n > 0) {
    LANCE_ASSIGN_OR_RAISE(next, ReserveFragmentIds(ds.location(), ds.version(), n, commit));
  }
  index::scalar::RowAddressMap map;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    std::map<uint32_t, std::vector<uint64_t>> moved;
    for (size_t i : groups[gi]) {
      const FragmentInfo& f = tm.fragments[i];
      moved[static_cast<uint32_t>(f.id)].assign(static_cast<size_t>(f.physical_rows),
                                                index::scalar::RowAddressMap::kRemoved);
    }
    const std::vector<uint64_t>& old = addresses[gi];
    size_t pos = 0;
    for (FragmentInfo& nf : rw->groups[gi].new_fragments) {
      nf.id = next++;
      for (uint64_t off = 0; off < nf.physical_rows; ++off, ++pos) {
        if (pos >= old.size()) {
          return Status::Internal("compaction: {} rows read from group {}, more written", old.size(), gi);
        }
        auto it = moved.find(static_cast<uint32_t>(old[pos] >> 32));
        const uint64_t offset = old[pos] & 0xffffffffULL;
        if (it == moved.end() || offset >= it->second.size()) {
          return Status::Internal("compaction: row address {} read is not in group {}", old[pos], gi);
        }
        it->second[offset] = (nf.id << 32) | off;
      }
    }
    if (pos != old.size()) {
      return Status::Internal("compaction: {} rows read from group {}, {} written", old.size(), gi, pos);
    }
    for (auto& [id, to] : moved) map.SetFragment(id, std::move(to));
  }
  std::vector<Transaction::RewrittenIndex> out;
  std::shared_ptr<const Snapshot> after;  // the table as the rewrite leaves it (for retraining)
  for (size_t k : to_remap) {
    const IndexInfo& info = tm.indices[k];
    if (index::scalar::RetrainedOnCompaction(info)) {
      if (!after) {
        table::CommittedVersion v;
        v.version = tm.version;
        v.manifest = tm;
        v.manifest.fragments = FragmentsAfter(tm, *rw);
        LANCE_ASSIGN_OR_RAISE(after, Snapshot::Open(ds.location(), std::move(v)));
      }
      auto ri = RetrainIndex(ds, after, info, *rw, pool, staged);
      if (ri.status().IsNotSupported()) continue;  // a layout not trained here: left as it is
      if (!ri.ok()) {
        return ri.status().WithContext(fmt::format("compaction: training index '{}' ({}) again", info.name, info.uuid));
      }
      out.push_back(std::move(*ri));
      continue;
    }
    const std::string uuid = index::NewIndexUuid();
    auto from = index::OpenIndexStore(ds.location(), info);
    auto to = index::IndexStore::Make(staged->store(), index::IndexDirectory(ds.location(), uuid));
    Transaction::RewrittenIndex ri;
    ri.old_id = info.uuid;
    ri.new_id = uuid;
    ri.has_new_index_details = true;
    Status st;
    const bool inverted = table::IndexTypeName(info) == index::fts::kInvertedTypeName;
    if (inverted || index::vector::RemappedOnCompaction(info)) {
      // IVF and INVERTED: the same details and version; the files as the old segment lists them.
      auto files = inverted ? index::fts::RemapInvertedIndex(
                                  from, *to, [&map](uint64_t a) {
                                    const uint64_t n = map.Map(a);
                                    return n == index::scalar::RowAddressMap::kRemoved ? index::fts::kRemovedRow : n;
                                  })
                            : index::vector::RemapIvfIndex(from, *to, map);
      if (files.ok()) {
        ri.new_index_details_type_url = info.details_type_url;
        ri.new_index_details = info.details;
        ri.new_index_version = static_cast<uint32_t>(info.index_version.value_or(0));
        for (const auto& f : info.files) {
          for (const auto& w : *files) {
            if (w.path == f.path) ri.new_index_files.push_back(w);
          }
        }
        if (info.files.empty()) ri.new_index_files = *files;
      }
      st = files.status();
    } else {
      auto remapped = index::scalar::RemapScalarIndex(info, *from, *to, map);
      if (remapped.ok()) {
        ri.new_index_details_type_url = remapped->details_type_url;
        ri.new_index_details = remapped->details;
        ri.new_index_version = static_cast<uint32_t>(remapped->index_version);
        ri.new_index_files = remapped->files;
      }
      st = remapped.status();
    }
    LANCE_ASSIGN_OR_RAISE(auto written, staged->store()->List(to->dir() + "/"));
    if (st.IsNotSupported()) {
      // A layout not remapped here (an HNSW or RQ index, an older vector format): the index
      // stays as it is, and what was written of its copy goes.
      for (const auto& f : written) LANCE_RETURN_NOT_OK(staged->store()->Delete(f.path));
      continue;
    }
    for (const auto& f : written) staged->Record(f.path);
    if (!st.ok()) {
      return st.WithContext(fmt::format("compaction: remapping index '{}' ({})", info.name, info.uuid));
    }
    out.push_back(std::move(ri));
  }
  staged->RecordDirectory(ds.location().Path("_indices"));
  return out;
}

Result<CompactionResult> CompactAt(const std::shared_ptr<const Snapshot>& ds,
                                   const CompactionOptions& options, ThreadPool* pool) {
  if (options.target_rows_per_fragment <= 0) {
    return Status::InvalidArgument("compaction: target rows per fragment must be positive, got {}",
                                   options.target_rows_per_fragment);
  }
  const Manifest& tm = ds->manifest();
  LANCE_RETURN_NOT_OK(table::CheckCanWrite(tm.reader_feature_flags, tm.writer_feature_flags,
                                           ds->manifest_path()));
  const bool stable = (tm.reader_feature_flags & table::kFlagStableRowIds) != 0;
  const auto target = static_cast<uint64_t>(options.target_rows_per_fragment);

  // The indexes covering each fragment (positions in tm.indices): a group never mixes
  // fragments of different coverage, as lance 12 plans it (with stable row ids each index's
  // fragment bitmap trades a group's old fragments for its new ones, which is only right
  // when the index covered the whole group). Indexes without a bitmap cover every fragment.
  auto covering = [&](uint64_t fragment_id) {
    std::vector<size_t> out;
    for (size_t k = 0; k < tm.indices.size(); ++k) {
      const IndexInfo& x = tm.indices[k];
      if (!x.has_fragment_bitmap ||
          std::binary_search(x.fragment_ids.begin(), x.fragment_ids.end(),
                             static_cast<uint32_t>(fragment_id))) {
        out.push_back(k);
      }
    }
    return out;
  };

  // Plan.
  std::vector<std::vector<size_t>> groups;
  std::vector<size_t> cur;
  std::vector<size_t> cur_cover;
  uint64_t cur_rows = 0;
  auto close = [&] {
    if (cur.size() > 1 || (cur.size() == 1 && tm.fragments[cur[0]].num_rows() !=
                                                  tm.fragments[cur[0]].physical_rows)) {
      groups.push_back(cur);
    }
    cur.clear();
    cur_rows = 0;
  };
  for (size_t i = 0; i < tm.fragments.size(); ++i) {
    const FragmentInfo& f = tm.fragments[i];
    const uint64_t live = f.num_rows();
    const uint64_t dead = f.physical_rows - live;
    const bool heavy = options.materialize_deletions && f.physical_rows > 0 &&
                       static_cast<double>(dead) > options.materialize_deletions_threshold *
                                                       static_cast<double>(f.physical_rows);
    if (live >= target && !heavy) {
      close();
      continue;
    }
    std::vector<size_t> cover = covering(f.id);
    if (!cur.empty() && cover != cur_cover) close();
    cur_cover = std::move(cover);
    cur.push_back(i);
    cur_rows += live;
    if (cur_rows >= target) close();
  }
  close();
  CompactionResult out;
  out.commit.attempts = 0;
  if (groups.empty()) return out;
  LANCE_RETURN_NOT_OK(table::WritableFileVersion(tm.data_storage_version).status());

  const SchemaPtr& schema = ds->schema();
  const int nc = schema->num_fields();
  std::vector<uint64_t> rewritten;
  for (const auto& g : groups) {
    for (size_t i : g) rewritten.push_back(tm.fragments[i].id);
  }
  const std::vector<size_t> to_remap = stable ? std::vector<size_t>() : IndexesToRemap(tm, rewritten);
  const bool with_row_ids = stable || !to_remap.empty();
  // Without stable row ids, the old address of every row written, per group (in write order).
  std::vector<std::vector<uint64_t>> group_addresses(groups.size());
  table::StagedFiles staged(ds->location());
  Transaction::Rewrite rw;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const auto& g = groups[gi];
    Transaction::RewriteGroup& pg = rw.groups.emplace_back();
    for (size_t i : g) {
      const FragmentInfo& old = tm.fragments[i];
      pg.old_fragments.push_back(old);
      out.files_removed += static_cast<uint64_t>(old.files.size()) + (old.deletion ? 1 : 0);
    }
    out.fragments_removed += g.size();
    uint64_t rows = 0;
    query::ScanOptions so;
    std::vector<uint64_t> ids_of_group;
    for (size_t i : g) {
      rows += tm.fragments[i].num_rows();
      ids_of_group.push_back(tm.fragments[i].id);
    }
    if (rows == 0) continue;
    so.fragment_ids = std::move(ids_of_group);
    for (const auto& f : schema->fields()) so.columns.push_back(f->name());
    if (with_row_ids) so.columns.push_back(query::kRowIdColumn);
    so.use_index = false;
    so.pool = pool;
    LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(ds, std::move(so)));
    LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
    std::vector<RecordBatchPtr> data;
    std::vector<uint64_t> ids;
    while (true) {
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->Next());
      if (!b) break;
      std::vector<ArrayPtr> cols(b->columns().begin(), b->columns().begin() + nc);
      data.push_back(std::make_shared<RecordBatch>(schema, b->num_rows(), std::move(cols)));
      if (with_row_ids) {
        const uint64_t* r = b->column(nc)->Values<uint64_t>();
        ids.insert(ids.end(), r, r + b->num_rows());
      }
    }
    LANCE_ASSIGN_OR_RAISE(auto fragments, table::WriteFragments(staged, tm, schema, data,
                                                         options.target_rows_per_fragment, pool));
    if (stable) {
      LANCE_RETURN_NOT_OK(table::AssignRowIds(&fragments, ids));
      LANCE_RETURN_NOT_OK(CarryVersions(*ds, g, &fragments));
    } else if (with_row_ids) {
      group_addresses[gi] = std::move(ids);
    }
    out.fragments_added += fragments.size();
    for (const auto& f : fragments) out.files_added += static_cast<uint64_t>(f.files.size());
    out.rows_rewritten += rows;
    for (auto& f : fragments) pg.new_fragments.push_back(std::move(f));
  }
  if (!to_remap.empty()) {
    LANCE_ASSIGN_OR_RAISE(rw.rewritten_indices,
                          RemapIndexes(ds, groups, group_addresses, to_remap, options.commit, pool, &rw, &staged));
  }
  Transaction txn;
  txn.read_version = ds->version();
  txn.operation = std::move(rw);
  LANCE_ASSIGN_OR_RAISE(out.commit, table::CommitTransaction(ds->location(), std::move(txn),
                                                             options.commit, &staged));
  return out;
}

}  // namespace

Result<CompactionResult> Dataset::Compact(CompactionOptions options) {
  return Guarded("compact", [&]() -> Result<CompactionResult> {
    options.commit = WithHandle(std::move(options.commit));
    CompactionResult out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, CompactAt(snap, options, pool()));
      return out.commit.version;
    }));
    return out;
  });
}

}  // namespace lance::dataset
