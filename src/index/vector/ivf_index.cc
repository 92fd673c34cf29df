// Reading lance 12's IVF_FLAT / IVF_PQ index files and searching them (see ivf_index.h).
#include "lance/index/vector/ivf_index.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "index/proto/ivf.pb.h"
#include "index/vector/hnsw_index.h"
#include "index/vector/ivf_format.h"
#include "index/vector/ivf_partition.h"
#include "index/vector/pq_distance.h"
#include "index/vector/rabitq_index.h"
#include "lance/file/file_reader.h"
#include "lance/index/index_store.h"
#include "lance/linalg/flat_search.h"

namespace lance::index::vector {

namespace {

using linalg::DistanceType;

Result<std::string> RequireMetadata(const Schema& schema, std::string_view key,
                                    const std::string& file) {
  if (schema.metadata()) {
    if (auto v = schema.metadata()->Get(key)) return *v;
  }
  return Status::Corruption("{}: schema metadata has no \"{}\"", file, key);
}

// The IVF message in the global buffer named by the file's "lance:ivf" metadata.
Result<pb::IVF> ReadIvfMessage(const file::FileReader& reader, const std::string& file) {
  LANCE_ASSIGN_OR_RAISE(std::string pos_text, RequireMetadata(*reader.schema(), kIvfMetadataKey, file));
  int pos = 0;
  auto [ptr, ec] = std::from_chars(pos_text.data(), pos_text.data() + pos_text.size(), pos);
  if (ec != std::errc() || ptr != pos_text.data() + pos_text.size() || pos <= 0 ||
      pos >= reader.num_global_buffers()) {
    return Status::Corruption("{}: \"lance:ivf\" is \"{}\", expected a global buffer 1..{}", file,
                              pos_text, reader.num_global_buffers() - 1);
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, reader.ReadGlobalBuffer(pos));
  pb::IVF ivf;
  if (bytes->size() > INT32_MAX || !ivf.ParseFromArray(bytes->data(), static_cast<int>(bytes->size()))) {
    return Status::Corruption("{}: global buffer {} is not an IVF message", file, pos);
  }
  return ivf;
}

// Float32 values of a Tensor with `rows` x `cols` (shape [rows, cols] or flat).
Result<std::vector<float>> TensorFloats(const pb::Tensor& t, const std::string& what) {
  if (t.data_type() != pb::Tensor::FLOAT32) {
    return Status::NotSupported("{}: tensor of data type {} (only float32 is read)", what,
                                static_cast<int>(t.data_type()));
  }
  uint64_t n = 1;
  for (uint32_t s : t.shape()) n *= s;
  if (t.data().size() != n * 4) {
    return Status::Corruption("{}: tensor shape holds {} floats but has {} bytes", what, n,
                              t.data().size());
  }
  std::vector<float> out(n);
  if (n) std::memcpy(out.data(), t.data().data(), n * 4);
  return out;
}

// The uint8 values of a Tensor (a hamming index's centroids) holding `n` of them.
Result<std::vector<uint8_t>> TensorBytes(const pb::Tensor& t, uint64_t n, const std::string& what) {
  if (t.data_type() != pb::Tensor::UINT8) {
    return Status::Corruption("{}: tensor of data type {}, a hamming index's are uint8 ({})", what,
                              static_cast<int>(t.data_type()), static_cast<int>(pb::Tensor::UINT8));
  }
  if (t.data().size() != n) {
    return Status::Corruption("{}: tensor shape holds {} bytes but has {}", what, n, t.data().size());
  }
  return std::vector<uint8_t>(t.data().begin(), t.data().end());
}

// The `nprobes` partitions of `ivf` nearest the binary `query` by hamming distance to their
// uint8 centroids, nearest first, ties by partition number.
std::vector<uint32_t> FindBinaryPartitions(const IvfModel& ivf, const uint8_t* query, size_t nprobes) {
  const size_t n = ivf.num_partitions();
  std::vector<float> dist(n);
  linalg::HammingDistances(query, ivf.binary_centroids.data(), n, ivf.dim, dist.data());
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  const size_t take = std::min(nprobes, n);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                    [&](uint32_t a, uint32_t b) { return dist[a] < dist[b] || (dist[a] == dist[b] && a < b); });
  order.resize(take);
  return order;
}

Result<DistanceType> ParseMetric(const std::string& name, const std::string& file) {
  auto r = linalg::ParseDistanceType(name);
  if (!r.ok()) return Status::Corruption("{}: distance_type \"{}\" is not l2/cosine/dot/hamming", file, name);
  return *r;
}

// Partitions [offsets, lengths) must tile [0, rows) in order.
Status CheckPartitions(const IvfModel& ivf, uint64_t rows, const std::string& file) {
  uint64_t next = 0;
  for (size_t p = 0; p < ivf.num_partitions(); ++p) {
    if (ivf.offsets[p] != next) {
      return Status::Corruption("{}: partition {} starts at row {}, expected {}", file, p,
                                ivf.offsets[p], next);
    }
    next += ivf.lengths[p];
  }
  if (next != rows) {
    return Status::Corruption("{}: partitions hold {} rows, the file {}", file, next, rows);
  }
  return Status::OK();
}

// The "lance:index" metadata of index.idx: the type, by its exact name (any other name is a
// format this reader does not know, a newer writer's: refused, never guessed at), and the metric.
Result<IvfIndexHeader> HeaderOf(const file::FileReader& index_reader, const std::string& index_path) {
  LANCE_ASSIGN_OR_RAISE(std::string meta_text,
                        RequireMetadata(*index_reader.schema(), kIndexMetadataKey, index_path));
  auto meta = nlohmann::json::parse(meta_text, nullptr, false);
  if (!meta.is_object() || !meta.contains("type") || !meta["type"].is_string() ||
      !meta.contains("distance_type") || !meta["distance_type"].is_string()) {
    return Status::Corruption("{}: \"lance:index\" is not {{\"type\", \"distance_type\"}}: {}",
                              index_path, meta_text);
  }
  const std::string type = meta["type"].get<std::string>();
  IvfIndexHeader header;
  LANCE_ASSIGN_OR_RAISE(header.metric, ParseMetric(meta["distance_type"].get<std::string>(), index_path));
  auto kind = ParseIndexKind(type);
  if (!kind.ok() || IndexKindName(*kind) != type) {
    return Status::NotSupported("{}: \"lance:index\" names vector index type \"{}\", not one this "
                                "reader knows (IVF_FLAT, IVF_PQ, IVF_SQ, IVF_RQ, IVF_HNSW_FLAT, "
                                "IVF_HNSW_SQ, IVF_HNSW_PQ); written by a newer lance?",
                                index_path, type);
  }
  header.kind = *kind;
  return header;
}

// auxiliary.idx's PQ storage_metadata and codebook (IVF_PQ, IVF_HNSW_PQ); `transposed`: whether
// the codes are stored sub-vector-major within each partition.
Result<PqCodebook> ReadPqCodebook(const file::FileReader& aux_reader, const std::string& aux_path, size_t dim,
                                  bool* transposed) {
  LANCE_ASSIGN_OR_RAISE(std::string sm_text, RequireMetadata(*aux_reader.schema(), kStorageMetadataKey, aux_path));
  auto sm_list = nlohmann::json::parse(sm_text, nullptr, false);
  nlohmann::json sm;
  if (sm_list.is_array() && sm_list.size() == 1 && sm_list[0].is_string()) {
    sm = nlohmann::json::parse(sm_list[0].get<std::string>(), nullptr, false);
  }
  if (!sm.is_object() || !sm.contains("codebook_position") || !sm["codebook_position"].is_number_unsigned() ||
      !sm.contains("nbits") || !sm["nbits"].is_number_unsigned() || !sm.contains("num_sub_vectors") ||
      !sm["num_sub_vectors"].is_number_unsigned() || !sm.contains("dimension") ||
      !sm["dimension"].is_number_unsigned()) {
    return Status::Corruption("{}: storage_metadata is not a list of one PQ JSON object: {}", aux_path,
                              sm_text);
  }
  PqCodebook pq;
  pq.num_bits = sm["nbits"].get<uint32_t>();
  pq.num_sub_vectors = sm["num_sub_vectors"].get<size_t>();
  pq.dim = sm["dimension"].get<size_t>();
  *transposed = sm.value("transposed", false);
  if (pq.num_bits != 8) {
    return Status::NotSupported("{}: {}-bit PQ codes (8-bit codes are read)", aux_path, pq.num_bits);
  }
  if (pq.dim != dim || pq.num_sub_vectors == 0 || pq.dim % pq.num_sub_vectors != 0) {
    return Status::Corruption("{}: PQ of {} sub-vectors over {} dimensions, the centroids have {}",
                              aux_path, pq.num_sub_vectors, pq.dim, dim);
  }
  // The codebook Tensor: in the global buffer codebook_position names, or (lance before 0.28,
  // codebook_position 0; upstream corpus v0.27.1/pq_in_schema) its bytes inline in
  // codebook_tensor, one JSON number per byte.
  const int cb_pos = sm["codebook_position"].get<int>();
  std::string inline_cb;
  if (cb_pos == 0 && sm.contains("codebook_tensor") && sm["codebook_tensor"].is_array()) {
    for (const auto& b : sm["codebook_tensor"]) {
      if (!b.is_number_unsigned() || b.get<uint64_t>() > 255) {
        return Status::Corruption("{}: codebook_tensor holds {}, not a byte", aux_path, b.dump());
      }
      inline_cb += static_cast<char>(b.get<uint8_t>());
    }
  }
  BufferPtr cb_bytes;
  if (!inline_cb.empty()) {
    cb_bytes = BufferFromString(std::move(inline_cb));
  } else if (cb_pos <= 0 || cb_pos >= aux_reader.num_global_buffers()) {
    return Status::Corruption("{}: codebook_position {} names no global buffer", aux_path, cb_pos);
  } else {
    LANCE_ASSIGN_OR_RAISE(cb_bytes, aux_reader.ReadGlobalBuffer(cb_pos));
  }
  pb::Tensor cb;
  if (cb_bytes->size() > INT32_MAX || !cb.ParseFromArray(cb_bytes->data(), static_cast<int>(cb_bytes->size()))) {
    return Status::Corruption("{}: codebook (global buffer {}) is not a Tensor", aux_path, cb_pos);
  }
  LANCE_ASSIGN_OR_RAISE(pq.centroids, TensorFloats(cb, aux_path + " codebook"));
  if (pq.centroids.size() != pq.num_centroids() * pq.dim) {
    return Status::Corruption("{}: codebook holds {} floats, expected {} x {}", aux_path,
                              pq.centroids.size(), pq.num_centroids(), pq.dim);
  }
  return pq;
}

}  // namespace

