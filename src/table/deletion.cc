// Deletion files: Arrow IPC file of uint32 row offsets (ARROW_ARRAY) or a portable 32-bit
// Roaring bitmap (BITMAP).
#include <algorithm>

#include <roaring/roaring.h>

#include "lance/ipc/reader.h"
#include "lance/table/snapshot.h"

namespace lance::table {

Result<std::vector<uint32_t>> DecodeDeletionFile(BufferPtr bytes, DeletionFileType type,
                                                 const std::string& what) {
  std::vector<uint32_t> rows;
  if (type == DeletionFileType::kBitmap) {
    const char* p = reinterpret_cast<const char*>(bytes->data());
    const size_t n = static_cast<size_t>(bytes->size());
    const size_t need = roaring_bitmap_portable_deserialize_size(p, n);
    if (need == 0 || need > n) {
      return Status::Corruption("{}: not a portable Roaring bitmap ({} bytes)", what, n);
    }
    roaring_bitmap_t* bm = roaring_bitmap_portable_deserialize_safe(p, n);
    if (bm == nullptr) {
      return Status::Corruption("{}: the Roaring bitmap does not decode", what);
    }
    rows.resize(roaring_bitmap_get_cardinality(bm));
    if (!rows.empty()) roaring_bitmap_to_uint32_array(bm, rows.data());
    roaring_bitmap_free(bm);
    return rows;  // already sorted and unique
  }
  auto reader = ipc::FileReader::Open(bytes);
  if (!reader.ok()) {
    return Status::Corruption("{}: not an Arrow IPC file: {}", what, reader.status().message());
  }
  const auto& schema = (*reader)->schema();
  if (schema->num_fields() != 1) {
    return Status::Corruption("{}: expected one column of deleted row offsets, found {}", what,
                              schema->num_fields());
  }
  const TypeId id = schema->field(0)->type()->id();
  if (id != TypeId::kUInt32 && id != TypeId::kInt32) {
    return Status::Corruption("{}: deleted row offsets must be uint32, found {}", what,
                              schema->field(0)->type()->ToString());
  }
  auto batches = (*reader)->ReadAll();
  if (!batches.ok()) {
    return Status::Corruption("{}: {}", what, batches.status().message());
  }
  for (const auto& b : *batches) {
    const Array& a = *b->column(0);
    if (a.null_count != 0) {
      return Status::Corruption("{}: deleted row offsets contain {} nulls", what, a.null_count);
    }
    const uint32_t* v = a.Values<uint32_t>();
    for (int64_t i = 0; i < a.length; ++i) {
      if (id == TypeId::kInt32 && static_cast<int32_t>(v[i]) < 0) {
        return Status::Corruption("{}: negative deleted row offset {}", what,
                                  static_cast<int32_t>(v[i]));
      }
      rows.push_back(v[i]);
    }
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

}  // namespace lance::table
