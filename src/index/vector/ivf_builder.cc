// Training, encoding and writing IVF_FLAT / IVF_PQ indexes (see ivf_builder.h).
#include "lance/index/vector/ivf_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "file/proto/deterministic.h"
#include "index/proto/ivf.pb.h"
#include "index/vector/hnsw.h"
#include "index/vector/hnsw_rebuild.h"
#include "index/vector/ivf_format.h"
#include "index/vector/pq_distance.h"
#include "index/vector/rabitq.h"
#include "lance/file/file_writer.h"
#include "lance/index/index_metadata.h"
#include "lance/index/index_store.h"
#include "lance/linalg/flat_search.h"
#include "lance/linalg/kmeans.h"
#include "lance/linalg/kmodes.h"
#include "lance/table/snapshot.h"
#include "table/proto/index_details.pb.h"

namespace lance::index::vector {

namespace {

using linalg::DistanceType;


// The non-null vectors of `column` with their row ids, in scan order.
struct TrainingData {
  size_t dim = 0;
  std::vector<float> vectors;
  std::vector<uint8_t> bytes;  // a hamming index's binary vectors (dim uint8 each), instead of `vectors`
  std::vector<uint64_t> row_ids;
  std::vector<uint32_t> fragment_ids;
  size_t rows() const { return row_ids.size(); }
};

// The caller's training rows of `column` (live rows with row ids, in scan order) as float32
// vectors (uint8 ones for hamming: `binary`), null vectors dropped.
Result<TrainingData> LoadVectors(const table::Snapshot& snap, const std::string& column,
                                 const scalar::TrainingRows& rows, bool binary) {
  TrainingData d;
  LANCE_ASSIGN_OR_RAISE(scalar::TrainingData in, rows(snap, column));
  size_t at = 0;  // row id of the first value of the next array
  for (const auto& values : in.values) {
    if (at + static_cast<size_t>(values->length) > in.row_ids.size()) {
      return Status::InvalidArgument("create vector index: the training rows of \"{}\" have more "
                                     "values than row ids ({})", column, in.row_ids.size());
    }
    LANCE_ASSIGN_OR_RAISE(linalg::VectorColumn vc, linalg::VectorColumn::Of(*values));
    if (binary && vc.element != linalg::ElementType::kUInt8) {
      return Status::InvalidArgument("create vector index: hamming needs binary vectors (fixed_size_list<uint8>), "
                                     "column \"{}\" holds {}", column, linalg::ElementTypeName(vc.element));
    }
    if (!binary && vc.element != linalg::ElementType::kFloat32) {
      return Status::NotSupported("create vector index: column \"{}\" holds {} vectors (float32 "
                                  "is indexed so far; uint8 with hamming)", column, linalg::ElementTypeName(vc.element));
    }
    if (d.dim == 0) d.dim = vc.dim;
    const uint64_t* ids = in.row_ids.data() + at;
    const auto* v = reinterpret_cast<const float*>(vc.data);
    for (size_t i = 0; i < vc.length; ++i) {
      if (vc.validity && !bit_util::GetBit(vc.validity, vc.validity_offset + static_cast<int64_t>(i))) continue;
      if (binary) {
        d.bytes.insert(d.bytes.end(), vc.data + i * vc.dim, vc.data + (i + 1) * vc.dim);
      } else {
        d.vectors.insert(d.vectors.end(), v + i * vc.dim, v + (i + 1) * vc.dim);
      }
      d.row_ids.push_back(ids[i]);
    }
    at += vc.length;
  }
  if (at != in.row_ids.size()) {
    return Status::InvalidArgument("create vector index: the training rows of \"{}\" have {} "
                                   "values but {} row ids", column, at, in.row_ids.size());
  }
  for (const auto& f : snap.manifest().fragments) d.fragment_ids.push_back(static_cast<uint32_t>(f.id));
  return d;
}

KeyValueMetadataPtr Metadata(std::vector<std::pair<std::string, std::string>> pairs) {
  return std::make_shared<KeyValueMetadata>(std::move(pairs));
}

// A hamming index's centroids: a uint8 Tensor [k, bytes].
pb::Tensor BinaryTensor(const std::vector<uint8_t>& values, uint32_t rows, uint32_t cols) {
  pb::Tensor t;
  t.set_data_type(pb::Tensor::UINT8);
  t.add_shape(rows);
  t.add_shape(cols);
  t.set_data(std::string(values.begin(), values.end()));
  return t;
}

// index.idx: no rows, the IVF centroids in global buffer 1 (uint8 ones in `binary` when given).
Status WriteIndexFile(IndexStore& store, IndexKind kind, DistanceType metric,
                      const linalg::KMeansModel& ivf, const std::vector<uint8_t>* binary = nullptr) {
  nlohmann::json meta = {{"type", std::string(IndexKindName(kind))},
                         {"distance_type", std::string(linalg::DistanceTypeName(metric))}};
  nlohmann::json flat = nlohmann::json::array();
  for (size_t p = 0; p < ivf.k; ++p) flat.push_back("");
  auto s = schema({field(kFlatMarkerColumn, uint64(), false)},
                  Metadata({{kIndexMetadataKey, meta.dump()}, {kIvfMetadataKey, "1"},
                            {kFlatMetadataKey, flat.dump()}}));
  LANCE_ASSIGN_OR_RAISE(auto writer, store.CreateFile(kIndexFileName, s));
  pb::IVF msg;
  for (size_t p = 0; p < ivf.k; ++p) {
    msg.add_offsets(0);
    msg.add_lengths(0);
  }
  *msg.mutable_centroids_tensor() =
      binary ? BinaryTensor(*binary, static_cast<uint32_t>(ivf.k), static_cast<uint32_t>(ivf.dim))
             : FloatTensor(ivf.centroids, static_cast<uint32_t>(ivf.k), static_cast<uint32_t>(ivf.dim));
  msg.set_loss(ivf.loss);
  LANCE_ASSIGN_OR_RAISE(int pos, writer->AddGlobalBuffer(msg.SerializeAsString()));
  if (pos != 1) return Status::IOError("{}: the IVF message went to global buffer {}", kIndexFileName, pos);
  return writer->Finish().status();
}

// auxiliary.idx's global buffer 1: the IVF message with each partition's first row and length.
Status WriteIvfPartitions(file::FileWriter& writer, const std::vector<uint32_t>& lengths) {
  pb::IVF msg;
  uint64_t offset = 0;
  for (uint32_t len : lengths) {
    msg.add_offsets(offset);
    msg.add_lengths(len);
    offset += len;
  }
  LANCE_ASSIGN_OR_RAISE(int ivf_pos, writer.AddGlobalBuffer(msg.SerializeAsString()));
  if (ivf_pos != 1) return Status::IOError("{}: the IVF message went to global buffer {}", kAuxiliaryFileName, ivf_pos);
  return Status::OK();
}

// auxiliary.idx: the rows partition by partition (PQ codes transposed within each), the IVF
// partition table in global buffer 1, the codebook in 2.
Status WriteAuxiliaryFile(IndexStore& store, DistanceType metric, const TrainingData& data,
                          const std::vector<uint32_t>& order, const std::vector<uint32_t>& lengths,
                          const PqCodebook* pq, const std::vector<uint8_t>& codes,
                          const float* stored, const SqBounds* sq = nullptr) {
  const size_t n = order.size(), dim = data.dim;
  const bool binary = metric == DistanceType::kHamming;  // IVF_FLAT of uint8 vectors (data.bytes)
  std::vector<std::pair<std::string, std::string>> md = {
      {"distance_type", std::string(linalg::DistanceTypeName(metric))}, {kIvfMetadataKey, "1"}};
  FieldPtr storage_field;
  if (sq) {
    nlohmann::ordered_json sm;
    sm["dim"] = dim;
    sm["num_bits"] = 8;
    sm["bounds"] = {{"start", sq->start}, {"end", sq->end}};
    md.emplace_back(kStorageMetadataKey, nlohmann::json::array({sm.dump()}).dump());
    storage_field = field(kSqCodeColumn, fixed_size_list(field("item", uint8(), true),
                                                         static_cast<int32_t>(dim)));
  } else if (pq) {
    nlohmann::json sm = {{"codebook_position", 2}, {"nbits", pq->num_bits},
                         {"num_sub_vectors", pq->num_sub_vectors}, {"dimension", pq->dim},
                         {"codebook_tensor", nlohmann::json::array()}, {"transposed", true}};
    md.emplace_back(kStorageMetadataKey, nlohmann::json::array({sm.dump()}).dump());
    storage_field = field(kPqCodeColumn, fixed_size_list(field("item", uint8(), true),
                                                         static_cast<int32_t>(pq->num_sub_vectors)));
  } else {
    md.emplace_back(kStorageMetadataKey, nlohmann::json::array({nlohmann::json({{"dim", dim}}).dump()}).dump());
    storage_field = field(kFlatColumn, fixed_size_list(field("item", binary ? uint8() : float32(), true),
                                                       static_cast<int32_t>(dim)));
  }
  auto s = schema({field(kRowIdColumn, uint64(), true), storage_field}, Metadata(std::move(md)));
  LANCE_ASSIGN_OR_RAISE(auto writer, store.CreateFile(kAuxiliaryFileName, s));

  LANCE_ASSIGN_OR_RAISE(BufferPtr ids, AllocateBuffer(static_cast<int64_t>(n * 8)));
  auto* id_out = reinterpret_cast<uint64_t*>(ids->mutable_data());
  for (size_t i = 0; i < n; ++i) id_out[i] = data.row_ids[order[i]];
  ArrayPtr values;
  const size_t width = pq ? pq->num_sub_vectors : dim;
  if (sq) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(static_cast<int64_t>(n * dim)));
    for (size_t i = 0; i < n; ++i) std::memcpy(buf->mutable_data() + i * dim, codes.data() + size_t{order[i]} * dim, dim);
    values = Array::Make(uint8(), static_cast<int64_t>(n * dim), {nullptr, buf});
  } else if (pq) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(static_cast<int64_t>(n * width)));
    uint8_t* out = buf->mutable_data();
    size_t first = 0;
    for (uint32_t len : lengths) {
      for (size_t s2 = 0; s2 < width; ++s2) {
        for (size_t j = 0; j < len; ++j) out[first * width + s2 * len + j] = codes[order[first + j] * width + s2];
      }
      first += len;
    }
    values = Array::Make(uint8(), static_cast<int64_t>(n * width), {nullptr, buf});
  } else if (binary) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(static_cast<int64_t>(n * dim)));
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(buf->mutable_data() + i * dim, data.bytes.data() + size_t{order[i]} * dim, dim);
    }
    values = Array::Make(uint8(), static_cast<int64_t>(n * dim), {nullptr, buf});
  } else {
    LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(static_cast<int64_t>(n * dim * 4)));
    auto* out = reinterpret_cast<float*>(buf->mutable_data());
    for (size_t i = 0; i < n; ++i) std::memcpy(out + i * dim, stored + size_t{order[i]} * dim, dim * 4);
    values = Array::Make(float32(), static_cast<int64_t>(n * dim), {nullptr, buf});
  }
  auto list = Array::Make(storage_field->type(), static_cast<int64_t>(n), {nullptr}, {values});
  auto rowids = Array::Make(uint64(), static_cast<int64_t>(n), {nullptr, ids});
  LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(s, static_cast<int64_t>(n), {rowids, list}));
  LANCE_RETURN_NOT_OK(writer->Write(*batch));

  LANCE_RETURN_NOT_OK(WriteIvfPartitions(*writer, lengths));
  if (pq) {
    const pb::Tensor cb = FloatTensor(pq->centroids, static_cast<uint32_t>(pq->num_centroids()),
                                      static_cast<uint32_t>(pq->dim));
    LANCE_ASSIGN_OR_RAISE(int cb_pos, writer->AddGlobalBuffer(cb.SerializeAsString()));
    if (cb_pos != 2) return Status::IOError("{}: the codebook went to global buffer {}", kAuxiliaryFileName, cb_pos);
  }
  return writer->Finish().status();
}

