// IVF vector indexes in lance 12's format (index file version 3): reading, searching.
//
// An index is two Lance files in `_indices/{uuid}/` (lance-format/lance
// docs/src/format/index/vector/index.md):
//   index.idx      the sub-index (FLAT: no rows, one `__flat_marker: uint64` column); schema
//                  metadata "lance:index" = {"type": "IVF_PQ", "distance_type": "l2"},
//                  "lance:ivf" = the global buffer holding the IVF message (centroids tensor
//                  [partitions, dim], k-means loss), "lance:flat" = one "" per partition;
//   auxiliary.idx  the vector storage, partitions one after the other (the IVF message of its
//                  "lance:ivf" buffer gives each partition's first row and length): `_rowid`
//                  (uint64) plus `flat` (fixed_size_list<float, dim>: the vectors, unit-normalised
//                  for cosine) for IVF_FLAT, or `__pq_code` (fixed_size_list<uint8, m>) for
//                  IVF_PQ, whose codes are stored *transposed* within each partition (all rows'
//                  sub-vector 0 codes, then sub-vector 1, ...) when storage_metadata says
//                  "transposed"; the PQ codebook is a Tensor [256, dim] in the global buffer
//                  "codebook_position" names (sub-vector s's 256 centroids at s * 256 * dim/m).
// IVF_HNSW_SQ keeps one HNSW graph per partition in index.idx and 8-bit SQ codes
// (`__sq_code`) in auxiliary.idx; src/index/vector/hnsw.h describes both. IVF_RQ keeps RaBitQ
// sign codes (`_rabit_codes`) and per-row factors in auxiliary.idx (docs/vector-rq.md).
//
// Search follows lance 12: a cosine index normalises the query and ranks partitions by l2 (dot
// by dot distance, l2 by l2); each of the `nprobes` nearest partitions yields its best
// k x refine_factor rows; l2 and cosine PQ indexes score the residual (query - centroid)
// against the codebook through a per-query distance table summed in sub-vector order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/linalg/distance.h"
#include "lance/linalg/topk.h"

namespace lance::index {
class IndexStore;
}
namespace lance::file {
class FileReader;
}

