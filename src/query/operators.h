// The operators that execute plan nodes (lance/query/plan.h): pull-based streams of row chunks
// for the row nodes, a RecordBatchReader for Project, a counter for Count.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/query/fragment_reader.h"
#include "lance/query/lsm_plan.h"
#include "lance/query/plan.h"
#include "lance/query/row_selection.h"

namespace lance::query::internal {

// Rows of one fragment on their way up a plan: `rows` (physical rows, not deleted) were cut
// from the span [span_start, span_start + span_length) of a scan, ascending; a take's chunks
// have no span (span_length 0) and rows in the caller's order.
struct RowChunk {
  std::shared_ptr<const FragmentReader> fragment;
  int64_t span_start = 0;
  int64_t span_length = 0;
  RowSelection rows;
};

class RowStream {
 public:
  virtual ~RowStream() = default;
  // The next chunk (never empty), or nullopt at the end. After an error the stream must not
  // be used again.
  virtual Result<std::optional<RowChunk>> Next() = 0;
};

// The stream of a row node (FragmentScan, Take, Filter, Limit).
Result<std::unique_ptr<RowStream>> OpenRows(const PlanNodePtr& node, const ExecOptions& options);
// The batches of a Project node.
Result<std::unique_ptr<RecordBatchReader>> OpenProject(const ProjectNode& node,
                                                       const ExecOptions& options);
// The batches of a KNN node (src/query/knn.cc).
Result<std::unique_ptr<RecordBatchReader>> RunKnn(const KnnNode& node, const ExecOptions& options);
// The batches of an LsmMerge node (src/query/lsm_merge.cc); `stats` may be null.
Result<std::unique_ptr<RecordBatchReader>> OpenLsmMerge(std::shared_ptr<const LsmMergeNode> node,
                                                        const ExecOptions& options,
                                                        std::shared_ptr<memwal::LsmReadStats> stats);
// An LsmMerge node that answers by point lookups (src/query/lsm_scan.cc).
Result<std::unique_ptr<RecordBatchReader>> OpenLsmPointLookups(std::shared_ptr<const LsmMergeNode> node,
                                                               const ExecOptions& options,
                                                               std::shared_ptr<memwal::LsmReadStats> stats);
// The count of a Count node.
Result<uint64_t> RunCount(const CountNode& node, const ExecOptions& options);

// Every chunk of a FragmentScan node, its fragments opened (for operations that run the filter
// over all chunks at once: counts and FindMatches).
Result<std::vector<RowChunk>> AllChunks(std::shared_ptr<const FragmentScanNode> node,
                                        ThreadPool* pool);

}  // namespace lance::query::internal
