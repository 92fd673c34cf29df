// Arrow C Data Interface export: schemas (format strings, metadata, children) and arrays
// (buffers and children handed over with a release callback that keeps our buffers alive).
#include "lance/columnar/c_bridge.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "columnar/c_type_layout.h"

namespace lance {

namespace {

using c_layout::HasOffsets;
using c_layout::kZeroBytes;
using c_layout::NumBuffers;
using c_layout::NumChildren;
using c_layout::UnitChar;

// ---- Export: schema -----------------------------------------------------------------------

Result<std::string> FormatOf(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull: return std::string("n");
    case TypeId::kBool: return std::string("b");
    case TypeId::kInt8: return std::string("c");
    case TypeId::kUInt8: return std::string("C");
    case TypeId::kInt16: return std::string("s");
    case TypeId::kUInt16: return std::string("S");
    case TypeId::kInt32: return std::string("i");
    case TypeId::kUInt32: return std::string("I");
    case TypeId::kInt64: return std::string("l");
    case TypeId::kUInt64: return std::string("L");
    case TypeId::kHalfFloat: return std::string("e");
    case TypeId::kFloat: return std::string("f");
    case TypeId::kDouble: return std::string("g");
    case TypeId::kString: return std::string("u");
    case TypeId::kLargeString: return std::string("U");
    case TypeId::kBinary: return std::string("z");
    case TypeId::kLargeBinary: return std::string("Z");
    case TypeId::kFixedSizeBinary: return fmt::format("w:{}", type.byte_width());
    case TypeId::kDate32: return std::string("tdD");
    case TypeId::kDate64: return std::string("tdm");
    case TypeId::kTime32:
      if (type.unit() != TimeUnit::kSecond && type.unit() != TimeUnit::kMilli) break;
      return fmt::format("tt{}", UnitChar(type.unit()));
    case TypeId::kTime64:
      if (type.unit() != TimeUnit::kMicro && type.unit() != TimeUnit::kNano) break;
      return fmt::format("tt{}", UnitChar(type.unit()));
    case TypeId::kTimestamp: return fmt::format("ts{}:{}", UnitChar(type.unit()), type.timezone());
    case TypeId::kDuration: return fmt::format("tD{}", UnitChar(type.unit()));
    case TypeId::kDecimal128: return fmt::format("d:{},{}", type.precision(), type.scale());
    case TypeId::kDecimal256: return fmt::format("d:{},{},256", type.precision(), type.scale());
    case TypeId::kList: return std::string("+l");
    case TypeId::kLargeList: return std::string("+L");
    case TypeId::kFixedSizeList: return fmt::format("+w:{}", type.list_size());
    case TypeId::kStruct: return std::string("+s");
    case TypeId::kMap: return std::string("+m");
    case TypeId::kDictionary:
      if (!type.index_type() || !type.index_type()->is_integer() || !type.dictionary_value_type()) {
        break;
      }
      return FormatOf(*type.index_type());
  }
  return Status::InvalidArgument("C data export: type {} has no Arrow C format", type.ToString());
}

// Encodes metadata the C Data way: int32 pair count, then per pair an int32 key length, the
// key bytes, an int32 value length and the value bytes, integers in native byte order.
void AppendInt32(std::string* out, int32_t v) {
  char bytes[sizeof(v)];
  std::memcpy(bytes, &v, sizeof(v));
  out->append(bytes, sizeof(v));
}

Result<std::string> EncodeMetadata(const KeyValueMetadata& md) {
  constexpr size_t kMax = static_cast<size_t>(std::numeric_limits<int32_t>::max());
  std::string out;
  AppendInt32(&out, static_cast<int32_t>(md.size()));
  for (const auto& [key, value] : md.pairs()) {
    if (key.size() > kMax || value.size() > kMax) {
      return Status::InvalidArgument("C data export: metadata entry '{}' is too large",
                                     key.substr(0, 64));
    }
    AppendInt32(&out, static_cast<int32_t>(key.size()));
    out += key;
    AppendInt32(&out, static_cast<int32_t>(value.size()));
    out += value;
  }
  return out;
}

// What an exported ArrowSchema owns. Children live in a vector sized once, so the pointers
// handed out in `child_ptrs` stay put; nothing points into the ArrowSchema itself, so the
// consumer may move it.
struct ExportedSchema {
  std::string format;
  std::string name;
  std::string metadata;
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_ptrs;
  std::unique_ptr<ArrowSchema> dictionary;
};

void ReleaseExportedSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  auto* p = static_cast<ExportedSchema*>(schema->private_data);
  for (auto& child : p->children) {
    if (child.release != nullptr) child.release(&child);  // skipped when moved out
  }
  if (p->dictionary && p->dictionary->release != nullptr) p->dictionary->release(p->dictionary.get());
  delete p;
  schema->private_data = nullptr;
  schema->release = nullptr;
}

