// k-nearest-neighbour search of a table's vector column, as lance 12's nearestTo(...) answers
// it: through the column's first vector index (manifest order) when there is one and its
// metric is the one asked for, else exact. Until the query layer plans k-NN (issue 10), this
// is the index API it will call.
//
// With an index: deleted rows (and rows of fragments gone since the index was built) are
// skipped before they take a slot; each probed partition yields k x refine_factor rows; with a
// refine factor, or when some fragments are not covered by the index, the candidates are
// re-scored with exact distances over the stored vectors, the uncovered fragments are
// searched exactly, and the best k of both are returned. Results are ordered by distance, then
// row id. Distances are lance 12's (squared l2, 1 - cos, 1 - dot; index distances are the
// quantized ones, see ivf_index.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/core/thread_pool.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/linalg/topk.h"
#include "lance/table/snapshot.h"

namespace lance::index::vector {

struct VectorSearchOptions {
  std::string column;
  AnnQuery query;
  // The metric to rank by; unset: the index's (l2 without an index). An index of another
  // metric is not used.
  std::optional<linalg::DistanceType> metric;
  bool bypass_index = false;  // exact search even when an index exists
  ThreadPool* pool = nullptr;  // for exact scans; null: the calling thread
};

struct VectorSearchResult {
  std::vector<linalg::Neighbor> rows;  // Neighbor::row is the _rowid
  // The index searched (empty: exact search).
  std::string index_name;
  std::string index_uuid;
  std::optional<IndexKind> index_kind;
};

// The first vector index of `column` in the manifest, or null.
const table::IndexInfo* FindVectorIndex(const table::Snapshot& snapshot, const std::string& column);

// Errors: InvalidArgument (unknown column, not a float vector column, dimension mismatch),
// NotSupported (an index type not implemented), Corruption / IOError from the files.
Result<VectorSearchResult> SearchTable(const table::Snapshot& snapshot,
                                       const VectorSearchOptions& options);

// Many queries over one snapshot: the index is opened and the deleted rows are collected
// once, then each Search(query) answers as SearchTable would with options.query = query.
class VectorSearcher {
 public:
  // `options.query` is ignored (each Search gives its own). Errors: as SearchTable.
  static Result<std::unique_ptr<VectorSearcher>> Make(std::shared_ptr<const table::Snapshot> snapshot,
                                                      VectorSearchOptions options);
  ~VectorSearcher();
  Result<VectorSearchResult> Search(const AnnQuery& query) const;

 private:
  struct State;
  VectorSearcher() = default;
  std::unique_ptr<State> state_;
};

}  // namespace lance::index::vector
