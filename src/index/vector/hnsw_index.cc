// Loading and searching the IVF_HNSW_SQ part of an IvfIndex (see hnsw_index.h).
#include "index/vector/hnsw_index.h"

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

#include "index/vector/ivf_format.h"

namespace lance::index::vector {

namespace {

// The SQ bounds of auxiliary.idx: storage_metadata = [{"dim", "num_bits", "bounds"}].
Result<SqBounds> ReadSqMetadata(const Schema& schema, const std::string& path, size_t width) {
  const std::string text = schema.metadata() ? schema.metadata()->Get(kStorageMetadataKey).value_or("") : "";
  auto list = nlohmann::json::parse(text, nullptr, false);
  nlohmann::json sm;
  if (list.is_array() && list.size() == 1 && list[0].is_string()) {
    sm = nlohmann::json::parse(list[0].get<std::string>(), nullptr, false);
  }
  if (!sm.is_object() || !sm.contains("dim") || !sm["dim"].is_number_unsigned() ||
      !sm.contains("num_bits") || !sm["num_bits"].is_number_unsigned() || !sm.contains("bounds") ||
      !sm["bounds"].is_object() || !sm["bounds"].contains("start") || !sm["bounds"]["start"].is_number() ||
      !sm["bounds"].contains("end") || !sm["bounds"]["end"].is_number()) {
    return Status::Corruption("{}: storage_metadata is not a list of one SQ JSON object "
                              "{{dim, num_bits, bounds: {{start, end}}}}: {}", path, text);
  }
  if (sm["num_bits"].get<uint64_t>() != 8) {
    return Status::NotSupported("{}: {}-bit SQ codes (8-bit codes are read)", path,
                                sm["num_bits"].get<uint64_t>());
  }
  if (sm["dim"].get<uint64_t>() != width) {
    return Status::Corruption("{}: SQ dim {} but {} holds {} codes per row", path,
                              sm["dim"].get<uint64_t>(), kSqCodeColumn, width);
  }
  SqBounds b{sm["bounds"]["start"].get<double>(), sm["bounds"]["end"].get<double>()};
  if (!(b.start <= b.end)) {
    return Status::Corruption("{}: SQ bounds [{}, {}] are not a range", path, b.start, b.end);
  }
  return b;
}

Result<GraphMeta> ParseGraphMeta(const nlohmann::json& entry, const std::string& path, size_t p) {
  nlohmann::json j;
  if (entry.is_string()) j = nlohmann::json::parse(entry.get<std::string>(), nullptr, false);
  GraphMeta m;
  if (!j.is_object() || !j.contains("entry_point") || !j["entry_point"].is_number_unsigned() ||
      !j.contains("level_offsets") || !j["level_offsets"].is_array() || !j.contains("params") ||
      !j["params"].is_object()) {
    return Status::Corruption("{}: \"{}\" entry {} is not {{entry_point, params, level_offsets}}",
                              path, kHnswMetadataKey, p);
  }
  const auto& pj = j["params"];
  auto num = [&](const char* key, uint64_t dflt) -> uint64_t {
    return pj.contains(key) && pj[key].is_number_unsigned() ? pj[key].get<uint64_t>() : dflt;
  };
  m.entry_point = static_cast<uint32_t>(std::min<uint64_t>(j["entry_point"].get<uint64_t>(), UINT32_MAX));
  m.params.max_level = static_cast<uint16_t>(std::min<uint64_t>(num("max_level", 7), 64));
  m.params.m = num("m", 20);
  m.params.ef_construction = num("ef_construction", 150);
  m.params.prefetch_distance = num("prefetch_distance", 2);
  for (const auto& o : j["level_offsets"]) {
    if (!o.is_number_unsigned()) {
      return Status::Corruption("{}: \"{}\" entry {} has a level offset that is not a count", path,
                                kHnswMetadataKey, p);
    }
    m.level_offsets.push_back(o.get<uint64_t>());
  }
  if (m.level_offsets.size() > 65) {
    return Status::Corruption("{}: partition {} has {} levels", path, p, m.level_offsets.size() - 1);
  }
  return m;
}

}  // namespace

Status HnswAccess::PrepareSq(IvfIndex* index, const Schema& aux_schema, const std::string& aux_path) {
  const bool dot = index->metric_ == linalg::DistanceType::kDot;
  if (index->metric_ == linalg::DistanceType::kHamming || (dot && index->kind_ == IndexKind::kIvfSq)) {
    return Status::NotSupported("{}: {} with distance_type {} (l2 and cosine are read{})", aux_path,
                                IndexKindName(index->kind_), linalg::DistanceTypeName(index->metric_),
                                index->kind_ == IndexKind::kIvfSq ? "" : ", and dot");
  }
  auto hnsw = std::make_shared<HnswStorage>();
  LANCE_ASSIGN_OR_RAISE(hnsw->bounds, ReadSqMetadata(aux_schema, aux_path, index->ivf_.dim));
  hnsw->scale = SqDistanceScale(hnsw->bounds);
  index->hnsw_ = std::move(hnsw);
  return Status::OK();
}

Status HnswAccess::PrepareGraphs(IvfIndex* index, const file::FileReader& index_reader,
                                 const std::string& index_path, const pb::IVF& index_ivf) {
  const size_t parts = index->ivf_.num_partitions();
  if (static_cast<size_t>(index_ivf.offsets_size()) != parts ||
      static_cast<size_t>(index_ivf.lengths_size()) != parts) {
    return Status::Corruption("{}: {} partition offsets and {} lengths, expected {}", index_path,
                              index_ivf.offsets_size(), index_ivf.lengths_size(), parts);
  }
  const Schema& schema = *index_reader.schema();
  const std::string meta_text = schema.metadata() ? schema.metadata()->Get(kHnswMetadataKey).value_or("") : "";
  auto meta = nlohmann::json::parse(meta_text, nullptr, false);
  if (!meta.is_array() || meta.size() != parts) {
    return Status::Corruption("{}: \"{}\" must be a JSON list of {} graph entries", index_path,
                              kHnswMetadataKey, parts);
  }
  auto layout = std::make_shared<GraphLayout>();
  layout->id_field = schema.GetFieldIndex(kVectorIdColumn);
  layout->neighbors_field = schema.GetFieldIndex(kNeighborsColumn);
  if (layout->id_field < 0 || layout->neighbors_field < 0) {
    return Status::Corruption("{}: expected columns {} and {}", index_path, kVectorIdColumn, kNeighborsColumn);
  }
  const auto total = static_cast<uint64_t>(index_reader.num_rows());
  uint64_t next = 0;
  for (size_t p = 0; p < parts; ++p) {
    const uint64_t first = index_ivf.offsets(static_cast<int>(p));
    const uint64_t len = index_ivf.lengths(static_cast<int>(p));
    if (first != next || first + len > total) {
      return Status::Corruption("{}: partition {} graph rows [{}, +{}) do not follow row {} of {}",
                                index_path, p, first, len, next, total);
    }
    next = first + len;
    layout->first.push_back(first);
    layout->length.push_back(len);
    const uint32_t n = index->ivf_.lengths[p];
    // lance 12 writes "" for an empty partition's graph (no rows, no levels).
    if (n == 0 && len == 0 && meta[p].is_string() && meta[p].get<std::string>().empty()) {
      layout->meta.emplace_back().empty = true;
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(GraphMeta gm, ParseGraphMeta(meta[p], index_path, p));
    const auto& lo = gm.level_offsets;
    if (n > 0 && (lo.size() < 2 || lo.front() != 0 || lo.back() != len || lo[1] != n ||
                  gm.entry_point >= n)) {
      return Status::Corruption("{}: partition {} level offsets / entry point do not fit its {} "
                                "nodes and {} graph rows", index_path, p, n, len);
    }
    for (size_t l = 0; l + 1 < lo.size(); ++l) {
      if (lo[l + 1] < lo[l]) {
        return Status::Corruption("{}: partition {} level offsets decrease", index_path, p);
      }
    }
    layout->meta.push_back(std::move(gm));
  }
  if (next != total) {
    return Status::Corruption("{}: partitions hold {} graph rows, the file {}", index_path, next, total);
  }
  if (!index->hnsw_) index->hnsw_ = std::make_shared<HnswStorage>();
  index->graph_layout_ = std::move(layout);
  return Status::OK();
}

HnswParams HnswAccess::Params(const IvfIndex& index) {
  if (!index.graph_layout_ || index.graph_layout_->meta.empty() || index.graph_layout_->meta[0].empty) {
    return HnswParams();
  }
  return index.graph_layout_->meta[0].params;
}

Status HnswAccess::LoadGraphs(const IvfIndex& index, size_t begin, size_t end,
                              const std::vector<std::shared_ptr<IvfPartition>>& out) {
  const GraphLayout& layout = *index.graph_layout_;
  const std::string& index_path = index.index_path_;
  const uint64_t base = layout.first[begin];
  const uint64_t total = layout.first[end - 1] + layout.length[end - 1] - base;
  if (total == 0) {
    for (size_t p = begin; p < end; ++p) out[p - begin]->graph = HnswGraph();
    return Status::OK();
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                        index.index_reader_->ReadRange(static_cast<int64_t>(base), static_cast<int64_t>(total),
                                                       {layout.id_field, layout.neighbors_field}));
  const Array& ids = *batch->column(0);
  const Array& lists = *batch->column(1);
  if (ids.type_id() != TypeId::kUInt32 || ids.null_count != 0 || lists.type_id() != TypeId::kList ||
      lists.null_count != 0 || lists.children.size() != 1 ||
      lists.children[0]->type_id() != TypeId::kUInt32 || lists.children[0]->null_count != 0 ||
      static_cast<uint64_t>(batch->num_rows()) != total) {
    return Status::Corruption("{}: {} must be uint32 and {} list<uint32>, without nulls", index_path,
                              kVectorIdColumn, kNeighborsColumn);
  }
  const uint32_t* vid = ids.Values<uint32_t>();
  const uint32_t* nbs = lists.children[0]->Values<uint32_t>();
  const auto child_len = static_cast<uint64_t>(lists.children[0]->length);
  for (size_t p = begin; p < end; ++p) {
    const GraphMeta& gm = layout.meta[p];
    if (gm.empty) {
      out[p - begin]->graph = HnswGraph();
      continue;
    }
    const uint64_t first = layout.first[p] - base;
    const uint32_t n = index.ivf_.lengths[p];
    HnswGraph g;
    g.num_nodes = n;
    g.entry_point = gm.entry_point;
    g.params = gm.params;
    const auto& lo = gm.level_offsets;
    const size_t num_levels = n > 0 ? lo.size() - 1 : 0;
    g.levels.resize(num_levels);
    std::vector<int64_t> row_of(n);
    for (size_t l = 0; l < num_levels; ++l) {
      HnswGraph::Level& level = g.levels[l];
      std::fill(row_of.begin(), row_of.end(), -1);
      // Sized up front (cold partitions: growing them was ~6 % of a cold search); the
      // offsets are checked below, so a bad span only under- or over-reserves.
      level.nodes.reserve(lo[l + 1] - lo[l]);
      if (lo[l + 1] > lo[l]) {
        const int64_t a = lists.ValueOffset(static_cast<int64_t>(first + lo[l]));
        const int64_t b = lists.ValueOffset(static_cast<int64_t>(first + lo[l + 1]));
        if (a >= 0 && b >= a && static_cast<uint64_t>(b) <= child_len) level.ids.reserve(static_cast<size_t>(b - a));
      }
      for (uint64_t r = first + lo[l]; r < first + lo[l + 1]; ++r) {
        const uint32_t node = vid[r];
        if (node >= n || row_of[node] >= 0) {
          return Status::Corruption("{}: partition {} level {} names node {} (of {}) twice or out of "
                                    "range", index_path, p, l, node, n);
        }
        row_of[node] = static_cast<int64_t>(r);
        level.nodes.push_back(node);
      }
      level.starts.assign(n + 1, 0);
      for (uint32_t i = 0; i < n; ++i) {
        uint64_t count = 0;
        if (row_of[i] >= 0) {
          const int64_t a = lists.ValueOffset(row_of[i]), b = lists.ValueOffset(row_of[i] + 1);
          if (a < 0 || b < a || static_cast<uint64_t>(b) > child_len) {
            return Status::Corruption("{}: row {} has bad neighbour offsets", index_path,
                                      static_cast<uint64_t>(row_of[i]) + base);
          }
          count = static_cast<uint64_t>(b - a);
          // One pass for the range check (vectorized), one bulk copy.
          uint32_t most = 0;
          for (int64_t k = a; k < b; ++k) most = std::max(most, nbs[k]);
          if (count > 0 && most >= n) {
            return Status::Corruption("{}: partition {} node {} has neighbour {} of {} nodes",
                                      index_path, p, i, most, n);
          }
          level.ids.insert(level.ids.end(), nbs + a, nbs + b);
        }
        level.starts[i + 1] = level.starts[i] + static_cast<uint32_t>(count);
      }
    }
    out[p - begin]->graph = std::move(g);
  }
  return Status::OK();
}

namespace {

// Partition p's best `limit` rows by `dist(node)`: lance's HNSW search, or an exact scan of the
// accepted rows when fewer than 10 % of the partition pass `keep`.
template <typename Dist>
void SearchGraph(const HnswGraph& g, const uint64_t* rows, size_t n,
                 const Dist& dist, size_t limit, size_t ef,
                 const std::function<bool(uint64_t)>& keep, linalg::TopK* out) {
  linalg::TopK part(limit);
  if (keep) {
    std::vector<uint32_t> passing;
    for (uint32_t i = 0; i < n; ++i) {
      if (keep(rows[i])) passing.push_back(i);
    }
    // Few rows pass: every one of them scored (lance's flat search below 10 %).
    if (passing.size() < n * 10 / 100) {
      for (uint32_t i : passing) part.Push(rows[i], dist(i));
      out->Merge(part);
      return;
    }
    std::vector<uint8_t> ok(n, 0);
    for (uint32_t i : passing) ok[i] = 1;
    for (const auto& [d, node] : HnswSearch(g, dist, ef, [&](uint32_t x) { return ok[x] != 0; })) {
      part.Push(rows[node], d);
    }
  } else {
    for (const auto& [d, node] : HnswSearch(g, dist, ef, nullptr)) part.Push(rows[node], d);
  }
  out->Merge(part);
}

}  // namespace

Status HnswAccess::SearchPartition(const IvfIndex& index, const IvfPartition& part, const std::vector<uint8_t>& q,
                                   size_t limit, size_t ef, const std::function<bool(uint64_t)>& keep,
                                   linalg::TopK* out) {
  const HnswStorage& h = *index.hnsw_;
  const size_t n = part.size(), dim = index.ivf_.dim;
  if (n == 0) return Status::OK();
  const uint8_t* codes = part.sq_codes.data();
  const uint64_t* rows = part.row_ids.data();
  const HnswGraph& g = part.graph;
  linalg::TopK best(limit);
  if (!keep) {
    for (const auto& [d, node] : HnswSearchSq(g, codes, dim, q.data(), h.scale, ef, nullptr)) {
      best.Push(rows[node], d);
    }
    out->Merge(best);
    return Status::OK();
  }
  // As SearchGraph: an exact scan when fewer than 10 % pass, else the walk over the passing.
  std::vector<uint8_t> ok(n, 0);
  size_t passing = 0;
  for (uint32_t i = 0; i < n; ++i) {
    ok[i] = keep(rows[i]) ? 1 : 0;
    passing += ok[i];
  }
  if (passing < n * 10 / 100) {
    for (uint32_t i = 0; i < n; ++i) {
      if (ok[i]) best.Push(rows[i], static_cast<float>(SqL2(codes + size_t{i} * dim, q.data(), dim)) * h.scale);
    }
  } else {
    for (const auto& [d, node] : HnswSearchSq(g, codes, dim, q.data(), h.scale, ef, ok.data())) {
      best.Push(rows[node], d);
    }
  }
  out->Merge(best);
  return Status::OK();
}

Status HnswAccess::SearchPartitionSqDot(const IvfIndex& index, const IvfPartition& part, const float* q,
                                        size_t limit, size_t ef, const std::function<bool(uint64_t)>& keep,
                                        linalg::TopK* out) {
  const size_t n = part.size(), dim = index.ivf_.dim;
  if (n == 0) return Status::OK();
  const HnswStorage& h = *index.hnsw_;
  const uint8_t* codes = part.sq_codes.data();
  const float step = static_cast<float>(h.bounds.end - h.bounds.start) / 255.0f;
  const float offset = SqDotOffset(q, dim, h.bounds);
  auto dist = [&](uint32_t node) { return SqDotDistance(q, codes + size_t{node} * dim, dim, step, offset); };
  SearchGraph(part.graph, part.row_ids.data(), n, dist, limit, ef, keep, out);
  return Status::OK();
}

Status HnswAccess::SearchPartitionFlat(const IvfIndex& index, const IvfPartition& part, const float* q,
                                       size_t limit, size_t ef, const std::function<bool(uint64_t)>& keep,
                                       linalg::TopK* out) {
  const size_t n = part.size(), dim = index.ivf_.dim;
  if (n == 0) return Status::OK();
  // The storage's distance, as lance's flat storage under HNSW scores (cosine: the query and
  // the stored vectors are unit-normalised).
  const linalg::DistanceType metric = index.metric_;
  auto dist = [&](uint32_t node) {
    const float* v = part.vectors.data() + size_t{node} * dim;
    return metric == linalg::DistanceType::kCosine ? linalg::CosineDistance(q, v, dim)
           : metric == linalg::DistanceType::kDot  ? linalg::DotDistance(q, v, dim)
                                                   : linalg::L2(q, v, dim);
  };
  SearchGraph(part.graph, part.row_ids.data(), n, dist, limit, ef, keep, out);
  return Status::OK();
}

Status HnswAccess::SearchPartitionPq(const IvfIndex& index, const IvfPartition& part, const PqDistanceTable& table,
                                     size_t limit, size_t ef,
                                     const std::function<bool(uint64_t)>& keep, linalg::TopK* out) {
  const size_t n = part.size(), m = index.pq_->num_sub_vectors;
  if (n == 0) return Status::OK();
  auto dist = [&](uint32_t node) {
    float d = 0;
    table.Score(part.codes.data() + size_t{node} * m, 1, &d);
    return d;
  };
  SearchGraph(part.graph, part.row_ids.data(), n, dist, limit, ef, keep, out);
  return Status::OK();
}

void HnswAccess::ScorePartitionSq(const IvfIndex& index, const IvfPartition& part, const std::vector<uint8_t>& q,
                                  float* dist) {
  const HnswStorage& h = *index.hnsw_;
  const size_t n = part.size(), dim = index.ivf_.dim;
  const uint8_t* codes = part.sq_codes.data();
  for (size_t i = 0; i < n; ++i) dist[i] = static_cast<float>(SqL2(codes + i * dim, q.data(), dim)) * h.scale;
}

}  // namespace lance::index::vector