std::string_view IndexKindName(IndexKind kind) {
  switch (kind) {
    case IndexKind::kIvfFlat: return "IVF_FLAT";
    case IndexKind::kIvfPq: return "IVF_PQ";
    case IndexKind::kIvfSq: return "IVF_SQ";
    case IndexKind::kIvfRq: return "IVF_RQ";
    case IndexKind::kIvfHnswFlat: return "IVF_HNSW_FLAT";
    case IndexKind::kIvfHnswSq: return "IVF_HNSW_SQ";
    case IndexKind::kIvfHnswPq: return "IVF_HNSW_PQ";
  }
  return "?";
}

Result<IndexKind> ParseIndexKind(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (IndexKind k : {IndexKind::kIvfFlat, IndexKind::kIvfPq, IndexKind::kIvfSq, IndexKind::kIvfRq,
                      IndexKind::kIvfHnswFlat, IndexKind::kIvfHnswSq, IndexKind::kIvfHnswPq}) {
    if (upper == IndexKindName(k)) return k;
  }
  return Status::InvalidArgument("vector index type \"{}\" (expected ivf_flat, ivf_pq, ivf_sq, "
                                 "ivf_rq, ivf_hnsw_flat, ivf_hnsw_sq or ivf_hnsw_pq)", name);
}

