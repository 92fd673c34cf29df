// Hybrid search (lance/query/hybrid.h): Planner::PlanHybrid plans the vector and the text
// search as the one-sided queries would be planned, with "_rowid"; RunHybrid runs both and fuses
// their lists by reciprocal-rank fusion.
#include "lance/query/hybrid.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/compute.h"
#include "lance/query/fragment_reader.h"
#include "lance/query/nearest.h"
#include "lance/query/planner.h"
#include "lance/query/text_search.h"

namespace lance::query {

namespace {

// One side's rows as a single batch of its plan's schema.
Result<RecordBatchPtr> RunSide(const PlanNodePtr& root, const ExecOptions& exec) {
  LANCE_ASSIGN_OR_RAISE(auto reader, Plan(root).Execute(exec));
  SchemaPtr schema = reader->schema();
  LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
  return ConcatenateBatches(schema, batches);
}

Result<int> ColumnIndex(const RecordBatch& batch, const char* name, const char* side) {
  const int at = batch.schema()->GetFieldIndex(name);
  if (at < 0) return Status::Internal("hybrid search: the {} search yielded no {} column", side, name);
  return at;
}

// lancedb's normalize_scores, in float32: (s - min) / range, range = max - min or, when that is
// below 1e-4, max; the scores unchanged when the range is 0.
std::vector<float> MinMaxNormalized(const float* s, int64_t n) {
  std::vector<float> out(s, s + n);
  if (n == 0) return out;
  const float lo = *std::min_element(out.begin(), out.end());
  const float hi = *std::max_element(out.begin(), out.end());
  const float range = hi - lo < 10e-5f ? hi : hi - lo;
  if (range != 0.0f) {
    for (float& x : out) x = (x - lo) / range;
  }
  return out;
}

// The rows of one search's `rows` where the postfilter holds, in their order.
Result<RecordBatchPtr> PostFiltered(const HybridSearchNode& node, const RecordBatchPtr& rows, const ExecOptions& exec) {
  LANCE_ASSIGN_OR_RAISE(int id_at, ColumnIndex(*rows, kRowIdColumn, "hybrid"));
  const uint64_t* ids = rows->column(id_at)->Values<uint64_t>();
  std::vector<uint64_t> keys(ids, ids + rows->num_rows());
  const auto& text = static_cast<const FullTextSearchNode&>(*node.text());
  PlanNodePtr take = std::make_shared<TakeNode>(text.snapshot(), TakeNode::By::kRowId, std::move(keys));
  PlanNodePtr filtered = std::make_shared<FilterNode>(std::move(take), node.text_postfilter());
  SchemaPtr ids_schema = ::lance::schema({field(kRowIdColumn, uint64(), true)});
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr pass, RunSide(std::make_shared<ProjectNode>(std::move(filtered), ids_schema,
                                                                                  kDefaultBatchSize), exec));
  std::unordered_set<uint64_t> keep;
  for (int64_t i = 0; i < pass->num_rows(); ++i) keep.insert(pass->column(0)->Values<uint64_t>()[i]);
  std::vector<int64_t> at;
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    if (keep.count(ids[i])) at.push_back(i);
  }
  return TakeRows(*rows, at);
}

}  // namespace

HybridSearchNode::HybridSearchNode(PlanNodePtr vector, PlanNodePtr text, HybridFusion fusion, int64_t k,
                                   bool with_row_id, SchemaPtr schema, std::shared_ptr<const Filter> text_postfilter)
    : fusion_(fusion), k_(k), with_row_id_(with_row_id), schema_(std::move(schema)),
      text_postfilter_(std::move(text_postfilter)) {
  inputs_ = {std::move(vector), std::move(text)};
}

std::string HybridSearchNode::Describe() const {
  return fmt::format(
      "reciprocal-rank fusion (k = {}) of the vector and the full-text results, each list's score "
      "min-max normalised into _score, best {} rows by {}{}",
      fusion_.rrf_k, k_, kRelevanceScoreColumn,
      text_postfilter_ ? "; both searches' k rows postfiltered" : "");
}

Result<Plan> Planner::PlanHybrid(const ScanOptions& options) const {
  if (!options.nearest || !options.full_text) {
    return Status::InvalidArgument("hybrid search: needs both a vector (nearest) and a full-text query");
  }
  if (options.offset != 0 || options.limit) {
    return Status::InvalidArgument("hybrid search: offset and limit do not apply (the vector query's k does)");
  }
  if (options.with_row_addr) {
    return Status::InvalidArgument("hybrid search: _rowaddr is not an output of a hybrid search (use with_row_id)");
  }
  for (const auto& c : options.columns) {
    if (IsSystemColumn(c)) {
      return Status::InvalidArgument("hybrid search: column '{}': ask for _rowid with with_row_id (its place is "
                                     "after _score)", c);
    }
  }
  if (!(options.fusion.rrf_k > 0.0f)) {
    return Status::InvalidArgument("hybrid search: the RRF constant must be positive, got {}", options.fusion.rrf_k);
  }
  ScanOptions vec = options;
  vec.full_text.reset();
  vec.with_row_id = true;
  ScanOptions txt = options;
  txt.nearest.reset();
  txt.with_row_id = true;
  std::shared_ptr<const Filter> text_postfilter;
  if (!options.nearest->prefilter && !options.filter.empty()) {
    LANCE_ASSIGN_OR_RAISE(text_postfilter, Filter::Make(options.filter, snapshot_->schema()));
    txt.filter.clear();
    vec.filter.clear();
  }
  LANCE_ASSIGN_OR_RAISE(Plan vec_plan, PlanNearest(vec));
  LANCE_ASSIGN_OR_RAISE(Plan txt_plan, PlanScan(txt));

  ScanOptions proj = options;
  proj.nearest.reset();
  proj.full_text.reset();
  proj.with_row_id = false;
  LANCE_ASSIGN_OR_RAISE(SchemaPtr projected, OutputSchema(proj));
  std::vector<FieldPtr> fields = projected->fields();
  fields.push_back(field(kScoreColumn, float32(), false));
  if (options.with_row_id) fields.push_back(field(kRowIdColumn, uint64(), false));
  fields.push_back(field(kRelevanceScoreColumn, float32(), false));
  SchemaPtr schema = ::lance::schema(std::move(fields), projected->metadata());
  return Plan(std::make_shared<HybridSearchNode>(vec_plan.root(), txt_plan.root(), options.fusion,
                                                 static_cast<int64_t>(options.nearest->k), options.with_row_id,
                                                 std::move(schema), std::move(text_postfilter)));
}

