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

namespace lance {

namespace {

// Nested schemas and arrays deeper than this are rejected on import: a hostile (or cyclic)
// struct graph must not exhaust the stack.
constexpr int kMaxImportDepth = 64;

// Stands in for buffers a producer may leave null because they are empty (offsets of an empty
// array, the data of an all-empty binary array), and for the ones we export in the same case.
alignas(kBufferAlignment) constexpr uint8_t kZeroBytes[kBufferAlignment] = {};

// ---- Type layout shared by export and import ----------------------------------------------

// Number of buffers the Arrow columnar format gives arrays of `type` (children excluded).
int NumBuffers(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull: return 0;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: return 3;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: return 2;
    case TypeId::kFixedSizeList:
    case TypeId::kStruct: return 1;
    default: return 2;  // validity + fixed-width values (or dictionary indices)
  }
}

// Number of child arrays of `type` (a dictionary's values are not a child).
int NumChildren(const DataType& type) {
  return type.is_nested() ? type.num_fields() : 0;
}

bool HasOffsets(const DataType& type) {
  return type.is_binary_like() || type.id() == TypeId::kList ||
         type.id() == TypeId::kLargeList || type.id() == TypeId::kMap;
}

char UnitChar(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return 's';
    case TimeUnit::kMilli: return 'm';
    case TimeUnit::kMicro: return 'u';
    case TimeUnit::kNano: return 'n';
  }
  return '?';
}

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

// ---- Import: schema -----------------------------------------------------------------------

// Releases a consumed base struct when the import returns, whatever happened.
template <typename T>
class ReleaseOnExit {
 public:
  explicit ReleaseOnExit(T* c) : c_(c) {}
  ~ReleaseOnExit() {
    if (c_ != nullptr && c_->release != nullptr) c_->release(c_);
  }
  ReleaseOnExit(const ReleaseOnExit&) = delete;
  ReleaseOnExit& operator=(const ReleaseOnExit&) = delete;

 private:
  T* c_;
};

int32_t ReadInt32(const char*& p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  p += sizeof(v);
  return v;
}

Result<KeyValueMetadataPtr> DecodeMetadata(const char* md) {
  if (md == nullptr) return KeyValueMetadataPtr{};
  const char* p = md;
  const int32_t count = ReadInt32(p);
  if (count < 0) return Status::InvalidArgument("metadata has a negative pair count {}", count);
  if (count == 0) return KeyValueMetadataPtr{};
  std::vector<std::pair<std::string, std::string>> pairs;
  pairs.reserve(static_cast<size_t>(std::min(count, 1024)));
  for (int32_t i = 0; i < count; ++i) {
    const int32_t key_len = ReadInt32(p);
    if (key_len < 0) return Status::InvalidArgument("metadata key {} has negative length {}", i, key_len);
    std::string key(p, static_cast<size_t>(key_len));
    p += key_len;
    const int32_t value_len = ReadInt32(p);
    if (value_len < 0) {
      return Status::InvalidArgument("metadata value of '{}' has negative length {}", key, value_len);
    }
    std::string value(p, static_cast<size_t>(value_len));
    p += value_len;
    pairs.emplace_back(std::move(key), std::move(value));
  }
  return std::make_shared<const KeyValueMetadata>(std::move(pairs));
}

