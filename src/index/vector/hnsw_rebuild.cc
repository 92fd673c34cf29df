// Writing IVF_HNSW_* index.idx files, with graphs built at create-index or rebuilt after an
// optimize or a compaction (see hnsw_rebuild.h).
#include "index/vector/hnsw_rebuild.h"

#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "index/vector/hnsw_index.h"
#include "index/vector/ivf_format.h"
#include "lance/file/file_writer.h"

namespace lance::index::vector {

pb::Tensor FloatTensor(const std::vector<float>& values, uint32_t rows, uint32_t cols) {
  pb::Tensor t;
  t.set_data_type(pb::Tensor::FLOAT32);
  t.add_shape(rows);
  t.add_shape(cols);
  t.set_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return t;
}

Status WriteHnswIndexFile(IndexStore& store, IndexKind kind, linalg::DistanceType metric,
                          const std::vector<float>& centroids, size_t k, size_t dim, double loss,
                          const std::vector<HnswGraph>& graphs) {
  nlohmann::json meta = {{"type", std::string(IndexKindName(kind))},
                         {"distance_type", std::string(linalg::DistanceTypeName(metric))}};
  nlohmann::json hnsw = nlohmann::json::array();
  size_t rows = 0, edges = 0;
  for (const auto& g : graphs) {
    hnsw.push_back(HnswMetadataJson(g));
    for (const auto& l : g.levels) {
      rows += l.nodes.size();
      edges += l.ids.size();
    }
  }
  auto id_field = field(kVectorIdColumn, uint32(), true);
  auto nb_field = field(kNeighborsColumn, list(field("item", uint32(), true)), true);
  auto d_field = field(kDistanceColumn, list(field("item", float32(), true)), true);
  auto s = schema({id_field, nb_field, d_field},
                  std::make_shared<KeyValueMetadata>(std::vector<std::pair<std::string, std::string>>{
                      {kHnswMetadataKey, hnsw.dump()}, {kIndexMetadataKey, meta.dump()}, {kIvfMetadataKey, "1"}}));
  LANCE_ASSIGN_OR_RAISE(auto writer, store.CreateFile(kIndexFileName, s));
  LANCE_ASSIGN_OR_RAISE(BufferPtr ids, AllocateBuffer(static_cast<int64_t>(rows * 4)));
  LANCE_ASSIGN_OR_RAISE(BufferPtr offsets, AllocateBuffer(static_cast<int64_t>((rows + 1) * 4)));
  LANCE_ASSIGN_OR_RAISE(BufferPtr nbs, AllocateBuffer(static_cast<int64_t>(edges * 4)));
  LANCE_ASSIGN_OR_RAISE(BufferPtr dists, AllocateBuffer(static_cast<int64_t>(edges * 4)));
  auto* id_out = reinterpret_cast<uint32_t*>(ids->mutable_data());
  auto* off_out = reinterpret_cast<int32_t*>(offsets->mutable_data());
  auto* nb_out = reinterpret_cast<uint32_t*>(nbs->mutable_data());
  auto* d_out = reinterpret_cast<float*>(dists->mutable_data());
  if (edges > INT32_MAX) return Status::InvalidArgument("create vector index: {} graph edges", edges);
  pb::IVF msg;
  size_t r = 0, e = 0;
  off_out[0] = 0;
  for (const auto& g : graphs) {
    msg.add_offsets(r);
    size_t part_rows = 0;
    for (const auto& l : g.levels) {
      for (uint32_t node : l.nodes) {
        id_out[r] = node;
        const uint32_t a = l.starts[node], b = l.starts[node + 1];
        std::memcpy(nb_out + e, l.ids.data() + a, (b - a) * 4);
        std::memcpy(d_out + e, l.distances.data() + a, (b - a) * 4);
        e += b - a;
        off_out[++r] = static_cast<int32_t>(e);
        ++part_rows;
      }
    }
    msg.add_lengths(static_cast<uint32_t>(part_rows));
  }
  const auto n = static_cast<int64_t>(rows);
  auto nb_values = Array::Make(uint32(), static_cast<int64_t>(edges), {nullptr, nbs});
  auto d_values = Array::Make(float32(), static_cast<int64_t>(edges), {nullptr, dists});
  auto id_array = Array::Make(uint32(), n, {nullptr, ids});
  auto nb_array = Array::Make(nb_field->type(), n, {nullptr, offsets}, {nb_values});
  auto d_array = Array::Make(d_field->type(), n, {nullptr, offsets}, {d_values});
  LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(s, n, {id_array, nb_array, d_array}));
  if (n > 0) LANCE_RETURN_NOT_OK(writer->Write(*batch));
  *msg.mutable_centroids_tensor() = FloatTensor(centroids, static_cast<uint32_t>(k), static_cast<uint32_t>(dim));
  msg.set_loss(loss);
  LANCE_ASSIGN_OR_RAISE(int pos, writer->AddGlobalBuffer(msg.SerializeAsString()));
  if (pos != 1) return Status::IOError("{}: the IVF message went to global buffer {}", kIndexFileName, pos);
  return writer->Finish().status();
}

