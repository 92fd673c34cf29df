#include "lance/linalg/flat_search.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "lance/columnar/float16.h"

namespace lance::linalg {

Result<VectorColumn> VectorColumn::Of(const Array& column) {
  if (column.type_id() != TypeId::kFixedSizeList) {
    return Status::InvalidArgument("vector column: expected fixed_size_list, got {}",
                                   column.type->ToString());
  }
  if (column.children.size() != 1 || !column.children[0]) {
    return Status::InvalidArgument("vector column {}: no child values", column.type->ToString());
  }
  const Array& values = *column.children[0];
  LANCE_ASSIGN_OR_RAISE(ElementType element, ElementTypeOf(*values.type));
  const int32_t dim = column.type->list_size();
  if (dim <= 0) return Status::InvalidArgument("vector column: list size {}", dim);
  const int64_t needed = (column.offset + column.length) * dim;
  if (values.length < needed || values.buffers.size() < 2 || !values.buffers[1]) {
    return Status::InvalidArgument(
        "vector column {}: {} child values for {} vectors at offset {}", column.type->ToString(),
        values.length, column.length, column.offset);
  }
  const size_t esize = ElementSize(element);
  VectorColumn v;
  v.element = element;
  v.dim = static_cast<size_t>(dim);
  v.length = static_cast<size_t>(column.length);
  v.data = values.buffers[1]->data() +
           (static_cast<size_t>(values.offset) + static_cast<size_t>(column.offset) * v.dim) * esize;
  if (column.null_count > 0) {
    v.validity = column.validity();
    v.validity_offset = column.offset;
  }
  return v;
}

Result<std::vector<uint8_t>> CastQuery(std::span<const float> query, ElementType element) {
  std::vector<uint8_t> out(query.size() * ElementSize(element));
  for (size_t i = 0; i < query.size(); ++i) {
    const float q = query[i];
    switch (element) {
      case ElementType::kFloat32:
        std::memcpy(out.data() + 4 * i, &q, 4);
        break;
      case ElementType::kFloat64: {
        const double d = q;
        std::memcpy(out.data() + 8 * i, &d, 8);
        break;
      }
      case ElementType::kFloat16: {
        const uint16_t h = FloatToHalf(q);
        std::memcpy(out.data() + 2 * i, &h, 2);
        break;
      }
      case ElementType::kUInt8: {
        const float t = std::trunc(q);
        if (!(t >= 0 && t <= 255)) {
          return Status::InvalidArgument("query value {} at position {} is not a uint8", q, i);
        }
        out[i] = static_cast<uint8_t>(t);
        break;
      }
    }
  }
  return out;
}

namespace {

// Rows scored per kernel call: the distances stay in L1.
constexpr size_t kBlockRows = 1024;

Status CheckQuery(const VectorColumn& col, size_t dim, const FlatSearchOptions& options) {
  if (dim != col.dim) {
    return Status::InvalidArgument("query has {} dimensions, the vector column {}", dim, col.dim);
  }
  return CheckSupported(options.distance_type, col.element);
}

}  // namespace

Result<std::vector<Neighbor>> FlatSearch(const Array& column, const void* query, size_t dim,
                                         const FlatSearchOptions& options) {
  LANCE_ASSIGN_OR_RAISE(auto batch, FlatSearchBatch(column, query, 1, dim, options));
  return std::move(batch[0]);
}

Result<std::vector<Neighbor>> FlatSearch(const Array& column, std::span<const float> query,
                                         const FlatSearchOptions& options) {
  LANCE_ASSIGN_OR_RAISE(VectorColumn col, VectorColumn::Of(column));
  LANCE_ASSIGN_OR_RAISE(auto bytes, CastQuery(query, col.element));
  return FlatSearch(column, bytes.data(), query.size(), options);
}

Result<std::vector<std::vector<Neighbor>>> FlatSearchBatch(const Array& column,
                                                           const void* queries,
                                                           size_t num_queries, size_t dim,
                                                           const FlatSearchOptions& options) {
  LANCE_ASSIGN_OR_RAISE(VectorColumn col, VectorColumn::Of(column));
  LANCE_RETURN_NOT_OK(CheckQuery(col, dim, options));
  if (!options.row_ids.empty() && options.row_ids.size() != col.length) {
    return Status::InvalidArgument("flat search: {} row ids for {} vectors", options.row_ids.size(),
                                   col.length);
  }
  const size_t esize = ElementSize(col.element);
  std::vector<DistanceKernel> kernels;
  kernels.reserve(num_queries);
  for (size_t q = 0; q < num_queries; ++q) {
    LANCE_ASSIGN_OR_RAISE(
        auto kernel, DistanceKernel::Make(options.distance_type, col.element,
                                          static_cast<const uint8_t*>(queries) + q * dim * esize,
                                          dim));
    kernels.push_back(std::move(kernel));
  }
  // Tasks own consecutive row ranges; within one, a block of rows is scored against every
  // query while it is in cache (for one query: one streaming pass).
  const size_t per_task = std::max<size_t>(options.rows_per_task, kBlockRows);
  const size_t tasks = col.length == 0 ? 0 : (col.length + per_task - 1) / per_task;
  const size_t row_bytes = dim * esize;
  const size_t block = num_queries == 1
                           ? kBlockRows
                           : std::clamp<size_t>((256 * 1024) / row_bytes, 16, kBlockRows);
  std::vector<std::vector<TopK>> partial(tasks);
  ParallelFor(options.pool, static_cast<int64_t>(tasks), [&](int64_t t) {
    std::vector<TopK> tops(num_queries, TopK(options.k));
    std::unique_ptr<float[]> dist(new float[block]);
    const size_t begin = static_cast<size_t>(t) * per_task;
    const size_t end = std::min(col.length, begin + per_task);
    for (size_t b = begin; b < end; b += block) {
      const size_t n = std::min(block, end - b);
      const uint8_t* vectors = col.data + b * row_bytes;
      for (size_t q = 0; q < num_queries; ++q) {
        kernels[q].Compute(vectors, n, dist.get());
        const int64_t valid_offset = col.validity_offset + static_cast<int64_t>(b);
        if (options.row_ids.empty()) {
          tops[q].Push(dist.get(), n, b, col.validity, valid_offset);
        } else {
          tops[q].Push(dist.get(), options.row_ids.data() + b, n, col.validity, valid_offset);
        }
      }
    }
    partial[static_cast<size_t>(t)] = std::move(tops);
  });
  std::vector<std::vector<Neighbor>> out(num_queries);
  for (size_t q = 0; q < num_queries; ++q) {
    TopK merged(options.k);
    for (auto& p : partial) merged.Merge(p[q]);
    out[q] = merged.Sorted();
  }
  return out;
}

}  // namespace lance::linalg
