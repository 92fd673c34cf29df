// k-NN planning (Planner::PlanNearest) and execution (internal::RunKnn) of the KNN node: the
// index's ANN (index/vector: partition probing and PQ / flat distances over the rows a keep
// predicate lets through), refined and merged with exact search here, filters through the one
// filter engine, rows read through Take.
#include <algorithm>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/compute.h"
#include "lance/index/vector/vector_catalog.h"
#include "lance/linalg/flat_search.h"
#include "lance/linalg/topk.h"
#include "lance/query/planner.h"
#include "query/operators.h"

namespace lance::query {

namespace {


// Drains the batches of a Project plan node.
Result<std::vector<RecordBatchPtr>> Drain(const PlanNodePtr& project, const ExecOptions& exec) {
  LANCE_ASSIGN_OR_RAISE(auto reader, internal::OpenProject(static_cast<const ProjectNode&>(*project), exec));
  return reader->ReadAll();
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

// Pushes the exact distance of every non-null vector of `batches` (columns: the vectors, then
// "_rowid") into `top`.
Status ExactInto(const std::vector<RecordBatchPtr>& batches, const NearestOptions& n,
                 linalg::DistanceType metric, ThreadPool* pool, linalg::TopK* top) {
  for (const auto& b : batches) {
    const Array& ids = *b->column(1);
    linalg::FlatSearchOptions fo;
    fo.distance_type = metric;
    fo.k = top->k();
    fo.pool = pool;
    fo.row_ids = std::span<const uint64_t>(ids.Values<uint64_t>(), static_cast<size_t>(ids.length));
    LANCE_ASSIGN_OR_RAISE(auto found, linalg::FlatSearch(*b->column(0), n.query, fo));
    for (const auto& r : found) top->Push(r.row, r.distance);
  }
  return Status::OK();
}

// The k nearest (row id, distance) of the node, nearest first.
Result<std::vector<linalg::Neighbor>> Nearest(const KnnNode& node, const ExecOptions& exec) {
  const NearestOptions& n = node.nearest();
  linalg::TopK top(n.k);
  if (!node.index()) {
    LANCE_ASSIGN_OR_RAISE(auto batches, Drain(node.exact_rows(), exec));
    LANCE_RETURN_NOT_OK(ExactInto(batches, n, node.metric(), exec.pool, &top));
    return top.Sorted();
  }
  const KnnNode::Index& index = *node.index();
  const table::Snapshot& snap = *node.snapshot();
  // Which rows the ANN may return: the prefilter's, or every live row.
  std::function<bool(uint64_t)> keep;
  std::unordered_set<uint64_t> allowed, deleted, live_fragments;
  if (node.prefilter_rows()) {
    LANCE_ASSIGN_OR_RAISE(auto batches, Drain(node.prefilter_rows(), exec));
    for (const auto& b : batches) {
      const uint64_t* ids = b->column(0)->Values<uint64_t>();
      allowed.insert(ids, ids + b->num_rows());
    }
    keep = [&](uint64_t row) { return allowed.count(row) > 0; };
  } else {
    LANCE_ASSIGN_OR_RAISE(deleted, DeletedRowIds(snap));
    bool stable = false;
    for (const auto& f : snap.manifest().fragments) {
      live_fragments.insert(f.id);
      stable = stable || f.has_row_ids();
    }
    // Nothing to skip (no deletions, every indexed fragment still there): no predicate, the
    // index pushes whole partitions.
    if (!deleted.empty() || (!stable && index.may_hold_gone_rows)) {
      keep = [&, stable](uint64_t row) {
        if (!deleted.empty() && deleted.count(row)) return false;
        // A row address names its fragment; fragments gone since the build drop out.
        return stable || live_fragments.count(row >> 32) > 0;
      };
    }
  }
  index::vector::AnnQuery q;
  q.vector = n.query;
  q.k = n.k;
  q.nprobes = n.nprobes;
  q.refine_factor = n.refine_factor;
  if (n.ef) q.ef = static_cast<size_t>(*n.ef);
  LANCE_ASSIGN_OR_RAISE(std::vector<linalg::Neighbor> candidates, index.ivf->Search(q, keep));
  if (!n.refine_factor && !node.exact_rows()) {
    if (candidates.size() > n.k) candidates.resize(n.k);
    return candidates;
  }
  // Refine: the candidates' stored vectors, taken by row id, ranked by exact distance.
  std::vector<uint64_t> ids;
  ids.reserve(candidates.size());
  for (const auto& c : candidates) ids.push_back(c.row);
  ScanOptions take;
  take.columns = {n.column, kRowIdColumn};
  LANCE_ASSIGN_OR_RAISE(Plan plan, Planner(node.snapshot()).PlanTakeRowIds(std::move(ids), take));
  LANCE_ASSIGN_OR_RAISE(auto taken, Drain(plan.root(), exec));
  LANCE_RETURN_NOT_OK(ExactInto(taken, n, node.metric(), nullptr, &top));
  if (node.exact_rows()) {
    LANCE_ASSIGN_OR_RAISE(auto batches, Drain(node.exact_rows(), exec));
    LANCE_RETURN_NOT_OK(ExactInto(batches, n, node.metric(), exec.pool, &top));
  }
  return top.Sorted();
}

}  // namespace

KnnNode::KnnNode(std::shared_ptr<const table::Snapshot> snapshot, NearestOptions nearest,
                 linalg::DistanceType metric, std::optional<Index> index,
                 PlanNodePtr prefilter_rows, PlanNodePtr exact_rows,
                 std::shared_ptr<const Filter> postfilter, SchemaPtr schema, int64_t offset,
                 std::optional<int64_t> limit)
    : snapshot_(std::move(snapshot)), nearest_(std::move(nearest)), metric_(metric),
      index_(std::move(index)), prefilter_rows_(std::move(prefilter_rows)),
      exact_rows_(std::move(exact_rows)), postfilter_(std::move(postfilter)),
      schema_(std::move(schema)), offset_(offset), limit_(limit) {
  if (prefilter_rows_) inputs_.push_back(prefilter_rows_);
  if (exact_rows_) inputs_.push_back(exact_rows_);
}

std::string KnnNode::Describe() const {
  std::string out = fmt::format("column {}, k {}, metric {}", nearest_.column, nearest_.k,
                                linalg::DistanceTypeName(metric_));
  int input = 1;
  if (index_) {
    out += fmt::format("; ANN over index {} ({}, uuid {}): nprobes {}", index_->name,
                       index::vector::IndexKindName(index_->ivf->kind()), index_->uuid,
                       nearest_.nprobes);
    if (nearest_.ef) out += fmt::format(", ef {}", *nearest_.ef);
    if (prefilter_rows_) {
      out += fmt::format(", only the rows of input {} (prefilter) take a slot", input++);
    } else {
      out += ", deleted rows skipped before they take a slot";
    }
    if (nearest_.refine_factor || exact_rows_) {
      out += fmt::format("; {} candidates re-ranked by exact distance (vectors taken by row id{})",
                         nearest_.k * nearest_.refine_factor.value_or(1),
                         nearest_.refine_factor ? fmt::format(", refine {}", *nearest_.refine_factor) : "");
    }
    if (exact_rows_) {
      out += fmt::format("; fragments [{}] not covered by the index: input {} searched exactly and merged",
                         fmt::join(index_->uncovered, ", "), input);
    }
  } else {
    out += fmt::format("; exact search over input {}", input);
  }
  if (postfilter_) out += fmt::format("; postfilter \"{}\" over the k rows", postfilter_->text());
  if (offset_ > 0) out += fmt::format("; skip {}", offset_);
  if (limit_) out += fmt::format("; at most {} rows", *limit_);
  std::vector<std::string> names;
  for (const auto& f : schema_->fields()) names.push_back(f->name());
  out += fmt::format("; outputs [{}]", fmt::join(names, ", "));
  return out;
}

Result<Plan> Planner::PlanNearest(const ScanOptions& options) const {
  if (!options.nearest) return Status::InvalidArgument("nearest: no k-NN query in the scan options");
  const NearestOptions& n = *options.nearest;
  if (options.offset < 0) return Status::InvalidArgument("scan: negative offset {}", options.offset);
  if (options.limit && *options.limit < 0) {
    return Status::InvalidArgument("scan: negative limit {}", *options.limit);
  }
  if (n.k == 0) return Status::InvalidArgument("nearest: k must be positive");
  const FieldPtr field = snapshot_->schema()->GetFieldByName(n.column);
  if (!field) return Status::InvalidArgument("nearest: no column \"{}\" in {}", n.column, snapshot_->location().display());
  if (field->type()->id() != TypeId::kFixedSizeList) {
    return Status::InvalidArgument("nearest: column \"{}\" is {}, not a fixed_size_list vector column",
                                   n.column, field->type()->ToString());
  }
  if (static_cast<size_t>(field->type()->list_size()) != n.query.size()) {
    return Status::InvalidArgument("nearest: the query has {} values, column \"{}\" holds vectors of {}",
                                   n.query.size(), n.column, field->type()->list_size());
  }
  // The output: the projection, "_distance" before the system columns the flags append.
  LANCE_ASSIGN_OR_RAISE(SchemaPtr projected, OutputSchema(options));
  std::vector<FieldPtr> fields = projected->fields();
  size_t at = fields.size();
  for (const char* sys : {kRowAddrColumn, kRowIdColumn}) {
    const bool flagged = std::string(sys) == kRowIdColumn ? options.with_row_id : options.with_row_addr;
    const bool named = std::find(options.columns.begin(), options.columns.end(), sys) != options.columns.end();
    if (flagged && !named) at = std::min(at, static_cast<size_t>(projected->GetFieldIndex(sys)));
  }
  fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(at), ::lance::field(kDistanceColumn, float32(), true));
  SchemaPtr schema = ::lance::schema(std::move(fields), projected->metadata());