namespace lance::index::vector {

// The index types of lance 12 (indexStats().indexType spells them).
enum class IndexKind : uint8_t { kIvfFlat, kIvfPq, kIvfSq, kIvfRq, kIvfHnswFlat, kIvfHnswSq, kIvfHnswPq };
std::string_view IndexKindName(IndexKind kind);  // "IVF_FLAT", "IVF_PQ", ...
// IVF_HNSW_FLAT / _SQ / _PQ: an HNSW graph per partition in index.idx.
inline bool IsHnswKind(IndexKind kind) {
  return kind == IndexKind::kIvfHnswFlat || kind == IndexKind::kIvfHnswSq || kind == IndexKind::kIvfHnswPq;
}
Result<IndexKind> ParseIndexKind(std::string_view name);  // those names, any case

// The IVF clustering: centroids and where each partition's rows are in auxiliary.idx.
struct IvfModel {
  size_t dim = 0;
  std::vector<float> centroids;   // num_partitions() x dim (empty for hamming)
  // A hamming index (binary vectors of `dim` uint8 values): its uint8 centroids, num_partitions() x dim.
  std::vector<uint8_t> binary_centroids;
  std::vector<uint64_t> offsets;  // first row of each partition
  std::vector<uint32_t> lengths;  // rows of each partition
  std::optional<double> loss;
  size_t num_partitions() const { return lengths.size(); }
  const float* centroid(size_t p) const { return centroids.data() + p * dim; }
};

// A product quantizer: `num_sub_vectors` sub-vectors of dim / num_sub_vectors values, each
// coded by its nearest of 2^num_bits centroids.
struct PqCodebook {
  uint32_t num_bits = 8;
  size_t num_sub_vectors = 0;
  size_t dim = 0;
  // [num_sub_vectors][2^num_bits][dim / num_sub_vectors], lance's flat codebook layout.
  std::vector<float> centroids;
  // The same packed by 8 per sub-vector for the l2 distance tables (PackPqCodebook in
  // pq_distance.h), once at index open; empty: each table packs its own.
  std::vector<float> packed_by8;
  size_t sub_dim() const { return dim / num_sub_vectors; }
  size_t num_centroids() const { return size_t{1} << num_bits; }
  const float* centroid(size_t sub, size_t code) const {
    return centroids.data() + (sub * num_centroids() + code) * sub_dim();
  }
};

struct AnnQuery {
  std::vector<float> vector;
  size_t k = 10;
  size_t nprobes = 20;                    // partitions searched (lance's minimum = maximum)
  std::optional<uint32_t> refine_factor;  // each partition yields k x refine_factor rows
  // HNSW indexes: the results kept while searching a partition's graph (lance's ef; unset:
  // 1.5 x k x refine_factor). Must be at least k x refine_factor.
  std::optional<size_t> ef;
};


struct HnswStorage;
struct IvfPartition;
struct RabitqStorage;
struct GraphLayout;

// What index.idx's "lance:index" metadata says of a vector index: its type and metric.
struct IvfIndexHeader {
  IndexKind kind = IndexKind::kIvfFlat;
  linalg::DistanceType metric = linalg::DistanceType::kL2;
};
// Reads that alone, without the centroids or the storage IvfIndex::Open loads.
// Errors: NotFound, Corruption, NotSupported (a type this reader does not know).
Result<IvfIndexHeader> ReadIvfIndexHeader(const std::shared_ptr<IndexStore>& files);

class IvfIndex {
 public:
  // Opens `dir` (the index directory, e.g. "<table>/_indices/<uuid>") in `store`: both files'
  // metadata, centroids, codebook, row ids and codes (the whole storage is loaded).
  // Errors: NotFound, Corruption naming the file and field that is malformed, NotSupported for
  // index types / layouts not implemented (multi-bit RQ, 4-bit PQ, IVF_SQ with dot, hamming
  // other than IVF_FLAT's over uint8 vectors).
  static Result<std::shared_ptr<IvfIndex>> Open(std::shared_ptr<io::ObjectStore> store,
                                                const std::string& dir);
  // The same through the index's IndexStore (index_store.h: its files and page cache).
  static Result<std::shared_ptr<IvfIndex>> Open(const std::shared_ptr<IndexStore>& files);
  // The same, opened by partition: index.idx's header and centroids, auxiliary.idx's partition
  // table and quantizer (codebook, SQ bounds) and the graphs' metadata are read here; a
  // partition's rows, codes and graph are read by the first Search that probes it and kept in
  // `files`' IndexCache as an entry of their own (ivf_partition.h), so a segment larger than the
  // cache keeps its most recently probed partitions; one evicted is read again by the next
  // Search that probes it. Malformed partition data is reported by that Search. IVF_RQ is read
  // whole (its storage is one entry with the index). row_ids(), code(i), stored_vector(i) and
  // stored_binary_vector(i) are for an index read whole (Open) only.
  static Result<std::shared_ptr<IvfIndex>> OpenByPartition(const std::shared_ptr<IndexStore>& files);
  // Partition p's storage: held by an index read whole, else through the cache (read on a miss).
  // Not for IVF_RQ (NotSupported). Thread-safe.
  // Errors: InvalidArgument (p out of range), Corruption / NotSupported naming the file, IOError.
  Result<std::shared_ptr<const IvfPartition>> Partition(size_t p) const;
  // Reads partition p's storage (and graph) into the cache when it is not there. Thread-safe.
  // Errors: as Partition (IVF_RQ: OK, it is read at open).
  Status LoadPartition(size_t p) const;

