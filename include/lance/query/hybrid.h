// Hybrid search: a vector (k-NN) search and a full-text (BM25) search of the same table, fused
// into one ranking, as lancedb answers query().nearestTo(v).fullTextSearch(q) (its default
// reranker, RRFReranker). Planned by Planner::PlanScan when ScanOptions sets both `nearest` and
// `full_text`:
//
//   HybridSearch(fusion, k)
//     KNN(...)              the vector search, with "_rowid"
//     FullTextSearch(...)   the text search, with "_rowid"
//
// How the two lists are fused (lancedb's execute_hybrid and RRFReranker, as read in its source):
//   1. each list's own score is min-max normalised in float32: `_distance` of the vector list,
//      `_score` of the text list: (s - min) / range, range = max - min, or max when
//      max - min < 1e-4, and the scores left as they are when that range is 0 (so nearest and
//      best are not told apart by direction: the nearest row's normalised distance is 0 and
//      the best text row's normalised score is 1);
//   2. every row of each list gets 1 / (rank0 + rrf_k) (float32, rank0 from 0), the vector
//      list first, a row in both lists summing its two;
//   3. the rows, the vector list first then the text rows not already in it (by row id), are
//      sorted by that sum, descending; equal sums keep that merged order (lancedb's sort is
//      unstable in general but an insertion sort, so stable, up to 20 rows: two lists of
//      k <= 10);
//   4. the first k rows are kept.
// The filter runs first on both searches; with a postfilter (NearestOptions::prefilter false)
// it runs on each search's k rows instead (fewer rows may be left), as lancedb's postfilter().
// Output: the projection, "_score" (the row's normalised score in the list it was taken from:
// its normalised distance for a row of the vector list, its normalised BM25 score for one
// only in the text list -- lancedb concatenates the two lists by column position), "_rowid"
// when asked for, then "_relevance_score" (float32), best first.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/query/plan.h"

namespace lance::query {

// How a hybrid search fuses its two result lists (ScanOptions::fusion).
struct HybridFusion {
  // Reciprocal-rank fusion's constant (lancedb's RRFReranker default, from Cormack et al.).
  float rrf_k = 60.0f;
};

inline constexpr const char* kRelevanceScoreColumn = "_relevance_score";

class HybridSearchNode final : public PlanNode {
 public:
  // `vector` is a KNN root and `text` a FullTextSearch node, both yielding "_rowid".
  // `text_postfilter`: with a postfilter (NearestOptions::prefilter false), both searches run
  // unfiltered and this filter is applied to each one's k rows (as lancedb's postfilter() does,
  // with or without a vector index); null otherwise.
  HybridSearchNode(PlanNodePtr vector, PlanNodePtr text, HybridFusion fusion, int64_t k, bool with_row_id,
                   SchemaPtr schema, std::shared_ptr<const Filter> text_postfilter);
  Kind kind() const override { return Kind::kHybrid; }
  std::string name() const override { return "HybridSearch"; }
  std::string Describe() const override;
  const PlanNodePtr& vector() const { return inputs_[0]; }
  const PlanNodePtr& text() const { return inputs_[1]; }
  const HybridFusion& fusion() const { return fusion_; }
  int64_t k() const { return k_; }
  bool with_row_id() const { return with_row_id_; }
  const SchemaPtr& schema() const { return schema_; }
  const std::shared_ptr<const Filter>& text_postfilter() const { return text_postfilter_; }

 private:
  HybridFusion fusion_;
  int64_t k_;
  bool with_row_id_;
  SchemaPtr schema_;
  std::shared_ptr<const Filter> text_postfilter_;
};

namespace internal {
Result<std::unique_ptr<RecordBatchReader>> RunHybrid(const HybridSearchNode& node, const ExecOptions& options);
}  // namespace internal

}  // namespace lance::query