// Parses the decimal integer that makes up all of `text`.
std::optional<int32_t> ParseInt32(std::string_view text) {
  int32_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

Result<FieldPtr> ImportFieldNode(const ArrowSchema* schema, int depth);

Status BadFormat(std::string_view format, std::string_view why) {
  return Status::InvalidArgument("malformed format string '{}': {}", format, why);
}

Status ExpectChildren(std::string_view format, const ArrowSchema& schema, int64_t n) {
  if (schema.n_children != n) {
    return Status::InvalidArgument("format '{}' needs {} child schema(s), got {}", format, n,
                                   schema.n_children);
  }
  return Status::OK();
}

Result<std::vector<FieldPtr>> ImportChildren(const ArrowSchema& schema, int depth) {
  std::vector<FieldPtr> fields;
  fields.reserve(static_cast<size_t>(schema.n_children));
  for (int64_t i = 0; i < schema.n_children; ++i) {
    LANCE_ASSIGN_OR_RAISE(auto f, ImportFieldNode(schema.children[i], depth + 1));
    fields.push_back(std::move(f));
  }
  return fields;
}

Result<TimeUnit> ParseUnit(std::string_view format, char c) {
  switch (c) {
    case 's': return TimeUnit::kSecond;
    case 'm': return TimeUnit::kMilli;
    case 'u': return TimeUnit::kMicro;
    case 'n': return TimeUnit::kNano;
    default: return BadFormat(format, "unknown time unit");
  }
}

// The type a format string (plus children) describes, ignoring any dictionary.
Result<DataTypePtr> ParseFormat(std::string_view format, const ArrowSchema& schema, int depth) {
  if (format.empty()) return BadFormat(format, "empty");
  const bool nested = format[0] == '+';
  if (!nested) LANCE_RETURN_NOT_OK(ExpectChildren(format, schema, 0));
  if (format.size() == 1) {
    switch (format[0]) {
      case 'n': return null();
      case 'b': return boolean();
      case 'c': return int8();
      case 'C': return uint8();
      case 's': return int16();
      case 'S': return uint16();
      case 'i': return int32();
      case 'I': return uint32();
      case 'l': return int64();
      case 'L': return uint64();
      case 'e': return float16();
      case 'f': return float32();
      case 'g': return float64();
      case 'u': return utf8();
      case 'U': return large_utf8();
      case 'z': return binary();
      case 'Z': return large_binary();
      default: return BadFormat(format, "unknown type code");
    }
  }
  switch (format[0]) {
    case 'w': {
      if (format[1] != ':') return BadFormat(format, "expected 'w:<byte width>'");
      auto width = ParseInt32(format.substr(2));
      if (!width || *width <= 0) return BadFormat(format, "byte width must be a positive integer");
      if (*width > std::numeric_limits<int32_t>::max() / 8) return BadFormat(format, "byte width too large");
      return fixed_size_binary(*width);
    }
    case 'd': {
      if (format[1] != ':') return BadFormat(format, "expected 'd:<precision>,<scale>'");
      std::string_view rest = format.substr(2);
      std::vector<std::string_view> parts;
      while (true) {
        const size_t comma = rest.find(',');
        parts.push_back(rest.substr(0, comma));
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
      }
      if (parts.size() < 2 || parts.size() > 3) {
        return BadFormat(format, "expected 'd:<precision>,<scale>[,<bit width>]'");
      }
      auto precision = ParseInt32(parts[0]);
      auto scale = ParseInt32(parts[1]);
      if (!precision || !scale) return BadFormat(format, "precision and scale must be integers");
      if (parts.size() == 3) {
        auto bits = ParseInt32(parts[2]);
        if (!bits) return BadFormat(format, "bit width must be an integer");
        if (*bits == 32 || *bits == 64 || *bits == 256) {
          return Status::NotSupported("format '{}': decimal{} is not supported (decimal128 only)",
                                      format, *bits);
        }
        if (*bits != 128) return BadFormat(format, "decimal bit width must be 32, 64, 128 or 256");
      }
      if (*precision < 1 || *precision > 38) {
        return BadFormat(format, "decimal128 precision must be in [1, 38]");
      }
      return decimal128(*precision, *scale);
    }
    case 't': {
      const char kind = format[1];
      if (kind == 'd') {
        if (format == "tdD") return date32();
        if (format == "tdm") return date64();
        return BadFormat(format, "unknown date unit");
      }
      if (kind == 't') {
        if (format == "tts") return time32(TimeUnit::kSecond);
        if (format == "ttm") return time32(TimeUnit::kMilli);
        if (format == "ttu") return time64(TimeUnit::kMicro);
        if (format == "ttn") return time64(TimeUnit::kNano);
        return BadFormat(format, "unknown time unit");
      }
      if (kind == 's') {
        if (format.size() < 4 || format[3] != ':') {
          return BadFormat(format, "expected 'ts<unit>:<timezone>'");
        }
        LANCE_ASSIGN_OR_RAISE(auto unit, ParseUnit(format, format[2]));
        return timestamp(unit, std::string(format.substr(4)));
      }
      if (kind == 'D') {
        if (format.size() != 3) return BadFormat(format, "expected 'tD<unit>'");
        LANCE_ASSIGN_OR_RAISE(auto unit, ParseUnit(format, format[2]));
        return duration(unit);
      }
      if (kind == 'i') {
        if (format == "tiM" || format == "tiD" || format == "tin") {
          return Status::NotSupported("format '{}': interval types are not supported", format);
        }
        return BadFormat(format, "unknown interval unit");
      }
      return BadFormat(format, "unknown temporal type");
    }
    case 'v':
      if (format == "vu" || format == "vz") {
        return Status::NotSupported("format '{}': binary/string views are not supported", format);
      }
      return BadFormat(format, "unknown type code");
    case '+': {
      if (depth >= kMaxImportDepth) {
        return Status::InvalidArgument("schema nesting deeper than {} levels", kMaxImportDepth);
      }
      if (schema.n_children < 0 || (schema.n_children > 0 && schema.children == nullptr)) {
        return Status::InvalidArgument("format '{}': bad children ({} children, array {})", format,
                                       schema.n_children, schema.children ? "set" : "null");
      }
      if (format == "+l" || format == "+L") {
        LANCE_RETURN_NOT_OK(ExpectChildren(format, schema, 1));
        LANCE_ASSIGN_OR_RAISE(auto item, ImportFieldNode(schema.children[0], depth + 1));
        return format == "+l" ? list(std::move(item)) : large_list(std::move(item));
      }
      if (format.substr(0, 2) == "+w") {
        if (format.size() < 3 || format[2] != ':') return BadFormat(format, "expected '+w:<size>'");
        auto size = ParseInt32(format.substr(3));
        if (!size || *size < 0) return BadFormat(format, "list size must be a non-negative integer");
        LANCE_RETURN_NOT_OK(ExpectChildren(format, schema, 1));
        LANCE_ASSIGN_OR_RAISE(auto item, ImportFieldNode(schema.children[0], depth + 1));
        return fixed_size_list(std::move(item), *size);
      }
      if (format == "+s") {
        LANCE_ASSIGN_OR_RAISE(auto fields, ImportChildren(schema, depth));
        return struct_(std::move(fields));
      }
      if (format == "+m") {
        LANCE_RETURN_NOT_OK(ExpectChildren(format, schema, 1));
        LANCE_ASSIGN_OR_RAISE(auto entries, ImportFieldNode(schema.children[0], depth + 1));
        if (entries->type()->id() != TypeId::kStruct || entries->type()->num_fields() != 2) {
          return Status::InvalidArgument("format '+m': entries must be a struct of key and value, got {}",
                                         entries->type()->ToString());
        }
        return map(std::move(entries), (schema.flags & ARROW_FLAG_MAP_KEYS_SORTED) != 0);
      }
      if (format == "+vl" || format == "+vL" || format == "+r" || format.substr(0, 3) == "+ud" ||
          format.substr(0, 3) == "+us") {
        return Status::NotSupported("format '{}': list views, run-end encoding and unions are "
                                    "not supported", format);
      }
      return BadFormat(format, "unknown nested type");
    }
    default: return BadFormat(format, "unknown type code");
  }
}

Result<DataTypePtr> ImportTypeNode(const ArrowSchema& schema, int depth) {
  if (schema.format == nullptr) return Status::InvalidArgument("format string is NULL");
  const std::string_view format(schema.format);
  LANCE_ASSIGN_OR_RAISE(auto type, ParseFormat(format, schema, depth));
  if (schema.dictionary == nullptr) return type;
  if (!type->is_integer()) {
    return Status::InvalidArgument("dictionary index format '{}' is not an integer type", format);
  }
  if (depth >= kMaxImportDepth) {
    return Status::InvalidArgument("schema nesting deeper than {} levels", kMaxImportDepth);
  }
  LANCE_ASSIGN_OR_RAISE(auto values, ImportFieldNode(schema.dictionary, depth + 1));
  return dictionary(std::move(type), values->type(),
                    (schema.flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0);
}

Result<FieldPtr> ImportFieldNode(const ArrowSchema* schema, int depth) {
  if (schema == nullptr) return Status::InvalidArgument("child schema pointer is NULL");
  if (schema->release == nullptr) return Status::InvalidArgument("schema is released");
  std::string name = schema->name ? schema->name : "";
  auto type = ImportTypeNode(*schema, depth);
  if (!type.ok()) {
    return name.empty() ? type.status() : type.status().WithContext(fmt::format("field '{}'", name));
  }
  auto metadata = DecodeMetadata(schema->metadata);
  if (!metadata.ok()) return metadata.status().WithContext(fmt::format("field '{}'", name));
  return std::make_shared<const Field>(std::move(name), std::move(type).ValueOrDie(),
                                       (schema->flags & ARROW_FLAG_NULLABLE) != 0,
                                       std::move(metadata).ValueOrDie());
}

Result<FieldPtr> ImportRootField(ArrowSchema* schema) {
  if (schema == nullptr) return Status::InvalidArgument("C data import: ArrowSchema is null");
  ReleaseOnExit<ArrowSchema> release(schema);
  auto f = ImportFieldNode(schema, 0);
  if (!f.ok()) return f.status().WithContext("C data import");
  return f;
}

// ---- Import: arrays -----------------------------------------------------------------------

// Owns the producer's base ArrowArray; releasing it when the last imported Buffer goes away.
struct ImportedArrayOwner {
  ArrowArray array{};
  ImportedArrayOwner() = default;
  ImportedArrayOwner(const ImportedArrayOwner&) = delete;
  ImportedArrayOwner& operator=(const ImportedArrayOwner&) = delete;
  ~ImportedArrayOwner() {
    if (array.release != nullptr) array.release(&array);
  }
};
using OwnerPtr = std::shared_ptr<ImportedArrayOwner>;

// Moves `*c` into a new owner and marks `*c` released (spec "moving an array").
Result<OwnerPtr> TakeArray(ArrowArray* c) {
  if (c == nullptr) return Status::InvalidArgument("C data import: ArrowArray is null");
  if (c->release == nullptr) return Status::InvalidArgument("C data import: ArrowArray is released");
  auto owner = std::make_shared<ImportedArrayOwner>();
  owner->array = *c;
  c->release = nullptr;
  return owner;
}

bool MulOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }

class ArrayImporter {
 public:
  explicit ArrayImporter(OwnerPtr owner) : owner_(std::move(owner)) {}

  Result<ArrayPtr> Import(const ArrowArray* c, const DataTypePtr& type, int depth) {
    auto r = ImportNode(c, type, depth);
    if (!r.ok()) return r.status().WithContext(fmt::format("{} array", type->ToString()));
    return r;
  }

 private:
  BufferPtr Wrap(const void* data, int64_t size) {
    return std::make_shared<Buffer>(static_cast<const uint8_t*>(data), size, owner_);
  }

  // Wraps buffer `i` of `c`, which must hold `size` bytes. A NULL pointer is only accepted for
  // an empty buffer (and then points at static zeros so readers need no special case).
  Result<BufferPtr> Required(const ArrowArray& c, int i, int64_t size) {
    const void* data = c.buffers[i];
    if (data != nullptr) return Wrap(data, size);
    if (size == 0) return std::make_shared<Buffer>(kZeroBytes, 0);
    return Status::InvalidArgument("buffer {} is NULL but must hold {} bytes", i, size);
  }

  Result<BufferPtr> Offsets(const ArrowArray& c, int64_t end, int64_t width) {
    int64_t size = 0;
    if (MulOverflows(end + 1, width, &size)) return Status::InvalidArgument("length overflows");
    if (c.buffers[1] == nullptr && end == 0) {
      return std::make_shared<Buffer>(kZeroBytes, width);  // a single zero offset
    }
    return Required(c, 1, size);
  }

  Result<ArrayPtr> ImportNode(const ArrowArray* c_ptr, const DataTypePtr& type, int depth) {
    if (c_ptr == nullptr) return Status::InvalidArgument("child array pointer is NULL");
    const ArrowArray& c = *c_ptr;
    if (c.release == nullptr) return Status::InvalidArgument("array is released");
    if (depth > kMaxImportDepth) {
      return Status::InvalidArgument("array nesting deeper than {} levels", kMaxImportDepth);
    }
    if (c.length < 0 || c.offset < 0 || c.length > std::numeric_limits<int64_t>::max() - c.offset - 1) {
      return Status::InvalidArgument("bad length {} / offset {}", c.length, c.offset);
    }
    if (c.null_count < -1 || c.null_count > c.length) {
      return Status::InvalidArgument("null_count {} out of range for length {}", c.null_count,
                                     c.length);
    }
    const DataType& t = *type;
    const int n_buffers = NumBuffers(t);
    if (c.n_buffers != n_buffers) {
      return Status::InvalidArgument("expected {} buffers, got {}", n_buffers, c.n_buffers);
    }
    if (n_buffers > 0 && c.buffers == nullptr) {
      return Status::InvalidArgument("buffers array is NULL");
    }
    const int n_children = NumChildren(t);
    if (c.n_children != n_children) {
      return Status::InvalidArgument("expected {} children, got {}", n_children, c.n_children);
    }
    if (n_children > 0 && c.children == nullptr) {
      return Status::InvalidArgument("children array is NULL");
    }
    if ((t.id() == TypeId::kDictionary) != (c.dictionary != nullptr)) {
      if (t.id() == TypeId::kDictionary) return Status::InvalidArgument("dictionary values missing");
      return Status::InvalidArgument("unexpected dictionary on a non-dictionary array");
    }

    const int64_t end = c.offset + c.length;
    std::vector<BufferPtr> buffers(static_cast<size_t>(n_buffers));
    if (n_buffers > 0) {
      if (c.buffers[0] != nullptr) {
        buffers[0] = Wrap(c.buffers[0], bit_util::BytesForBits(end));
      } else if (c.null_count > 0) {
        return Status::InvalidArgument("null_count is {} but the validity buffer is NULL",
                                       c.null_count);
      }
    }
    if (HasOffsets(t)) {
      const int64_t width = t.has_large_offsets() ? 8 : 4;
      LANCE_ASSIGN_OR_RAISE(buffers[1], Offsets(c, end, width));
      if (t.is_binary_like()) {
        const uint8_t* offsets = buffers[1]->data();
        int64_t data_size;
        if (width == 8) {
          std::memcpy(&data_size, offsets + end * 8, 8);
        } else {
          int32_t v;
          std::memcpy(&v, offsets + end * 4, 4);
          data_size = v;
        }
        if (data_size < 0) return Status::InvalidArgument("negative last offset {}", data_size);
        LANCE_ASSIGN_OR_RAISE(buffers[2], Required(c, 2, data_size));
      }
    } else if (n_buffers == 2) {  // fixed width values or dictionary indices
      int64_t bits;
      if (MulOverflows(end, t.bit_width(), &bits)) return Status::InvalidArgument("length overflows");
      LANCE_ASSIGN_OR_RAISE(buffers[1], Required(c, 1, bit_util::BytesForBits(bits)));
    }

    std::vector<ArrayPtr> children(static_cast<size_t>(n_children));
    for (int i = 0; i < n_children; ++i) {
      const DataTypePtr& child_type = t.field(i)->type();
      auto child = ImportNode(c.children[i], child_type, depth + 1);
      if (!child.ok()) return child.status().WithContext(fmt::format("child '{}'", t.field(i)->name()));
      children[static_cast<size_t>(i)] = std::move(child).ValueOrDie();
    }
    ArrayPtr dict;
    if (t.id() == TypeId::kDictionary) {
      auto values = ImportNode(c.dictionary, t.dictionary_value_type(), depth + 1);
      if (!values.ok()) return values.status().WithContext("dictionary");
      dict = std::move(values).ValueOrDie();
    }
    return Array::Make(type, c.length, std::move(buffers), std::move(children), c.offset,
                       std::move(dict));
  }

  OwnerPtr owner_;
};

Result<ArrayPtr> ImportOwnedArray(OwnerPtr owner, const DataTypePtr& type) {
  if (!type) return Status::InvalidArgument("C data import: null type");
  ArrayImporter importer(owner);
  auto array = importer.Import(&owner->array, type, 0);
  if (!array.ok()) return array.status().WithContext("C data import");
  LANCE_RETURN_NOT_OK((*array)->Validate().WithContext("C data import"));
  return array;
}

Result<RecordBatchPtr> StructToBatch(const ArrayPtr& array, SchemaPtr schema) {
  if (array->null_count != 0) {
    return Status::InvalidArgument("C data import: record batch struct array has {} nulls",
                                   array->null_count);
  }
  std::vector<ArrayPtr> columns;
  columns.reserve(array->children.size());
  for (const auto& child : array->children) {
    const bool whole = array->offset == 0 && child->length == array->length;
    columns.push_back(whole ? child : child->Slice(array->offset, array->length));
  }
  return RecordBatch::Make(std::move(schema), array->length, std::move(columns));
}

// ---- Streams ------------------------------------------------------------------------------

int ErrnoFor(const Status& st) {
  switch (st.code()) {
    case StatusCode::kOk: return 0;
    case StatusCode::kInvalidArgument: return EINVAL;
    case StatusCode::kOutOfMemory: return ENOMEM;
    case StatusCode::kNotSupported: return ENOSYS;
    default: return EIO;
  }
}

struct ExportedStream {
  std::unique_ptr<RecordBatchReader> reader;
  Status error;  // sticky: after a failure every get_next repeats it
  std::string last_error;
  bool finished = false;
};

// Returns the errno for `st` (0 when OK), keeping its text for get_last_error.
int StreamFail(ExportedStream* p, const Status& st) {
  if (st.ok()) return 0;
  p->last_error = st.ToString();
  return ErrnoFor(st);
}

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* p = static_cast<ExportedStream*>(stream->private_data);
  try {
    const SchemaPtr schema = p->reader->schema();
    if (!schema) return StreamFail(p, Status::Internal("stream reader has no schema"));
    return StreamFail(p, ExportSchema(*schema, out));
  } catch (const std::bad_alloc&) {
    return StreamFail(p, Status::OutOfMemory("out of memory exporting the stream schema"));
  } catch (const std::exception& e) {
    return StreamFail(p, Status::Internal("exporting the stream schema: {}", e.what()));
  }
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  auto* p = static_cast<ExportedStream*>(stream->private_data);
  if (!p->error.ok()) return StreamFail(p, p->error);
  try {
    RecordBatchPtr batch;
    if (!p->finished) {
      auto next = p->reader->Next();
      if (!next.ok()) {
        p->error = next.status();
        return StreamFail(p, p->error);
      }
      batch = std::move(next).ValueOrDie();
    }
    if (!batch) {
      p->finished = true;
      std::memset(out, 0, sizeof(*out));  // release == NULL marks the end of the stream
      return 0;
    }
    Status st = ExportRecordBatch(*batch, out);
    if (!st.ok()) p->error = st;
    return StreamFail(p, st);
  } catch (const std::bad_alloc&) {
    p->error = Status::OutOfMemory("out of memory reading the next batch");
  } catch (const std::exception& e) {
    p->error = Status::Internal("reading the next batch: {}", e.what());
  }
  return StreamFail(p, p->error);
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  auto* p = static_cast<ExportedStream*>(stream->private_data);
  return p->last_error.empty() ? nullptr : p->last_error.c_str();
}