  IndexKind kind() const { return kind_; }
  linalg::DistanceType metric() const { return metric_; }
  const IvfModel& ivf() const { return ivf_; }
  const PqCodebook* pq() const { return pq_ ? &*pq_ : nullptr; }
  // IVF_RQ's storage (src/index/vector/rabitq_index.h); null for other kinds.
  const RabitqStorage* rq() const { return rq_.get(); }
  size_t dim() const { return ivf_.dim; }
  size_t num_rows() const { return num_rows_; }
  // Row ids of the stored rows, partition after partition (read whole, or IVF_RQ).
  const std::vector<uint64_t>& row_ids() const { return row_ids_; }
  // PQ codes of stored row i (num_sub_vectors bytes, untransposed); IVF_PQ and IVF_HNSW_PQ read whole.
  const uint8_t* code(size_t i) const;
  // Stored vector i (dim floats); IVF_FLAT / IVF_HNSW_FLAT read whole (l2, cosine, dot).
  const float* stored_vector(size_t i) const;
  // Stored binary vector i (dim uint8 values); a hamming IVF_FLAT read whole.
  const uint8_t* stored_binary_vector(size_t i) const;
  // SQ codes of stored row i (dim bytes); IVF_SQ / IVF_HNSW_SQ read whole.
  const uint8_t* sq_code(size_t i) const;

  // Bytes the opened index holds (what an IndexCache is charged for it): centroids, quantizer,
  // layout and, read whole (or IVF_RQ), the storage; an index opened by partition is charged
  // its partitions separately, each as it is read.
  int64_t MemoryBytes() const;

  // The `nprobes` partitions nearest `query` (already normalised for a cosine index), nearest
  // first, ties by partition number; `distances` (when given) gets every partition's distance.
  // Not for a hamming index (its query is binary: Search probes its centroids itself).
  std::vector<uint32_t> FindPartitions(const float* query, size_t nprobes,
                                       std::vector<float>* distances = nullptr) const;

  // ANN candidates of `query`: the k x refine_factor nearest of the probed partitions' rows by
  // the index's distances, nearest first (ties by row id). Rows for which `keep` (when given)
  // is false are skipped before they take a slot (deleted rows, a prefilter).
  // Errors: InvalidArgument (dimension mismatch, k == 0).
  Result<std::vector<linalg::Neighbor>> Search(
      const AnnQuery& query, const std::function<bool(uint64_t)>& keep = nullptr) const;

 private:
  friend struct HnswAccess;
  friend struct RabitqAccess;
  IvfIndex() = default;
  static Result<std::shared_ptr<IvfIndex>> OpenImpl(const std::shared_ptr<IndexStore>& files, bool whole);
  // Reads partitions [begin, end) of auxiliary.idx (and index.idx's graphs) in one range; `whole`:
  // for an index read whole, which also keeps row-major PQ codes (code(i)).
  Result<std::vector<std::shared_ptr<IvfPartition>>> ReadPartitions(size_t begin, size_t end, bool whole) const;
  // The partition holding stored row i of an index read whole, and i's place in it.
  const IvfPartition& WholePartitionOf(size_t i, size_t* j) const;
  IndexKind kind_ = IndexKind::kIvfFlat;
  linalg::DistanceType metric_ = linalg::DistanceType::kL2;
  IvfModel ivf_;
  std::optional<PqCodebook> pq_;
  size_t num_rows_ = 0;
  std::vector<uint64_t> row_ids_;  // read whole, or IVF_RQ
  // Read whole: every partition, held. Opened by partition: empty (the cache holds them).
  std::vector<std::shared_ptr<const IvfPartition>> whole_;
  std::shared_ptr<HnswStorage> hnsw_;  // IVF_SQ / IVF_HNSW_*: SQ bounds (hnsw_index.h)
  std::shared_ptr<const RabitqStorage> rq_;  // IVF_RQ: rotation, codes, factors (rabitq_index.h)
  // Where partitions are read from: the index's files (and cache), the columns, the PQ layout,
  // the graphs.
  std::shared_ptr<IndexStore> files_;
  std::string partition_key_;  // the cache key of partition p is partition_key_ + p
  std::shared_ptr<const file::FileReader> index_reader_, aux_reader_;
  std::string index_path_, aux_path_;
  int rowid_field_ = -1, storage_field_ = -1;
  bool transposed_ = false;
  std::shared_ptr<const GraphLayout> graph_layout_;  // HNSW kinds (hnsw_index.h)
};

// lance's normalisation of a query or vector for cosine: each value over sqrt(sum x*x)
// (summed in order in float).
std::vector<float> NormalizeVector(const float* v, size_t dim);

}  // namespace lance::index::vector