namespace internal {

Result<std::unique_ptr<RecordBatchReader>> RunHybrid(const HybridSearchNode& node, const ExecOptions& exec) {
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr vec, RunSide(node.vector(), exec));
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr txt, RunSide(node.text(), exec));
  if (node.text_postfilter()) {
    LANCE_ASSIGN_OR_RAISE(vec, PostFiltered(node, vec, exec));
    LANCE_ASSIGN_OR_RAISE(txt, PostFiltered(node, txt, exec));
  }
  LANCE_ASSIGN_OR_RAISE(int vec_dist, ColumnIndex(*vec, kDistanceColumn, "vector"));
  LANCE_ASSIGN_OR_RAISE(int vec_id, ColumnIndex(*vec, kRowIdColumn, "vector"));
  LANCE_ASSIGN_OR_RAISE(int txt_score, ColumnIndex(*txt, kScoreColumn, "full-text"));
  LANCE_ASSIGN_OR_RAISE(int txt_id, ColumnIndex(*txt, kRowIdColumn, "full-text"));
  const int64_t nv = vec->num_rows(), nt = txt->num_rows();
  const std::vector<float> vec_norm = MinMaxNormalized(vec->column(vec_dist)->Values<float>(), nv);
  const std::vector<float> txt_norm = MinMaxNormalized(txt->column(txt_score)->Values<float>(), nt);
  const uint64_t* vec_ids = vec->column(vec_id)->Values<uint64_t>();
  const uint64_t* txt_ids = txt->column(txt_id)->Values<uint64_t>();

  // Reciprocal-rank scores, the vector list's first.
  const float rrf_k = node.fusion().rrf_k;
  std::unordered_map<uint64_t, float> relevance;
  for (int64_t i = 0; i < nv; ++i) relevance[vec_ids[i]] += 1.0f / (static_cast<float>(i) + rrf_k);
  for (int64_t i = 0; i < nt; ++i) relevance[txt_ids[i]] += 1.0f / (static_cast<float>(i) + rrf_k);

  // The merged rows: index into vec (< nv) or nv + index into txt, first occurrence of a row id.
  struct Merged {
    int64_t at;
    uint64_t row_id;
    float norm;
    float relevance;
  };
  std::vector<Merged> merged;
  std::unordered_set<uint64_t> seen;
  for (int64_t i = 0; i < nv; ++i) {
    if (seen.insert(vec_ids[i]).second) merged.push_back({i, vec_ids[i], vec_norm[static_cast<size_t>(i)], 0});
  }
  for (int64_t i = 0; i < nt; ++i) {
    if (seen.insert(txt_ids[i]).second) merged.push_back({nv + i, txt_ids[i], txt_norm[static_cast<size_t>(i)], 0});
  }
  for (auto& m : merged) m.relevance = relevance[m.row_id];
  std::stable_sort(merged.begin(), merged.end(),
                   [](const Merged& a, const Merged& b) { return a.relevance > b.relevance; });
  if (static_cast<int64_t>(merged.size()) > node.k()) merged.resize(static_cast<size_t>(node.k()));

  std::vector<int64_t> take;
  FloatBuilder score(float32()), rel(float32());
  UInt64Builder ids(uint64());
  for (const auto& m : merged) {
    take.push_back(m.at);
    LANCE_RETURN_NOT_OK(score.Append(m.norm));
    LANCE_RETURN_NOT_OK(rel.Append(m.relevance));
    LANCE_RETURN_NOT_OK(ids.Append(m.row_id));
  }
  std::vector<ArrayPtr> columns;
  for (const auto& f : node.schema()->fields()) {
    const std::string& name = f->name();
    if (name == kScoreColumn) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr a, score.Finish());
      columns.push_back(std::move(a));
    } else if (name == kRowIdColumn) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr a, ids.Finish());
      columns.push_back(std::move(a));
    } else if (name == kRelevanceScoreColumn) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr a, rel.Finish());
      columns.push_back(std::move(a));
    } else {
      const int vi = vec->schema()->GetFieldIndex(name), ti = txt->schema()->GetFieldIndex(name);
      if (vi < 0 || ti < 0) return Status::Internal("hybrid search: column {} missing from a side's rows", name);
      LANCE_ASSIGN_OR_RAISE(ArrayPtr both, Concatenate({vec->column(vi), txt->column(ti)}));
      LANCE_ASSIGN_OR_RAISE(ArrayPtr a, TakeArray(both, take));
      columns.push_back(std::move(a));
    }
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr out,
                        RecordBatch::Make(node.schema(), static_cast<int64_t>(take.size()), std::move(columns)));
  std::vector<RecordBatchPtr> result;
  if (out->num_rows() > 0) result.push_back(std::move(out));
  return std::unique_ptr<RecordBatchReader>(new VectorRecordBatchReader(node.schema(), std::move(result)));
}

}  // namespace internal

}  // namespace lance::query