void ReleaseExportedStream(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete static_cast<ExportedStream*>(stream->private_data);
  stream->private_data = nullptr;
  stream->release = nullptr;
}

Status StatusFromErrno(int code, const char* message, std::string_view what) {
  const std::string detail = message != nullptr ? std::string(message) : std::strerror(code);
  switch (code) {
    case EINVAL:
      return Status::InvalidArgument("C stream {} failed (errno {}): {}", what, code, detail);
    case ENOMEM: return Status::OutOfMemory("C stream {} failed (errno {}): {}", what, code, detail);
    case ENOSYS:
      return Status::NotSupported("C stream {} failed (errno {}): {}", what, code, detail);
    default: return Status::IOError("C stream {} failed (errno {}): {}", what, code, detail);
  }
}

class ImportedStreamReader final : public RecordBatchReader {
 public:
  explicit ImportedStreamReader(ArrowArrayStream* stream) : stream_(*stream) {
    stream->release = nullptr;
  }
  ~ImportedStreamReader() override {
    if (stream_.release != nullptr) stream_.release(&stream_);
  }
  ImportedStreamReader(const ImportedStreamReader&) = delete;
  ImportedStreamReader& operator=(const ImportedStreamReader&) = delete;

  Status Init() {
    if (stream_.get_schema == nullptr || stream_.get_next == nullptr ||
        stream_.get_last_error == nullptr) {
      return Status::InvalidArgument("C stream import: a stream callback is NULL");
    }
    ArrowSchema c_schema;
    std::memset(&c_schema, 0, sizeof(c_schema));
    const int rc = stream_.get_schema(&stream_, &c_schema);
    if (rc != 0) return StatusFromErrno(rc, stream_.get_last_error(&stream_), "get_schema");
    LANCE_ASSIGN_OR_RAISE(schema_, ImportSchema(&c_schema));
    return Status::OK();
  }

