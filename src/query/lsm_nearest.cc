// query::LsmNearest (lsm_nearest.h): one k-NN search per source of the merged read, each
// source's candidates replaced by a newer source dropped, then one top k.
#include "lance/query/lsm_nearest.h"

#include <algorithm>
#include <unordered_set>

#include "lance/columnar/builder.h"
#include "lance/columnar/compute.h"
#include "lance/index/vector/vector_catalog.h"
#include "lance/linalg/flat_search.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/wal.h"
#include "lance/query/filter.h"
#include "lance/query/lsm_plan.h"
#include "lance/query/scanner.h"
#include "query/lsm_columns.h"
#include "query/lsm_keys.h"

namespace lance::query {

namespace {

using internal::KeySet;
using internal::NewerKeys;

// One source's surviving candidates: its rows (the read's columns, the key, `_distance`).
struct Candidates {
  RecordBatchPtr rows;
  std::vector<float> distance;
};

// The metric the base search ranks by (its index's, unless the request names one): every
// other source ranks by the same, so their distances compare. As the planner chooses it
// (Planner::PlanNearest): the base's vector index on the column when the search may use one,
// its metric read from the manifest entry's details (the index file only when they hold none),
// else L2 -- without planning a scan of the base.
Result<linalg::DistanceType> MetricOf(const std::shared_ptr<const table::Snapshot>& base, const NearestOptions& n) {
  if (n.metric) return *n.metric;
  const FieldPtr field = base->schema()->GetFieldByName(n.column);
  if (!n.use_index || !field) return linalg::DistanceType::kL2;  // (a missing column fails the search)
  const table::IndexInfo* info = index::vector::FindVectorIndex(base->manifest(), field->id());
  if (!info) return linalg::DistanceType::kL2;
  if (std::optional<linalg::DistanceType> m = index::vector::MetricOfDetails(*info)) return *m;
  LANCE_ASSIGN_OR_RAISE(auto ivf, index::vector::OpenVectorIndex(nullptr, base->location(), *info));
  return ivf->metric();
}

// Rows of `rows` whose key is not in `newer`, with their distances (column `_distance`).
Result<Candidates> DropReplaced(const memwal::PrimaryKeyEncoder* enc, const RecordBatch& rows,
                                const NewerKeys& newer) {
  const ArrayPtr d = rows.GetColumnByName(kDistanceColumn);
  if (!d) return Status::Corruption("an LSM nearest-neighbour source returned no {}", kDistanceColumn);
  LANCE_ASSIGN_OR_RAISE(std::vector<int64_t> keep, internal::UnreplacedRows(enc, rows, newer));
  Candidates c;
  c.distance.reserve(keep.size());
  for (int64_t r : keep) c.distance.push_back(d->Values<float>()[r]);
  LANCE_ASSIGN_OR_RAISE(c.rows, internal::KeptRows(rows, keep));
  return c;
}

// The k nearest of a generation or the base (`snap`), searching deeper while newer sources
// replace candidates: k + |newer| candidates always leave k survivors when the source has them.
Result<Candidates> SearchSnapshot(const std::shared_ptr<const table::Snapshot>& snap, const SchemaPtr& columns,
                                  const memwal::LsmReadOptions& options, const NearestOptions& n,
                                  const memwal::PrimaryKeyEncoder* enc, const NewerKeys& newer,
                                  LsmNearestStats* stats) {
  // lance 12 fetches 2k from a source newer sources may replace rows of (its overfetch factor
  // 2), k from one they cannot; a source left with fewer than k searches deeper here.
  uint64_t fetch = newer.empty() || !enc ? n.k : 2 * n.k;
  const uint64_t most = std::max(fetch, n.k + newer.bound());
  while (true) {
    ScanOptions o;
    for (const auto& f : columns->fields()) o.columns.push_back(f->name());
    o.filter = options.filter;
    o.use_index = options.use_index;
    o.nearest = n;
    o.nearest->k = fetch;
    o.nearest->prefilter = true;
    LANCE_ASSIGN_OR_RAISE(Scanner s, Scanner::Make(snap, std::move(o)));
    LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches, s.ToBatches());
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rows, ConcatenateBatches(s.schema(), batches));
    ++stats->searches;
    LANCE_ASSIGN_OR_RAISE(Candidates c, DropReplaced(enc, *rows, newer));
    if (c.rows->num_rows() >= static_cast<int64_t>(n.k) || rows->num_rows() < static_cast<int64_t>(fetch) ||
        fetch >= most) {
      stats->candidates += rows->num_rows();
      stats->replaced += rows->num_rows() - c.rows->num_rows();
      return c;
    }
    fetch = std::min(most, fetch * 4);
  }
}