// Fills `out` describing `type` under `name`. `out` is live (releasable) as soon as this
// returns, even on error, so partial work is freed by the caller's release.
Status ExportSchemaNode(const DataType& type, const std::string& name, int64_t flags,
                        const KeyValueMetadata* metadata, ArrowSchema* out) {
  std::memset(out, 0, sizeof(*out));
  auto* p = new ExportedSchema();
  out->private_data = p;
  out->release = &ReleaseExportedSchema;
  p->name = name;
  out->name = p->name.c_str();
  out->format = "";
  LANCE_ASSIGN_OR_RAISE(p->format, FormatOf(type));
  out->format = p->format.c_str();
  if (metadata != nullptr && !metadata->empty()) {
    LANCE_ASSIGN_OR_RAISE(p->metadata, EncodeMetadata(*metadata));
    out->metadata = p->metadata.data();
  }
  if (type.id() == TypeId::kDictionary && type.ordered()) flags |= ARROW_FLAG_DICTIONARY_ORDERED;
  if (type.id() == TypeId::kMap && type.keys_sorted()) flags |= ARROW_FLAG_MAP_KEYS_SORTED;
  out->flags = flags;

  const int n = NumChildren(type);
  p->children.resize(static_cast<size_t>(n));  // zeroed: release == NULL until filled
  p->child_ptrs.resize(static_cast<size_t>(n));
  out->n_children = n;
  out->children = n > 0 ? p->child_ptrs.data() : nullptr;
  for (int i = 0; i < n; ++i) {
    ArrowSchema* child = &p->children[static_cast<size_t>(i)];
    p->child_ptrs[static_cast<size_t>(i)] = child;
    const Field& f = *type.field(i);
    LANCE_RETURN_NOT_OK(ExportSchemaNode(*f.type(), f.name(), f.nullable() ? ARROW_FLAG_NULLABLE : 0,
                                         f.metadata().get(), child));
  }
  if (type.id() == TypeId::kDictionary) {
    p->dictionary = std::make_unique<ArrowSchema>();
    out->dictionary = p->dictionary.get();
    LANCE_RETURN_NOT_OK(ExportSchemaNode(*type.dictionary_value_type(), "", ARROW_FLAG_NULLABLE,
                                         nullptr, p->dictionary.get()));
  }
  return Status::OK();
}

// Runs ExportSchemaNode and leaves `out` released when it fails.
Status ExportSchemaRoot(const DataType& type, const std::string& name, int64_t flags,
                        const KeyValueMetadata* metadata, ArrowSchema* out) {
  if (out == nullptr) return Status::InvalidArgument("C data export: output ArrowSchema is null");
  Status st = ExportSchemaNode(type, name, flags, metadata, out);
  if (!st.ok()) out->release(out);
  return st;
}

// ---- Export: arrays -----------------------------------------------------------------------

struct ExportedArray {
  ArrayPtr array;  // keeps every buffer of this level alive
  std::vector<const void*> buffers;
  std::vector<ArrowArray> children;
  std::vector<ArrowArray*> child_ptrs;
  std::unique_ptr<ArrowArray> dictionary;
};

void ReleaseExportedArray(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  auto* p = static_cast<ExportedArray*>(array->private_data);
  for (auto& child : p->children) {
    if (child.release != nullptr) child.release(&child);  // skipped when moved out
  }
  if (p->dictionary && p->dictionary->release != nullptr) p->dictionary->release(p->dictionary.get());
  delete p;
  array->private_data = nullptr;
  array->release = nullptr;
}

