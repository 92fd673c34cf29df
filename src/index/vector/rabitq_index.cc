// Loading and searching lance 12's IVF_RQ storage (see rabitq_index.h).
#include "index/vector/rabitq_index.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <queue>

#include "index/vector/ivf_format.h"
#include "lance/linalg/distance.h"
#include "lance/linalg/topk.h"

namespace lance::index::vector {

namespace {

// A float32 column without nulls, `rows` long.
Result<std::vector<float>> FloatColumn(const Array& a, const char* name, const std::string& file) {
  if (a.type_id() != TypeId::kFloat || a.null_count != 0) {
    return Status::Corruption("{}: {} must be float32 without nulls", file, name);
  }
  return std::vector<float>(a.Values<float>(), a.Values<float>() + a.length);
}

// The ex codes and factors of a multi-bit index (rows in file order, like the factors).
Status LoadExCodes(RabitqStorage* storage, const file::FileReader& aux, const std::string& aux_path, size_t rows) {
  const Schema& schema = *aux.schema();
  const RabitqModel& m = storage->model;
  if (storage->error.size() != rows) {
    return Status::NotSupported("{}: {}-bit RaBitQ without {} (its search bounds rows by them)", aux_path,
                                m.num_bits, kRabitErrorFactorsColumn);
  }
  if (schema.GetFieldIndex(kRabitExCodeColumn) < 0 && schema.GetFieldIndex(kRabitLegacyExCodeColumn) >= 0) {
    return Status::NotSupported("{}: RaBitQ ex codes in the sequential {} column (the blocked {} is read)",
                                aux_path, kRabitLegacyExCodeColumn, kRabitExCodeColumn);
  }
  const char* names[] = {kRabitExCodeColumn, kRabitExAddFactorsColumn, kRabitExScaleFactorsColumn};
  std::vector<int> fields;
  for (const char* name : names) {
    const int f = schema.GetFieldIndex(name);
    if (f < 0) return Status::Corruption("{}: {}-bit RaBitQ needs a column {}", aux_path, m.num_bits, name);
    fields.push_back(f);
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, aux.ReadAll(fields));
  const Array& codes = *batch->column(0);
  const size_t width = m.ex_code_bytes();
  if (codes.type_id() != TypeId::kFixedSizeList || codes.null_count != 0 || codes.children.size() != 1 ||
      static_cast<size_t>(codes.type->list_size()) != width || codes.children[0]->type_id() != TypeId::kUInt8 ||
      static_cast<size_t>(codes.length) != rows) {
    return Status::Corruption("{}: {} must be fixed_size_list<uint8, {}> ({} dimensions x {} ex bits in blocks of "
                              "64) without null rows, {} rows",
                              aux_path, kRabitExCodeColumn, width, m.code_dim, m.ex_bits(), rows);
  }
  const uint8_t* values = codes.children[0]->Values<uint8_t>() + codes.offset * static_cast<int64_t>(width);
  storage->ex_codes.assign(values, values + rows * width);
  LANCE_ASSIGN_OR_RAISE(storage->add_ex, FloatColumn(*batch->column(1), kRabitExAddFactorsColumn, aux_path));
  LANCE_ASSIGN_OR_RAISE(storage->scale_ex, FloatColumn(*batch->column(2), kRabitExScaleFactorsColumn, aux_path));
  if (storage->add_ex.size() != rows || storage->scale_ex.size() != rows) {
    return Status::Corruption("{}: the ex factor columns must have {} rows", aux_path, rows);
  }
  return Status::OK();
}

}  // namespace

Status RabitqAccess::Load(IvfIndex* index, const file::FileReader& aux, const std::string& aux_path) {
  const Schema& schema = *aux.schema();
  if (index->metric_ == linalg::DistanceType::kHamming) {
    return Status::NotSupported("{}: IVF_RQ with distance_type hamming (l2, cosine and dot are read)", aux_path);
  }
  std::string sm_text;
  if (schema.metadata()) {
    if (auto v = schema.metadata()->Get(kStorageMetadataKey)) sm_text = *v;
  }
  if (sm_text.empty()) return Status::Corruption("{}: schema metadata has no \"{}\"", aux_path, kStorageMetadataKey);
  auto storage = std::make_shared<RabitqStorage>();
  LANCE_ASSIGN_OR_RAISE(storage->model, ParseRabitqMetadata(sm_text, aux_path));
  const RabitqModel& m = storage->model;
  if (m.code_dim != index->ivf_.dim) {
    return Status::Corruption("{}: RaBitQ code_dim {}, the centroids have {} dimensions", aux_path,
                              m.code_dim, index->ivf_.dim);
  }
  const char* names[] = {kRowIdColumn, kRabitCodeColumn, kRabitAddFactorsColumn, kRabitScaleFactorsColumn};
  std::vector<int> fields;
  for (const char* name : names) {
    const int f = schema.GetFieldIndex(name);
    if (f < 0) return Status::Corruption("{}: expected a column {}", aux_path, name);
    fields.push_back(f);
  }
  const int error_field = schema.GetFieldIndex(kRabitErrorFactorsColumn);
  if (error_field >= 0) fields.push_back(error_field);
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, aux.ReadAll(fields));
  const Array& rowids = *batch->column(0);
  const Array& codes = *batch->column(1);
  if (rowids.type_id() != TypeId::kUInt64 || rowids.null_count != 0) {
    return Status::Corruption("{}: {} must be uint64 without nulls", aux_path, kRowIdColumn);
  }
  const size_t rows = static_cast<size_t>(rowids.length), width = m.code_bytes();
  if (codes.type_id() != TypeId::kFixedSizeList || codes.null_count != 0 || codes.children.size() != 1 ||
      static_cast<size_t>(codes.type->list_size()) != width ||
      codes.children[0]->type_id() != TypeId::kUInt8) {
    return Status::Corruption("{}: {} must be fixed_size_list<uint8, {}> without null rows", aux_path,
                              kRabitCodeColumn, width);
  }
  index->row_ids_.assign(rowids.Values<uint64_t>(), rowids.Values<uint64_t>() + rows);
  LANCE_ASSIGN_OR_RAISE(storage->add, FloatColumn(*batch->column(2), kRabitAddFactorsColumn, aux_path));
  LANCE_ASSIGN_OR_RAISE(storage->scale, FloatColumn(*batch->column(3), kRabitScaleFactorsColumn, aux_path));
  if (error_field >= 0) {
    LANCE_ASSIGN_OR_RAISE(storage->error, FloatColumn(*batch->column(4), kRabitErrorFactorsColumn, aux_path));
  }
  const uint8_t* packed = codes.children[0]->Values<uint8_t>() + codes.offset * static_cast<int64_t>(width);
  storage->codes.resize(rows * width);
  // The codes are packed partition by partition (each partition's 32-row batches from its
  // first row), or row-major when storage_metadata says not packed.
  if (!m.packed) std::memcpy(storage->codes.data(), packed, rows * width);
  for (size_t p = 0; m.packed && p < index->ivf_.num_partitions(); ++p) {
    const size_t o = index->ivf_.offsets[p], n = index->ivf_.lengths[p];
    UnpackRabitqCodes(packed + o * width, n, width, storage->codes.data() + o * width);
  }
  if (m.num_bits > 1) LANCE_RETURN_NOT_OK(LoadExCodes(storage.get(), aux, aux_path, rows));
  index->rq_ = std::move(storage);
  return Status::OK();
}

