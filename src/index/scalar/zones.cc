#include "index/scalar/zones.h"

#include <charconv>

namespace lance::index::scalar {

Result<std::vector<ZoneCut>> CutZones(const std::vector<uint64_t>& row_ids, uint64_t capacity) {
  if (capacity == 0) return Status::InvalidArgument("zone index: zone capacity 0 (expected at least 1)");
  std::vector<ZoneCut> out;
  const int64_t n = static_cast<int64_t>(row_ids.size());
  int64_t begin = 0;
  while (begin < n) {
    const uint64_t frag = row_ids[static_cast<size_t>(begin)] >> 32;
    int64_t end = begin + 1;
    while (end < n && static_cast<uint64_t>(end - begin) < capacity &&
           (row_ids[static_cast<size_t>(end)] >> 32) == frag) {
      if (row_ids[static_cast<size_t>(end)] <= row_ids[static_cast<size_t>(end - 1)]) {
        return Status::InvalidArgument("zone index: training rows not in address order at row id {}",
                                       row_ids[static_cast<size_t>(end)]);
      }
      ++end;
    }
    ZoneCut z;
    z.begin = begin;
    z.end = end;
    z.bound.fragment_id = frag;
    z.bound.start = row_ids[static_cast<size_t>(begin)] & 0xffffffffULL;
    z.bound.length = (row_ids[static_cast<size_t>(end - 1)] & 0xffffffffULL) - z.bound.start + 1;
    out.push_back(z);
    begin = end;
  }
  return out;
}

Result<const Array*> ZoneColumn(const RecordBatch& batch, const std::string& name, TypeId type,
                                const std::string& path) {
  const int i = batch.schema()->GetFieldIndex(name);
  if (i < 0) return Status::Corruption("{}: no column '{}'", path, name);
  const Array* a = batch.column(i).get();
  if (a->type->id() != type || a->null_count > 0) {
    return Status::Corruption("{}: column '{}' is {} with {} nulls (expected a non-null {})", path, name,
                              a->type->ToString(), a->null_count,
                              type == TypeId::kUInt64 ? "uint64" : type == TypeId::kUInt32 ? "uint32" : "bool");
  }
  return a;
}

Result<std::vector<ZoneBound>> ReadZoneBounds(const RecordBatch& batch, const std::string& path) {
  LANCE_ASSIGN_OR_RAISE(const Array* frag, ZoneColumn(batch, "fragment_id", TypeId::kUInt64, path));
  LANCE_ASSIGN_OR_RAISE(const Array* start, ZoneColumn(batch, "zone_start", TypeId::kUInt64, path));
  LANCE_ASSIGN_OR_RAISE(const Array* length, ZoneColumn(batch, "zone_length", TypeId::kUInt64, path));
  std::vector<ZoneBound> out(static_cast<size_t>(batch.num_rows()));
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    ZoneBound& z = out[static_cast<size_t>(i)];
    z.fragment_id = frag->Values<uint64_t>()[i];
    z.start = start->Values<uint64_t>()[i];
    z.length = length->Values<uint64_t>()[i];
    if (z.fragment_id > 0xffffffffULL || z.start > 0xffffffffULL || z.length > (1ULL << 32) - z.start) {
      return Status::Corruption("{}: zone {} (fragment {}, start {}, length {}) lies outside a fragment", path,
                                i, z.fragment_id, z.start, z.length);
    }
  }
  return out;
}

Result<uint64_t> MetadataNumber(const file::FileReader& reader, const std::string& key, uint64_t fallback,
                                const std::string& path) {
  const auto& md = reader.schema()->metadata();
  if (!md) return fallback;
  auto v = md->Get(key);
  if (!v) return fallback;
  uint64_t n = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (ec != std::errc() || p != v->data() + v->size()) {
    return Status::Corruption("{}: schema metadata {} = '{}' (expected a number)", path, key, *v);
  }
  return n;
}

Result<std::optional<RowSet>> ReadNullBitmap(const file::FileReader& reader, const std::string& path) {
  const auto& md = reader.schema()->metadata();
  if (!md || !md->Get("null_bitmap")) return std::optional<RowSet>();
  LANCE_ASSIGN_OR_RAISE(uint64_t idx, MetadataNumber(reader, "null_bitmap", 0, path));
  if (idx == 0 || idx >= static_cast<uint64_t>(reader.num_global_buffers())) {
    return Status::Corruption("{}: null_bitmap names global buffer {} of {}", path, idx,
                              reader.num_global_buffers());
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr buf, reader.ReadGlobalBuffer(static_cast<int>(idx)));
  LANCE_ASSIGN_OR_RAISE(RowSet rows,
                        RowSet::Deserialize(std::string_view(reinterpret_cast<const char*>(buf->data()),
                                                             static_cast<size_t>(buf->size())),
                                            path + " null_bitmap"));
  return std::optional<RowSet>(std::move(rows));
}

Status FinishColumns(std::initializer_list<ArrayBuilder*> builders, std::vector<ArrayPtr>* cols) {
  for (ArrayBuilder* b : builders) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr a, b->Finish());
    cols->push_back(std::move(a));
  }
  return Status::OK();
}

Result<uint64_t> WriteZoneFile(IndexStore& store, const char* file, const SchemaPtr& s,
                               std::vector<ArrayPtr> cols, int64_t zones, const RowSet& null_rows) {
  LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(s, zones, std::move(cols)));
  LANCE_ASSIGN_OR_RAISE(auto writer, store.CreateFile(file, s));
  LANCE_ASSIGN_OR_RAISE(int buffer, writer->AddGlobalBuffer(null_rows.Serialize()));
  if (buffer != 1) {
    return Status::Internal("{}: null bitmap became global buffer {} (expected 1)", file, buffer);
  }
  LANCE_RETURN_NOT_OK(writer->Write(*batch));
  LANCE_ASSIGN_OR_RAISE(auto summary, writer->Finish());
  return static_cast<uint64_t>(summary.size_bytes);
}

}  // namespace lance::index::scalar