// Fills `out` from `array`; like ExportSchemaNode, `out` is releasable even on error.
Status ExportArrayNode(const ArrayPtr& array, ArrowArray* out) {
  std::memset(out, 0, sizeof(*out));
  auto* p = new ExportedArray();
  out->private_data = p;
  out->release = &ReleaseExportedArray;
  if (!array || !array->type) return Status::InvalidArgument("C data export: null array or type");
  p->array = array;
  const DataType& type = *array->type;
  out->length = array->length;
  out->offset = array->offset;
  out->null_count = type.id() == TypeId::kNull ? array->length : array->null_count;

  const int n_buffers = NumBuffers(type);
  p->buffers.resize(static_cast<size_t>(n_buffers), nullptr);
  const bool empty = array->offset + array->length == 0;
  for (int i = 0; i < n_buffers; ++i) {
    const auto slot = static_cast<size_t>(i);
    const BufferPtr* buf = slot < array->buffers.size() ? &array->buffers[slot] : nullptr;
    if (buf != nullptr && *buf) {
      p->buffers[slot] = (*buf)->data();
    } else if (i == 0) {
      if (array->null_count != 0) {
        return Status::InvalidArgument("C data export: {} array has {} nulls but no validity buffer",
                                       type.ToString(), array->null_count);
      }
    } else if (empty || (i == 2 && type.is_binary_like() && array->ValueOffset(array->length) == 0)) {
      // Nothing to point at: an empty array's buffers, or the data of a binary array whose
      // values are all empty.
      p->buffers[slot] = kZeroBytes;
    } else {
      return Status::InvalidArgument("C data export: {} array of length {} lacks buffer {}",
                                     type.ToString(), array->length, i);
    }
  }
  out->n_buffers = n_buffers;
  out->buffers = n_buffers > 0 ? p->buffers.data() : nullptr;

  const int n_children = NumChildren(type);
  if (static_cast<int>(array->children.size()) != n_children) {
    return Status::InvalidArgument("C data export: {} array has {} children, expected {}",
                                   type.ToString(), array->children.size(), n_children);
  }
  p->children.resize(static_cast<size_t>(n_children));
  p->child_ptrs.resize(static_cast<size_t>(n_children));
  out->n_children = n_children;
  out->children = n_children > 0 ? p->child_ptrs.data() : nullptr;
  for (int i = 0; i < n_children; ++i) {
    const auto slot = static_cast<size_t>(i);
    p->child_ptrs[slot] = &p->children[slot];
    LANCE_RETURN_NOT_OK(ExportArrayNode(array->children[slot], &p->children[slot]));
  }
  if (type.id() == TypeId::kDictionary) {
    if (!array->dictionary) {
      return Status::InvalidArgument("C data export: dictionary array without dictionary values");
    }
    p->dictionary = std::make_unique<ArrowArray>();
    out->dictionary = p->dictionary.get();
    LANCE_RETURN_NOT_OK(ExportArrayNode(array->dictionary, p->dictionary.get()));
  }
  return Status::OK();
}


}  // namespace

Status ExportType(const DataType& type, ArrowSchema* out) {
  return ExportSchemaRoot(type, "", ARROW_FLAG_NULLABLE, nullptr, out);
}

Status ExportField(const Field& field, ArrowSchema* out) {
  if (!field.type()) return Status::InvalidArgument("C data export: field '{}' has no type", field.name());
  return ExportSchemaRoot(*field.type(), field.name(), field.nullable() ? ARROW_FLAG_NULLABLE : 0,
                          field.metadata().get(), out);
}

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  const auto type = struct_(schema.fields());
  return ExportSchemaRoot(*type, "", 0, schema.metadata().get(), out);
}

Status ExportArray(const ArrayPtr& array, ArrowArray* out, ArrowSchema* out_schema) {
  if (out == nullptr) return Status::InvalidArgument("C data export: output ArrowArray is null");
  out->release = nullptr;
  if (out_schema != nullptr) {
    if (!array || !array->type) return Status::InvalidArgument("C data export: null array or type");
    LANCE_RETURN_NOT_OK(ExportType(*array->type, out_schema));
  }
  Status st = ExportArrayNode(array, out);
  if (!st.ok()) {
    out->release(out);
    if (out_schema != nullptr) out_schema->release(out_schema);
  }
  return st;
}

Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out, ArrowSchema* out_schema) {
  if (out == nullptr) return Status::InvalidArgument("C data export: output ArrowArray is null");
  out->release = nullptr;
  auto as_struct = std::make_shared<Array>();
  as_struct->type = struct_(batch.schema()->fields());
  as_struct->length = batch.num_rows();
  as_struct->buffers = {nullptr};
  as_struct->children = batch.columns();
  if (out_schema != nullptr) LANCE_RETURN_NOT_OK(ExportSchema(*batch.schema(), out_schema));
  Status st = ExportArrayNode(as_struct, out);
  if (!st.ok()) {
    out->release(out);
    if (out_schema != nullptr) out_schema->release(out_schema);
  }
  return st;
}

}  // namespace lance
