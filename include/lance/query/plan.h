// Plan: a small tree of operators that answers one read of a table::Snapshot.
//
// Nodes are of two shapes. Row nodes yield chunks of rows of one fragment each (which rows,
// not yet their columns): a source (FragmentScan: the live rows of fragments, chunk by chunk;
// Take: rows named by scan position or row id, in the caller's order), then operators that
// narrow them (Filter, Limit). The root turns rows into an answer: Project reads the projected
// columns for the rows that reach it (late materialization: a filtered scan decodes its
// projection for the passing rows only) and yields record batches; Count counts them.
//
//   Project(columns, batch_size)          <- root of scans and takes
//     Limit(offset, limit)                <- only when asked for
//       Filter(conjuncts)                 <- only with a filter
//         FragmentScan(fragments, chunk)  or  Take(positions | row ids)
//
// A k-NN search is a KNN root (below) over sub-plans: the prefilter's rows and the rows
// searched exactly.
//
// Execution is pull-based: the reader a plan opens pulls a batch from Project, which pulls row
// chunks from below; Filter and Project each run a bounded number of chunks ahead on the
// thread pool (ExecOptions), so a scan holds a few batches, never the table.
//
// Later sources plug in as further row nodes (see src/query/README.md): a scalar-index lookup
// answering some conjuncts for the fragments its index covers (a Union with a FragmentScan +
// Filter of the others), full-text nodes yielding ordered rows, the LSM merge of a MemWAL
// table's sources (LsmMerge <- LsmSource <- each source's own plan: lance/query/lsm_plan.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/index/scalar/lookup.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/query/filter.h"
#include "lance/query/nearest.h"
#include "lance/table/snapshot.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::query {

// How a plan runs.
struct ExecOptions {
  // Where chunks are filtered and batches materialized (and columns decoded in parallel);
  // null: everything on the calling thread.
  ThreadPool* pool = nullptr;
  // Chunks each of Filter and Project may run ahead of the consumer (>= 1). Bounds a scan's
  // memory: about (prefetch + 1) read units of the projection are alive at once (a unit: the
  // rows of about 256 KiB of decoded columns, at least one batch; batches are slices of it).
  int prefetch = 4;
  // Where index readers keep what they load (ScanOptions::index_cache); null: nothing is kept
  // past the query.
  std::shared_ptr<index::IndexCache> index_cache;
};

class PlanNode {
 public:
  enum class Kind { kFragmentScan, kTake, kIndexLookup, kUnion, kFilter, kLimit, kProject, kCount,
                    kFullTextSearch, kKnn, kHybrid, kLsmMerge, kLsmSource };
  virtual ~PlanNode() = default;
  virtual Kind kind() const = 0;
  // The operator's name, e.g. "FragmentScan".
  virtual std::string name() const = 0;
  // Its parameters and what it reads, one line.
  virtual std::string Describe() const = 0;
  const std::vector<std::shared_ptr<const PlanNode>>& inputs() const { return inputs_; }

 protected:
  std::vector<std::shared_ptr<const PlanNode>> inputs_;
};
using PlanNodePtr = std::shared_ptr<const PlanNode>;

// Source: the live rows of `fragments` (positions in the manifest), in that order, in chunks
// of at most `chunk_rows` physical rows each.
class FragmentScanNode final : public PlanNode {
 public:
  FragmentScanNode(std::shared_ptr<const table::Snapshot> snapshot, std::vector<size_t> fragments,
                   int64_t chunk_rows);
  Kind kind() const override { return Kind::kFragmentScan; }
  std::string name() const override { return "FragmentScan"; }
  std::string Describe() const override;
  const std::shared_ptr<const table::Snapshot>& snapshot() const { return snapshot_; }
  const std::vector<size_t>& fragments() const { return fragments_; }
  int64_t chunk_rows() const { return chunk_rows_; }
  // Why the planner scans fragments an index covers (Explain appends it), e.g. a lookup that
  // would return a large share of their rows.
  void set_note(std::string note) { note_ = std::move(note); }
  const std::string& note() const { return note_; }
  // Whether the scan leaves the pages it maps resident (ScanOptions::keep_mapped_pages).
  void set_keep_mapped_pages(bool keep) { keep_mapped_pages_ = keep; }
  bool keep_mapped_pages() const { return keep_mapped_pages_; }

 private:
  std::shared_ptr<const table::Snapshot> snapshot_;
  std::vector<size_t> fragments_;
  int64_t chunk_rows_;
  std::string note_;
  bool keep_mapped_pages_ = false;
};