void RabitqAccess::ScorePartition(const IvfIndex& index, const RabitqQuery& q, size_t p, float centroid_dist,
                                  float* dist) {
  const RabitqStorage& s = *index.rq_;
  const size_t width = s.model.code_bytes();
  const size_t first = index.ivf_.offsets[p], n = index.ivf_.lengths[p];
  // Dot: -<q, c> (lance 12's query factor), from the query's dot distance 1 - <q, c>.
  const float query_term = index.metric_ == linalg::DistanceType::kDot ? centroid_dist - 1.0f : centroid_dist;
  RabitqScore(s.model, q, s.codes.data() + first * width, n, s.add.data() + first, s.scale.data() + first,
              query_term, dist);
}

void RabitqAccess::SearchMultiBit(const IvfIndex& index, const RabitqQuery& q, const float* query,
                                  const std::vector<uint32_t>& parts, const std::vector<float>& centroid_dist,
                                  size_t limit, const std::function<bool(uint64_t)>& keep, linalg::TopK* all) {
  const RabitqStorage& s = *index.rq_;
  const RabitqModel& m = s.model;
  const size_t width = m.code_bytes(), ex_width = m.ex_code_bytes();
  const size_t padded = (m.code_dim + 63) / 64 * 64;
  const bool dot = index.metric_ == linalg::DistanceType::kDot;
  std::vector<float> ex_query(padded, 0.0f);
  std::copy(q.rotated.begin(), q.rotated.end(), ex_query.begin());
  std::vector<uint8_t> ex_values(padded, 0);
  std::vector<float> ip;
  // A max-heap of (distance, row): its top is the worst kept.
  using Node = std::pair<float, uint64_t>;
  std::priority_queue<Node> heap;
  const float half_sum = 0.5f * q.sum;
  for (uint32_t p : parts) {
    const size_t first = index.ivf_.offsets[p], n = index.ivf_.lengths[p];
    ip.resize(n);
    RabitqBinaryIp(m, q, s.codes.data() + first * width, n, ip.data());
    const float query_term = dot ? centroid_dist[p] - 1.0f : centroid_dist[p];
    // The query's distance to the centroid (l2; dot: of the vectors) scales the error bounds.
    const float query_error = dot ? std::sqrt(std::max(linalg::L2(query, index.ivf_.centroid(p), index.ivf_.dim), 0.0f))
                                  : std::sqrt(std::max(centroid_dist[p], 0.0f));
    for (size_t j = 0; j < n; ++j) {
      const size_t r = first + j;
      const uint64_t row = index.row_ids_[r];
      if (keep && !keep(row)) continue;
      const float binary = (ip[j] - half_sum) * s.scale[r] + s.add[r] + query_term;
      const float lower = binary - s.error[r] * query_error;
      if (!(lower < FLT_MAX)) continue;
      if (heap.size() >= limit && lower >= heap.top().first) continue;
      UnpackRabitqExCode(s.ex_codes.data() + r * ex_width, m.code_dim, m.ex_bits(), ex_values.data());
      const float ex_dot = RabitqExDot(ex_query.data(), ex_values.data(), padded, m.ex_bits());
      const float d = RabitqExDistance(m, q, ip[j], ex_dot, s.add_ex[r], s.scale_ex[r], query_term);
      if (!(d < FLT_MAX) || d < -FLT_MAX) continue;
      if (heap.size() < limit) {
        heap.emplace(d, row);
      } else if (heap.top().first > d) {
        heap.pop();
        heap.emplace(d, row);
      }
    }
  }
  for (; !heap.empty(); heap.pop()) all->Push(heap.top().second, heap.top().first);
}

const RabitqModel& RabitqAccess::Model(const IvfIndex& index) { return index.rq_->model; }

}  // namespace lance::index::vector
