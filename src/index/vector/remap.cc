// RemapIvfIndex (vector/remap.h): an IVF_FLAT / IVF_SQ / IVF_PQ / IVF_RQ / IVF_HNSW_* segment rewritten with the rows'
// new addresses after a compaction.
#include "lance/index/vector/remap.h"

#include <charconv>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "index/proto/ivf.pb.h"
#include "index/vector/hnsw_rebuild.h"
#include "index/vector/ivf_format.h"
#include "index/vector/ivf_rewrite.h"
#include "index/vector/rabitq.h"
#include "lance/columnar/compute.h"
#include "lance/index/vector/ivf_index.h"

namespace lance::index::vector {

bool RemappedOnCompaction(const table::IndexInfo& info) { return ParseIndexKind(table::IndexTypeName(info)).ok(); }

namespace {

// The global buffer a file's "lance:ivf" metadata names.
// Whether auxiliary.idx's storage_metadata sets `key` (PQ codes "transposed" within each
// partition, RQ codes "packed" per partition).
bool StorageFlag(const Schema& schema, const char* key) {
  const auto& meta = schema.metadata();
  auto text = meta ? meta->Get(kStorageMetadataKey) : std::nullopt;
  if (!text) return false;
  auto list = nlohmann::json::parse(*text, nullptr, false);
  if (!list.is_array() || list.size() != 1 || !list[0].is_string()) return false;
  auto sm = nlohmann::json::parse(list[0].get<std::string>(), nullptr, false);
  return sm.is_object() && sm.value(key, false);
}

// RQ codes packed per partition (lance's 32-row layout): unpacked per old partition, the kept
// rows packed again per new partition (as lance 12's compaction writes them).
Result<ArrayPtr> RepackRabitqCodes(const Array& codes, const IvfModel& ivf, const std::vector<int64_t>& keep,
                                   const std::vector<uint32_t>& lengths, const std::string& path) {
  const auto width = static_cast<size_t>(codes.type->list_size());
  const Array& values = *codes.children[0];
  if (values.type_id() != TypeId::kUInt8 ||
      values.length < (codes.offset + codes.length) * static_cast<int64_t>(width)) {
    return Status::Corruption("{}: {} is not a fixed-size list of {} bytes per row", path, kRabitCodeColumn, width);
  }
  const uint8_t* packed = values.Values<uint8_t>() + codes.offset * static_cast<int64_t>(width);
  std::vector<uint8_t> rows(static_cast<size_t>(codes.length) * width);
  for (size_t p = 0; p < ivf.num_partitions(); ++p) {
    if (ivf.offsets[p] + ivf.lengths[p] > static_cast<uint64_t>(codes.length)) {
      return Status::Corruption("{}: partition {} past the {} rows", path, p, codes.length);
    }
    UnpackRabitqCodes(packed + ivf.offsets[p] * width, ivf.lengths[p], width, rows.data() + ivf.offsets[p] * width);
  }
  const auto n = static_cast<int64_t>(keep.size());
  std::vector<uint8_t> kept(keep.size() * width);
  for (size_t i = 0; i < keep.size(); ++i) {
    std::memcpy(kept.data() + i * width, rows.data() + static_cast<size_t>(keep[i]) * width, width);
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * static_cast<int64_t>(width)));
  size_t first = 0;
  for (uint32_t len : lengths) {
    PackRabitqCodes(kept.data() + first * width, len, width, buf->mutable_data() + first * width);
    first += len;
  }
  auto out_values = Array::Make(uint8(), n * static_cast<int64_t>(width), {nullptr, buf});
  return Array::Make(codes.type, n, {nullptr}, {out_values});
}

}  // namespace

