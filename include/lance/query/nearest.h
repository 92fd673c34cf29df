// NearestOptions: a k-nearest-neighbour request (ScanOptions::nearest, lance/query/planner.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/type.h"
#include "lance/linalg/distance.h"
#include "lance/core/result.h"

namespace lance::query {

// The column a k-NN search adds: each row's distance to the query (see NearestOptions).
inline constexpr const char* kDistanceColumn = "_distance";

// A k-nearest-neighbour search (lance's Scanner::nearest): the k rows of `column` (a
// fixed_size_list of floats) nearest `query`, nearest first (ties by row id), each with its
// "_distance" (float32: squared l2, 1 - cos, 1 - dot; the index's quantized distance unless
// refined). See KnnNode (plan.h) for how it is answered.
struct NearestOptions {
  std::string column;
  std::vector<float> query;
  uint64_t k = 10;
  uint64_t nprobes = 20;                  // IVF partitions searched
  std::optional<uint32_t> refine_factor;  // re-rank k x refine_factor candidates exactly
  std::optional<uint64_t> ef;             // HNSW indexes: results kept per graph search
  // The metric to rank by; unset: the index's (l2 without an index). An index of another
  // metric is not used (exact search).
  std::optional<linalg::DistanceType> metric;
  bool use_index = true;  // false: exact search even when an index exists
  // With a filter: true = the filter first and the ANN over the passing rows only (k rows
  // when k pass); false = the ANN first, then the filter over its k rows (fewer may be left).
  // Fragments the index does not cover (and exact search) are always filtered first.
  bool prefilter = false;
};

// The column a k-NN search of a `dim`-value query searches when the caller names none: "vector"
// when the schema has it (lancedb's default name); otherwise the one top-level fixed_size_list
// column of floats (or of uint8: binary vectors) holding `dim` values, as lancedb infers it.
// InvalidArgument, naming the candidates and how to choose, when there are none or several;
// a list column of numbers is named too (a JSON array column is one unless it is called
// "vector" or typed by --schema). `what` prefixes the messages (the dataset, say).
Result<std::string> DefaultVectorColumn(const Schema& schema, size_t dim, const std::string& what);

}  // namespace lance::query