std::vector<float> NormalizeVector(const float* v, size_t dim) {
  float sum = 0;
  for (size_t i = 0; i < dim; ++i) sum += v[i] * v[i];
  const float norm = std::sqrt(sum);
  std::vector<float> out(dim);
  for (size_t i = 0; i < dim; ++i) out[i] = v[i] / norm;
  return out;
}

Result<IvfIndexHeader> ReadIvfIndexHeader(const std::shared_ptr<IndexStore>& files) {
  LANCE_ASSIGN_OR_RAISE(auto index_reader, files->OpenMappedFile(kIndexFileName));
  return HeaderOf(*index_reader, files->DisplayPathOf(kIndexFileName));
}

Result<std::shared_ptr<IvfIndex>> IvfIndex::Open(std::shared_ptr<io::ObjectStore> store,
                                                 const std::string& dir) {
  return Open(IndexStore::Make(std::move(store), dir));
}

Result<std::shared_ptr<IvfIndex>> IvfIndex::Open(const std::shared_ptr<IndexStore>& files) {
  return OpenImpl(files, /*whole=*/true);
}

Result<std::shared_ptr<IvfIndex>> IvfIndex::OpenByPartition(const std::shared_ptr<IndexStore>& files) {
  return OpenImpl(files, /*whole=*/false);
}

