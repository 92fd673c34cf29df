#include "lance/query/planner.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "lance/core/thread_pool.h"
#include "lance/expr/ast.h"
#include "lance/index/scalar/lookup.h"
#include "lance/index/scalar/scalar_index.h"
#include "lance/table/feature_flags.h"
#include "lance/query/fragment_reader.h"

namespace lance::query {

namespace {

Status CheckNumbers(const ScanOptions& options) {
  if (options.offset < 0) return Status::InvalidArgument("scan: negative offset {}", options.offset);
  if (options.limit && *options.limit < 0) {
    return Status::InvalidArgument("scan: negative limit {}", *options.limit);
  }
  if (options.batch_size < 0) {
    return Status::InvalidArgument("scan: negative batch size {}", options.batch_size);
  }
  return Status::OK();
}

// The cost of a lookup in rows a scan would read: its estimate (ScalarIndexCatalog::EstimateRows),
// times kFmLocateCostRows when an FM index answers a leaf (its estimate counts occurrences,
// each located by LF walks).
struct LookupCost {
  uint64_t estimate = 0;
  double scan_rows = 0;
  bool located = false;
};

// Whether an FM index answers a leaf of `c` (its estimate then counts occurrences to locate).
bool Located(const index::scalar::IndexedConjunct& c) {
  for (const auto& leaf : c.leaves) {
    if (leaf.index_type == "FM") return true;
  }
  return false;
}

// LookupCost::scan_rows of `c` estimated at `estimate`: the one cost rule of the share rule
// and of DropBroadLookups.
double LookupScanRows(const index::scalar::IndexedConjunct& c, uint64_t estimate) {
  return static_cast<double>(estimate) * (Located(c) ? kFmLocateCostRows : 1.0);
}

// The cheapest of `plan`'s lookups (every row the plan answers passes each of them), nullopt
// when one of them cannot be estimated (that one may be the selective one).
Result<std::optional<LookupCost>> CheapestLookup(const index::scalar::ScalarIndexCatalog& catalog,
                                                 const index::scalar::IndexPlan& plan) {
  std::optional<LookupCost> best;
  for (const index::scalar::IndexedConjunct& c : plan.lookups) {
    LANCE_ASSIGN_OR_RAISE(std::optional<uint64_t> e, catalog.EstimateRows(c));
    if (!e) return std::optional<LookupCost>();
    const LookupCost cost{*e, LookupScanRows(c, *e), Located(c)};
    if (!best || cost.scan_rows < best->scan_rows) best = cost;
  }
  return best;
}

int64_t BatchSize(const ScanOptions& options) {
  return options.batch_size > 0 ? options.batch_size : kDefaultBatchSize;
}

}  // namespace

ExecOptions Planner::ExecOptionsOf(const ScanOptions& options) {
  ExecOptions e;
  e.pool = options.pool != nullptr ? options.pool : ThreadPool::Default();
  // A few chunks per thread keep the pool busy; more would only hold more memory.
  e.prefetch = options.prefetch > 0 ? options.prefetch : std::clamp(e.pool->num_threads(), 2, 8);
  e.index_cache = options.index_cache;
  return e;
}

Result<SchemaPtr> Planner::OutputSchema(const ScanOptions& options) const {
  const SchemaPtr& schema = snapshot_->schema();
  std::vector<FieldPtr> fields;
  bool row_id = false, row_addr = false;
  auto system = [](const std::string& name) { return field(name, uint64(), true); };
  if (options.columns.empty()) {
    fields = schema->fields();
  } else {
    for (size_t i = 0; i < options.columns.size(); ++i) {
      const std::string& name = options.columns[i];
      for (size_t j = 0; j < i; ++j) {
        if (options.columns[j] == name) {
          return Status::InvalidArgument("{}: column '{}' is asked for twice (positions {} and "
                                         "{} of the projection); name each column once",
                                         snapshot_->location().display(), name, j + 1, i + 1);
        }
      }
      if (IsSystemColumn(name)) {
        (name == kRowIdColumn ? row_id : row_addr) = true;
        fields.push_back(system(name));
        continue;
      }
      FieldPtr f = schema->GetFieldByName(name);
      if (!f) {
        std::string names;
        for (const auto& c : schema->fields()) names += (names.empty() ? "" : ", ") + c->name();
        return Status::InvalidArgument("{}: no column named '{}' in the dataset (columns: {})",
                                       snapshot_->location().display(), name, names);
      }
      fields.push_back(std::move(f));
    }
  }
  if (options.with_row_id && !row_id) fields.push_back(system(kRowIdColumn));
  if (options.with_row_addr && !row_addr) fields.push_back(system(kRowAddrColumn));
  if (options.full_text) fields.push_back(field(kScoreColumn, float32(), true));
  return ::lance::schema(std::move(fields), schema->metadata());
}

Result<PlanNodePtr> Planner::RowSource(const ScanOptions& options, bool for_count) const {
  LANCE_RETURN_NOT_OK(CheckNumbers(options));
  const auto& fragments = snapshot_->manifest().fragments;
  std::vector<size_t> chosen;
  if (options.fragment_ids) {
    const std::set<uint64_t> ids(options.fragment_ids->begin(), options.fragment_ids->end());
    for (size_t i = 0; i < fragments.size(); ++i) {
      if (ids.count(fragments[i].id)) chosen.push_back(i);
    }
  } else {
    for (size_t i = 0; i < fragments.size(); ++i) chosen.push_back(i);
  }
  std::shared_ptr<const Filter> filter;
  if (!options.filter.empty()) {
    LANCE_ASSIGN_OR_RAISE(filter, Filter::Make(options.filter, snapshot_->schema()));
  }
  // Without a filter a span is a batch (no row lists); with one, spans of kFilterChunkRows
  // keep a chunk's filter columns in the core's cache while the batches gather the rows that
  // pass, up to the batch size.
  const int64_t chunk = filter || for_count ? kFilterChunkRows : BatchSize(options);
  PlanNodePtr node;
  std::string why_scan;
  if (filter && options.use_index) {
    LANCE_ASSIGN_OR_RAISE(node, IndexedSource(options, &chosen, &why_scan));
  }
  if (!chosen.empty() || !node) {
    auto fragments = std::make_shared<FragmentScanNode>(snapshot_, std::move(chosen), chunk);
    fragments->set_note(std::move(why_scan));
    fragments->set_keep_mapped_pages(options.keep_mapped_pages);
    PlanNodePtr scan = std::move(fragments);
    if (filter) scan = std::make_shared<FilterNode>(std::move(scan), std::move(filter));
    node = node ? std::make_shared<UnionNode>(std::vector<PlanNodePtr>{std::move(node), std::move(scan)})
                : std::move(scan);
  }
  if (options.offset > 0 || options.limit) {
    node = std::make_shared<LimitNode>(std::move(node), options.offset, options.limit);
  }
  return node;
}

Result<PlanNodePtr> Planner::IndexedSource(const ScanOptions& options, std::vector<size_t>* chosen,
                                           std::string* why_scan) const {
  const table::Manifest& m = snapshot_->manifest();
  // With stable row ids an index holds row ids, not addresses; not planned yet.
  if (m.indices.empty() || (m.reader_feature_flags & table::kFlagStableRowIds)) return PlanNodePtr();
  auto catalog = index::scalar::ScalarIndexCatalog::Cached(options.index_cache, snapshot_->location(), m);
  if (catalog->empty()) return PlanNodePtr();
  LANCE_ASSIGN_OR_RAISE(expr::NodePtr tree, expr::Parse(options.filter));
  const auto conjuncts = index::scalar::SplitConjuncts(*tree);
  index::scalar::IndexPlan plan = catalog->PlanConjuncts(conjuncts);
  if (plan.lookups.empty()) return PlanNodePtr();
  // A lookup costing more than scanning an eighth of the rows costs more than filtering its
  // conjunct over the rows of a cheaper lookup (the cheapest one is always kept); costs as in
  // the share rule below (an FM lookup's occurrences weighed by kFmLocateCostRows).
  LANCE_ASSIGN_OR_RAISE(plan, catalog->DropBroadLookups(std::move(plan), static_cast<double>(m.num_rows() / 8),
                                                        LookupScanRows));
  const std::vector<uint32_t> covered = catalog->Covered(plan);
  std::vector<size_t> indexed, scanned;
  for (size_t i : *chosen) {
    const bool in = std::binary_search(covered.begin(), covered.end(), static_cast<uint32_t>(m.fragments[i].id));
    (in ? indexed : scanned).push_back(i);
  }
  if (indexed.empty()) return PlanNodePtr();
  uint64_t covered_rows = 0;
  for (size_t i : indexed) covered_rows += m.fragments[i].physical_rows;
  if (covered_rows >= kIndexShareMinRows) {
    LANCE_ASSIGN_OR_RAISE(std::optional<LookupCost> cost, CheapestLookup(*catalog, plan));
    if (cost && cost->scan_rows > kIndexMaxShare * static_cast<double>(covered_rows)) {
      const uint64_t shown = std::min(cost->estimate, covered_rows);
      *why_scan =
          cost->located
              ? fmt::format(
                    "scanned, not looked up: {} has {} occurrences to locate in the FM index, each costing about "
                    "as much as scanning {} rows (the cost of scanning {:.0f} % of the {} rows the index covers, "
                    "over the {:.0f} % where a scan is cheaper)",
                    plan.ToString(), cost->estimate, kFmLocateCostRows,
                    100.0 * cost->scan_rows / static_cast<double>(covered_rows), covered_rows, 100.0 * kIndexMaxShare)
              : fmt::format(
                    "scanned, not looked up: {} may match about {} of the {} rows the index covers "
                    "({:.0f} %, over the {:.0f} % where a scan is cheaper)",
                    plan.ToString(), shown, covered_rows,
                    100.0 * static_cast<double>(shown) / static_cast<double>(covered_rows), 100.0 * kIndexMaxShare);
      return PlanNodePtr();
    }
  }
  // What the indexes do not answer is filtered over the rows they return, and so are the
  // conjuncts an inexact index (zone map, bloom filter) answered with a superset: rechecked.
  std::vector<size_t> recheck;
  for (const auto& lookup : plan.lookups) {
    bool exact = true;
    for (const auto& leaf : lookup.leaves) exact = exact && leaf.exact();
    if (!exact) recheck.insert(recheck.end(), lookup.sources.begin(), lookup.sources.end());
  }
  std::string rest;
  for (size_t i = 0, a = 0; i < conjuncts.size(); ++i) {
    if (a < plan.answered.size() && plan.answered[a] == i) {
      ++a;
      if (std::find(recheck.begin(), recheck.end(), i) == recheck.end()) continue;
    }
    rest += (rest.empty() ? "" : " AND ") + expr::ToString(*conjuncts[i]);
  }
  PlanNodePtr node = std::make_shared<IndexLookupNode>(snapshot_, std::move(catalog), std::move(plan),
                                                       std::move(indexed), kFilterChunkRows);
  if (!rest.empty()) {
    LANCE_ASSIGN_OR_RAISE(auto residual, Filter::Make(rest, snapshot_->schema()));
    node = std::make_shared<FilterNode>(std::move(node), std::move(residual));
  }
  *chosen = std::move(scanned);
  return node;
}

Result<Plan> Planner::PlanScan(const ScanOptions& options) const {
  if (options.nearest && options.full_text) return PlanHybrid(options);
  if (options.nearest) return PlanNearest(options);
  LANCE_ASSIGN_OR_RAISE(SchemaPtr schema, OutputSchema(options));
  if (options.full_text) {
    if (options.offset != 0 || options.limit) {
      return Status::InvalidArgument("full-text search: offset and limit do not apply (k does)");
    }
    ScanOptions take = options;
    take.full_text.reset();
    LANCE_ASSIGN_OR_RAISE(SchemaPtr take_schema, OutputSchema(take));
    std::vector<std::string> take_columns;
    for (const auto& f : take_schema->fields()) take_columns.push_back(f->name());
    LANCE_ASSIGN_OR_RAISE(PlanNodePtr node, PlanFullTextSearch(snapshot_, *options.full_text, options.filter,
                                                               schema, std::move(take_columns)));
    return Plan(std::move(node));
  }
  LANCE_ASSIGN_OR_RAISE(PlanNodePtr rows, RowSource(options, /*for_count=*/false));
  return Plan(std::make_shared<ProjectNode>(std::move(rows), std::move(schema), BatchSize(options)));
}

Result<Plan> Planner::PlanCount(const ScanOptions& options) const {
  if (options.nearest) return Status::InvalidArgument("count: a k-NN search is not counted (its rows are k)");
  LANCE_ASSIGN_OR_RAISE(PlanNodePtr rows, RowSource(options, /*for_count=*/true));
  return Plan(std::make_shared<CountNode>(std::move(rows)));
}

Result<Plan> Planner::PlanTake(std::vector<uint64_t> positions, const ScanOptions& options) const {
  if (!options.filter.empty()) {
    return Status::InvalidArgument("take: a filter applies to scans and counts, not to take");
  }
  LANCE_RETURN_NOT_OK(CheckNumbers(options));
  LANCE_ASSIGN_OR_RAISE(SchemaPtr schema, OutputSchema(options));
  auto take = std::make_shared<TakeNode>(snapshot_, TakeNode::By::kPosition, std::move(positions));
  return Plan(std::make_shared<ProjectNode>(std::move(take), std::move(schema), BatchSize(options)));
}

Result<Plan> Planner::PlanTakeRowIds(std::vector<uint64_t> row_ids,
                                     const ScanOptions& options) const {
  if (!options.filter.empty()) {
    return Status::InvalidArgument("take: a filter applies to scans and counts, not to take");
  }
  LANCE_RETURN_NOT_OK(CheckNumbers(options));
  LANCE_ASSIGN_OR_RAISE(SchemaPtr schema, OutputSchema(options));
  auto take = std::make_shared<TakeNode>(snapshot_, TakeNode::By::kRowId, std::move(row_ids));
  return Plan(std::make_shared<ProjectNode>(std::move(take), std::move(schema), BatchSize(options)));
}

}  // namespace lance::query