// Source: rows named by scan position (0 = the first live row of the snapshot, fragments in
// manifest order) or by row id ("_rowid"), in the given order, repeats kept. Positions must
// be in range (InvalidArgument when executed); row ids that name no live row are skipped.
class TakeNode final : public PlanNode {
 public:
  enum class By { kPosition, kRowId };
  TakeNode(std::shared_ptr<const table::Snapshot> snapshot, By by, std::vector<uint64_t> keys);
  Kind kind() const override { return Kind::kTake; }
  std::string name() const override { return "Take"; }
  std::string Describe() const override;
  const std::shared_ptr<const table::Snapshot>& snapshot() const { return snapshot_; }
  By by() const { return by_; }
  const std::vector<uint64_t>& keys() const { return keys_; }

 private:
  std::shared_ptr<const table::Snapshot> snapshot_;
  By by_;
  std::vector<uint64_t> keys_;
};

// Source: the rows scalar indexes answer: of `fragments` (positions in the manifest, in
// manifest order; every index of `plan` covers them), the live rows where every lookup of
// `plan` is TRUE, ascending, in chunks of at most `chunk_rows` rows. The lookups run when the
// stream is first pulled; only the index pages they need are read (shared page cache).
class IndexLookupNode final : public PlanNode {
 public:
  IndexLookupNode(std::shared_ptr<const table::Snapshot> snapshot,
                  std::shared_ptr<const index::scalar::ScalarIndexCatalog> catalog,
                  index::scalar::IndexPlan plan, std::vector<size_t> fragments, int64_t chunk_rows);
  Kind kind() const override { return Kind::kIndexLookup; }
  std::string name() const override { return "ScalarIndexLookup"; }
  std::string Describe() const override;
  const std::shared_ptr<const table::Snapshot>& snapshot() const { return snapshot_; }
  const std::shared_ptr<const index::scalar::ScalarIndexCatalog>& catalog() const { return catalog_; }
  const index::scalar::IndexPlan& plan() const { return plan_; }
  const std::vector<size_t>& fragments() const { return fragments_; }
  int64_t chunk_rows() const { return chunk_rows_; }

 private:
  std::shared_ptr<const table::Snapshot> snapshot_;
  std::shared_ptr<const index::scalar::ScalarIndexCatalog> catalog_;
  index::scalar::IndexPlan plan_;
  std::vector<size_t> fragments_;
  int64_t chunk_rows_;
};

// The rows of its inputs, fragment by fragment in manifest order (its inputs read disjoint
// sets of fragments, each in manifest order): what a scan of all those fragments would yield.
class UnionNode final : public PlanNode {
 public:
  explicit UnionNode(std::vector<PlanNodePtr> inputs);
  Kind kind() const override { return Kind::kUnion; }
  std::string name() const override { return "Union"; }
  std::string Describe() const override;
};

// The rows of its input where `filter` is TRUE (src/query: lance/query/filter.h).
class FilterNode final : public PlanNode {
 public:
  FilterNode(PlanNodePtr input, std::shared_ptr<const Filter> filter);
  Kind kind() const override { return Kind::kFilter; }
  std::string name() const override { return "Filter"; }
  std::string Describe() const override;
  const std::shared_ptr<const Filter>& filter() const { return filter_; }

 private:
  std::shared_ptr<const Filter> filter_;
};

// Skips `offset` rows of its input, then passes at most `limit`.
class LimitNode final : public PlanNode {
 public:
  LimitNode(PlanNodePtr input, int64_t offset, std::optional<int64_t> limit);
  Kind kind() const override { return Kind::kLimit; }
  std::string name() const override { return "Limit"; }
  std::string Describe() const override;
  int64_t offset() const { return offset_; }
  const std::optional<int64_t>& limit() const { return limit_; }

 private:
  int64_t offset_;
  std::optional<int64_t> limit_;
};

// Root: reads `schema`'s columns (data and system columns, FragmentReader's form) for the rows
// of its input, in batches of at most `batch_size` rows (rows of one fragment per batch).
class ProjectNode final : public PlanNode {
 public:
  ProjectNode(PlanNodePtr input, SchemaPtr schema, int64_t batch_size);
  Kind kind() const override { return Kind::kProject; }
  std::string name() const override { return "Project"; }
  std::string Describe() const override;
  const SchemaPtr& schema() const { return schema_; }
  int64_t batch_size() const { return batch_size_; }