  SchemaPtr schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (!error_.ok()) return error_;
    if (done_) return RecordBatchPtr{};
    ArrowArray c_array;
    std::memset(&c_array, 0, sizeof(c_array));
    const int rc = stream_.get_next(&stream_, &c_array);
    if (rc != 0) {
      error_ = StatusFromErrno(rc, stream_.get_last_error(&stream_), "get_next");
      return error_;
    }
    if (c_array.release == nullptr) {
      done_ = true;
      return RecordBatchPtr{};
    }
    auto batch = ImportRecordBatch(&c_array, schema_);
    if (!batch.ok()) error_ = batch.status();
    return batch;
  }

 private:
  ArrowArrayStream stream_;
  SchemaPtr schema_;
  Status error_;  // a failed get_next is final: the stream is not asked again
  bool done_ = false;
};

}  // namespace

// ---- Public entry points ------------------------------------------------------------------

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

Status ExportRecordBatchReader(std::unique_ptr<RecordBatchReader> reader, ArrowArrayStream* out) {
  if (out == nullptr) return Status::InvalidArgument("C stream export: output stream is null");
  if (!reader) return Status::InvalidArgument("C stream export: reader is null");
  auto* p = new ExportedStream();
  p->reader = std::move(reader);
  out->get_schema = &StreamGetSchema;
  out->get_next = &StreamGetNext;
  out->get_last_error = &StreamGetLastError;
  out->release = &ReleaseExportedStream;
  out->private_data = p;
  return Status::OK();
}