// The k nearest of a WAL tail (exactly): its newest row per key not replaced, tombstones out,
// the filter applied; rows of `columns` (which holds the vector column) then `_distance`.
Result<Candidates> SearchTail(const LsmSourceNode::Spec& tail, const SchemaPtr& columns, const Filter* filter,
                              const NearestOptions& n, linalg::DistanceType metric,
                              const memwal::PrimaryKeyEncoder* enc, const NewerKeys& newer, LsmNearestStats* stats) {
  // Newest row per key: batches and rows read backwards, the first sight of a key wins.
  std::vector<RecordBatchPtr> parts;
  KeySet seen;
  std::string key;
  const auto& batches = tail.tail_batches;
  for (size_t i = batches.size(); i-- > 0;) {
    const RecordBatch& b = *batches[i];
    std::vector<ArrayPtr> key_cols;
    if (enc) {
      LANCE_ASSIGN_OR_RAISE(key_cols, enc->KeyColumns(b));
    }
    const ArrayPtr tomb = b.GetColumnByName(memwal::kTombstoneColumn);
    std::vector<int64_t> rows;
    for (int64_t r = b.num_rows(); r-- > 0;) {
      if (enc) {
        key.clear();
        enc->Encode(key_cols, r, &key);
        if (!seen.insert(key).second) continue;
        LANCE_ASSIGN_OR_RAISE(bool held, newer.Holds(key_cols, r, key));
        if (held) continue;
      }
      if (tomb && !tomb->IsNull(r) && tomb->BoolValue(r)) continue;
      rows.push_back(r);
    }
    if (rows.empty()) continue;
    std::reverse(rows.begin(), rows.end());
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr live, TakeRows(b, rows));
    if (filter) {
      LANCE_ASSIGN_OR_RAISE(std::vector<int64_t> pass, filter->EvaluateBatch(*live));
      if (pass.empty()) continue;
      LANCE_ASSIGN_OR_RAISE(live, TakeRows(*live, pass));
    }
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr projected, internal::ProjectByName(*live, columns));
    parts.push_back(std::move(projected));
  }
  std::reverse(parts.begin(), parts.end());
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr live, ConcatenateBatches(columns, parts));
  linalg::FlatSearchOptions fo;
  fo.distance_type = metric;
  fo.k = n.k;
  std::vector<linalg::Neighbor> found;
  if (live->num_rows() > 0) {
    LANCE_ASSIGN_OR_RAISE(found, linalg::FlatSearch(*live->GetColumnByName(n.column), n.query, fo));
  }
  ++stats->searches;
  stats->candidates += static_cast<int64_t>(found.size());
  std::vector<int64_t> take;
  Candidates c;
  FloatBuilder distances(float32());
  for (const auto& f : found) {
    take.push_back(static_cast<int64_t>(f.row));
    c.distance.push_back(f.distance);
    LANCE_RETURN_NOT_OK(distances.Append(f.distance));
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr picked, TakeRows(*live, take));
  std::vector<FieldPtr> fields = columns->fields();
  fields.push_back(field(kDistanceColumn, float32(), true));
  std::vector<ArrayPtr> cols;
  for (int i = 0; i < picked->num_columns(); ++i) cols.push_back(picked->column(i));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr d, distances.Finish());
  cols.push_back(std::move(d));
  LANCE_ASSIGN_OR_RAISE(c.rows, RecordBatch::Make(std::make_shared<Schema>(std::move(fields)), picked->num_rows(),
                                                  std::move(cols)));
  return c;
}

}  // namespace