Result<std::shared_ptr<IvfIndex>> IvfIndex::OpenImpl(const std::shared_ptr<IndexStore>& files, bool whole) {
  const std::string index_path = files->DisplayPathOf(kIndexFileName);
  const std::string aux_path = files->DisplayPathOf(kAuxiliaryFileName);
  LANCE_ASSIGN_OR_RAISE(auto index_reader, files->OpenMappedFile(kIndexFileName));
  // Partitions view the reader's pages: mapped, a cold partition is page faults, not a copy.
  LANCE_ASSIGN_OR_RAISE(auto aux_reader, files->OpenMappedFile(kAuxiliaryFileName));
  std::shared_ptr<IvfIndex> index(new IvfIndex());

  // index.idx: type, metric, centroids.
  LANCE_ASSIGN_OR_RAISE(IvfIndexHeader header, HeaderOf(*index_reader, index_path));
  index->kind_ = header.kind;
  index->metric_ = header.metric;
  LANCE_ASSIGN_OR_RAISE(pb::IVF ivf_msg, ReadIvfMessage(*index_reader, index_path));
  const auto& shape = ivf_msg.centroids_tensor().shape();
  if (shape.size() != 2 || shape[0] == 0 || shape[1] == 0) {
    return Status::Corruption("{}: centroids tensor shape has {} dimensions, expected "
                              "[partitions, dim]", index_path, shape.size());
  }
  const size_t num_partitions = shape[0];
  index->ivf_.dim = shape[1];
  const bool binary = index->metric_ == DistanceType::kHamming;
  if (binary && index->kind_ != IndexKind::kIvfFlat) {
    // lance 12 builds hamming as IVF_FLAT over uint8 vectors only (its PQ / SQ / RQ builders
    // refuse uint8).
    return Status::NotSupported("{}: {} with distance_type hamming (IVF_FLAT's is read)", index_path,
                                IndexKindName(index->kind_));
  }
  if (binary) {
    LANCE_ASSIGN_OR_RAISE(index->ivf_.binary_centroids,
                          TensorBytes(ivf_msg.centroids_tensor(), uint64_t{shape[0]} * shape[1],
                                      index_path + " centroids"));
  } else {
    LANCE_ASSIGN_OR_RAISE(index->ivf_.centroids,
                          TensorFloats(ivf_msg.centroids_tensor(), index_path + " centroids"));
    if (index->ivf_.centroids.size() != uint64_t{shape[0]} * shape[1]) {
      return Status::Corruption("{}: centroids tensor holds {} floats, its shape {} x {}", index_path,
                                index->ivf_.centroids.size(), shape[0], shape[1]);
    }
  }
  if (ivf_msg.has_loss()) index->ivf_.loss = ivf_msg.loss();

  // auxiliary.idx: partitions, row ids, storage.
  LANCE_ASSIGN_OR_RAISE(pb::IVF aux_ivf, ReadIvfMessage(*aux_reader, aux_path));
  if (static_cast<size_t>(aux_ivf.lengths_size()) != num_partitions ||
      static_cast<size_t>(aux_ivf.offsets_size()) != num_partitions) {
    return Status::Corruption("{}: {} partition offsets and {} lengths, the centroids {}", aux_path,
                              aux_ivf.offsets_size(), aux_ivf.lengths_size(), num_partitions);
  }
  index->ivf_.offsets.assign(aux_ivf.offsets().begin(), aux_ivf.offsets().end());
  index->ivf_.lengths.assign(aux_ivf.lengths().begin(), aux_ivf.lengths().end());
  const auto rows = static_cast<uint64_t>(aux_reader->num_rows());
  LANCE_RETURN_NOT_OK(CheckPartitions(index->ivf_, rows, aux_path));
  LANCE_ASSIGN_OR_RAISE(std::string aux_metric, RequireMetadata(*aux_reader->schema(), "distance_type", aux_path));
  LANCE_ASSIGN_OR_RAISE(DistanceType storage_metric, ParseMetric(aux_metric, aux_path));
  if (storage_metric != index->metric_) {
    return Status::Corruption("{}: distance_type {} but index.idx says {}", aux_path, aux_metric,
                              linalg::DistanceTypeName(index->metric_));
  }

  const Schema& aux_schema = *aux_reader->schema();
  const size_t parts = index->ivf_.num_partitions();
  index->index_reader_ = index_reader;
  index->aux_reader_ = aux_reader;
  index->index_path_ = index_path;
  index->aux_path_ = aux_path;
  index->files_ = files;
  index->num_rows_ = rows;
  // The store's address tells two stores' equal paths apart (IndexStore adds the directory).
  index->partition_key_ = fmt::format("ivf_part:{}:", static_cast<const void*>(files->object_store().get()));
  if (index->kind_ == IndexKind::kIvfRq) {
    // Read whole (its packed codes and factors are not split by partition here).
    LANCE_RETURN_NOT_OK(RabitqAccess::Load(index.get(), *aux_reader, aux_path));
    return index;
  }
  index->rowid_field_ = aux_schema.GetFieldIndex(kRowIdColumn);
  const bool pq_storage = index->kind_ == IndexKind::kIvfPq || index->kind_ == IndexKind::kIvfHnswPq;
  const char* storage_column = pq_storage                              ? kPqCodeColumn
                               : index->kind_ == IndexKind::kIvfHnswSq || index->kind_ == IndexKind::kIvfSq
                                   ? kSqCodeColumn
                                                                       : kFlatColumn;
  index->storage_field_ = aux_schema.GetFieldIndex(storage_column);
  if (index->rowid_field_ < 0 || index->storage_field_ < 0) {
    return Status::Corruption("{}: expected columns {} and {}", aux_path, kRowIdColumn, storage_column);
  }

  if (binary) {  // IVF_FLAT over uint8 vectors
    const DataTypePtr& t = aux_schema.field(index->storage_field_)->type();
    if (t->id() != TypeId::kFixedSizeList || t->value_type()->id() != TypeId::kUInt8 ||
        static_cast<size_t>(t->list_size()) != index->ivf_.dim) {
      return Status::Corruption("{}: {} is {}, a hamming index stores fixed_size_list<uint8, {}>", aux_path,
                                kFlatColumn, t->ToString(), index->ivf_.dim);
    }
  } else if (index->kind_ == IndexKind::kIvfFlat || index->kind_ == IndexKind::kIvfHnswFlat) {
    const DataTypePtr& t = aux_schema.field(index->storage_field_)->type();
    if (t->id() != TypeId::kFixedSizeList || t->value_type()->id() != TypeId::kFloat ||
        static_cast<size_t>(t->list_size()) != index->ivf_.dim) {
      return Status::NotSupported("{}: flat vectors of {} ({} x float32 is read)", aux_path, t->ToString(),
                                  index->ivf_.dim);
    }
  } else if (index->kind_ == IndexKind::kIvfHnswSq || index->kind_ == IndexKind::kIvfSq) {
    LANCE_RETURN_NOT_OK(HnswAccess::PrepareSq(index.get(), aux_schema, aux_path));
  } else {
    LANCE_ASSIGN_OR_RAISE(PqCodebook pq, ReadPqCodebook(*aux_reader, aux_path, index->ivf_.dim, &index->transposed_));
    if (index->metric_ != DistanceType::kDot) pq.packed_by8 = PackPqCodebook(pq);
    index->pq_ = std::move(pq);
  }
  if (IsHnswKind(index->kind_)) {
    LANCE_RETURN_NOT_OK(HnswAccess::PrepareGraphs(index.get(), *index_reader, index_path, ivf_msg));
  }
  if (whole) {
    LANCE_ASSIGN_OR_RAISE(auto all, index->ReadPartitions(0, parts, /*whole=*/true));
    index->row_ids_.reserve(rows);
    for (auto& part : all) {
      index->row_ids_.insert(index->row_ids_.end(), part->row_ids.begin(), part->row_ids.end());
      index->whole_.push_back(std::move(part));
    }
  }
  return index;
}

