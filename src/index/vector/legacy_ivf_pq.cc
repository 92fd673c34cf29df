// Reader of the legacy IVF_PQ index file (legacy_ivf_pq.h).
#include "index/vector/legacy_ivf_pq.h"

#include <cstring>

#include "index/proto/ivf_v1.pb.h"

namespace lance::index::vector {

namespace {

constexpr int64_t kFooterBytes = 16;
constexpr uint32_t kMaxPartitions = 1u << 20;

template <typename T>
T LoadLe(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

Result<std::optional<LegacyIvfPq>> ReadLegacyIvfPq(io::ObjectStore& store, const std::string& path) {
  LANCE_ASSIGN_OR_RAISE(io::ObjectMeta meta, store.Head(path));
  const int64_t size = meta.size;
  if (size < kFooterBytes) return std::optional<LegacyIvfPq>();
  LANCE_ASSIGN_OR_RAISE(BufferPtr footer, store.GetRange(path, size - kFooterBytes, kFooterBytes));
  if (footer->size() != kFooterBytes) {
    return Status::Corruption("{}: short read of the {}-byte footer", path, kFooterBytes);
  }
  const uint8_t* f = footer->data();
  const uint16_t major = LoadLe<uint16_t>(f + 8), minor = LoadLe<uint16_t>(f + 10);
  if (std::memcmp(f + 12, "LANC", 4) != 0 || major != 0 || minor >= 3) return std::optional<LegacyIvfPq>();
  const uint64_t pos = LoadLe<uint64_t>(f);
  const uint64_t limit = static_cast<uint64_t>(size - kFooterBytes);
  if (pos > limit || limit - pos < 4) {
    return Status::Corruption("{}: legacy index metadata position {} is outside the file ({} bytes)", path, pos, size);
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr len_bytes, store.GetRange(path, static_cast<int64_t>(pos), 4));
  if (len_bytes->size() != 4) return Status::Corruption("{}: short read of the metadata length", path);
  const uint32_t len = LoadLe<uint32_t>(len_bytes->data());
  if (len > limit - pos - 4) {
    return Status::Corruption("{}: legacy index metadata at {} claims {} bytes, {} remain before the footer", path,
                              pos, len, limit - pos - 4);
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr msg, store.GetRange(path, static_cast<int64_t>(pos) + 4, len));
  ::lance::index::pb::V1Index pb;
  if (msg->size() != len || !pb.ParseFromArray(msg->data(), static_cast<int>(len))) {
    return Status::Corruption("{}: the legacy index metadata ({} bytes at {}) is not an Index message", path, len,
                              pos + 4);
  }
  LegacyIvfPq out;
  const auto& v = pb.vector_index();
  switch (v.metric_type()) {
    case 0: out.metric = linalg::DistanceType::kL2; break;
    case 1: out.metric = linalg::DistanceType::kCosine; break;
    case 2: out.metric = linalg::DistanceType::kDot; break;
    case 3: out.metric = linalg::DistanceType::kHamming; break;
    default: return Status::Corruption("{}: legacy index metric type {} is not one lance wrote", path, v.metric_type());
  }
  bool ivf = false, pq = false;
  for (const auto& stage : v.stages()) {
    if (stage.has_ivf()) {
      ivf = true;
      out.offsets.assign(stage.ivf().offsets().begin(), stage.ivf().offsets().end());
      out.lengths.assign(stage.ivf().lengths().begin(), stage.ivf().lengths().end());
    } else if (stage.has_pq()) {
      pq = true;
      out.num_bits = stage.pq().num_bits();
      out.num_sub_vectors = stage.pq().num_sub_vectors();
      out.dimension = stage.pq().dimension();
    }
  }
  if (!ivf || !pq) {
    return Status::Corruption("{}: the legacy index metadata has no {} stage", path, ivf ? "PQ" : "IVF");
  }
  if (out.offsets.size() != out.lengths.size() || out.offsets.size() > kMaxPartitions) {
    return Status::Corruption("{}: the legacy IVF stage lists {} partition positions and {} lengths", path,
                              out.offsets.size(), out.lengths.size());
  }
  if (out.num_bits != 8 || out.num_sub_vectors == 0) {
    return Status::Corruption("{}: legacy PQ of {} bits and {} sub-vectors (lance wrote 8 bits, at least one)", path,
                              out.num_bits, out.num_sub_vectors);
  }
  for (size_t p = 0; p < out.offsets.size(); ++p) {
    const uint64_t bytes = static_cast<uint64_t>(out.lengths[p]) * (out.num_sub_vectors + 8);
    if (out.offsets[p] > pos || bytes > pos - out.offsets[p]) {
      return Status::Corruption("{}: legacy partition {} ({} rows at {}) runs past the partitions' end {}", path, p,
                                out.lengths[p], out.offsets[p], pos);
    }
  }
  return std::optional<LegacyIvfPq>(std::move(out));
}

Result<std::vector<uint64_t>> ReadLegacyIvfPqRowIds(io::ObjectStore& store, const std::string& path,
                                                    const LegacyIvfPq& index) {
  std::vector<io::Range> ranges;
  for (size_t p = 0; p < index.offsets.size(); ++p) {
    if (index.lengths[p] == 0) continue;
    const int64_t rows = index.lengths[p];
    ranges.push_back({static_cast<int64_t>(index.offsets[p]) + rows * index.num_sub_vectors, rows * 8});
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<BufferPtr> parts, store.GetRanges(path, ranges));
  std::vector<uint64_t> out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i]->size() != ranges[i].length) {
      return Status::Corruption("{}: short read of {} row ids at {}", path, ranges[i].length / 8, ranges[i].offset);
    }
    for (int64_t k = 0; k < ranges[i].length; k += 8) out.push_back(LoadLe<uint64_t>(parts[i]->data() + k));
  }
  return out;
}

}  // namespace lance::index::vector
