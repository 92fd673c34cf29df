// Optimize of IVF vector indexes (vector/optimize.h): the appended rows merged into the existing
// partitions with the existing centroids and quantizer (HNSW graphs built anew).
#include "lance/index/vector/optimize.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>

#include <nlohmann/json.hpp>

#include "index/proto/ivf.pb.h"
#include "index/vector/hnsw.h"
#include "index/vector/hnsw_rebuild.h"
#include "index/vector/ivf_format.h"
#include "index/vector/ivf_rewrite.h"
#include "index/vector/pq_distance.h"
#include "index/vector/rabitq_index.h"
#include "lance/columnar/compute.h"
#include "lance/core/bit_util.h"
#include "lance/file/file_writer.h"
#include "lance/index/index_store.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/linalg/flat_search.h"
#include "lance/linalg/kmeans.h"
#include "lance/table/feature_flags.h"

namespace lance::index::vector {

bool MergedOnOptimize(const table::IndexInfo& info) { return ParseIndexKind(table::IndexTypeName(info)).ok(); }

Result<std::optional<VectorOptimizePlan>> PlanVectorIndexOptimize(const table::Snapshot& at,
                                                                  const std::string& name) {
  const table::Manifest& m = at.manifest();
  const auto segments = FindIndexSegments(m, name);
  if (segments.empty()) {
    return Status::NotFound("{} (version {}) has no index named '{}'", at.location().display(), at.version(), name);
  }
  const table::IndexInfo& newest = *segments.back();
  if (!MergedOnOptimize(newest)) {
    return Status::NotSupported("index '{}' of {}: {} indexes are not optimized yet; rebuild it (create-index "
                                "--replace)", name, at.location().display(), table::IndexTypeName(newest));
  }
  LANCE_ASSIGN_OR_RAISE(FragmentCoverage coverage, CoverageOf(m, segments, name, at.location().display()));
  const std::vector<uint32_t>& live = coverage.live;
  const std::vector<uint32_t>& unindexed = coverage.unindexed;
  if (unindexed.empty() && segments.size() == 1) return std::optional<VectorOptimizePlan>();
  VectorOptimizePlan plan;
  plan.name = name;
  LANCE_ASSIGN_OR_RAISE(plan.column, KeyedColumn(m, newest, at.location().display()));
  plan.replaced_uuid = newest.uuid;
  std::vector<uint32_t> kept, newest_frags = newest.fragment_ids;
  std::sort(newest_frags.begin(), newest_frags.end());
  std::set_intersection(newest_frags.begin(), newest_frags.end(), live.begin(), live.end(), std::back_inserter(kept));
  std::set_union(kept.begin(), kept.end(), unindexed.begin(), unindexed.end(), std::back_inserter(plan.fragment_ids));
  plan.new_fragment_ids = unindexed;
  plan.dataset_version = newest.dataset_version;
  return std::optional<VectorOptimizePlan>(std::move(plan));
}

namespace {

// The new rows' non-null float32 vectors (normalised for cosine) with their row ids.
struct NewVectors {
  std::vector<float> values;
  std::vector<uint64_t> row_ids;
};

Result<NewVectors> LoadNewVectors(const table::Snapshot& at, const std::string& column, size_t dim,
                                  const scalar::TrainingRows& rows, bool normalise) {
  NewVectors out;
  LANCE_ASSIGN_OR_RAISE(scalar::TrainingData in, rows(at, column));
  size_t first = 0;
  for (const auto& values : in.values) {
    if (first + static_cast<size_t>(values->length) > in.row_ids.size()) {
      return Status::InvalidArgument("optimize index on \"{}\": the new rows have more values than row ids ({})",
                                     column, in.row_ids.size());
    }
    LANCE_ASSIGN_OR_RAISE(linalg::VectorColumn vc, linalg::VectorColumn::Of(*values));
    if (vc.element != linalg::ElementType::kFloat32 || vc.dim != dim) {
      return Status::InvalidArgument("optimize index on \"{}\": new vectors are {} x {}, the index holds float32 x {}",
                                     column, linalg::ElementTypeName(vc.element), vc.dim, dim);
    }
    const auto* v = reinterpret_cast<const float*>(vc.data);
    for (size_t i = 0; i < vc.length; ++i) {
      if (vc.validity && !bit_util::GetBit(vc.validity, vc.validity_offset + static_cast<int64_t>(i))) continue;
      if (normalise) {
        auto u = NormalizeVector(v + i * dim, dim);
        out.values.insert(out.values.end(), u.begin(), u.end());
      } else {
        out.values.insert(out.values.end(), v + i * dim, v + (i + 1) * dim);
      }
      out.row_ids.push_back(in.row_ids[first + i]);
    }
    first += vc.length;
  }
  if (first != in.row_ids.size()) {
    return Status::InvalidArgument("optimize index on \"{}\": the new rows have {} values but {} row ids", column,
                                   first, in.row_ids.size());
  }
  return out;
}

// The JSON object of auxiliary.idx's storage_metadata (one quantizer), or null.
nlohmann::json StorageMetadata(const Schema& schema) {
  const auto& meta = schema.metadata();
  auto text = meta ? meta->Get(kStorageMetadataKey) : std::nullopt;
  if (!text) return nullptr;
  auto list = nlohmann::json::parse(*text, nullptr, false);
  if (!list.is_array() || list.size() != 1 || !list[0].is_string()) return nullptr;
  auto sm = nlohmann::json::parse(list[0].get<std::string>(), nullptr, false);
  return sm.is_object() ? sm : nullptr;
}

}  // namespace

Result<MergedVectorSegment> MergeIvfIndexSegment(const table::Snapshot& at, const VectorOptimizePlan& plan,
                                                 const scalar::TrainingRows& rows, ThreadPool* pool,
                                                 table::StagedFiles* staged) {
  const table::Manifest& m = at.manifest();
  auto old_info = std::find_if(m.indices.begin(), m.indices.end(),
                               [&](const table::IndexInfo& x) { return x.uuid == plan.replaced_uuid; });
  if (old_info == m.indices.end()) {
    return Status::NotFound("{} (version {}) has no index segment {}", at.location().display(), at.version(),
                            plan.replaced_uuid);
  }
  auto from = OpenIndexStore(at.location(), *old_info);
  LANCE_ASSIGN_OR_RAISE(auto index, IvfIndex::Open(from));
  const IndexKind kind = index->kind();
  const bool graphs = IsHnswKind(kind);
  const bool pq_kind = kind == IndexKind::kIvfPq || kind == IndexKind::kIvfHnswPq;
  const bool sq_kind = kind == IndexKind::kIvfSq || kind == IndexKind::kIvfHnswSq;
  const bool rq_kind = kind == IndexKind::kIvfRq;
  const linalg::DistanceType metric = index->metric();
  if (metric == linalg::DistanceType::kHamming) {
    return Status::NotSupported("optimize index {}: a hamming index is not optimized yet (rebuild it with "
                                "--replace)", plan.replaced_uuid);
  }
  const IvfModel& ivf = index->ivf();
  const size_t dim = ivf.dim, parts = ivf.num_partitions();
  LANCE_ASSIGN_OR_RAISE(NewVectors nv, LoadNewVectors(at, plan.column, dim, rows,
                                                      metric == linalg::DistanceType::kCosine));
  const size_t n_new = nv.row_ids.size();

  // The new rows' partitions, by the distance the index was clustered with.
  const linalg::DistanceType ivf_metric =
      metric == linalg::DistanceType::kDot ? linalg::DistanceType::kDot : linalg::DistanceType::kL2;
  std::vector<uint32_t> assignment(n_new);
  if (n_new > 0) {
    LANCE_RETURN_NOT_OK(linalg::AssignToCentroids(nv.values.data(), n_new, dim, ivf.centroids.data(), parts,
                                                  ivf_metric, pool, assignment.data()));
  }

  const std::string aux_path = from->DisplayPathOf(kAuxiliaryFileName);
  // The reader IvfIndex::Open above mapped (one open, its pages shared).
  LANCE_ASSIGN_OR_RAISE(auto aux, from->OpenMappedFile(kAuxiliaryFileName));
  // SQ bounds as lance 12 reads and writes them again (the new rows are coded with those).
  const SchemaPtr schema = ReserializedStorageSchema(aux->schema());
  const nlohmann::json sm = StorageMetadata(*schema);

  // The new rows' stored form: the vectors (FLAT), SQ codes, PQ codes or RaBitQ codes with
  // their factors (row-major).
  std::vector<uint8_t> new_codes, new_ex_codes;  // ex codes: IVF_RQ of more than 1 bit
  std::vector<RabitqFactors> new_factors;
  const PqCodebook* pq = index->pq();
  if (pq_kind) {
    if (pq == nullptr) return Status::Corruption("{}: an IVF_PQ index without a codebook", aux_path);
    std::vector<float> resid(nv.values);
    if (metric != linalg::DistanceType::kDot) {
      for (size_t i = 0; i < n_new; ++i) {
        const float* c = ivf.centroid(assignment[i]);
        for (size_t d = 0; d < dim; ++d) resid[i * dim + d] -= c[d];
      }
    }
    new_codes.resize(n_new * pq->num_sub_vectors);
    // Coded by the l2-nearest centroid, as the builder codes every metric.
    if (n_new > 0) PqEncode(*pq, resid.data(), n_new, linalg::DistanceType::kL2, new_codes.data());
  } else if (rq_kind) {
    // Each new row's residual to its centroid, by the index's rotation (as create-index codes).
    const RabitqModel& model = RabitqAccess::Model(*index);
    std::vector<float> rotated(parts * dim);
    for (size_t p = 0; p < parts; ++p) RabitqRotate(model, ivf.centroid(p), dim, &rotated[p * dim]);
    const size_t w = model.code_bytes(), ex_w = model.ex_code_bytes();
    new_codes.resize(n_new * w);
    new_ex_codes.resize(n_new * ex_w);
    new_factors.resize(n_new);
    ParallelFor(pool, static_cast<int64_t>(n_new), [&](int64_t i) {
      const size_t a = assignment[i];
      new_factors[i] = RabitqEncodeVector(model, &nv.values[size_t(i) * dim], ivf.centroid(a), dim, &rotated[a * dim],
                                          new_codes.data() + size_t(i) * w, metric == linalg::DistanceType::kDot,
                                          ex_w ? new_ex_codes.data() + size_t(i) * ex_w : nullptr);
    });
  } else if (sq_kind) {
    if (!sm.is_object() || !sm.contains("bounds") || !sm["bounds"].is_object() ||
        !sm["bounds"].value("start", nlohmann::json()).is_number() ||
        !sm["bounds"].value("end", nlohmann::json()).is_number()) {
      return Status::Corruption("{}: storage_metadata has no SQ \"bounds\" {{start, end}}", aux_path);
    }
    SqBounds b{sm["bounds"]["start"].get<double>(), sm["bounds"]["end"].get<double>()};
    new_codes.resize(n_new * dim);
    if (n_new > 0) SqEncode(nv.values.data(), n_new * dim, b, new_codes.data());
  }

  // Old rows of fragments still covered, partition by partition, then the new rows of it.
  // Indices into [old rows..., new rows...].
  std::vector<uint32_t> covered = plan.fragment_ids;
  std::sort(covered.begin(), covered.end());
  const std::vector<uint64_t>& old_ids = index->row_ids();
  const bool stable_ids = (m.writer_feature_flags & table::kFlagStableRowIds) != 0;
  const size_t n_old = old_ids.size();
  std::vector<std::vector<int64_t>> new_of(parts);
  for (size_t i = 0; i < n_new; ++i) new_of[assignment[i]].push_back(static_cast<int64_t>(n_old + i));
  std::vector<int64_t> order;
  std::vector<uint32_t> lengths(parts, 0);
  for (size_t p = 0; p < parts; ++p) {
    for (uint64_t i = ivf.offsets[p]; i < ivf.offsets[p] + ivf.lengths[p]; ++i) {
      // Row addresses name their fragment (stable row ids do not: those rows are all kept).
      if (!stable_ids && !std::binary_search(covered.begin(), covered.end(), static_cast<uint32_t>(old_ids[i] >> 32))) {
        continue;
      }
      order.push_back(static_cast<int64_t>(i));
      ++lengths[p];
    }
    order.insert(order.end(), new_of[p].begin(), new_of[p].end());
    lengths[p] += static_cast<uint32_t>(new_of[p].size());
  }
  const auto n = static_cast<int64_t>(order.size());
  auto id_of = [&](int64_t i) { return i < static_cast<int64_t>(n_old) ? old_ids[i] : nv.row_ids[i - n_old]; };

  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr all, aux->ReadAll());
  const bool transposed = sm.is_object() && sm.value("transposed", false);
  std::vector<ArrayPtr> columns;
  for (int c = 0; c < schema->num_fields(); ++c) {
    const FieldPtr& f = schema->field(c);
    if (f->name() == kRowIdColumn) {
      LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * 8));
      auto* out = reinterpret_cast<uint64_t*>(buf->mutable_data());
      for (int64_t j = 0; j < n; ++j) out[j] = id_of(order[j]);
      columns.push_back(Array::Make(uint64(), n, {nullptr, buf}));
    } else if (f->name() == kPqCodeColumn && transposed) {
      // Transposed within each partition: byte s * len + j is its row j's code s.
      const size_t w = pq->num_sub_vectors;
      LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * static_cast<int64_t>(w)));
      uint8_t* out = buf->mutable_data();
      size_t first = 0;
      for (uint32_t len : lengths) {
        for (size_t j = 0; j < len; ++j) {
          const int64_t r = order[first + j];
          const uint8_t* code = r < static_cast<int64_t>(n_old) ? index->code(static_cast<size_t>(r))
                                                                 : new_codes.data() + (r - n_old) * w;
          for (size_t s = 0; s < w; ++s) out[first * w + s * len + j] = code[s];
        }
        first += len;
      }
      auto values = Array::Make(uint8(), n * static_cast<int64_t>(w), {nullptr, buf});
      columns.push_back(Array::Make(f->type(), n, {nullptr}, {values}));
    } else if (rq_kind && f->name() == kRabitCodeColumn) {
      // The rows' codes in order, packed per partition when the storage packs them.
      const RabitqStorage& rq = *index->rq();
      const size_t w = rq.model.code_bytes();
      std::vector<uint8_t> rows_major(static_cast<size_t>(n) * w);
      for (int64_t j = 0; j < n; ++j) {
        const int64_t r = order[j];
        std::memcpy(rows_major.data() + j * w, r < static_cast<int64_t>(n_old) ? rq.codes.data() + r * w
                                                                                : new_codes.data() + (r - n_old) * w, w);
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * static_cast<int64_t>(w)));
      if (sm.is_object() && sm.value("packed", false)) {
        size_t first = 0;
        for (uint32_t len : lengths) {
          PackRabitqCodes(rows_major.data() + first * w, len, w, buf->mutable_data() + first * w);
          first += len;
        }
      } else if (!rows_major.empty()) {
        std::memcpy(buf->mutable_data(), rows_major.data(), rows_major.size());
      }
      auto values = Array::Make(uint8(), n * static_cast<int64_t>(w), {nullptr, buf});
      columns.push_back(Array::Make(f->type(), n, {nullptr}, {values}));
    } else if (rq_kind && f->name() == kRabitExCodeColumn) {
      // More than 1 bit: the rows' ex codes in order (row by row, not packed).
      const RabitqStorage& rq = *index->rq();
      const size_t w = rq.model.ex_code_bytes();
      LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * static_cast<int64_t>(w)));
      for (int64_t j = 0; j < n; ++j) {
        const int64_t r = order[j];
        std::memcpy(buf->mutable_data() + j * w, r < static_cast<int64_t>(n_old) ? rq.ex_codes.data() + r * w
                                                                                  : new_ex_codes.data() + (r - n_old) * w, w);
      }
      auto values = Array::Make(uint8(), n * static_cast<int64_t>(w), {nullptr, buf});
      columns.push_back(Array::Make(f->type(), n, {nullptr}, {values}));
    } else if (rq_kind && (f->name() == kRabitAddFactorsColumn || f->name() == kRabitScaleFactorsColumn ||
                           f->name() == kRabitErrorFactorsColumn || f->name() == kRabitExAddFactorsColumn ||
                           f->name() == kRabitExScaleFactorsColumn)) {
      const RabitqStorage& rq = *index->rq();
      const int which = f->name() == kRabitAddFactorsColumn     ? 0
                        : f->name() == kRabitScaleFactorsColumn ? 1
                        : f->name() == kRabitErrorFactorsColumn ? 2
                        : f->name() == kRabitExAddFactorsColumn ? 3
                                                                : 4;
      const std::vector<float>& stored = which == 0   ? rq.add
                                         : which == 1 ? rq.scale
                                         : which == 2 ? rq.error
                                         : which == 3 ? rq.add_ex
                                                      : rq.scale_ex;
      LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * 4));
      auto* out = reinterpret_cast<float*>(buf->mutable_data());
      for (int64_t j = 0; j < n; ++j) {
        const int64_t r = order[j];
        if (r < static_cast<int64_t>(n_old)) {
          out[j] = stored[static_cast<size_t>(r)];
        } else {
          const RabitqFactors& x = new_factors[static_cast<size_t>(r - static_cast<int64_t>(n_old))];
          out[j] = which == 0 ? x.add : which == 1 ? x.scale : which == 2 ? x.error : which == 3 ? x.add_ex : x.scale_ex;
        }
      }
      columns.push_back(Array::Make(float32(), n, {nullptr, buf}));
    } else if (f->name() == kFlatColumn || f->name() == kSqCodeColumn || f->name() == kPqCodeColumn) {
      // Row-major storage: the old column with the new rows after it, gathered in order.
      const bool flat = f->name() == kFlatColumn;
      const size_t w = flat ? dim : f->name() == kSqCodeColumn ? dim : pq->num_sub_vectors;
      const size_t bytes = flat ? n_new * dim * 4 : new_codes.size();
      LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(static_cast<int64_t>(bytes)));
      if (bytes > 0) std::memcpy(buf->mutable_data(), flat ? static_cast<const void*>(nv.values.data())
                                                           : static_cast<const void*>(new_codes.data()), bytes);
      auto values = Array::Make(flat ? float32() : uint8(), static_cast<int64_t>(n_new * w), {nullptr, buf});
      ArrayPtr fresh = Array::Make(f->type(), static_cast<int64_t>(n_new), {nullptr}, {values});
      LANCE_ASSIGN_OR_RAISE(ArrayPtr joined, Concatenate({all->column(c), fresh}));
      LANCE_ASSIGN_OR_RAISE(ArrayPtr taken, TakeArray(joined, order));
      columns.push_back(std::move(taken));
    } else {
      return Status::NotSupported("{}: column \"{}\" is not merged by optimize", aux_path, f->name());
    }
  }

  NewIndexSegment seg;
  seg.uuid = NewIndexUuid();
  seg.name = plan.name;
  seg.fields = old_info->fields;
  seg.fragment_ids = plan.fragment_ids;
  seg.details_type_url = old_info->details_type_url;
  seg.details = old_info->details;
  seg.index_version = static_cast<int32_t>(old_info->index_version.value_or(0));
  auto to = IndexStore::Make(staged->store(), IndexDirectory(at.location(), seg.uuid));
  // The global buffers as they were (the PQ codebook), the IVF partition table anew; index.idx
  // (the centroids) does not change, but an HNSW index's graphs are built anew over each
  // partition's rows, as lance 12's optimize builds them.
  std::function<Result<uint64_t>(IndexStore&)> rebuild;
  if (graphs) {
    AddedHnswRows added;
    added.sq_codes = sq_kind ? new_codes.data() : nullptr;
    added.pq_codes = pq_kind ? new_codes.data() : nullptr;
    added.vectors = kind == IndexKind::kIvfHnswFlat ? nv.values.data() : nullptr;
    rebuild = [&, added](IndexStore& out) { return WriteRebuiltHnswIndex(*index, out, order, added, lengths, pool); };
  }
  LANCE_ASSIGN_OR_RAISE(RewrittenIvfSizes sizes,
                        WriteRewrittenIvf(*from, *to, *aux, schema, n, std::move(columns), lengths, rebuild));
  seg.files = {{kAuxiliaryFileName, sizes.auxiliary, {}}, {kIndexFileName, sizes.index, {}}};
  LANCE_ASSIGN_OR_RAISE(auto written, staged->store()->List(to->dir() + "/"));
  for (const auto& f : written) staged->Record(f.path);
  staged->RecordDirectory(at.location().Path("_indices"));
  MergedVectorSegment result;
  result.segment = std::move(seg);
  result.num_indexed_rows = static_cast<uint64_t>(n);
  result.num_new_rows = n_new;
  return result;
}

}  // namespace lance::index::vector
