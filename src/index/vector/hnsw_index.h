// IVF_HNSW_SQ / IVF_HNSW_PQ inside IvfIndex: the SQ storage and per-partition graphs it loads from lance 12's
// files, and the search of one partition (hnsw_index.cc; formats in hnsw.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "index/proto/ivf.pb.h"
#include "index/vector/hnsw.h"
#include "index/vector/ivf_partition.h"
#include "index/vector/pq_distance.h"
#include "lance/columnar/array.h"
#include "lance/file/file_reader.h"
#include "lance/index/vector/ivf_index.h"

namespace lance::index::vector {

struct HnswStorage {
  // IVF_HNSW_SQ's (and IVF_SQ's) SQ bounds; the codes and graphs are each partition's
  // (ivf_partition.h).
  SqBounds bounds;
  float scale = 1;
};

// A partition's "lance:hnsw" entry (`empty`: lance 12's "" for a partition without rows).
struct GraphMeta {
  bool empty = false;
  uint32_t entry_point = 0;
  HnswParams params;
  std::vector<uint64_t> level_offsets;
};

// Where index.idx holds each partition's graph, checked at open; the rows are read with the
// partition.
struct GraphLayout {
  int id_field = -1, neighbors_field = -1;
  std::vector<uint64_t> first, length;  // each partition's graph rows in index.idx
  std::vector<GraphMeta> meta;
};

struct HnswAccess {
  // The graphs and SQ storage of an HNSW index (null for other kinds).
  static const HnswStorage* Storage(const IvfIndex& index) { return index.hnsw_.get(); }
  // The parameters the graphs were built with (partition 0's entry; lance's defaults when empty).
  static HnswParams Params(const IvfIndex& index);
  // IVF_SQ / IVF_HNSW_SQ: the bounds of auxiliary.idx's storage_metadata into index->hnsw_.
  static Status PrepareSq(IvfIndex* index, const Schema& aux_schema, const std::string& aux_path);
  // IVF_SQ: the SQ distances of `part`'s rows to the query codes `q` (lance's flat sub-index)
  // into dist[0..part.size()).
  static void ScorePartitionSq(const IvfIndex& index, const IvfPartition& part, const std::vector<uint8_t>& q,
                               float* dist);
  // The graph layout of index.idx whose IVF message (its partitions' rows in index.idx) is
  // `index_ivf`, and its "lance:hnsw" entries, checked; index->hnsw_ made when absent.
  static Status PrepareGraphs(IvfIndex* index, const file::FileReader& index_reader,
                              const std::string& index_path, const pb::IVF& index_ivf);
  // The graphs of partitions [begin, end) read from index.idx into out[p - begin]->graph.
  static Status LoadGraphs(const IvfIndex& index, size_t begin, size_t end,
                           const std::vector<std::shared_ptr<IvfPartition>>& out);
  // The partition `part`'s best `limit` rows for the query codes `q` (lance's HNSW search, or an exact
  // scan of the accepted rows when fewer than 10 % of the partition pass `keep`).
  static Status SearchPartition(const IvfIndex& index, const IvfPartition& part, const std::vector<uint8_t>& q,
                                size_t limit, size_t ef, const std::function<bool(uint64_t)>& keep,
                                linalg::TopK* out);
  // The same over a dot IVF_HNSW_SQ: node distances are SqDotDistance of the raw query `q`
  // (lance 12's dot SQ distance).
  static Status SearchPartitionSqDot(const IvfIndex& index, const IvfPartition& part, const float* q, size_t limit, size_t ef,
                                     const std::function<bool(uint64_t)>& keep, linalg::TopK* out);
  // The same over IVF_HNSW_FLAT: node distances are the index's distance (l2, cosine, dot) of
  // the query and the stored vectors.
  static Status SearchPartitionFlat(const IvfIndex& index, const IvfPartition& part, const float* q, size_t limit,
                                    size_t ef, const std::function<bool(uint64_t)>& keep,
                                    linalg::TopK* out);
  // The same over IVF_HNSW_PQ: node distances from the partition's PQ distance `table` (built
  // for the query's residual, as IVF_PQ's scan).
  static Status SearchPartitionPq(const IvfIndex& index, const IvfPartition& part, const PqDistanceTable& table,
                                  size_t limit, size_t ef, const std::function<bool(uint64_t)>& keep,
                                  linalg::TopK* out);
};

}  // namespace lance::index::vector
