// Planner: turns a read request (ScanOptions) on a table::Snapshot into a Plan.
//
//   scan:   Project <- [Limit] <- [Filter] <- FragmentScan
//   count:  Count   <- [Limit] <- [Filter] <- FragmentScan   (no filter, no limit: metadata)
//   take:   Project <- Take
//
// The planner is the one place that decides how a read runs: which fragments, the chunk size
// of the scan (the batch size without a filter: one chunk is one batch; kFilterChunkRows with
// one: small enough that a chunk's filter columns stay in the core's cache), where the filter
// goes and what Project reads. Later issues teach it to answer conjuncts from scalar indexes,
// and to plan k-NN / full-text / LSM-merge sources (src/query/README.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/query/hybrid.h"
#include "lance/query/plan.h"
#include "lance/query/text_search.h"
#include "lance/table/snapshot.h"

namespace lance {
class ThreadPool;
}  // namespace lance
namespace lance::index {
class IndexCache;
}  // namespace lance::index

namespace lance::query {

// Rows per batch when ScanOptions::batch_size is 0: lance 12's default for local files
// (max(8192, object store block size / 4)).
inline constexpr int64_t kDefaultBatchSize = 8192;
// Physical rows per filter chunk.
inline constexpr int64_t kFilterChunkRows = 8192;
// An index lookup estimated (ScalarIndexCatalog::EstimateRows: BTree pages, bitmap sizes) to
// return more than this share of the rows of the fragments it covers is not used: the scan
// reads the filter's columns in order and tests them faster than the rows can be gathered one
// by one from an index answer that broad. Only for at least kIndexShareMinRows covered rows
// (below that either plan is quick, and the index saves the reads).
inline constexpr double kIndexMaxShare = 0.40;
inline constexpr uint64_t kIndexShareMinRows = 64 * 1024;
// An FM index's estimate counts the needle's occurrences (the suffix-array range sizes of its
// backward searches), and each is located by up to kFmSampleRate LF walks through the wavelet
// tree: on the harness's rows of 10-30 words one located occurrence costs about as much as
// scanning this many rows (bench/README.md, FM share rule), so an FM lookup is weighed at its
// occurrences times this against kIndexMaxShare -- through the index below about 1 % of the
// covered rows, scanned above.
inline constexpr double kFmLocateCostRows = 40;

struct ScanOptions {
  // Output columns, in order: top-level names of the dataset's schema and the system columns
  // "_rowid" / "_rowaddr" anywhere; empty = every data column.
  std::vector<std::string> columns;
  // Also append "_rowid" / "_rowaddr" (uint64) when `columns` does not name them.
  bool with_row_id = false;
  bool with_row_addr = false;
  // A SQL-like condition (lance/expr/ast.h), e.g. "score > 50 AND category = 'c7'"; empty =
  // every row. It may use any column (not only `columns`), struct fields as a.b, and
  // "_rowid" / "_rowaddr". Offset and limit count rows after filtering.
  std::string filter;
  int64_t offset = 0;            // rows to skip (after deletions and the filter)
  std::optional<int64_t> limit;  // at most this many rows
  // At most this many rows per batch; 0 = kDefaultBatchSize.
  int64_t batch_size = 0;
  // Read only the fragments with these ids (in manifest order, whatever the order here; ids
  // the version does not have are ignored, as lance-c's lance_scanner_set_fragment_ids);
  // unset = every fragment. Scan positions of Take count every fragment regardless.
  std::optional<std::vector<uint64_t>> fragment_ids;
  // Where the scan runs (see ExecOptions); null = ThreadPool::Default().
  ThreadPool* pool = nullptr;
  // Chunks Filter and Project run ahead (ExecOptions::prefetch); 0 = the pool's thread count
  // (at least 2, at most 8).
  int prefetch = 0;
  // Where the scalar, vector and full-text index readers of the query keep what they load
  // (opened segments, pages, the version's index catalog) for later queries given the same
  // cache: a Dataset's scans get the Dataset's (lance/index/index_cache.h). Null: each query
  // opens what it needs and keeps nothing.
  std::shared_ptr<index::IndexCache> index_cache;
  // Answer the conjuncts a scalar index can from the index (lance/index/scalar/lookup.h) for
  // the fragments it covers; false: every row is filtered (the results are the same).
  bool use_index = true;
  // Leave the pages of the data files the scan memory-maps resident. By default a scan lets
  // go of each fragment's pages once it has passed it (table::Snapshot::ReleaseMappedPages),
  // so its memory stays flat; a scan repeated over the same snapshot (the exact search of a
  // k-NN query, which reads the whole vector column every query) keeps them instead, or each
  // query faults the column in again (at 1M x 128: ~19 ms of kernel time of ~75 per query).
  bool keep_mapped_pages = false;
  // A full-text (BM25) search instead of a scan (lance/query/text_search.h): the best `k` rows
  // matching, best first, with a `_score` column (float32) after the projection; `filter`
  // selects the rows searched; offset and limit are refused.
  std::optional<FullTextQuery> full_text;
  // A k-NN search instead of a scan: the output is the projection plus "_distance" (placed
  // before the "_rowid" / "_rowaddr" that with_row_id / with_row_addr append); offset and
  // limit apply to its rows. fragment_ids and batch_size do not apply.
  // With `full_text` also set: a hybrid search (lance/query/hybrid.h): both searches, each for
  // its own k, fused by `fusion`, the best `nearest->k` rows; output: the projection, "_score",
  // "_rowid" (with_row_id), "_relevance_score". Offset, limit and with_row_addr are refused.
  std::optional<NearestOptions> nearest;
  HybridFusion fusion;
};

class Planner {
 public:
  explicit Planner(std::shared_ptr<const table::Snapshot> snapshot)
      : snapshot_(std::move(snapshot)) {}