// auxiliary.idx of IVF_RQ: the rows partition by partition with their sign codes (packed per
// partition) and factors (more than 1 bit: their blocked ex codes and ex factors too, row by
// row), the RaBitQ model in storage_metadata, the IVF partition table in global buffer 1.
Status WriteRabitqAuxiliaryFile(IndexStore& store, DistanceType metric, const TrainingData& data,
                                const std::vector<uint32_t>& order, const std::vector<uint32_t>& lengths,
                                const RabitqModel& rq, const std::vector<uint8_t>& codes,
                                const std::vector<RabitqFactors>& factors, const std::vector<uint8_t>& ex_codes) {
  const size_t n = order.size(), width = rq.code_bytes(), ex_width = rq.ex_code_bytes();
  auto code_field = field(kRabitCodeColumn, fixed_size_list(field("item", uint8(), true),
                                                           static_cast<int32_t>(width)));
  auto ex_field = field(kRabitExCodeColumn, fixed_size_list(field("item", uint8(), true),
                                                           static_cast<int32_t>(ex_width)));
  std::vector<FieldPtr> fields = {field(kRowIdColumn, uint64(), true), code_field};
  for (const char* name : {kRabitAddFactorsColumn, kRabitScaleFactorsColumn, kRabitErrorFactorsColumn}) {
    fields.push_back(field(name, float32(), true));
  }
  if (ex_width) {  // after the 1-bit columns, as lance 12 orders them
    fields.push_back(ex_field);
    fields.push_back(field(kRabitExAddFactorsColumn, float32(), true));
    fields.push_back(field(kRabitExScaleFactorsColumn, float32(), true));
  }
  auto s = schema(std::move(fields),
                  Metadata({{"distance_type", std::string(linalg::DistanceTypeName(metric))},
                            {kStorageMetadataKey, RabitqMetadataJson(rq)}, {kIvfMetadataKey, "1"}}));
  LANCE_ASSIGN_OR_RAISE(auto writer, store.CreateFile(kAuxiliaryFileName, s));
  LANCE_ASSIGN_OR_RAISE(BufferPtr ids, AllocateBuffer(static_cast<int64_t>(n * 8)));
  LANCE_ASSIGN_OR_RAISE(BufferPtr packed, AllocateBuffer(static_cast<int64_t>(n * width)));
  LANCE_ASSIGN_OR_RAISE(BufferPtr ex, AllocateBuffer(static_cast<int64_t>(n * ex_width)));
  std::vector<BufferPtr> f(ex_width ? 5 : 3);
  for (auto& b : f) {
    LANCE_ASSIGN_OR_RAISE(b, AllocateBuffer(static_cast<int64_t>(n * 4)));
  }
  auto* id_out = reinterpret_cast<uint64_t*>(ids->mutable_data());
  auto out = [&](size_t c) { return reinterpret_cast<float*>(f[c]->mutable_data()); };
  std::vector<uint8_t> rows(n * width);
  for (size_t i = 0; i < n; ++i) {
    id_out[i] = data.row_ids[order[i]];
    std::memcpy(rows.data() + i * width, codes.data() + size_t{order[i]} * width, width);
    const RabitqFactors& x = factors[order[i]];
    out(0)[i] = x.add;
    out(1)[i] = x.scale;
    out(2)[i] = x.error;
    if (ex_width) {
      std::memcpy(ex->mutable_data() + i * ex_width, ex_codes.data() + size_t{order[i]} * ex_width, ex_width);
      out(3)[i] = x.add_ex;
      out(4)[i] = x.scale_ex;
    }
  }
  size_t first = 0;
  for (uint32_t len : lengths) {
    PackRabitqCodes(rows.data() + first * width, len, width, packed->mutable_data() + first * width);
    first += len;
  }
  const auto rows_n = static_cast<int64_t>(n);
  auto values = Array::Make(uint8(), static_cast<int64_t>(n * width), {nullptr, packed});
  std::vector<ArrayPtr> columns = {Array::Make(uint64(), rows_n, {nullptr, ids}),
                                   Array::Make(code_field->type(), rows_n, {nullptr}, {values})};
  for (size_t c = 0; c < f.size(); ++c) {
    if (c == 3) {
      auto ex_values = Array::Make(uint8(), static_cast<int64_t>(n * ex_width), {nullptr, ex});
      columns.push_back(Array::Make(ex_field->type(), rows_n, {nullptr}, {ex_values}));
    }
    columns.push_back(Array::Make(float32(), rows_n, {nullptr, f[c]}));
  }
  LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(s, rows_n, std::move(columns)));
  LANCE_RETURN_NOT_OK(writer->Write(*batch));
  LANCE_RETURN_NOT_OK(WriteIvfPartitions(*writer, lengths));
  return writer->Finish().status();
}

