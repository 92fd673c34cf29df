#include "lance/query/scanner.h"

#include "lance/core/thread_pool.h"
#include "query/operators.h"

namespace lance::query {

Result<Scanner> Scanner::Make(std::shared_ptr<const table::Snapshot> snapshot, ScanOptions options) {
  const Planner planner(snapshot);
  LANCE_ASSIGN_OR_RAISE(Plan plan, planner.PlanScan(options));
  SchemaPtr schema;
  if (plan.root()->kind() == PlanNode::Kind::kKnn) {
    schema = static_cast<const KnnNode&>(*plan.root()).schema();
  } else if (plan.root()->kind() == PlanNode::Kind::kHybrid) {
    schema = static_cast<const HybridSearchNode&>(*plan.root()).schema();
  } else {
    LANCE_ASSIGN_OR_RAISE(schema, planner.OutputSchema(options));
  }
  return Scanner(std::move(snapshot), std::move(options), std::move(schema), std::move(plan));
}

Result<std::unique_ptr<RecordBatchReader>> Scanner::ToReader() const {
  return plan_.Execute(Planner::ExecOptionsOf(options_));
}

Result<std::vector<RecordBatchPtr>> Scanner::ToBatches() const {
  LANCE_ASSIGN_OR_RAISE(auto reader, ToReader());
  return reader->ReadAll();
}

Result<uint64_t> Scanner::CountRows() const {
  LANCE_ASSIGN_OR_RAISE(Plan plan, Planner(snapshot_).PlanCount(options_));
  return plan.ExecuteCount(Planner::ExecOptionsOf(options_));
}

Result<std::unique_ptr<RecordBatchReader>> Scanner::Take(std::vector<uint64_t> positions) const {
  LANCE_ASSIGN_OR_RAISE(Plan plan, Planner(snapshot_).PlanTake(std::move(positions), options_));
  return plan.Execute(Planner::ExecOptionsOf(options_));
}

Result<std::unique_ptr<RecordBatchReader>> Scanner::TakeRowIds(std::vector<uint64_t> row_ids) const {
  LANCE_ASSIGN_OR_RAISE(Plan plan, Planner(snapshot_).PlanTakeRowIds(std::move(row_ids), options_));
  return plan.Execute(Planner::ExecOptionsOf(options_));
}

Result<std::vector<FragmentMatches>> FindMatches(std::shared_ptr<const table::Snapshot> snapshot,
                                                 const ScanOptions& options) {
  if (options.filter.empty()) return Status::InvalidArgument("find matches: no filter");
  ScanOptions o;
  o.filter = options.filter;
  o.fragment_ids = options.fragment_ids;
  o.pool = options.pool;
  // The filter engine over every chunk: an index lookup would answer row ids, not the
  // per-fragment physical rows a delete needs.
  o.use_index = false;
  LANCE_ASSIGN_OR_RAISE(Plan plan, Planner(snapshot).PlanCount(o));
  // Count <- Filter <- FragmentScan: the chunks of the scan, filtered all at once.
  auto only_input = [](const PlanNodePtr& n, PlanNode::Kind want) -> const PlanNodePtr* {
    if (n == nullptr || n->inputs().size() != 1 || n->inputs()[0] == nullptr ||
        n->inputs()[0]->kind() != want) {
      return nullptr;
    }
    return &n->inputs()[0];
  };
  const PlanNodePtr* filter_at = only_input(plan.root(), PlanNode::Kind::kFilter);
  const PlanNodePtr* scan_at = filter_at ? only_input(*filter_at, PlanNode::Kind::kFragmentScan) : nullptr;
  if (scan_at == nullptr) {
    return Status::Internal("find matches: filter \"{}\" was not planned as Count <- Filter <- "
                            "FragmentScan:\n{}", options.filter, plan.Explain());
  }
  const PlanNodePtr& filter_node = *filter_at;
  const auto& filter = *static_cast<const FilterNode&>(*filter_node).filter();
  const ExecOptions exec = Planner::ExecOptionsOf(o);
  LANCE_ASSIGN_OR_RAISE(
      auto chunks,
      internal::AllChunks(std::static_pointer_cast<const FragmentScanNode>(*scan_at),
                          exec.pool));
  std::vector<RowSelection> hits(chunks.size());
  std::vector<Status> errors(chunks.size());
  ParallelFor(exec.pool, static_cast<int64_t>(chunks.size()), [&](int64_t i) {
    const internal::RowChunk& c = chunks[static_cast<size_t>(i)];
    auto r = filter.Evaluate(*c.fragment, c.span_start, c.span_length, c.rows);
    if (r.ok()) {
      hits[static_cast<size_t>(i)] = std::move(*r);
    } else {
      errors[static_cast<size_t>(i)] = r.status();
    }
  });
  std::vector<FragmentMatches> out;
  for (size_t i = 0; i < chunks.size(); ++i) {
    LANCE_RETURN_NOT_OK(errors[i]);
    const RowSelection& h = hits[i];
    if (h.empty()) continue;
    if (out.empty() || out.back().index != chunks[i].fragment->index()) {
      out.push_back({chunks[i].fragment->index(), chunks[i].fragment->id(), {}});
    }
    auto& rows = out.back().rows;
    for (int64_t k = 0; k < h.size(); ++k) rows.push_back(static_cast<uint32_t>(h[k]));
  }
  return out;
}

}  // namespace lance::query