 private:
  SchemaPtr schema_;
  int64_t batch_size_;
};

// Root: the number of rows of its input (no column is read for them).
class CountNode final : public PlanNode {
 public:
  explicit CountNode(PlanNodePtr input);
  Kind kind() const override { return Kind::kCount; }
  std::string name() const override { return "Count"; }
  std::string Describe() const override;
};

// Root: the k nearest rows of a vector column (NearestOptions), as lance 12's nearestTo
// answers, as one or more batches of `schema` (the projection with "_distance"), nearest
// first, ties by row id:
//   * with an index of the metric asked for (and use_index): the ANN over it -- the `nprobes`
//     nearest IVF partitions, each yielding its best k x refine_factor rows by the index's
//     distances; rows that are deleted, of fragments gone since the build, or (prefilter) not
//     among the prefilter's rows are skipped before they take a slot; then, with a refine
//     factor or fragments the index does not cover, the candidates' vectors are taken by row
//     id and re-ranked by exact distance, the uncovered fragments searched exactly (filtered
//     first), and the best k of both kept;
//   * else exact search over every fragment (filtered first).
// Then the postfilter (a filter without prefilter) over those rows, then offset / limit.
// Inputs, when present: the prefilter's row source (Project of "_rowid"), then the rows
// searched exactly (Project of the vector column and "_rowid").
// The vector index a KnnNode searches (KnnNode::Index). Declared outside the node so that
// std::optional<KnnIndex> in the node's constructor sees a complete, default-constructible
// type (clang rejects emplace() on a nested struct with member initializers otherwise).
struct KnnIndex {
  std::shared_ptr<const index::vector::IvfIndex> ivf;
  std::string name;
  std::string uuid;
  std::vector<uint64_t> uncovered;  // fragment ids the index does not cover
  // Some rows of the index may be of fragments this version no longer has (its fragment
  // bitmap names one, or it has none).
  bool may_hold_gone_rows = true;
};

class KnnNode final : public PlanNode {
 public:
  using Index = KnnIndex;

  KnnNode(std::shared_ptr<const table::Snapshot> snapshot, NearestOptions nearest,
          linalg::DistanceType metric, std::optional<Index> index, PlanNodePtr prefilter_rows,
          PlanNodePtr exact_rows, std::shared_ptr<const Filter> postfilter, SchemaPtr schema,
          int64_t offset, std::optional<int64_t> limit);
  Kind kind() const override { return Kind::kKnn; }
  std::string name() const override { return "KNN"; }
  std::string Describe() const override;
  const std::shared_ptr<const table::Snapshot>& snapshot() const { return snapshot_; }
  const NearestOptions& nearest() const { return nearest_; }
  linalg::DistanceType metric() const { return metric_; }
  const std::optional<Index>& index() const { return index_; }
  const PlanNodePtr& prefilter_rows() const { return prefilter_rows_; }
  const PlanNodePtr& exact_rows() const { return exact_rows_; }
  const std::shared_ptr<const Filter>& postfilter() const { return postfilter_; }
  const SchemaPtr& schema() const { return schema_; }
  int64_t offset() const { return offset_; }
  const std::optional<int64_t>& limit() const { return limit_; }

 private:
  std::shared_ptr<const table::Snapshot> snapshot_;
  NearestOptions nearest_;
  linalg::DistanceType metric_;
  std::optional<Index> index_;
  PlanNodePtr prefilter_rows_;
  PlanNodePtr exact_rows_;
  std::shared_ptr<const Filter> postfilter_;
  SchemaPtr schema_;
  int64_t offset_;
  std::optional<int64_t> limit_;
};

class Plan {
 public:
  explicit Plan(PlanNodePtr root) : root_(std::move(root)) {}
  const PlanNodePtr& root() const { return root_; }

  // The tree, one node per line ("Name: description"), inputs indented under their node.
  std::string Explain() const;

  // Runs a plan whose root is a Project, KNN, full-text, hybrid or LsmMerge node: a stream of its batches. Errors of the reads
  // surface from Next(). Errors: InvalidArgument for another root.
  Result<std::unique_ptr<RecordBatchReader>> Execute(const ExecOptions& options) const;
  // Runs a plan whose root is a Count node. Errors: InvalidArgument for another root, and the
  // reads' errors.
  Result<uint64_t> ExecuteCount(const ExecOptions& options) const;

 private:
  PlanNodePtr root_;
};

}  // namespace lance::query