// One k-means of 2^bits centroids per sub-vector over `train` (rows x dim).
Result<PqCodebook> TrainPq(const std::vector<float>& train, size_t rows, size_t dim, size_t m,
                           const IvfBuildOptions& o) {
  PqCodebook pq;
  pq.num_bits = o.num_bits;
  pq.num_sub_vectors = m;
  pq.dim = dim;
  const size_t sub = dim / m, k = pq.num_centroids();
  pq.centroids.resize(m * k * sub);
  // The sub-vectors' k-means side by side on the pool (each a single thread: small problems,
  // where one barrier per iteration would cost more than it shares).
  std::vector<Status> status(m);
  ParallelFor(o.pool, static_cast<int64_t>(m), [&](int64_t si) {
    const size_t s = static_cast<size_t>(si);
    std::vector<float> part(rows * sub);
    for (size_t i = 0; i < rows; ++i) std::memcpy(&part[i * sub], &train[i * dim + s * sub], sub * 4);
    linalg::KMeansOptions ko;
    ko.k = k;
    ko.distance_type = DistanceType::kL2;
    ko.max_iterations = o.max_iterations;
    ko.sample_rate = 0;  // the caller sampled
    ko.seed = o.seed + 1 + s;
    auto model = linalg::TrainKMeans(part.data(), rows, sub, ko);
    if (!model.ok()) {
      status[s] = model.status();
      return;
    }
    std::memcpy(&pq.centroids[s * k * sub], model->centroids.data(), k * sub * 4);
  });
  for (const Status& st : status) LANCE_RETURN_NOT_OK(st);
  return pq;
}

}  // namespace