Result<std::shared_ptr<const IvfPartition>> IvfIndex::Partition(size_t p) const {
  if (p >= ivf_.num_partitions()) {
    return Status::InvalidArgument("{}: partition {} of {}", aux_path_, p, ivf_.num_partitions());
  }
  if (kind_ == IndexKind::kIvfRq) {
    return Status::NotSupported("{}: IVF_RQ is read whole, not by partition", aux_path_);
  }
  if (!whole_.empty()) return whole_[p];
  auto load = [&]() -> Result<std::pair<std::shared_ptr<const IvfPartition>, int64_t>> {
    LANCE_ASSIGN_OR_RAISE(auto one, ReadPartitions(p, p + 1, /*whole=*/false));
    const int64_t bytes = one[0]->MemoryBytes();
    return std::pair<std::shared_ptr<const IvfPartition>, int64_t>(std::move(one[0]), bytes);
  };
  return files_->GetPage<IvfPartition>(partition_key_ + std::to_string(p), load);
}

Status IvfIndex::LoadPartition(size_t p) const {
  if (kind_ == IndexKind::kIvfRq && p < ivf_.num_partitions()) return Status::OK();
  return Partition(p).status();
}

Result<std::vector<std::shared_ptr<IvfPartition>>> IvfIndex::ReadPartitions(size_t begin, size_t end,
                                                                             bool whole) const {
  std::vector<std::shared_ptr<IvfPartition>> out;
  out.reserve(end - begin);
  for (size_t p = begin; p < end; ++p) out.push_back(std::make_shared<IvfPartition>());
  const uint64_t first_row = ivf_.offsets[begin];
  const uint64_t rows = ivf_.offsets[end - 1] + ivf_.lengths[end - 1] - first_row;
  if (rows > 0) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                          aux_reader_->ReadRange(static_cast<int64_t>(first_row), static_cast<int64_t>(rows),
                                                 {rowid_field_, storage_field_}));
    const Array& rowids = *batch->column(0);
    const Array& storage = *batch->column(1);
    if (rowids.type_id() != TypeId::kUInt64 || rowids.null_count != 0 ||
        static_cast<uint64_t>(rowids.length) != rows) {
      return Status::Corruption("{}: {} must be uint64 without nulls", aux_path_, kRowIdColumn);
    }
    if (storage.type_id() != TypeId::kFixedSizeList || storage.null_count != 0 ||
        storage.children.size() != 1 || static_cast<uint64_t>(storage.length) != rows) {
      return Status::Corruption("{}: {} must be a fixed_size_list without null rows", aux_path_,
                                aux_reader_->schema()->field(storage_field_)->name());
    }
    const auto width = static_cast<size_t>(storage.type->list_size());
    const Array& values = *storage.children[0];
    const bool pq_storage = kind_ == IndexKind::kIvfPq || kind_ == IndexKind::kIvfHnswPq;
    const bool sq_storage = kind_ == IndexKind::kIvfHnswSq || kind_ == IndexKind::kIvfSq;
    if (metric_ == DistanceType::kHamming) {  // IVF_FLAT over uint8 vectors
      if (values.type_id() != TypeId::kUInt8 || width != ivf_.dim) {
        return Status::Corruption("{}: {} is {} x {}, a hamming index stores uint8 x {}", aux_path_, kFlatColumn,
                                  values.type->ToString(), width, ivf_.dim);
      }
    } else if (pq_storage) {
      if (values.type_id() != TypeId::kUInt8 || width != pq_->num_sub_vectors) {
        return Status::Corruption("{}: {} must be fixed_size_list<uint8, {}>", aux_path_, kPqCodeColumn,
                                  pq_->num_sub_vectors);
      }
    } else if (sq_storage) {
      if (values.type_id() != TypeId::kUInt8 || width != ivf_.dim) {
        return Status::Corruption("{}: {} must be fixed_size_list<uint8, {}>", aux_path_, kSqCodeColumn, ivf_.dim);
      }
    } else if (values.type_id() != TypeId::kFloat || width != ivf_.dim) {
      return Status::NotSupported("{}: flat vectors of {} x {} (float32 x {} is read)", aux_path_,
                                  values.type->ToString(), width, ivf_.dim);
    }
    if (static_cast<uint64_t>(values.length) < static_cast<uint64_t>(storage.offset + storage.length) * width) {
      return Status::Corruption("{}: {} holds {} values for {} rows of {}", aux_path_,
                                aux_reader_->schema()->field(storage_field_)->name(), values.length, rows, width);
    }
    const uint64_t* ids = rowids.Values<uint64_t>();
    const size_t value_bytes = values.type_id() == TypeId::kFloat ? sizeof(float) : 1;
    const auto* base = value_bytes == 1 ? values.Values<uint8_t>() + static_cast<size_t>(storage.offset) * width
                                        : reinterpret_cast<const uint8_t*>(values.Values<float>() +
                                                                           static_cast<size_t>(storage.offset) * width);
    // The partitions view the reader's buffers (no copy); only PQ codes get a second layout.
    const std::shared_ptr<const void> id_hold = rowids.buffers[1], value_hold = values.buffers[1];
    // Row-major codes serve code(i) of an index read whole and the IVF_HNSW_PQ graph walk; the
    // IVF_PQ scan of an index opened by partition reads only the transposed layout.
    const bool row_major = kind_ == IndexKind::kIvfHnswPq || whole;
    for (size_t p = begin; p < end; ++p) {
      IvfPartition& part = *out[p - begin];
      const size_t o = ivf_.offsets[p] - first_row, n = ivf_.lengths[p];
      part.row_ids.View(ids + o, n, id_hold);
      const uint8_t* block = base + o * width * value_bytes;
      if (metric_ == DistanceType::kHamming) {
        part.binary_vectors.View(block, n * width, value_hold);
      } else if (sq_storage) {
        part.sq_codes.View(block, n * width, value_hold);
      } else if (!pq_storage) {
        part.vectors.View(reinterpret_cast<const float*>(block), n * width, value_hold);
      } else if (transposed_) {
        // Within a transposed partition of n rows, byte s * n + j is row j's code s.
        part.transposed_codes.View(block, n * width, value_hold);
        if (row_major) {
          uint8_t* rows_out = part.codes.Own(n * width);
          for (size_t s = 0; s < width; ++s) {
            for (size_t j = 0; j < n; ++j) rows_out[j * width + s] = block[s * n + j];
          }
        }
      } else {
        part.codes.View(block, n * width, value_hold);
        uint8_t* cols_out = part.transposed_codes.Own(n * width);
        for (size_t s = 0; s < width; ++s) {
          for (size_t j = 0; j < n; ++j) cols_out[s * n + j] = block[j * width + s];
        }
      }
    }
  }
  if (IsHnswKind(kind_)) LANCE_RETURN_NOT_OK(HnswAccess::LoadGraphs(*this, begin, end, out));
  return out;
}