Result<DataTypePtr> ImportType(ArrowSchema* schema) {
  LANCE_ASSIGN_OR_RAISE(auto f, ImportRootField(schema));
  return f->type();
}

Result<FieldPtr> ImportField(ArrowSchema* schema) { return ImportRootField(schema); }

Result<SchemaPtr> ImportSchema(ArrowSchema* schema) {
  if (schema != nullptr && schema->release != nullptr &&
      (schema->format == nullptr || std::string_view(schema->format) != "+s")) {
    const std::string format = schema->format ? schema->format : "(null)";
    schema->release(schema);
    return Status::InvalidArgument("C data import: a schema must have format '+s', got '{}'", format);
  }
  LANCE_ASSIGN_OR_RAISE(auto f, ImportRootField(schema));
  return std::make_shared<const Schema>(f->type()->fields(), f->metadata());
}

Result<DataTypePtr> ReadType(const ArrowSchema* schema) {
  if (schema == nullptr) return Status::InvalidArgument("C data: ArrowSchema is null");
  auto f = ImportFieldNode(schema, 0);
  if (!f.ok()) return f.status().WithContext("C data");
  return (*f)->type();
}

Result<SchemaPtr> ReadSchema(const ArrowSchema* schema) {
  if (schema == nullptr) return Status::InvalidArgument("C data: ArrowSchema is null");
  if (schema->release != nullptr &&
      (schema->format == nullptr || std::string_view(schema->format) != "+s")) {
    return Status::InvalidArgument("C data: a schema must have format '+s', got '{}'",
                                   schema->format ? schema->format : "(null)");
  }
  auto f = ImportFieldNode(schema, 0);
  if (!f.ok()) return f.status().WithContext("C data");
  return std::make_shared<const Schema>((*f)->type()->fields(), (*f)->metadata());
}

