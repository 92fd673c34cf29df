// Full-text search (BM25) as a plan: the FullTextSearch node, planned by Planner::PlanScan when
// ScanOptions::full_text is set (a scan's projection, filter and row-id options apply; its
// offset and limit do not: `k` does).
//
//   FullTextSearch(column, index, query, operator | phrase, k, filter)
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
#include <vector>

#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/query/plan.h"
#include "lance/table/snapshot.h"

namespace lance::query {

struct FullTextQuery {
  std::string query;
  // The column to search (one); empty: the dataset's only column with an INVERTED index.
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
};

inline constexpr const char* kScoreColumn = "_score";

class FullTextSearchNode final : public PlanNode {
 public:
  FullTextSearchNode(std::shared_ptr<const table::Snapshot> snapshot, FullTextQuery query, std::string column,
                     table::IndexInfo index, std::string filter, SchemaPtr schema,
                     std::vector<std::string> take_columns);
  Kind kind() const override { return Kind::kFullTextSearch; }
  std::string name() const override { return "FullTextSearch"; }
  std::string Describe() const override;

  const std::shared_ptr<const table::Snapshot>& snapshot() const { return snapshot_; }
  const FullTextQuery& query() const { return query_; }
  const std::string& column() const { return column_; }
  const table::IndexInfo& index() const { return index_; }
  const std::string& filter() const { return filter_; }
  const SchemaPtr& schema() const { return schema_; }
  // Fragments (manifest positions) the index covers / does not.
  const std::vector<size_t>& indexed_fragments() const { return indexed_; }
  const std::vector<size_t>& unindexed_fragments() const { return unindexed_; }
  const std::vector<std::string>& take_columns() const { return take_columns_; }

 private:
  std::shared_ptr<const table::Snapshot> snapshot_;
  FullTextQuery query_;
  std::string column_;
  table::IndexInfo index_;
  std::string filter_;
  SchemaPtr schema_;
  std::vector<std::string> take_columns_;
  std::vector<size_t> indexed_, unindexed_;
};

// The node for `query` over `snapshot` (the column's first INVERTED index in manifest order;
// a named string column without one is searched flat, as lance 12's FlatMatchQuery: the bare
// simple tokenizer, BM25 over the rows searched, `index()` then has an empty uuid).
// Errors: InvalidArgument (no such column, not a string column, no column named and none
// indexed, several indexed columns and none named, k < 1).
Result<PlanNodePtr> PlanFullTextSearch(std::shared_ptr<const table::Snapshot> snapshot, const FullTextQuery& query,
                                       std::string filter, SchemaPtr schema, std::vector<std::string> take_columns);

namespace internal {
Result<std::unique_ptr<RecordBatchReader>> OpenFullTextSearch(const FullTextSearchNode& node,
                                                              const ExecOptions& options);
}  // namespace internal

}  // namespace lance::query