namespace {

// The index of `o` over `rows`, written into a fresh `_indices/{uuid}/` of `at` (through
// `staged` when given, its files recorded there); its segment and summary, not committed.
Result<NewIndexSegment> BuildSegment(const table::Snapshot& at, const std::string& column,
                                     const scalar::TrainingRows& rows, const IvfBuildOptions& o,
                                     table::StagedFiles* staged, IvfBuildSummary* summary) {
  if (o.kind != IndexKind::kIvfFlat && o.kind != IndexKind::kIvfPq && o.kind != IndexKind::kIvfHnswSq &&
      o.kind != IndexKind::kIvfHnswPq && o.kind != IndexKind::kIvfRq && o.kind != IndexKind::kIvfSq &&
      o.kind != IndexKind::kIvfHnswFlat) {
    return Status::NotSupported("create vector index: {} is not written yet (IVF_FLAT, IVF_PQ, IVF_SQ, "
                                "IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ, IVF_RQ are)", IndexKindName(o.kind));
  }
  if (o.kind == IndexKind::kIvfSq && o.metric == DistanceType::kDot) {
    return Status::NotSupported("create vector index: IVF_SQ with dot (l2 and cosine are written)");
  }
  const bool rq_kind = o.kind == IndexKind::kIvfRq;
  if (rq_kind && (o.num_bits < 1 || o.num_bits > kRabitqMaxBits)) {
    return Status::InvalidArgument("create vector index: IVF_RQ num_bits must be in 1..={}, got {}", kRabitqMaxBits,
                                   o.num_bits);
  }
  const bool hnsw_kind = IsHnswKind(o.kind);
  const bool pq_kind = o.kind == IndexKind::kIvfPq || o.kind == IndexKind::kIvfHnswPq;
  if (hnsw_kind && (o.hnsw_m < 2 || o.ef_construction == 0 || o.max_level == 0)) {
    return Status::InvalidArgument("create vector index: HNSW needs m >= 2, ef_construction >= 1 "
                                   "and max_level >= 1");
  }
  const bool binary = o.metric == DistanceType::kHamming;
  if (binary && o.kind != IndexKind::kIvfFlat) {
    // As lance 12: its PQ / SQ / RQ builders refuse uint8 vectors ("unsupported data type").
    return Status::NotSupported("create vector index: {} with hamming (hamming is written as IVF_FLAT "
                                "over uint8 vectors, as lance 12 builds it)", IndexKindName(o.kind));
  }
  if (binary && o.centroids) {
    return Status::InvalidArgument("create vector index: given float centroids for a hamming index");
  }
  if (pq_kind && o.num_bits != 8) {
    return Status::NotSupported("create vector index: {}-bit PQ (8-bit codes are written)", o.num_bits);
  }
  const table::Snapshot* snap = &at;
  const int fi = snap->schema()->GetFieldIndex(column);
  if (fi < 0) return Status::InvalidArgument("create vector index: no column \"{}\"", column);
  const DataType& column_type = *snap->schema()->field(fi)->type();
  if (column_type.id() != TypeId::kFixedSizeList) {
    const bool a_list = column_type.id() == TypeId::kList || column_type.id() == TypeId::kLargeList;
    return Status::InvalidArgument("create vector index: column \"{}\" is {}; a vector index takes a "
                                   "fixed_size_list of float32, float16 or float64 (one vector per row){}",
                                   column, column_type.ToString(),
                                   a_list ? " (JSON input makes one only of a column named \"vector\", or of "
                                            "one typed by create --schema)"
                                          : "");
  }
  const int32_t field_id = snap->schema()->field(fi)->id();
  LANCE_ASSIGN_OR_RAISE(TrainingData data, LoadVectors(at, column, rows, binary));
  const size_t n = data.rows(), dim = data.dim;
  if (rq_kind && dim % 8 != 0) {  // before any training
    return Status::NotSupported("create vector index: IVF_RQ over {} dimensions (a multiple of 8 is written)", dim);
  }
  const size_t parts = o.num_partitions
                           ? o.num_partitions
                           : std::max<size_t>(1, static_cast<size_t>(std::sqrt(static_cast<double>(n))));
  if (n < parts || n == 0) {
    return Status::InvalidArgument("create vector index: {} non-null vectors in \"{}\", fewer than "
                                   "the {} partitions", n, column, parts);
  }
  // Cosine: every vector normalised once; it is what is clustered, quantized and stored.
  // Other metrics use the loaded vectors themselves (no copy: 512 MB at 1M x 128).
  std::vector<float> normalized;
  const float* work = data.vectors.data();
  const DistanceType ivf_metric = o.metric == DistanceType::kDot ? DistanceType::kDot : DistanceType::kL2;
  if (o.metric == DistanceType::kCosine) {
    normalized.resize(n * dim);
    for (size_t i = 0; i < n; ++i) {
      auto u = NormalizeVector(&data.vectors[i * dim], dim);
      std::memcpy(&normalized[i * dim], u.data(), dim * 4);
    }
    work = normalized.data();
  }

  linalg::KMeansOptions ko;
  ko.k = parts;
  ko.distance_type = ivf_metric;
  ko.max_iterations = o.max_iterations;
  ko.sample_rate = o.sample_rate;
  ko.seed = o.seed;
  ko.pool = o.pool;
  ko.balance_factor = 1.0f;  // the reference's IVF training: partitions kept balanced
  // l2 / cosine: k-means++ starts, not the reference's k random rows: random starts leave
  // natural clusters without a centre (two clusters then share a partition, whose residuals PQ
  // codes worse), which Lloyd iterations rarely undo in high dimensions (src/index/README.md,
  // "IVF_PQ recall"). Dot: the reference's random rows (ivf_builder.h).
  ko.init = o.ivf_init.value_or(ivf_metric == DistanceType::kDot ? linalg::KMeansOptions::Init::kRandom
                                                                  : linalg::KMeansOptions::Init::kPlusPlus);
  linalg::KMeansModel ivf;
  std::vector<uint32_t> assignment(n);
  std::vector<uint8_t> binary_centroids;
  if (binary) {
    // k-modes (kmodes.h: lance 12's training of uint8 vectors), rows to the nearest mode.
    linalg::KModesOptions mo;
    mo.k = parts;
    mo.max_iterations = o.max_iterations;
    mo.sample_rate = o.sample_rate;
    mo.seed = o.seed;
    mo.pool = o.pool;
    LANCE_ASSIGN_OR_RAISE(linalg::KModesModel modes, linalg::TrainKModes(data.bytes.data(), n, dim, mo));
    binary_centroids = std::move(modes.centroids);
    ivf.k = parts;
    ivf.dim = dim;
    ivf.distance_type = DistanceType::kHamming;
    ivf.loss = modes.loss;
    linalg::AssignToBinaryCentroids(data.bytes.data(), n, dim, binary_centroids.data(), parts, o.pool,
                                    assignment.data());
  } else if (o.centroids) {
    if (o.centroids->size() != parts * dim) {
      return Status::InvalidArgument("create vector index: {} given centroid values, {} partitions x {} dimensions "
                                     "expected", o.centroids->size(), parts, dim);
    }
    ivf.k = parts;
    ivf.dim = dim;
    ivf.distance_type = ivf_metric;
    ivf.centroids = *o.centroids;
  } else {
    LANCE_ASSIGN_OR_RAISE(ivf, linalg::TrainKMeans(work, n, dim, ko));
  }
  if (!binary) {
    LANCE_RETURN_NOT_OK(linalg::AssignToCentroids(work, n, dim, ivf.centroids.data(), parts,
                                                  ivf_metric, o.pool, assignment.data()));
  }
  // Rows grouped by partition, in scan order within each.
  std::vector<uint32_t> lengths(parts, 0);
  for (uint32_t a : assignment) ++lengths[a];
  std::vector<uint32_t> order(n), next(parts, 0);
  for (size_t p = 1; p < parts; ++p) next[p] = next[p - 1] + lengths[p - 1];
  for (size_t i = 0; i < n; ++i) order[next[assignment[i]]++] = static_cast<uint32_t>(i);

  std::optional<PqCodebook> pq;
  std::vector<uint8_t> codes;
  size_t m = 0;
  if (pq_kind) {
    m = o.num_sub_vectors ? o.num_sub_vectors : dim % 16 == 0 ? dim / 16 : dim % 8 == 0 ? dim / 8 : 1;
    if (m == 0 || dim % m != 0) {
      return Status::InvalidArgument("create vector index: {} sub-vectors do not divide {} dimensions", m, dim);
    }
    const size_t k = size_t{1} << o.num_bits;
    if (n < k) {
      return Status::InvalidArgument("create vector index: PQ needs at least {} non-null vectors, \"{}\" has {}",
                                     k, column, n);
    }
    // Residuals (l2, cosine) or the vectors (dot), for training and coding.
    std::vector<float> resid(work, work + n * dim);
    if (o.metric != DistanceType::kDot) {
      for (size_t i = 0; i < n; ++i) {
        const float* c = &ivf.centroids[size_t{assignment[i]} * dim];
        for (size_t d = 0; d < dim; ++d) resid[i * dim + d] -= c[d];
      }
    }
    const std::vector<uint64_t> sample = linalg::SampleRows(n, o.sample_rate ? o.sample_rate * k : n, o.seed + 7);
    std::vector<float> train(sample.size() * dim);
    for (size_t i = 0; i < sample.size(); ++i) std::memcpy(&train[i * dim], &resid[sample[i] * dim], dim * 4);
    LANCE_ASSIGN_OR_RAISE(pq, TrainPq(train, sample.size(), dim, m, o));
    codes.resize(n * m);
    // Coded by the l2-nearest centroid for every metric (the dot-nearest of a codebook trained
    // by l2 k-means is its extreme centroid: recall 0.08 instead of lance 12's 0.8 on the
    // interop data); only the search-time distance table is dot.
    PqEncode(*pq, resid.data(), n, DistanceType::kL2, codes.data(), o.pool);
  }

  // IVF_RQ: a seeded fast rotation; each vector's residual to its centroid coded by the signs
  // of its rotation, with the raw-query factors (rabitq.h).
  // More than 1 bit: also each residual's ex code (the extra num_bits - 1 bits per dimension).
  RabitqModel rq;
  std::vector<RabitqFactors> rq_factors;
  std::vector<uint8_t> rq_ex_codes;
  if (rq_kind) {
    rq = MakeRabitqModel(dim, o.seed);
    rq.num_bits = o.num_bits;
    std::vector<float> rotated(parts * dim);
    for (size_t p = 0; p < parts; ++p) RabitqRotate(rq, &ivf.centroids[p * dim], dim, &rotated[p * dim]);
    const size_t width = rq.code_bytes(), ex_width = rq.ex_code_bytes();
    codes.resize(n * width);
    rq_ex_codes.resize(n * ex_width);
    rq_factors.resize(n);
    ParallelFor(o.pool, static_cast<int64_t>(n), [&](int64_t i) {
      const size_t a = assignment[i];
      rq_factors[i] = RabitqEncodeVector(rq, work + size_t(i) * dim, &ivf.centroids[a * dim], dim,
                                         &rotated[a * dim], codes.data() + size_t(i) * width,
                                         o.metric == DistanceType::kDot,
                                         ex_width ? rq_ex_codes.data() + size_t(i) * ex_width : nullptr);
    });
  }

  std::optional<SqBounds> sq;
  std::vector<HnswGraph> graphs;
  // One graph per partition, built in parallel from the partition's rows of `data` (`dim`
  // values each) gathered in node order: the graph's distances read them back to back instead
  // of scattered over the whole table.
  auto build_graphs = [&](const auto* data, auto build) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(data)>>;
    HnswParams hp;
    hp.m = o.hnsw_m;
    hp.ef_construction = o.ef_construction;
    hp.max_level = o.max_level;
    graphs.resize(parts);
    std::vector<uint32_t> firsts(parts, 0);
    for (size_t p = 1; p < parts; ++p) firsts[p] = firsts[p - 1] + lengths[p - 1];
    ParallelFor(o.pool, static_cast<int64_t>(parts), [&](int64_t p) {
      const uint32_t* members = order.data() + firsts[p];
      std::vector<T> local(size_t{lengths[p]} * dim);
      for (uint32_t a = 0; a < lengths[p]; ++a) {
        std::copy_n(data + size_t{members[a]} * dim, dim, local.data() + size_t{a} * dim);
      }
      graphs[p] = build(local.data(), lengths[p], hp, o.seed * 1000003 + static_cast<uint64_t>(p));
    });
  };
  if (o.kind == IndexKind::kIvfHnswSq || o.kind == IndexKind::kIvfSq) {
    const std::vector<uint64_t> sample = linalg::SampleRows(n, o.sample_rate ? o.sample_rate * 256 : n, o.seed + 11);
    SqBounds b{INFINITY, -INFINITY};
    for (uint64_t r : sample) {
      for (size_t d = 0; d < dim; ++d) {
        b.start = std::min<double>(b.start, work[r * dim + d]);
        b.end = std::max<double>(b.end, work[r * dim + d]);
      }
    }
    sq = b;
    codes.resize(n * dim);
    SqEncode(work, n * dim, b, codes.data());
    const float scale = SqDistanceScale(b);
    if (hnsw_kind) {
      // By l2 over the codes for every metric: a dot index's graph is walked by lance 12's dot
      // SQ distance, but a graph linked by dot (the codes' or their values') navigates badly
      // (recall@10 0.52 / 0.36 against lance 12's 0.74 on the interop data; by l2: 0.76).
      build_graphs(codes.data(), [&](const uint8_t* x, uint32_t rows, const HnswParams& hp, uint64_t seed) {
        return HnswBuildSq(x, rows, dim, scale, hp, seed);
      });
    }
  }
  if (o.kind == IndexKind::kIvfHnswPq || o.kind == IndexKind::kIvfHnswFlat) {
    // The graphs over the (normalised, for cosine: l2 ranks them as cosine does) vectors by l2,
    // a dot IVF_HNSW_FLAT's by dot; the search walks them by the PQ distance of the query's
    // residual, or of the query (dot), (IVF_HNSW_FLAT: by the index's distance to the stored
    // vectors). A dot IVF_HNSW_PQ's graph is linked by l2 too: by dot, lance 12's walk of it
    // found recall@10 0.51 against its own builds' 0.75 on the interop data.
    const bool dot_graph = o.metric == DistanceType::kDot && o.kind == IndexKind::kIvfHnswFlat;
    build_graphs(work, [&](const float* x, uint32_t rows, const HnswParams& hp, uint64_t seed) {
      return dot_graph ? HnswBuildDot(x, rows, dim, hp, seed) : HnswBuildL2(x, rows, dim, hp, seed);
    });
  }

