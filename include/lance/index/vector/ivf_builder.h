// Building IVF_FLAT / IVF_PQ indexes over a table's float32 vector column in lance 12's format
// (the files ivf_index.h describes) and committing them (index_metadata.h: a CreateIndex
// transaction with the lance.index.pb.VectorIndexDetails lance 12 records), so that lance 12
// lists, opens and searches them.
//
// Training, as the reference does it: cosine indexes work on unit-normalised vectors (stored
// normalised, probed by l2); IVF centroids are k-means (linalg::TrainKMeans: seeded, at most
// sample_rate x partitions sampled rows); every non-null vector is assigned to its nearest
// centroid; PQ codebooks are one k-means of 2^bits centroids per sub-vector, trained on a
// sample of at most sample_rate x 2^bits residuals (vector - its centroid; the vectors
// themselves for dot), and each row is coded by the nearest centroid of each sub-vector.
// IVF_HNSW_SQ: one [min, max] of a sample of at most sample_rate x 256 vectors' values as the
// SQ bounds, every vector coded; each partition's HNSW graph (hnsw.h: seeded, deterministic,
// built over the SQ distances) built on its own, partitions in parallel on `pool`.
// Hamming (IVF_FLAT only, over fixed_size_list<uint8>, as lance 12): k-modes centroids
// (linalg/kmodes.h), stored as a uint8 tensor, the vectors stored as they are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/core/thread_pool.h"
#include "lance/index/scalar/create.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/linalg/kmeans.h"
#include "lance/table/commit.h"
#include "lance/table/location.h"
#include "lance/table/snapshot.h"

namespace lance::index::vector {

struct IvfBuildOptions {
  IndexKind kind = IndexKind::kIvfPq;  // kIvfFlat, kIvfPq or kIvfHnswSq
  linalg::DistanceType metric = linalg::DistanceType::kL2;  // l2, cosine, dot; hamming: kIvfFlat
  size_t num_partitions = 0;   // 0: sqrt(rows), at least 1
  size_t num_sub_vectors = 0;  // 0: dim / 16 when it divides, else dim / 8, else 1
  uint32_t num_bits = 8;       // only 8 is written so far
  int max_iterations = 50;
  size_t sample_rate = 256;
  uint64_t seed = 0;
  // How the IVF k-means starts. Unset: k-means++ for l2 and cosine (better partitions than the
  // reference's on clustered data, src/index/README.md "IVF_PQ recall"), the reference's k
  // distinct random rows for dot (k-means++ draws by l2 distance, which dot partitions do not
  // follow: recall fell by 0.04-0.05 on the interop data).
  std::optional<linalg::KMeansOptions::Init> ivf_init;
  // IVF_HNSW_SQ: the graph of each partition (lance's defaults from node: m 20, ef 300).
  size_t hnsw_m = 20;
  size_t ef_construction = 300;
  uint16_t max_level = 7;
  // Given IVF centroids (num_partitions x dim values, the stored form: normalised for cosine),
  // used as they are instead of k-means ones.
  std::optional<std::vector<float>> centroids;
  std::string name;            // "": "{column}_idx"
  bool replace = false;        // replace an index of the same name
  ThreadPool* pool = nullptr;  // k-means assignment; null: the calling thread
  table::CommitOptions commit;  // how the CreateIndex transaction commits
};

struct IvfBuildSummary {
  std::string name;
  std::string uuid;
  uint64_t version = 0;   // the committed version
  uint64_t num_rows = 0;  // vectors indexed (null vectors are skipped)
  size_t num_partitions = 0;
  size_t num_sub_vectors = 0;
};

// Builds the index of `column` of the version `at` from `rows(at, column)` (its live rows with
// row ids in scan order, as for a scalar index: query::CollectTrainingData reads them; this
// layer reads no rows itself), called once the column and the options are checked, and
// commits it on that version.
// Errors: InvalidArgument (unknown column, not a float32 fixed_size_list, fewer non-null rows
// than partitions or than 2^bits for PQ, a sub-vector count that does not divide the
// dimension, training rows whose values and row ids disagree in number), NotSupported (other
// index kinds, 4-bit PQ), AlreadyExists (name taken and not `replace`), CommitConflict,
// IOError, and those of `rows`.
Result<IvfBuildSummary> CreateVectorIndex(const table::Snapshot& at, const std::string& column,
                                          const scalar::TrainingRows& rows,
                                          const IvfBuildOptions& options);

// The index CreateVectorIndex builds, written through `staged` into a fresh `_indices/{uuid}/`
// of `at` (its files recorded there) but not committed: its segment, for the caller's commit
// (options.replace and options.commit unused). Errors: as CreateVectorIndex's before it commits.
Result<NewIndexSegment> BuildVectorIndexSegment(const table::Snapshot& at, const std::string& column,
                                                const scalar::TrainingRows& rows, const IvfBuildOptions& options,
                                                table::StagedFiles* staged);

}  // namespace lance::index::vector
