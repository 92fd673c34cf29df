// Bringing an IVF vector index up to date with the rows appended since it was built, as lance
// 12's optimize_indices does by default for vector indexes: the newest segment and the
// fragments no segment of the index covers become one new segment (a new uuid, covering the
// newest segment's fragments still in the table plus the unindexed ones, keeping the newest
// segment's dataset_version, details and index version). Nothing is trained again: the new
// rows are assigned to the existing centroids (by l2; dot for a dot index; cosine indexes
// normalise them first) and coded with the existing quantizer (the PQ codebook on their
// residuals -- the vectors for dot -- the SQ bounds or the RaBitQ rotation; IVF_FLAT stores
// them). Each partition holds its old rows first, unchanged and in their order, then the new
// rows assigned to it in scan order. index.idx (the centroids) is copied. The caller commits every optimized index in
// one CreateIndex transaction (CommitReplacingSegments), as for scalar indexes.
//
// Every IVF kind is merged. IVF_RQ: the new rows coded with the index's rotation (signs and
// factors of their residuals), the codes packed again per partition. The HNSW kinds: their
// storage merged as IVF_SQ / IVF_PQ / IVF_FLAT, and each partition's graph built anew over its
// rows with the old graphs' parameters (hnsw_rebuild.h), as lance 12's optimize rebuilds them;
// index.idx is then written, not copied.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/core/thread_pool.h"
#include "lance/index/index_metadata.h"
#include "lance/index/scalar/create.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"
#include "lance/table/snapshot.h"

namespace lance::index::vector {

// Whether optimize merges `info` here (an IVF_* index by its details).
bool MergedOnOptimize(const table::IndexInfo& info);

struct VectorOptimizePlan {
  std::string name;
  std::string column;                      // the indexed top-level column
  std::string replaced_uuid;               // the newest segment, merged into the new one
  std::vector<uint32_t> fragment_ids;      // what the new segment covers, ascending
  std::vector<uint32_t> new_fragment_ids;  // of those, the fragments no segment covered
  uint64_t dataset_version = 0;            // the replaced segment's (lance 12 keeps it)
};

// The plan to optimize the vector index `name` of `at`; nullopt when it is up to date (every
// fragment covered, one segment). Errors: NotFound (no index of that name), NotSupported (not
// an index MergedOnOptimize takes, a segment without a fragment bitmap, a nested column).
Result<std::optional<VectorOptimizePlan>> PlanVectorIndexOptimize(const table::Snapshot& at,
                                                                  const std::string& name);

struct MergedVectorSegment {
  NewIndexSegment segment;
  uint64_t num_indexed_rows = 0;  // old rows kept plus new rows
  uint64_t num_new_rows = 0;
};

// Writes the merged segment of `plan` into a fresh `_indices/{uuid}/` through `staged`:
// `rows(at, column)` gives the live rows of the plan's new fragments (with row ids, in scan
// order; null vectors are skipped). Old rows of fragments no longer in the table are dropped.
// Errors: NotSupported (index kind or layout), InvalidArgument (new vectors of another
// dimension or element type), Corruption / IOError reading the old segment, those of `rows`.
Result<MergedVectorSegment> MergeIvfIndexSegment(const table::Snapshot& at, const VectorOptimizePlan& plan,
                                                 const scalar::TrainingRows& rows, ThreadPool* pool,
                                                 table::StagedFiles* staged);

}  // namespace lance::index::vector
