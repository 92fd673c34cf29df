// Exact (flat, brute-force) k-nearest-neighbour search over a vector column: the baseline every
// index is measured against, and lance 12's `bypassVectorIndex()` / no-index search.
//
// The column is a fixed_size_list<float16 | float32 | float64 | uint8, dim> array (any slice);
// null vectors are skipped, NaN distances too, and the result is in lance 12's order
// (distance ascending, then row ascending: see topk.h). Neighbor::row is the position in the
// column (0-based). Distances are the reference's, bit for bit (distance.h).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/core/thread_pool.h"
#include "lance/linalg/distance.h"
#include "lance/linalg/topk.h"

namespace lance::linalg {

struct FlatSearchOptions {
  DistanceType distance_type = DistanceType::kL2;
  size_t k = 10;
  // Where the scan runs, split by rows; null: on the calling thread only.
  ThreadPool* pool = nullptr;
  // Rows per parallel task.
  size_t rows_per_task = 32768;
  // When not empty (one per vector of the column): the numbers Neighbor::row reports and ties
  // are broken by, e.g. the rows' `_rowid`s; empty: positions in the column.
  std::span<const uint64_t> row_ids;
};

// The vectors of a fixed_size_list column: element type, dimension, and the first vector's
// bytes (vector i at data + i * dim * element size). Errors: InvalidArgument / NotSupported
// naming what the column is instead.
struct VectorColumn {
  ElementType element = ElementType::kFloat32;
  size_t dim = 0;
  size_t length = 0;
  const uint8_t* data = nullptr;
  const uint8_t* validity = nullptr;  // Arrow bitmap of the lists, or null (all valid)
  int64_t validity_offset = 0;

  static Result<VectorColumn> Of(const Array& column);
};

// A float32 query cast to `element` the way lance 12 casts a query to the column's type:
// float16 rounds to nearest even, float64 widens, uint8 takes integral values 0..255
// (InvalidArgument otherwise). Returns the element bytes.
Result<std::vector<uint8_t>> CastQuery(std::span<const float> query, ElementType element);

// k nearest rows of `column` to `query` (`dim` elements of the column's element type).
Result<std::vector<Neighbor>> FlatSearch(const Array& column, const void* query, size_t dim,
                                         const FlatSearchOptions& options);
// The same with a float32 query, cast by CastQuery.
Result<std::vector<Neighbor>> FlatSearch(const Array& column, std::span<const float> query,
                                         const FlatSearchOptions& options);

// Many queries at once (`num_queries` back to back, each `dim` elements of the column's
// element type): result i is FlatSearch of query i. The column is scanned once in blocks that
// stay in cache while every query visits them.
Result<std::vector<std::vector<Neighbor>>> FlatSearchBatch(const Array& column,
                                                           const void* queries,
                                                           size_t num_queries, size_t dim,
                                                           const FlatSearchOptions& options);

}  // namespace lance::linalg