const IvfPartition& IvfIndex::WholePartitionOf(size_t i, size_t* j) const {
  // The last partition starting at or before row i that holds rows (empty ones share offsets).
  size_t p = static_cast<size_t>(std::upper_bound(ivf_.offsets.begin(), ivf_.offsets.end(), uint64_t{i}) -
                                 ivf_.offsets.begin()) - 1;
  while (p > 0 && ivf_.lengths[p] == 0) --p;
  *j = i - ivf_.offsets[p];
  return *whole_[p];
}

const uint8_t* IvfIndex::code(size_t i) const {
  size_t j = 0;
  const IvfPartition& part = WholePartitionOf(i, &j);
  return part.codes.data() + j * pq_->num_sub_vectors;
}

const float* IvfIndex::stored_vector(size_t i) const {
  size_t j = 0;
  const IvfPartition& part = WholePartitionOf(i, &j);
  return part.vectors.data() + j * ivf_.dim;
}

const uint8_t* IvfIndex::stored_binary_vector(size_t i) const {
  size_t j = 0;
  const IvfPartition& part = WholePartitionOf(i, &j);
  return part.binary_vectors.data() + j * ivf_.dim;
}

const uint8_t* IvfIndex::sq_code(size_t i) const {
  size_t j = 0;
  const IvfPartition& part = WholePartitionOf(i, &j);
  return part.sq_codes.data() + j * ivf_.dim;
}

