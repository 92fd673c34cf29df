#include "lance/linalg/flat_search.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "lance/columnar/float16.h"
#include "linalg/kernels.h"

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

// Many float32 queries by l2 or dot go through a prefilter: the products q.r of a block of
// rows come from one register-blocked pass, and a row is scored exactly (the reference's
// kernel: the same bits as without the prefilter) only when that estimate, widened by a
// bound on its rounding error, could still enter the query's top k.
constexpr size_t kPrefilterRows = 256;

bool UsePrefilter(const VectorColumn& col, const FlatSearchOptions& o, size_t num_queries) {
  return col.element == ElementType::kFloat32 && num_queries >= 4 &&
         (o.distance_type == DistanceType::kL2 || o.distance_type == DistanceType::kDot);
}

void PrefilteredTask(const VectorColumn& col, const float* queries, size_t nq, size_t dim,
                     const std::vector<DistanceKernel>& kernels, const FlatSearchOptions& o,
                     size_t begin, size_t end, std::vector<TopK>& tops) {
  const internal::Kernels& kt = internal::KernelsFor(kernels[0].simd_level());
  const bool l2 = o.distance_type == DistanceType::kL2;
  // |e| <= (dim + 2) u sum |q_i r_i| for a fused dot product, the same for the squared norms
  // and the reference's own sum; twice that, plus the final additions, bounds the gap
  // between the estimate and the reference's value.
  const float c = 2.0f * static_cast<float>(dim + 4) * 0x1.0p-24f;
  std::vector<float> qn(nq), qa(nq);
  for (size_t q = 0; q < nq; ++q) {
    double s = 0;
    for (size_t d = 0; d < dim; ++d) s += static_cast<double>(queries[q * dim + d]) * queries[q * dim + d];
    qn[q] = static_cast<float>(s);
    qa[q] = static_cast<float>(std::sqrt(s));
  }
  std::vector<float> dots(nq * kPrefilterRows), rb(kPrefilterRows), ra(kPrefilterRows),
      lower(kPrefilterRows);
  const size_t row_bytes = dim * sizeof(float);
  for (size_t b = begin; b < end; b += kPrefilterRows) {
    const size_t n = std::min(kPrefilterRows, end - b);
    const auto* rows = reinterpret_cast<const float*>(col.data + b * row_bytes);
    kt.dot_block_f32(queries, nq, rows, n, dim, dots.data());
    for (size_t r = 0; r < n; ++r) {
      double s = 0;
      for (size_t d = 0; d < dim; ++d) s += static_cast<double>(rows[r * dim + d]) * rows[r * dim + d];
      ra[r] = static_cast<float>(std::sqrt(s));
      rb[r] = static_cast<float>(s) - c * ra[r] * ra[r];
    }
    for (size_t q = 0; q < nq; ++q) {
      // A lower bound of the reference's distance for every row (one vectorisable pass):
      // l2: |q|^2 + |r|^2 - 2 q.r - c (|q| + |r|)^2; dot: 1 - q.r - (c |q| |r| + 2^-22).
      const float* dq = dots.data() + q * n;
      if (l2) {
        const float a = qn[q] - c * qa[q] * qa[q], cq = 2.0f * c * qa[q];
        for (size_t r = 0; r < n; ++r) lower[r] = a + rb[r] - 2.0f * dq[r] - cq * ra[r];
      } else {
        const float cq = c * qa[q];
        for (size_t r = 0; r < n; ++r) lower[r] = 1.0f - dq[r] - (cq * ra[r] + 0x1.0p-22f);
      }
      TopK& top = tops[q];
      for (size_t r = 0; r < n; ++r) {
        if (lower[r] > top.bound()) continue;  // NaN bounds are scored
        const size_t row = b + r;
        if (col.validity != nullptr) {
          const int64_t bit = col.validity_offset + static_cast<int64_t>(row);
          if (((col.validity[bit >> 3] >> (bit & 7)) & 1) == 0) continue;
        }
        float d;
        kernels[q].Compute(rows + r * dim, 1, &d);
        top.Push(o.row_ids.empty() ? row : o.row_ids[row], d);
      }
    }
  }
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
  const bool prefilter = UsePrefilter(col, options, num_queries) && options.k > 0;
  ParallelFor(options.pool, static_cast<int64_t>(tasks), [&](int64_t t) {
    std::vector<TopK> tops(num_queries, TopK(options.k));
    if (prefilter) {
      const size_t begin = static_cast<size_t>(t) * per_task;
      PrefilteredTask(col, static_cast<const float*>(queries), num_queries, dim, kernels, options,
                      begin, std::min(col.length, begin + per_task), tops);
      partial[static_cast<size_t>(t)] = std::move(tops);
      return;
    }
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
