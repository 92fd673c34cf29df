#include "lance/index/vector/vector_search.h"

#include <algorithm>
#include <span>
#include <unordered_set>

#include "lance/index/index_metadata.h"
#include "lance/linalg/flat_search.h"

namespace lance::index::vector {

namespace {

constexpr const char* kVectorDetailsUrl = "/lance.index.pb.VectorIndexDetails";

Result<int32_t> FieldIdOf(const table::Snapshot& snapshot, const std::string& column) {
  const int i = snapshot.schema()->GetFieldIndex(column);
  if (i < 0) return Status::InvalidArgument("vector search: no column \"{}\"", column);
  return snapshot.schema()->field(i)->id();
}

// Row ids of the deleted rows of every fragment.
Result<std::unordered_set<uint64_t>> DeletedRowIds(const table::Snapshot& snapshot) {
  std::unordered_set<uint64_t> out;
  const auto& frags = snapshot.manifest().fragments;
  for (size_t f = 0; f < frags.size(); ++f) {
    if (!frags[f].deletion) continue;
    LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> deleted, snapshot.DeletedRows(f));
    if (frags[f].has_row_ids()) {
      LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ids, snapshot.RowIds(f));
      for (uint32_t o : deleted) {
        if (o < ids.size()) out.insert(ids[o]);
      }
    } else {
      for (uint32_t o : deleted) out.insert((frags[f].id << 32) | o);
    }
  }
  return out;
}

// Exact distances of `rows` (row ids) to the query, over the table's stored vectors; rows the
// table no longer has are dropped.
Result<std::vector<linalg::Neighbor>> ExactDistances(const table::Snapshot& snapshot,
                                                     const std::string& column,
                                                     const std::vector<float>& query,
                                                     linalg::DistanceType metric,
                                                     const std::vector<uint64_t>& rows) {
  table::ScanOptions scan;
  scan.columns = {column};
  scan.with_row_id = true;
  LANCE_ASSIGN_OR_RAISE(auto batches, snapshot.TakeRowIds(rows, scan));
  std::vector<linalg::Neighbor> out;
  for (const auto& b : batches) {
    LANCE_ASSIGN_OR_RAISE(linalg::VectorColumn vc, linalg::VectorColumn::Of(*b->column(0)));
    if (vc.dim != query.size()) {
      return Status::InvalidArgument("vector search: query has {} values, column \"{}\" {}",
                                     query.size(), column, vc.dim);
    }
    LANCE_ASSIGN_OR_RAISE(std::vector<uint8_t> q, linalg::CastQuery(query, vc.element));
    const uint64_t* ids = b->column(1)->Values<uint64_t>();
    const size_t esize = linalg::ElementSize(vc.element);
    for (size_t i = 0; i < vc.length; ++i) {
      if (vc.validity && !bit_util::GetBit(vc.validity, vc.validity_offset + static_cast<int64_t>(i))) continue;
      LANCE_ASSIGN_OR_RAISE(float d, linalg::Distance(metric, vc.element, q.data(),
                                                      vc.data + i * vc.dim * esize, vc.dim));
      out.push_back({ids[i], d});
    }
  }
  return out;
}

// Exact k nearest over the fragments `fragment_ids`.
Result<std::vector<linalg::Neighbor>> ExactSearch(const table::Snapshot& snapshot,
                                                  const VectorSearchOptions& options,
                                                  linalg::DistanceType metric, size_t k,
                                                  std::optional<std::vector<uint64_t>> fragment_ids) {
  table::ScanOptions scan;
  scan.columns = {options.column};
  scan.with_row_id = true;
  scan.fragment_ids = std::move(fragment_ids);
  LANCE_ASSIGN_OR_RAISE(auto batches, snapshot.Scan(scan));
  linalg::TopK top(k);
  for (const auto& b : batches) {
    const Array& ids = *b->column(1);
    linalg::FlatSearchOptions fo;
    fo.distance_type = metric;
    fo.k = k;
    fo.pool = options.pool;
    fo.row_ids = std::span<const uint64_t>(ids.Values<uint64_t>(), static_cast<size_t>(ids.length));
    LANCE_ASSIGN_OR_RAISE(auto found, linalg::FlatSearch(*b->column(0), options.query.vector, fo));
    for (const auto& n : found) top.Push(n.row, n.distance);
  }
  return top.Sorted();
}

}  // namespace

const table::IndexInfo* FindVectorIndex(const table::Snapshot& snapshot, const std::string& column) {
  auto id = FieldIdOf(snapshot, column);
  if (!id.ok()) return nullptr;
  for (const auto& idx : snapshot.manifest().indices) {
    if (idx.details_type_url == kVectorDetailsUrl && idx.fields.size() == 1 && idx.fields[0] == *id) {
      return &idx;
    }
  }
  return nullptr;
}