Result<uint64_t> WriteRebuiltHnswIndex(const IvfIndex& index, IndexStore& to, const std::vector<int64_t>& order,
                                       const AddedHnswRows& added, const std::vector<uint32_t>& lengths,
                                       ThreadPool* pool) {
  const IndexKind kind = index.kind();
  const HnswStorage* old = HnswAccess::Storage(index);
  if (old == nullptr || !IsHnswKind(kind)) {
    return Status::InvalidArgument("rebuild HNSW graphs: a {} index has none", IndexKindName(kind));
  }
  const size_t parts = lengths.size(), dim = index.dim(), n_old = index.num_rows();
  size_t n = 0;
  for (uint32_t len : lengths) n += len;
  if (n != order.size()) {
    return Status::InvalidArgument("rebuild HNSW graphs: {} rows in the partitions, {} ordered", n, order.size());
  }
  for (int64_t r : order) {
    if (r < 0 || (static_cast<size_t>(r) >= n_old &&
                  (kind == IndexKind::kIvfHnswSq ? added.sq_codes : kind == IndexKind::kIvfHnswFlat
                                                                      ? static_cast<const void*>(added.vectors)
                                                                      : added.pq_codes) == nullptr)) {
      return Status::InvalidArgument("rebuild HNSW graphs: row {} is neither stored nor added", r);
    }
  }
  // The nodes, partition after partition: SQ codes, or vectors.
  std::vector<uint8_t> sq;
  std::vector<float> vectors;
  if (kind == IndexKind::kIvfHnswSq) {
    sq.resize(n * dim);
    for (size_t j = 0; j < n; ++j) {
      const auto r = static_cast<size_t>(order[j]);
      std::memcpy(sq.data() + j * dim, r < n_old ? index.sq_code(r) : added.sq_codes + (r - n_old) * dim, dim);
    }
  } else if (kind == IndexKind::kIvfHnswFlat) {
    vectors.resize(n * dim);
    for (size_t j = 0; j < n; ++j) {
      const auto r = static_cast<size_t>(order[j]);
      std::memcpy(vectors.data() + j * dim, r < n_old ? index.stored_vector(r) : added.vectors + (r - n_old) * dim,
                  dim * sizeof(float));
    }
  } else {
    const PqCodebook& pq = *index.pq();
    const size_t m = pq.num_sub_vectors, sub = pq.sub_dim();
    const bool residual = index.metric() != linalg::DistanceType::kDot;
    vectors.assign(n * dim, 0.0f);
    size_t j = 0;
    for (size_t p = 0; p < parts; ++p) {
      const float* c = index.ivf().centroid(p);
      for (uint32_t i = 0; i < lengths[p]; ++i, ++j) {
        const auto r = static_cast<size_t>(order[j]);
        const uint8_t* code = r < n_old ? index.code(r) : added.pq_codes + (r - n_old) * m;
        float* v = vectors.data() + j * dim;
        for (size_t s = 0; s < m; ++s) {
          const float* e = pq.centroid(s, code[s]);
          for (size_t d = 0; d < sub; ++d) v[s * sub + d] = e[d] + (residual ? c[s * sub + d] : 0.0f);
        }
      }
    }
  }
  // Every partition's graph was built with the index's parameters.
  const HnswParams params = HnswAccess::Params(index);
  std::vector<size_t> firsts(parts, 0);
  for (size_t p = 1; p < parts; ++p) firsts[p] = firsts[p - 1] + lengths[p - 1];
  std::vector<HnswGraph> graphs(parts);
  ParallelFor(pool, static_cast<int64_t>(parts), [&](int64_t p) {
    const uint64_t seed = 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(p);  // same rows, same graph
    graphs[p] = kind == IndexKind::kIvfHnswSq
                    ? HnswBuildSq(sq.data() + firsts[p] * dim, lengths[p], dim, old->scale, params, seed)
                : index.metric() == linalg::DistanceType::kDot && kind == IndexKind::kIvfHnswFlat
                    ? HnswBuildDot(vectors.data() + firsts[p] * dim, lengths[p], dim, params, seed)
                    : HnswBuildL2(vectors.data() + firsts[p] * dim, lengths[p], dim, params, seed);
  });
  const IvfModel& ivf = index.ivf();
  LANCE_RETURN_NOT_OK(WriteHnswIndexFile(to, kind, index.metric(), ivf.centroids, ivf.num_partitions(), dim,
                                         ivf.loss.value_or(0.0), graphs));
  LANCE_ASSIGN_OR_RAISE(io::ObjectMeta meta, to.object_store()->Head(to.PathOf(kIndexFileName)));
  return static_cast<uint64_t>(meta.size);
}

}  // namespace lance::index::vector