Result<std::vector<table::IndexFileInfo>> RemapIvfIndex(const std::shared_ptr<IndexStore>& from, IndexStore& to,
                                                        const scalar::RowAddressMap& map) {
  // Opening checks the layout (and gives the partitions, row ids and row-major PQ codes).
  LANCE_ASSIGN_OR_RAISE(auto index, IvfIndex::Open(from));
  const IndexKind kind = index->kind();
  const bool graphs = IsHnswKind(kind);
  const IvfModel& ivf = index->ivf();
  const std::vector<uint64_t>& ids = index->row_ids();
  std::vector<int64_t> keep;
  std::vector<uint64_t> new_ids;
  std::vector<uint32_t> lengths(ivf.num_partitions(), 0);
  for (size_t p = 0; p < ivf.num_partitions(); ++p) {
    for (uint64_t i = ivf.offsets[p]; i < ivf.offsets[p] + ivf.lengths[p]; ++i) {
      const uint64_t n = map.Map(ids[i]);
      if (n == scalar::RowAddressMap::kRemoved) continue;
      keep.push_back(static_cast<int64_t>(i));
      new_ids.push_back(n);
      ++lengths[p];
    }
  }

  const std::string aux_path = from->DisplayPathOf(kAuxiliaryFileName);
  // The reader IvfIndex::Open above mapped (one open, its pages shared).
  LANCE_ASSIGN_OR_RAISE(auto aux, from->OpenMappedFile(kAuxiliaryFileName));
  // SQ bounds as lance 12 writes them again (it reads the quantizer and writes it back).
  const SchemaPtr schema = ReserializedStorageSchema(aux->schema());
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr all, aux->ReadAll());
  const auto n = static_cast<int64_t>(keep.size());
  std::vector<ArrayPtr> columns;
  for (int c = 0; c < schema->num_fields(); ++c) {
    const std::string& name = schema->field(c)->name();
    if (name == kRowIdColumn) {
      LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * 8));
      std::memcpy(buf->mutable_data(), new_ids.data(), new_ids.size() * 8);
      columns.push_back(Array::Make(uint64(), n, {nullptr, buf}));
    } else if (name == kRabitCodeColumn && kind == IndexKind::kIvfRq && StorageFlag(*schema, "packed")) {
      if (all->column(c)->type_id() != TypeId::kFixedSizeList) {
        return Status::Corruption("{}: {} is {}, expected a fixed-size list", aux_path, name,
                                  all->column(c)->type->ToString());
      }
      LANCE_ASSIGN_OR_RAISE(ArrayPtr codes, RepackRabitqCodes(*all->column(c), ivf, keep, lengths, aux_path));
      columns.push_back(std::move(codes));
    } else if (name == kPqCodeColumn && StorageFlag(*schema, "transposed")) {
      // Re-transposed within each new partition: byte s * len + j is its row j's code s.
      const size_t m = index->pq()->num_sub_vectors;
      LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * static_cast<int64_t>(m)));
      uint8_t* out = buf->mutable_data();
      size_t first = 0;
      for (uint32_t len : lengths) {
        for (size_t j = 0; j < len; ++j) {
          const uint8_t* code = index->code(static_cast<size_t>(keep[first + j]));
          for (size_t s = 0; s < m; ++s) out[first * m + s * len + j] = code[s];
        }
        first += len;
      }
      auto values = Array::Make(uint8(), n * static_cast<int64_t>(m), {nullptr, buf});
      columns.push_back(Array::Make(schema->field(c)->type(), n, {nullptr}, {values}));
    } else {
      // Row-major storage (vectors, SQ codes, untransposed PQ codes): the kept rows.
      LANCE_ASSIGN_OR_RAISE(ArrayPtr taken, TakeArray(all->column(c), keep));
      columns.push_back(std::move(taken));
    }
  }
  // The global buffers as they were (the PQ codebook ...), the IVF partition table anew;
  // index.idx (centroids, the FLAT sub-index marker) does not change, but for the HNSW kinds,
  // whose graphs lance 12 builds anew over the kept rows of each partition.
  std::function<Result<uint64_t>(IndexStore&)> rebuild;
  if (graphs) {
    rebuild = [&](IndexStore& out) { return WriteRebuiltHnswIndex(*index, out, keep, {}, lengths, nullptr); };
  }
  LANCE_ASSIGN_OR_RAISE(RewrittenIvfSizes sizes,
                        WriteRewrittenIvf(*from, to, *aux, schema, n, std::move(columns), lengths, rebuild));
  return std::vector<table::IndexFileInfo>{{kIndexFileName, sizes.index}, {kAuxiliaryFileName, sizes.auxiliary}};
}

}  // namespace lance::index::vector
