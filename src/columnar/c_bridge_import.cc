// Arrow C Data Interface import: format strings parsed into types (depth-bounded), metadata,
// and arrays whose buffers stay owned by the producer's release callback; every imported
// array is validated before use.
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

// Nested schemas and arrays deeper than this are rejected on import: a hostile (or cyclic)
// struct graph must not exhaust the stack.
constexpr int kMaxImportDepth = 64;

using c_layout::HasOffsets;
using c_layout::kZeroBytes;
using c_layout::NumBuffers;
using c_layout::NumChildren;
using c_layout::UnitChar;

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
      int32_t bits = 128;
      if (parts.size() == 3) {
        auto parsed = ParseInt32(parts[2]);
        if (!parsed) return BadFormat(format, "bit width must be an integer");
        bits = *parsed;
        if (bits == 32 || bits == 64) {
          return Status::NotSupported(
              "format '{}': decimal{} is not supported (decimal128 and decimal256 only)", format,
              bits);
        }
        if (bits != 128 && bits != 256) {
          return BadFormat(format, "decimal bit width must be 32, 64, 128 or 256");
        }
      }
      const int32_t max_precision = bits == 128 ? 38 : 76;
      if (*precision < 1 || *precision > max_precision) {
        return BadFormat(format, fmt::format("decimal{} precision must be in [1, {}]", bits,
                                             max_precision));
      }
      return bits == 128 ? decimal128(*precision, *scale) : decimal256(*precision, *scale);
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


}  // namespace

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

}  // namespace lance