Result<std::vector<RecordBatchPtr>> LsmNearest(const std::shared_ptr<io::ObjectStore>& store,
                                               const std::string& root, const memwal::LsmReadOptions& options,
                                               const NearestOptions& nearest, LsmNearestStats* stats) {
  const std::string table = store->DisplayPath(root);
  if (options.offset != 0 || options.limit) {
    return Status::InvalidArgument("{}: an LSM nearest-neighbour search takes k, not an offset or a limit", table);
  }
  if (nearest.k == 0) return Status::InvalidArgument("{}: k must be positive", table);
  LsmNearestStats local;
  if (stats == nullptr) stats = &local;
  *stats = {};
  // The merged read's sources (no filter: that would plan point lookups; it is applied here).
  memwal::LsmReadOptions plan_options;
  plan_options.consistency = options.consistency;
  plan_options.live_writers = options.live_writers;
  LANCE_ASSIGN_OR_RAISE(Plan plan, PlanLsmScan(store, root, plan_options));
  const auto& merge = static_cast<const LsmMergeNode&>(*plan.root());
  const LsmMergeNode::Spec& spec = merge.spec();
  LANCE_ASSIGN_OR_RAISE(SchemaPtr out, internal::LsmOutputSchema(spec.table_schema, options.columns, table));
  const FieldPtr vfield = spec.table_schema->GetFieldByName(nearest.column);
  if (!vfield) return Status::InvalidArgument("{}: no vector column '{}'", table, nearest.column);
  // What each source returns: the output columns, the key, the vector column (the tail's
  // search reads it), then `_distance`.
  std::vector<FieldPtr> fields = out->fields();
  auto add = [&](const std::string& name) {
    if (out->GetFieldByName(name) || std::any_of(fields.begin(), fields.end(), [&](const FieldPtr& f) {
          return f->name() == name;
        })) {
      return;
    }
    fields.push_back(spec.table_schema->GetFieldByName(name));
  };
  for (const auto& k : spec.primary_key) add(k);
  auto columns = std::make_shared<Schema>(fields);
  std::shared_ptr<const Filter> filter;
  if (!options.filter.empty()) {
    LANCE_ASSIGN_OR_RAISE(filter, Filter::MakeForBatch(options.filter, spec.table_schema));
  }
  std::optional<memwal::PrimaryKeyEncoder> enc;
  if (!spec.primary_key.empty()) {
    LANCE_ASSIGN_OR_RAISE(memwal::PrimaryKeyEncoder e,
                          memwal::PrimaryKeyEncoder::Make(*spec.table_schema, spec.primary_key));
    enc.emplace(std::move(e));
  }
  const memwal::PrimaryKeyEncoder* penc = enc ? &*enc : nullptr;
  std::shared_ptr<const table::Snapshot> base;
  for (const auto& in : merge.inputs()) {
    const auto& s = static_cast<const LsmSourceNode&>(*in).spec();
    if (s.source == LsmSourceNode::Source::kBase) base = s.snapshot;
  }
  if (!base) return Status::Corruption("{}: the LSM plan has no base source", table);
  NearestOptions n = nearest;
  LANCE_ASSIGN_OR_RAISE(linalg::DistanceType metric, MetricOf(base, n));
  n.metric = metric;

  // Newest source first; `newer` holds the keys of every source read so far (any of their
  // rows: tombstones and rows failing the filter hide older rows too).
  NewerKeys newer(penc);
  std::vector<Candidates> found;
  for (const auto& in : merge.inputs()) {
    const auto& s = static_cast<const LsmSourceNode&>(*in).spec();
    ++stats->sources;
    if (s.source == LsmSourceNode::Source::kWalTail || s.source == LsmSourceNode::Source::kMemTable) {
      // A live writer's MemTable is searched as the WAL tail is, exactly (flat), from its
      // batches in memory instead of the WAL entries on storage.
      LsmSourceNode::Spec rows = s;
      if (s.source == LsmSourceNode::Source::kMemTable) rows.tail_batches = s.memtable->Batches(s.memtable_upto);
      std::vector<FieldPtr> with_vector = fields;
      if (!columns->GetFieldByName(n.column)) with_vector.push_back(vfield);
      LANCE_ASSIGN_OR_RAISE(Candidates c, SearchTail(rows, std::make_shared<Schema>(with_vector), filter.get(), n,
                                                     metric, penc, newer, stats));
      found.push_back(std::move(c));
      LANCE_RETURN_NOT_OK(newer.AddRows(rows.tail_batches));
      continue;
    }
    NearestOptions arm = n;
    const bool is_base = s.source == LsmSourceNode::Source::kBase;
    // The base's distances are made exact when a newer source exists (lance 12 does the same):
    // they are then comparable with the tail's; a generation keeps its index's distances.
    // lance 12 re-ranks exactly the candidates it fetched (refine factor 1), whatever factor
    // the query gave.
    if (is_base && (!newer.empty() || arm.refine_factor)) arm.refine_factor = 1;
    if (!is_base) arm.refine_factor.reset();
    LANCE_ASSIGN_OR_RAISE(Candidates c, SearchSnapshot(s.snapshot, columns, options, arm, penc, newer, stats));
    found.push_back(std::move(c));
    if (!is_base) LANCE_RETURN_NOT_OK(newer.AddGeneration(s.snapshot, s.rows, spec.primary_key));
  }

  stats->bloom_tests = newer.bloom_tests();
  stats->pk_index_searches = newer.index_searches();

  // One top k: by distance, a newer source first on ties, then each source's order.
  struct Pick {
    float distance;
    size_t source;
    int64_t row;
  };
  std::vector<Pick> picks;
  for (size_t i = 0; i < found.size(); ++i) {
    for (size_t r = 0; r < found[i].distance.size(); ++r) {
      picks.push_back({found[i].distance[r], i, static_cast<int64_t>(r)});
    }
  }
  std::stable_sort(picks.begin(), picks.end(), [](const Pick& a, const Pick& b) { return a.distance < b.distance; });
  if (picks.size() > n.k) picks.resize(n.k);
  std::vector<FieldPtr> out_fields = out->fields();
  out_fields.push_back(field(kDistanceColumn, float32(), true));
  auto out_schema = std::make_shared<Schema>(out_fields);
  std::vector<RecordBatchPtr> result;
  for (const Pick& p : picks) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr row, internal::ProjectByName(*found[p.source].rows->Slice(p.row, 1), out_schema));
    result.push_back(std::move(row));
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr one, ConcatenateBatches(out_schema, result));
  return std::vector<RecordBatchPtr>{std::move(one)};
}

}  // namespace lance::query