int64_t IvfIndex::MemoryBytes() const {
  size_t n = row_ids_.size() * sizeof(uint64_t) + ivf_.centroids.size() * sizeof(float) +
             ivf_.binary_centroids.size() + ivf_.offsets.size() * sizeof(uint64_t) +
             ivf_.lengths.size() * sizeof(uint32_t);
  if (pq_) n += (pq_->centroids.size() + pq_->packed_by8.size()) * sizeof(float);
  if (rq_) n += rq_->MemoryBytes();
  if (graph_layout_) n += graph_layout_->meta.size() * (sizeof(GraphMeta) + 16 * sizeof(uint64_t));
  for (const auto& part : whole_) n += static_cast<size_t>(part->MemoryBytes());
  return static_cast<int64_t>(n + sizeof(IvfIndex));
}

std::vector<uint32_t> IvfIndex::FindPartitions(const float* query, size_t nprobes,
                                               std::vector<float>* distances) const {
  const size_t n = ivf_.num_partitions();
  std::vector<float> local;
  std::vector<float>& dist = distances ? *distances : local;
  dist.resize(n);
  // One batched kernel call over the centroids (the same values as the single-pair forms).
  if (metric_ == DistanceType::kDot) {
    linalg::DotDistances(query, ivf_.centroids.data(), n, ivf_.dim, dist.data());
  } else {
    linalg::L2Distances(query, ivf_.centroids.data(), n, ivf_.dim, dist.data());
  }
  // The nprobes nearest in (distance key, partition) order: a stable sort's first nprobes,
  // without sorting the other partitions.
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  const size_t take = std::min(nprobes, n);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                    [&](uint32_t a, uint32_t b) {
                      const auto ka = linalg::DistanceKey(dist[a]), kb = linalg::DistanceKey(dist[b]);
                      return ka < kb || (ka == kb && a < b);
                    });
  order.resize(take);
  return order;
}