struct VectorSearcher::State {
  std::shared_ptr<const table::Snapshot> snapshot;
  VectorSearchOptions options;
  const table::IndexInfo* info = nullptr;
  std::shared_ptr<IvfIndex> index;
  std::unordered_set<uint64_t> deleted;
  std::unordered_set<uint64_t> live_fragments;
  std::vector<uint64_t> uncovered;
  bool stable_ids = false;
};

VectorSearcher::~VectorSearcher() = default;

Result<std::unique_ptr<VectorSearcher>> VectorSearcher::Make(
    std::shared_ptr<const table::Snapshot> snapshot, VectorSearchOptions options) {
  const table::Snapshot& snap = *snapshot;
  LANCE_RETURN_NOT_OK(FieldIdOf(snap, options.column).status());
  std::unique_ptr<VectorSearcher> s(new VectorSearcher());
  s->state_ = std::make_unique<State>();
  State& st = *s->state_;
  st.info = options.bypass_index ? nullptr : FindVectorIndex(snap, options.column);
  if (st.info) {
    LANCE_ASSIGN_OR_RAISE(st.index, IvfIndex::Open(OpenIndexStore(snap.location(), *st.info)));
    if (options.metric && *options.metric != st.index->metric()) st.index.reset();
  }
  if (st.index) {
    LANCE_ASSIGN_OR_RAISE(st.deleted, DeletedRowIds(snap));
    const std::unordered_set<uint32_t> covered(st.info->fragment_ids.begin(), st.info->fragment_ids.end());
    for (const auto& f : snap.manifest().fragments) {
      st.live_fragments.insert(f.id);
      st.stable_ids = st.stable_ids || f.has_row_ids();
      if (st.info->has_fragment_bitmap && !covered.count(static_cast<uint32_t>(f.id))) {
        st.uncovered.push_back(f.id);
      }
    }
  }
  st.snapshot = std::move(snapshot);
  st.options = std::move(options);
  return s;
}

Result<VectorSearchResult> VectorSearcher::Search(const AnnQuery& q) const {
  const State& st = *state_;
  const table::Snapshot& snapshot = *st.snapshot;
  VectorSearchOptions options = st.options;
  options.query = q;
  if (q.k == 0) return Status::InvalidArgument("vector search: k must be positive");
  VectorSearchResult result;
  if (!st.index) {
    LANCE_ASSIGN_OR_RAISE(result.rows, ExactSearch(snapshot, options,
                                                   options.metric.value_or(linalg::DistanceType::kL2),
                                                   q.k, std::nullopt));
    return result;
  }
  result.index_name = st.info->name;
  result.index_uuid = st.info->uuid;
  result.index_kind = st.index->kind();
  auto keep = [&](uint64_t row) {
    if (!st.deleted.empty() && st.deleted.count(row)) return false;
    return st.stable_ids || st.live_fragments.count(row >> 32) > 0;
  };
  LANCE_ASSIGN_OR_RAISE(std::vector<linalg::Neighbor> candidates, st.index->Search(q, keep));
  if (!q.refine_factor && st.uncovered.empty()) {
    if (candidates.size() > q.k) candidates.resize(q.k);
    result.rows = std::move(candidates);
    return result;
  }
  std::vector<uint64_t> ids;
  ids.reserve(candidates.size());
  for (const auto& c : candidates) ids.push_back(c.row);
  LANCE_ASSIGN_OR_RAISE(std::vector<linalg::Neighbor> exact,
                        ExactDistances(snapshot, options.column, q.vector, st.index->metric(), ids));
  linalg::TopK top(q.k);
  for (const auto& n : exact) top.Push(n.row, n.distance);
  if (!st.uncovered.empty()) {
    LANCE_ASSIGN_OR_RAISE(auto flat, ExactSearch(snapshot, options, st.index->metric(), q.k, st.uncovered));
    for (const auto& n : flat) top.Push(n.row, n.distance);
  }
  result.rows = top.Sorted();
  return result;
}

Result<VectorSearchResult> SearchTable(const table::Snapshot& snapshot,
                                       const VectorSearchOptions& options) {
  // A non-owning handle: the searcher lives only for this call.
  std::shared_ptr<const table::Snapshot> handle(&snapshot, [](const table::Snapshot*) {});
  LANCE_ASSIGN_OR_RAISE(auto searcher, VectorSearcher::Make(handle, options));
  return searcher->Search(options.query);
}

}  // namespace lance::index::vector
