#include "lance/query/plan.h"
#include "lance/query/text_search.h"
#include "lance/query/hybrid.h"
#include "lance/query/lsm_plan.h"

#include <fmt/format.h>

#include "lance/expr/expression.h"
#include "lance/index/scalar/scalar_index.h"
#include "query/operators.h"

namespace lance::query {

namespace {

// "[a, b, c]", at most `max` items then ", ... (N in all)".
template <typename T, typename F>
std::string ListOf(const std::vector<T>& items, F&& show, size_t max = 16) {
  std::string out = "[";
  for (size_t i = 0; i < items.size() && i < max; ++i) {
    if (i > 0) out += ", ";
    out += show(items[i]);
  }
  if (items.size() > max) out += fmt::format(", ... ({} in all)", items.size());
  return out + "]";
}

std::string Names(const Schema& schema) {
  return ListOf(schema.fields(), [](const FieldPtr& f) { return f->name(); });
}

void ExplainNode(const PlanNode& node, int depth, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  *out += node.name() + ": " + node.Describe() + "\n";
  for (const auto& in : node.inputs()) ExplainNode(*in, depth + 1, out);
}

}  // namespace

FragmentScanNode::FragmentScanNode(std::shared_ptr<const table::Snapshot> snapshot,
                                   std::vector<size_t> fragments, int64_t chunk_rows)
    : snapshot_(std::move(snapshot)), fragments_(std::move(fragments)), chunk_rows_(chunk_rows) {}

std::string FragmentScanNode::Describe() const {
  const auto& all = snapshot_->manifest().fragments;
  uint64_t live = 0, physical = 0;
  for (size_t i : fragments_) {
    live += all[i].num_rows();
    physical += all[i].physical_rows;
  }
  return fmt::format(
      "fragments {} ({} of {}), {} live rows ({} deleted skipped), spans of {} rows{}{}",
      ListOf(fragments_, [&](size_t i) { return std::to_string(all[i].id); }), fragments_.size(),
      all.size(), live, physical - live, chunk_rows_, note_.empty() ? "" : "; ", note_);
}

TakeNode::TakeNode(std::shared_ptr<const table::Snapshot> snapshot, By by,
                   std::vector<uint64_t> keys)
    : snapshot_(std::move(snapshot)), by_(by), keys_(std::move(keys)) {}

std::string TakeNode::Describe() const {
  return fmt::format("{} rows by {} {}, in that order", keys_.size(),
                     by_ == By::kPosition ? "scan position" : "row id",
                     ListOf(keys_, [](uint64_t k) { return std::to_string(k); }, 8));
}

IndexLookupNode::IndexLookupNode(std::shared_ptr<const table::Snapshot> snapshot,
                                 std::shared_ptr<const index::scalar::ScalarIndexCatalog> catalog,
                                 index::scalar::IndexPlan plan, std::vector<size_t> fragments,
                                 int64_t chunk_rows)
    : snapshot_(std::move(snapshot)), catalog_(std::move(catalog)), plan_(std::move(plan)),
      fragments_(std::move(fragments)), chunk_rows_(chunk_rows) {}

std::string IndexLookupNode::Describe() const {
  const auto& all = snapshot_->manifest().fragments;
  bool exact = true;
  for (const auto& l : plan_.lookups) {
    for (const auto& leaf : l.leaves) exact = exact && leaf.exact();
  }
  return fmt::format("{}; fragments {} ({} of {}) covered by the index{}, {}; live rows only, "
                     "chunks of at most {} rows",
                     plan_.ToString(),
                     ListOf(fragments_, [&](size_t i) { return std::to_string(all[i].id); }),
                     fragments_.size(), all.size(), plan_.lookups.size() > 1 ? "es" : "",
                     exact ? "exact" : "a superset of the zones that may match, rechecked by the filter above",
                     chunk_rows_);
}

UnionNode::UnionNode(std::vector<PlanNodePtr> inputs) { inputs_ = std::move(inputs); }

std::string UnionNode::Describe() const {
  return "the rows of its inputs, fragment by fragment in manifest order";
}

FilterNode::FilterNode(PlanNodePtr input, std::shared_ptr<const Filter> filter)
    : filter_(std::move(filter)) {
  inputs_.push_back(std::move(input));
}

std::string FilterNode::Describe() const {
  std::string out = fmt::format("\"{}\"; conjuncts in order:", filter_->text());
  int k = 0;
  for (const auto& cj : filter_->conjuncts()) {
    out += fmt::format("{} {}) {} reads {}{}", k > 0 ? ";" : "", k + 1, cj.expr->part(),
                       Names(*cj.columns),
                       cj.dictionary ? " (one column: dictionary pages tested once per entry)" : "");
    ++k;
  }
  return out + "; each over a span while more than a quarter of it is in play, else over "
               "the rows in play only";
}

LimitNode::LimitNode(PlanNodePtr input, int64_t offset, std::optional<int64_t> limit)
    : offset_(offset), limit_(limit) {
  inputs_.push_back(std::move(input));
}

std::string LimitNode::Describe() const {
  if (!limit_) return fmt::format("skip {} rows", offset_);
  if (offset_ == 0) return fmt::format("at most {} rows", *limit_);
  return fmt::format("skip {} rows, then at most {}", offset_, *limit_);
}

ProjectNode::ProjectNode(PlanNodePtr input, SchemaPtr schema, int64_t batch_size)
    : schema_(std::move(schema)), batch_size_(batch_size) {
  inputs_.push_back(std::move(input));
}

std::string ProjectNode::Describe() const {
  std::vector<std::string> data, system;
  for (const auto& f : schema_->fields()) (IsSystemColumn(f->name()) ? system : data).push_back(f->name());
  auto show = [](const std::string& s) { return s; };
  std::string reads = data.empty() ? "no data column" : ListOf(data, show);
  std::string out = fmt::format("columns {}, batches of at most {} rows; reads {} for the rows "
                                "that reach it",
                                Names(*schema_), batch_size_, reads);
  if (!system.empty()) out += fmt::format(", computes {}", ListOf(system, show));
  return out;
}

CountNode::CountNode(PlanNodePtr input) { inputs_.push_back(std::move(input)); }

std::string CountNode::Describe() const {
  if (inputs_[0]->kind() == Kind::kFragmentScan) {
    return "the live rows of the fragments, from the manifest (no data read)";
  }
  return "the rows that reach it (no column read for them)";
}

std::string Plan::Explain() const {
  std::string out;
  ExplainNode(*root_, 0, &out);
  return out;
}

Result<std::unique_ptr<RecordBatchReader>> Plan::Execute(const ExecOptions& options) const {
  if (root_->kind() == PlanNode::Kind::kFullTextSearch) {
    return internal::OpenFullTextSearch(static_cast<const FullTextSearchNode&>(*root_), options);
  }
  if (root_->kind() == PlanNode::Kind::kHybrid) {
    return internal::RunHybrid(static_cast<const HybridSearchNode&>(*root_), options);
  }
  if (root_->kind() == PlanNode::Kind::kLsmMerge) {
    return internal::OpenLsmMerge(std::static_pointer_cast<const LsmMergeNode>(root_), options, nullptr);
  }
  if (root_->kind() == PlanNode::Kind::kKnn) {
    return internal::RunKnn(static_cast<const KnnNode&>(*root_), options);
  }
  if (root_->kind() != PlanNode::Kind::kProject) {
    return Status::InvalidArgument("plan: Execute needs a Project or KNN root, not {}", root_->name());
  }
  return internal::OpenProject(static_cast<const ProjectNode&>(*root_), options);
}

Result<uint64_t> Plan::ExecuteCount(const ExecOptions& options) const {
  if (root_->kind() != PlanNode::Kind::kCount) {
    return Status::InvalidArgument("plan: ExecuteCount needs a Count root, not {}", root_->name());
  }
  return internal::RunCount(static_cast<const CountNode&>(*root_), options);
}

}  // namespace lance::query