Result<std::vector<linalg::Neighbor>> IvfIndex::Search(
    const AnnQuery& query, const std::function<bool(uint64_t)>& keep) const {
  if (query.vector.size() != ivf_.dim) {
    return Status::InvalidArgument("vector search: query has {} values, the index {} dimensions",
                                   query.vector.size(), ivf_.dim);
  }
  if (query.k == 0) return Status::InvalidArgument("vector search: k must be positive");
  const size_t limit = query.k * query.refine_factor.value_or(1);
  const bool graph = IsHnswKind(kind_);
  if (graph && query.ef && *query.ef < limit) {
    return Status::InvalidArgument("vector search: ef {} is below k x refine factor {}", *query.ef, limit);
  }
  const std::vector<float> q = metric_ == DistanceType::kCosine
                                   ? NormalizeVector(query.vector.data(), ivf_.dim)
                                   : query.vector;
  std::vector<float> centroid_dist;
  // A hamming index: the query cast to uint8 (InvalidArgument for a value that is not one), its
  // partitions probed by hamming distance to the uint8 centroids.
  std::vector<uint8_t> binary_query;
  std::vector<uint32_t> parts;
  if (metric_ == DistanceType::kHamming) {
    LANCE_ASSIGN_OR_RAISE(binary_query, linalg::CastQuery(query.vector, linalg::ElementType::kUInt8));
    parts = FindBinaryPartitions(ivf_, binary_query.data(), query.nprobes);
  } else {
    parts = FindPartitions(q.data(), query.nprobes, &centroid_dist);
  }
  // The probed partitions, held for the search: read whole, or from the cache (read on a miss).
  std::vector<std::shared_ptr<const IvfPartition>> held;
  if (kind_ != IndexKind::kIvfRq) {
    held.reserve(parts.size());
    for (uint32_t p : parts) {
      LANCE_ASSIGN_OR_RAISE(std::shared_ptr<const IvfPartition> part, Partition(p));
      held.push_back(std::move(part));
    }
  }
  linalg::TopK all(limit);
  std::vector<float> dist;
  std::vector<float> residual(ivf_.dim);
  PqDistanceTable table(metric_);
  if (kind_ == IndexKind::kIvfHnswSq) {
    std::vector<uint8_t> codes(ivf_.dim);
    SqEncode(q.data(), ivf_.dim, hnsw_->bounds, codes.data());
    const size_t ef = query.ef.value_or(limit + limit / 2);
    for (const auto& part : held) {
      LANCE_RETURN_NOT_OK(metric_ == DistanceType::kDot
                              ? HnswAccess::SearchPartitionSqDot(*this, *part, q.data(), limit, ef, keep, &all)
                              : HnswAccess::SearchPartition(*this, *part, codes, limit, ef, keep, &all));
    }
    return all.Sorted();
  }
  if (kind_ == IndexKind::kIvfHnswFlat) {
    const size_t ef = query.ef.value_or(limit + limit / 2);
    for (const auto& part : held) {
      LANCE_RETURN_NOT_OK(HnswAccess::SearchPartitionFlat(*this, *part, q.data(), limit, ef, keep, &all));
    }
    return all.Sorted();
  }
  if (kind_ == IndexKind::kIvfHnswPq) {
    // The graph walk scores nodes by the PQ table of the query's residual to the partition's
    // centroid (l2 and cosine), of the query itself (dot: lance's PQ storage under HNSW is
    // IVF_PQ's, which codes the vectors, not residuals, for dot).
    const size_t ef = query.ef.value_or(limit + limit / 2);
    if (metric_ == DistanceType::kDot) table.Build(*pq_, q.data());
    for (size_t i = 0; i < parts.size(); ++i) {
      if (metric_ != DistanceType::kDot) {
        const float* c = ivf_.centroid(parts[i]);
        for (size_t d = 0; d < ivf_.dim; ++d) residual[d] = q[d] - c[d];
        table.Build(*pq_, residual.data());
      }
      LANCE_RETURN_NOT_OK(HnswAccess::SearchPartitionPq(*this, *held[i], table, limit, ef, keep, &all));
    }
    return all.Sorted();
  }
  // IVF_FLAT, IVF_PQ, IVF_SQ and IVF_RQ: every row of each probed partition scored, then its
  // best `limit`. The SQ codes and the RaBitQ tables of the query are made once.
  std::vector<uint8_t> sq_query;
  if (kind_ == IndexKind::kIvfSq) {
    sq_query.resize(ivf_.dim);
    SqEncode(q.data(), ivf_.dim, hnsw_->bounds, sq_query.data());
  }
  std::optional<RabitqQuery> rq_query;
  if (kind_ == IndexKind::kIvfRq) rq_query = PrepareRabitqQuery(RabitqAccess::Model(*this), q.data(), q.size());
  if (kind_ == IndexKind::kIvfRq && RabitqAccess::Model(*this).num_bits > 1) {
    // multi-bit codes: one heap over the partitions, bounded by the 1-bit estimates
    RabitqAccess::SearchMultiBit(*this, *rq_query, q.data(), parts, centroid_dist, limit, keep, &all);
    return all.Sorted();
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    const uint32_t p = parts[i];
    const size_t first = ivf_.offsets[p], n = ivf_.lengths[p];
    // IVF_RQ's rows are the index's own; every other kind's the held partition's.
    const IvfPartition* part = held.empty() ? nullptr : held[i].get();
    const uint64_t* rows = part ? part->row_ids.data() : row_ids_.data() + first;
    dist.resize(n);
    if (kind_ == IndexKind::kIvfSq) {
      HnswAccess::ScorePartitionSq(*this, *part, sq_query, dist.data());
    } else if (kind_ == IndexKind::kIvfRq) {
      // estimates offset by the query's distance to the partition's centroid
      RabitqAccess::ScorePartition(*this, *rq_query, p, centroid_dist[p], dist.data());
    } else if (kind_ == IndexKind::kIvfFlat && metric_ == DistanceType::kHamming) {
      linalg::HammingDistances(binary_query.data(), part->binary_vectors.data(), n, ivf_.dim, dist.data());
    } else if (kind_ == IndexKind::kIvfFlat) {
      for (size_t j = 0; j < n; ++j) {
        const float* v = part->vectors.data() + j * ivf_.dim;
        switch (metric_) {
          case DistanceType::kL2: dist[j] = linalg::L2(q.data(), v, ivf_.dim); break;
          case DistanceType::kCosine: dist[j] = linalg::CosineDistance(q.data(), v, ivf_.dim); break;
          case DistanceType::kDot: dist[j] = linalg::DotDistance(q.data(), v, ivf_.dim); break;
          case DistanceType::kHamming:
            return Status::Corruption("vector search: hamming over float vectors");
        }
      }
    } else {
      const float* key = q.data();
      if (metric_ != DistanceType::kDot) {
        const float* c = ivf_.centroid(p);
        for (size_t d = 0; d < ivf_.dim; ++d) residual[d] = q[d] - c[d];
        key = residual.data();
      }
      table.Build(*pq_, key);
      table.ScoreTransposed(part->transposed_codes.data(), n, dist.data());
    }
    // The partition's best `limit` (its heap keeps the earlier row on ties at the bound), then
    // the global selection in (distance, row id) order.
    linalg::TopK best(limit);
    if (!keep) {
      best.Push(dist.data(), rows, n);
    } else {
      for (size_t j = 0; j < n; ++j) {
        if (keep(rows[j])) best.Push(rows[j], dist[j]);
      }
    }
    all.Merge(best);
  }
  return all.Sorted();
}

}  // namespace lance::index::vector
