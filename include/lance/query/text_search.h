// Full-text search (BM25) as a plan: FullTextSearch nodes, planned by Planner::PlanScan when
// ScanOptions::full_text is set (a scan's projection, filter and row-id options apply; its
// offset and limit do not: `k` does). A query is a tree (FullTextQuery): each leaf is one
// FullTextSearch node over one column; boost, boolean and multi-match queries are nodes that
// merge their inputs' scored rows as lance 12 merges them.
//
//   FullTextSearch(column, index, query, operator | phrase + slop, k, filter), a leaf:
//     - the index's partitions (index::fts::InvertedIndex::Search) for the fragments it covers,
//       scored with the index's statistics;
//     - a flat search of the fragments it does not cover (rows appended after it): tokenized
//       with the index's tokenizer and scored with the index's statistics plus their own (as
//       lance 12 does);
//     - deleted rows never; with a filter, only rows where it holds (a prefilter);
//     - best `k` by score (ties by row id), then the projection taken for them, `_score` last.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/query/plan.h"
#include "lance/table/snapshot.h"

namespace lance::query {

// How a clause of a boolean query counts (lance 12's Occur).
enum class Occur { kShould, kMust, kMustNot };

// One full-text query, as a tree: a leaf is a match query (tokens OR / AND, optionally fuzzy)
// or a phrase query (with slop) over one column; a compound is a multi-match (match leaves,
// one per column), a boost or a boolean query over child queries. lance 12 scores each as:
//   match       BM25 (sum over the query's tokens) x `boost`;
//   phrase      BM25 of the rows holding the tokens in order, each within `slop` positions
//               of where the previous one puts it (slop 0: exactly there);
//   multi-match the best of its children's scores (each child a match with its own boost);
//   boost       children[0]'s rows, minus negative_boost x children[1]'s score where both match;
//   boolean     children by their `occur`: the rows of every must (scores summed) plus the
//               should scores of those rows; with no must, the rows of any should (summed);
//               rows of any must_not dropped. At least one must or should.
// `k` counts at the root and for a multi-match's columns (other children are searched whole,
// as lance 12 searches them).
struct FullTextQuery {
  enum class Kind { kLeaf, kMultiMatch, kBoost, kBoolean };

  std::string query;
  // The column to search. Empty: the dataset's column with an INVERTED index; a match over
  // several columns, or over none while several have indexes, is a multi-match over them (each
  // column's match with this one's settings), as lance 12 answers it.
  std::vector<std::string> columns;
  int64_t k = 10;
  bool and_operator = false;  // every token must match (else any)
  bool phrase = false;        // the tokens in order at adjacent positions (needs positions)
  // Fuzzy match (not with `phrase`), as lance 12's MatchQuery: fuzziness > 0 tokenizes the
  // query with the bare simple tokenizer (no lower-casing, stemming or stop words, as lance 12
  // does) and expands each token over each partition's dictionary to the tokens within
  // `fuzziness` edits sharing its first `prefix_length` bytes, at most `max_expansions` in all
  // (index::fts::FuzzyOptions). Rows the index does not cover match the query's exact tokens.
  uint32_t fuzziness = 0;
  size_t max_expansions = 50;
  uint32_t prefix_length = 0;
  uint32_t slop = 0;     // phrase: positions a token may stray after the previous one
  float boost = 1.0f;    // match: its scores multiplied by this

  Kind kind = Kind::kLeaf;
  // kMultiMatch: the match leaves; kBoost: {positive, negative}; kBoolean: the clauses, each
  // with its `occur`.
  std::vector<FullTextQuery> children;
  Occur occur = Occur::kShould;  // as a boolean clause
  float negative_boost = 0.5f;   // kBoost

  static FullTextQuery Match(std::string text, std::string column, bool and_operator = false);
  static FullTextQuery Phrase(std::string text, std::string column, uint32_t slop = 0);
  // One match of `text` per column, each with its boost (none given: 1 each).
  static FullTextQuery MultiMatch(std::string text, std::vector<std::string> columns,
                                  std::vector<float> boosts = {}, bool and_operator = false);
  static FullTextQuery Boost(FullTextQuery positive, FullTextQuery negative, float negative_boost = 0.5f);
  static FullTextQuery Boolean(std::vector<std::pair<Occur, FullTextQuery>> clauses);
};

inline constexpr const char* kScoreColumn = "_score";

// One node per query of the tree: a leaf node searches one column (match or phrase); a
// combining node (`combine()` other than kNone) merges its inputs' scored rows: kMax (a
// multi-match: one leaf per column), kBoost, kBoolean (the inputs' queries carry `occur`).
class FullTextSearchNode final : public PlanNode {
 public:
  enum class Combine { kNone, kMax, kBoost, kBoolean };
  FullTextSearchNode(std::shared_ptr<const table::Snapshot> snapshot, FullTextQuery query, std::string column,
                     table::IndexInfo index, std::string filter, SchemaPtr schema,
                     std::vector<std::string> take_columns);
  FullTextSearchNode(std::shared_ptr<const table::Snapshot> snapshot, FullTextQuery query, Combine combine,
                     std::vector<PlanNodePtr> inputs, std::string filter, SchemaPtr schema,
                     std::vector<std::string> take_columns);
  Kind kind() const override { return Kind::kFullTextSearch; }
  std::string name() const override { return "FullTextSearch"; }
  std::string Describe() const override;

  const std::shared_ptr<const table::Snapshot>& snapshot() const { return snapshot_; }
  const FullTextQuery& query() const { return query_; }
  Combine combine() const { return combine_; }
  const std::string& column() const { return column_; }
  const table::IndexInfo& index() const { return index_; }
  const std::string& filter() const { return filter_; }
  const SchemaPtr& schema() const { return schema_; }
  // Fragments (manifest positions) the index covers / does not (a leaf's).
  const std::vector<size_t>& indexed_fragments() const { return indexed_; }
  const std::vector<size_t>& unindexed_fragments() const { return unindexed_; }
  const std::vector<std::string>& take_columns() const { return take_columns_; }

 private:
  std::shared_ptr<const table::Snapshot> snapshot_;
  FullTextQuery query_;
  Combine combine_ = Combine::kNone;
  std::string column_;
  table::IndexInfo index_;
  std::string filter_;
  SchemaPtr schema_;
  std::vector<std::string> take_columns_;
  std::vector<size_t> indexed_, unindexed_;
};

// The node tree for `query` over `snapshot`. A leaf searches its column's first INVERTED index
// in manifest order; a named string column without one is searched flat, as lance 12's
// FlatMatchQuery: the bare simple tokenizer, BM25 over the rows searched, `index()` then has an
// empty uuid. Errors: InvalidArgument (no such column, not a string column, no column named
// and none indexed, a phrase naming no column while several are indexed, k < 1, a boolean
// query without a must or should clause, a boost query without its two children, a
// multi-match child that is not a match over one column).
Result<PlanNodePtr> PlanFullTextSearch(std::shared_ptr<const table::Snapshot> snapshot, const FullTextQuery& query,
                                       std::string filter, SchemaPtr schema, std::vector<std::string> take_columns);

namespace internal {
Result<std::unique_ptr<RecordBatchReader>> OpenFullTextSearch(const FullTextSearchNode& node,
                                                              const ExecOptions& options);
}  // namespace internal

}  // namespace lance::query