  // The schema of the batches a scan or take with `options` yields (the dataset's schema
  // metadata kept). Errors: InvalidArgument for an unknown column.
  Result<SchemaPtr> OutputSchema(const ScanOptions& options) const;

  // Errors (all InvalidArgument): an unknown column, a filter that does not parse or bind,
  // a negative offset / limit / batch size.
  Result<Plan> PlanScan(const ScanOptions& options) const;
  // The rows a scan would yield, counted (only the filter's columns are read).
  Result<Plan> PlanCount(const ScanOptions& options) const;
  // Rows at scan positions / with row ids (see TakeNode). The options' projection and batch
  // size apply; a filter is refused (InvalidArgument); offset, limit and fragment ids do not
  // apply.
  Result<Plan> PlanTake(std::vector<uint64_t> positions, const ScanOptions& options) const;
  Result<Plan> PlanTakeRowIds(std::vector<uint64_t> row_ids, const ScanOptions& options) const;

  // A k-NN search (options.nearest set): see KnnNode. Errors (InvalidArgument): those of
  // PlanScan, a column that is not a vector column, a query of another dimension, k == 0.
  Result<Plan> PlanNearest(const ScanOptions& options) const;
  // A hybrid search (options.nearest and options.full_text set): see HybridSearchNode. Errors
  // (InvalidArgument): those of PlanNearest and of the full-text search, an offset or limit,
  // with_row_addr, a system column among the columns, a non-positive RRF constant.
  Result<Plan> PlanHybrid(const ScanOptions& options) const;

  // The ExecOptions of `options` (the pool and prefetch defaults resolved).
  static ExecOptions ExecOptionsOf(const ScanOptions& options);

 private:
  Result<PlanNodePtr> RowSource(const ScanOptions& options, bool for_count) const;
  // The rows scalar indexes answer for the chosen fragments they cover (a ScalarIndexLookup,
  // with a Filter of the conjuncts they do not answer), those fragments taken out of
  // `chosen`; null when no index helps, with `*why_scan` set when an index could answer but
  // a scan is cheaper (kIndexMaxShare).
  Result<PlanNodePtr> IndexedSource(const ScanOptions& options, std::vector<size_t>* chosen,
                                    std::string* why_scan) const;

  std::shared_ptr<const table::Snapshot> snapshot_;
};

}  // namespace lance::query
