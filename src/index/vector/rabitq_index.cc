// Loading and searching lance 12's IVF_RQ storage (see rabitq_index.h).
#include "index/vector/rabitq_index.h"

#include <cstring>

#include "index/vector/ivf_format.h"

namespace lance::index::vector {

namespace {

// A float32 column without nulls, `rows` long.
Result<std::vector<float>> FloatColumn(const Array& a, const char* name, const std::string& file) {
  if (a.type_id() != TypeId::kFloat || a.null_count != 0) {
    return Status::Corruption("{}: {} must be float32 without nulls", file, name);
  }
  return std::vector<float>(a.Values<float>(), a.Values<float>() + a.length);
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

const RabitqModel& RabitqAccess::Model(const IvfIndex& index) { return index.rq_->model; }

}  // namespace lance::index::vector
