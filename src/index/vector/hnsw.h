// HNSW graphs over 8-bit scalar-quantized vectors, as lance 12 stores them in IVF_HNSW_SQ
// indexes (one graph per IVF partition; lance-format/lance docs/src/format/index/vector/).
//
// SQ (auxiliary.idx "storage_metadata" = [{"dim", "num_bits": 8, "bounds": {"start", "end"}}]):
// one [start, end] range for every dimension; a value v is coded 0 below start, 255 above end,
// else (v - start) * 255 / (end - start) in double, truncated. The distance of two codes is the
// integer sum of squared code differences (as float) times ((float)(end - start) / 255)^2;
// a query is coded the same way first.
//
// HNSW (index.idx rows `__vector_id: uint32`, `__neighbors: list<uint32>`, `_distance:
// list<float>`, partition after partition; schema metadata "lance:hnsw" = a JSON list of one
// string per partition, {"entry_point", "params": {"max_level", "m", "ef_construction",
// "prefetch_distance"}, "level_offsets": [max_level + 1 row offsets within the partition]}):
// the rows of level l are level_offsets[l] .. level_offsets[l + 1]; level 0 holds every node
// of the partition (node i = row i of the partition in auxiliary.idx). Up to 2m neighbours on
// level 0, m above.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/linalg/topk.h"

namespace lance::index::vector {

struct SqBounds {
  double start = 0;
  double end = 0;
};

// Codes of `n` x `dim` floats.
void SqEncode(const float* values, size_t n, const SqBounds& bounds, uint8_t* codes);
// The factor of integer code distances: ((float)(end - start) / 255)^2, in float.
float SqDistanceScale(const SqBounds& bounds);
// The integer squared l2 distance of two code vectors (linalg::L2U8: AVX2 where the CPU has it).
uint32_t SqL2(const uint8_t* a, const uint8_t* b, size_t dim);
// A dot index's SQ distance of a raw (uncoded) float query `q` to a code row, as lance 12
// computes it: 1 - (step x sum(q_d x code_d) + start x sum(q_d)), with step = (float)(end -
// start) / 255, the sums in dimension order, all in float (its values bit for bit on the
// 16-dimension interop data). `offset` is start x sum(q_d) (SqDotOffset), made once per query.
float SqDotOffset(const float* q, size_t dim, const SqBounds& bounds);
float SqDotDistance(const float* q, const uint8_t* code, size_t dim, float step, float offset);

struct HnswParams {
  uint16_t max_level = 7;
  size_t m = 20;
  size_t ef_construction = 150;
  size_t prefetch_distance = 2;
};

// One partition's graph: neighbours per level, CSR by node id (nodes absent from a level have
// none there).
struct HnswGraph {
  uint32_t num_nodes = 0;
  uint32_t entry_point = 0;
  HnswParams params;
  // levels[l].starts has num_nodes + 1 entries; neighbours of node i on level l are
  // levels[l].ids[starts[i] .. starts[i + 1]) (distances alongside, as stored).
  struct Level {
    std::vector<uint32_t> starts;
    std::vector<uint32_t> ids;
    std::vector<float> distances;
    std::vector<uint32_t> nodes;  // the nodes of the level, in stored order
  };
  std::vector<Level> levels;
};

// Distances from one query to the nodes of a partition.
using NodeDistance = std::function<float(uint32_t)>;

// The `ef` nearest nodes found from the entry point (greedy descent through the levels above
// 0, then a best-first search of level 0 keeping `ef` results: lance 12's search), nearest first; nodes for which
// `accept` is false are walked through but not returned. Returns (distance, node) pairs.
std::vector<std::pair<float, uint32_t>> HnswSearch(const HnswGraph& g, const NodeDistance& dist,
                                                   size_t ef,
                                                   const std::function<bool(uint32_t)>& accept);
// The same search over SQ code rows (`dim` codes each, back to back at `codes`) for the coded
// query: dist(node) = SqL2(row node, query) * scale, on the codes; in a partition of at most
// 2 x ef x 2m nodes every row is scored first in one pass (the walk would meet most of them),
// in larger ones as the walk meets them with an expansion's rows prefetched together.
// `accept` null or one byte per node (0: walked, not returned). Answers equal HnswSearch's
// with that distance.
std::vector<std::pair<float, uint32_t>> HnswSearchSq(const HnswGraph& g, const uint8_t* codes,
                                                     size_t dim, const uint8_t* query, float scale,
                                                     size_t ef, const uint8_t* accept);

// Builds the graph of `n` nodes whose pairwise distance is `between(a, b)` (symmetric): node 0
// on every level (the entry point, as lance's builder makes it), the others' levels drawn from
// a generator seeded with `seed` (floor(-ln u / ln m), at most max_level - 1), nodes inserted
// in order, neighbours chosen as lance 12 chooses them: its heuristic (a candidate is kept
// when it is strictly closer to the node than to every neighbour kept so far), then the
// nearest of the others up to the list's size; a new node takes m neighbours per level, the
// edges back to it fill lists up to 2m on level 0 (m above). Deterministic for equal inputs.
HnswGraph HnswBuild(uint32_t n, const std::function<float(uint32_t, uint32_t)>& between,
                    const HnswParams& params, uint64_t seed);
// The same graph over `n` SQ code rows stored back to back at `codes` (`dim` codes each):
// between(a, b) = SqL2(row a, row b) * scale, through the linalg kernel of the active level.
HnswGraph HnswBuildSq(const uint8_t* codes, uint32_t n, size_t dim, float scale,
                      const HnswParams& params, uint64_t seed);
// The same graph over `n` float32 vectors back to back by squared l2 (IVF_HNSW_PQ's graphs:
// built on the vectors, searched through their PQ codes, as lance builds on flat storage).
HnswGraph HnswBuildL2(const float* vectors, uint32_t n, size_t dim, const HnswParams& params,
                      uint64_t seed);

// The same by dot distance (a dot IVF_HNSW_FLAT's graphs).
HnswGraph HnswBuildDot(const float* vectors, uint32_t n, size_t dim, const HnswParams& params, uint64_t seed);

// "lance:hnsw" of one partition: {"entry_point", "params", "level_offsets"}.
std::string HnswMetadataJson(const HnswGraph& g);

}  // namespace lance::index::vector