  std::shared_ptr<const Filter> filter;
  if (!options.filter.empty()) {
    LANCE_ASSIGN_OR_RAISE(filter, Filter::Make(options.filter, snapshot_->schema()));
  }
  std::optional<KnnNode::Index> index;
  const table::Manifest& m = snapshot_->manifest();
  if (n.use_index) {
    if (const table::IndexInfo* info = index::vector::FindVectorIndex(m, field->id())) {
      LANCE_ASSIGN_OR_RAISE(auto ivf, index::vector::OpenVectorIndex(options.index_cache, snapshot_->location(), *info));
      if (!n.metric || *n.metric == ivf->metric()) {
        index.emplace();
        index->ivf = std::move(ivf);
        index->name = info->name;
        index->uuid = info->uuid;
        const std::unordered_set<uint32_t> covered(info->fragment_ids.begin(), info->fragment_ids.end());
        std::unordered_set<uint64_t> live;
        for (const auto& f : m.fragments) {
          live.insert(f.id);
          if (info->has_fragment_bitmap && !covered.count(static_cast<uint32_t>(f.id))) {
            index->uncovered.push_back(f.id);
          }
        }
        index->may_hold_gone_rows = !info->has_fragment_bitmap;
        for (uint32_t id : info->fragment_ids) {
          if (!live.count(id)) index->may_hold_gone_rows = true;
        }
      }
    }
  }
  const linalg::DistanceType metric =
      n.metric.value_or(index ? index->ivf->metric() : linalg::DistanceType::kL2);
  // Sub-plans: the prefilter's row ids, the rows searched exactly (filtered first).
  PlanNodePtr prefilter_rows, exact_rows;
  if (index && filter && n.prefilter) {
    ScanOptions o;
    o.columns = {kRowIdColumn};
    o.filter = options.filter;
    o.use_index = options.use_index;
    LANCE_ASSIGN_OR_RAISE(Plan p, PlanScan(o));
    prefilter_rows = p.root();
  }
  if (!index || !index->uncovered.empty()) {
    ScanOptions o;
    o.columns = {n.column, kRowIdColumn};
    o.filter = options.filter;
    o.use_index = options.use_index;
    // Every query reads the whole column again: its mapped pages stay for the next one.
    o.keep_mapped_pages = true;
    if (index) o.fragment_ids = index->uncovered;
    LANCE_ASSIGN_OR_RAISE(Plan p, PlanScan(o));
    exact_rows = p.root();
  }
  std::shared_ptr<const Filter> postfilter = index && !n.prefilter ? filter : nullptr;
  return Plan(std::make_shared<KnnNode>(snapshot_, n, metric, std::move(index), std::move(prefilter_rows),
                                        std::move(exact_rows), std::move(postfilter), std::move(schema),
                                        options.offset, options.limit));
}

namespace internal {

Result<std::unique_ptr<RecordBatchReader>> RunKnn(const KnnNode& node, const ExecOptions& exec) {
  LANCE_ASSIGN_OR_RAISE(std::vector<linalg::Neighbor> nearest, Nearest(node, exec));
  // The rows' columns through Take (in distance order), the postfilter over them; "_rowid"
  // is read along to find each row's distance.
  std::vector<FieldPtr> fields;
  for (const auto& f : node.schema()->fields()) {
    if (f->name() != kDistanceColumn) fields.push_back(f);
  }
  const bool has_row_id = node.schema()->GetFieldIndex(kRowIdColumn) >= 0;
  if (!has_row_id) fields.push_back(::lance::field(kRowIdColumn, uint64(), true));
  SchemaPtr take_schema = ::lance::schema(fields, node.schema()->metadata());
  std::unordered_map<uint64_t, float> distance;
  std::vector<uint64_t> ids;
  for (const auto& r : nearest) {
    distance.emplace(r.row, r.distance);
    ids.push_back(r.row);
  }
  PlanNodePtr rows = std::make_shared<TakeNode>(node.snapshot(), TakeNode::By::kRowId, std::move(ids));
  if (node.postfilter()) rows = std::make_shared<FilterNode>(std::move(rows), node.postfilter());
  auto project = std::make_shared<ProjectNode>(std::move(rows), take_schema, kDefaultBatchSize);
  LANCE_ASSIGN_OR_RAISE(auto reader, OpenProject(*project, exec));
  LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr all, ConcatenateBatches(take_schema, batches));
  // Offset and limit over the rows left.
  const int64_t from = std::min(node.offset(), all->num_rows());
  int64_t count = all->num_rows() - from;
  if (node.limit()) count = std::min(count, *node.limit());
  all = all->Slice(from, count);
  const int rowid_at = take_schema->GetFieldIndex(kRowIdColumn);
  const ArrayPtr& rowids = all->column(rowid_at);
  FloatBuilder dist(float32());
  for (int64_t i = 0; i < all->num_rows(); ++i) {
    const auto it = distance.find(rowids->Values<uint64_t>()[i]);
    if (it == distance.end()) {
      return Status::Internal("nearest: the take returned row id {}, not a neighbour", rowids->Values<uint64_t>()[i]);
    }
    LANCE_RETURN_NOT_OK(dist.Append(it->second));
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr dist_array, dist.Finish());
  std::vector<ArrayPtr> columns;
  for (const auto& f : node.schema()->fields()) {
    columns.push_back(f->name() == kDistanceColumn ? dist_array : all->column(take_schema->GetFieldIndex(f->name())));
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr out, RecordBatch::Make(node.schema(), all->num_rows(), std::move(columns)));
  std::vector<RecordBatchPtr> result;
  if (out->num_rows() > 0) result.push_back(std::move(out));
  return std::unique_ptr<RecordBatchReader>(new VectorRecordBatchReader(node.schema(), std::move(result)));
}

}  // namespace internal
}  // namespace lance::query