  const std::string uuid = NewIndexUuid();
  auto store = staged ? IndexStore::Make(staged->store(), IndexDirectory(at.location(), uuid))
                      : OpenIndexStore(at.location(), uuid);
  if (hnsw_kind) {
    LANCE_RETURN_NOT_OK(WriteHnswIndexFile(*store, o.kind, o.metric, ivf.centroids, ivf.k, ivf.dim, ivf.loss, graphs));
  } else {
    LANCE_RETURN_NOT_OK(WriteIndexFile(*store, o.kind, o.metric, ivf, binary ? &binary_centroids : nullptr));
  }
  if (rq_kind) {
    LANCE_RETURN_NOT_OK(WriteRabitqAuxiliaryFile(*store, o.metric, data, order, lengths, rq, codes, rq_factors, rq_ex_codes));
  } else {
    LANCE_RETURN_NOT_OK(WriteAuxiliaryFile(*store, o.metric, data, order, lengths, pq ? &*pq : nullptr,
                                           codes, work, sq ? &*sq : nullptr));
  }

  ::lance::index::pb::VectorIndexDetails details;
  details.set_metric_type(
      static_cast<::lance::index::pb::VectorIndexDetails::MetricType>(DetailsMetricType(o.metric)));
  auto& hints = *details.mutable_runtime_hints();
  // The compression (sq / pq / rq / flat); an HNSW sub-index adds its config beside it.
  if (sq) {
    details.mutable_sq()->set_num_bits(8);
    hints["lance.sq.sample_rate"] = std::to_string(o.sample_rate);
  } else if (pq) {
    details.mutable_pq()->set_num_bits(o.num_bits);
    details.mutable_pq()->set_num_sub_vectors(static_cast<uint32_t>(m));
  } else if (rq_kind) {
    details.mutable_rq()->set_num_bits(o.num_bits);  // rotation_type 0: the fast rotation
  } else {
    details.mutable_flat();
  }
  if (hnsw_kind) {
    auto* h = details.mutable_hnsw_index_config();
    h->set_max_connections(static_cast<uint32_t>(o.hnsw_m));
    h->set_construction_ef(static_cast<uint32_t>(o.ef_construction));
    h->set_max_level(o.max_level);
    hints["lance.hnsw.prefetch_distance"] = "2";
  }
  (*details.mutable_runtime_hints())["lance.ivf.max_iters"] = std::to_string(o.max_iterations);
  (*details.mutable_runtime_hints())["lance.ivf.sample_rate"] = std::to_string(o.sample_rate);
  NewIndexSegment seg;
  seg.uuid = uuid;
  seg.name = o.name.empty() ? DefaultIndexName(column) : o.name;
  seg.fields = {field_id};
  seg.fragment_ids = data.fragment_ids;
  seg.details_type_url = kVectorDetailsUrl;
  seg.details = ::lance::proto::SerializeDeterministic(details);
  seg.index_version = rq_kind ? 2 : 1;  // lance 12 records IVF_RQ (raw-query estimator) as 2
  for (const char* f : {kAuxiliaryFileName, kIndexFileName}) {
    LANCE_ASSIGN_OR_RAISE(io::ObjectMeta meta, store->object_store()->Head(store->PathOf(f)));
    seg.files.push_back({f, static_cast<uint64_t>(meta.size), {}});
  }
  if (staged) {
    for (const char* f : {kAuxiliaryFileName, kIndexFileName}) staged->Record(store->PathOf(f));
    staged->RecordDirectory(at.location().Path("_indices"));
  }
  summary->name = seg.name;
  summary->uuid = uuid;
  summary->num_rows = n;
  summary->num_partitions = parts;
  summary->num_sub_vectors = m;
  return seg;
}

}  // namespace

Result<IvfBuildSummary> CreateVectorIndex(const table::Snapshot& at, const std::string& column,
                                          const scalar::TrainingRows& rows,
                                          const IvfBuildOptions& o) {
  IvfBuildSummary summary;
  LANCE_ASSIGN_OR_RAISE(NewIndexSegment seg, BuildSegment(at, column, rows, o, nullptr, &summary));
  LANCE_ASSIGN_OR_RAISE(table::CommitInfo info, CommitNewIndex(at.location(), at.version(), seg, o.replace, o.commit));
  summary.version = info.version;
  return summary;
}

Result<NewIndexSegment> BuildVectorIndexSegment(const table::Snapshot& at, const std::string& column,
                                                const scalar::TrainingRows& rows, const IvfBuildOptions& o,
                                                table::StagedFiles* staged) {
  IvfBuildSummary summary;
  return BuildSegment(at, column, rows, o, staged, &summary);
}

}  // namespace lance::index::vector