Result<ArrayPtr> ImportArray(ArrowArray* array, ArrowSchema* schema) {
  auto owner = TakeArray(array);  // first, so the array is consumed even if the schema is bad
  auto type = ImportType(schema);
  LANCE_RETURN_NOT_OK(owner.status());
  LANCE_RETURN_NOT_OK(type.status());
  return ImportOwnedArray(std::move(owner).ValueOrDie(), *type);
}

Result<ArrayPtr> ImportArray(ArrowArray* array, DataTypePtr type) {
  LANCE_ASSIGN_OR_RAISE(auto owner, TakeArray(array));
  return ImportOwnedArray(std::move(owner), type);
}

Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema) {
  auto owner = TakeArray(array);
  auto imported_schema = ImportSchema(schema);
  LANCE_RETURN_NOT_OK(owner.status());
  LANCE_RETURN_NOT_OK(imported_schema.status());
  SchemaPtr s = std::move(imported_schema).ValueOrDie();
  LANCE_ASSIGN_OR_RAISE(auto as_struct,
                        ImportOwnedArray(std::move(owner).ValueOrDie(), struct_(s->fields())));
  return StructToBatch(as_struct, std::move(s));
}

Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, SchemaPtr schema) {
  LANCE_ASSIGN_OR_RAISE(auto owner, TakeArray(array));
  if (!schema) return Status::InvalidArgument("C data import: null schema");
  LANCE_ASSIGN_OR_RAISE(auto as_struct, ImportOwnedArray(std::move(owner), struct_(schema->fields())));
  return StructToBatch(as_struct, std::move(schema));
}

Result<std::unique_ptr<RecordBatchReader>> ImportRecordBatchReader(ArrowArrayStream* stream) {
  if (stream == nullptr) return Status::InvalidArgument("C stream import: stream is null");
  if (stream->release == nullptr) return Status::InvalidArgument("C stream import: stream is released");
  if (stream->get_schema == nullptr || stream->get_next == nullptr) {
    const char* missing = stream->get_schema == nullptr ? "get_schema" : "get_next";
    auto release = stream->release;
    release(stream);
    stream->release = nullptr;
    return Status::InvalidArgument("C stream import: the stream has no {} callback", missing);
  }
  auto reader = std::make_unique<ImportedStreamReader>(stream);
  LANCE_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

}  // namespace lance
