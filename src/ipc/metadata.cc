#include "ipc/metadata.h"

#include <string>
#include <utility>

namespace lance::ipc::internal {

namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

fb::TimeUnit ToFlatbuffer(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return fb::TimeUnit::SECOND;
    case TimeUnit::kMilli:
      return fb::TimeUnit::MILLISECOND;
    case TimeUnit::kMicro:
      return fb::TimeUnit::MICROSECOND;
    case TimeUnit::kNano:
      return fb::TimeUnit::NANOSECOND;
  }
  return fb::TimeUnit::SECOND;
}

Result<TimeUnit> FromFlatbuffer(fb::TimeUnit unit) {
  switch (unit) {
    case fb::TimeUnit::SECOND:
      return TimeUnit::kSecond;
    case fb::TimeUnit::MILLISECOND:
      return TimeUnit::kMilli;
    case fb::TimeUnit::MICROSECOND:
      return TimeUnit::kMicro;
    case fb::TimeUnit::NANOSECOND:
      return TimeUnit::kNano;
  }
  return Status::Corruption("unknown time unit {}", static_cast<int>(unit));
}

// The union member describing `type` (a non-dictionary type).
struct TypeOffset {
  fb::Type tag;
  Offset<void> table;
};

Result<TypeOffset> SerializeType(FlatBufferBuilder& b, const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return TypeOffset{fb::Type::Null, fb::CreateNull(b).Union()};
    case TypeId::kBool:
      return TypeOffset{fb::Type::Bool, fb::CreateBool(b).Union()};
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return TypeOffset{fb::Type::Int,
                        fb::CreateInt(b, type.bit_width(), type.is_signed_integer()).Union()};
    case TypeId::kHalfFloat:
      return TypeOffset{fb::Type::FloatingPoint,
                        fb::CreateFloatingPoint(b, fb::Precision::HALF).Union()};
    case TypeId::kFloat:
      return TypeOffset{fb::Type::FloatingPoint,
                        fb::CreateFloatingPoint(b, fb::Precision::SINGLE).Union()};
    case TypeId::kDouble:
      return TypeOffset{fb::Type::FloatingPoint,
                        fb::CreateFloatingPoint(b, fb::Precision::DOUBLE).Union()};
    case TypeId::kString:
      return TypeOffset{fb::Type::Utf8, fb::CreateUtf8(b).Union()};
    case TypeId::kLargeString:
      return TypeOffset{fb::Type::LargeUtf8, fb::CreateLargeUtf8(b).Union()};
    case TypeId::kBinary:
      return TypeOffset{fb::Type::Binary, fb::CreateBinary(b).Union()};
    case TypeId::kLargeBinary:
      return TypeOffset{fb::Type::LargeBinary, fb::CreateLargeBinary(b).Union()};
    case TypeId::kFixedSizeBinary:
      return TypeOffset{fb::Type::FixedSizeBinary,
                        fb::CreateFixedSizeBinary(b, type.byte_width()).Union()};
    case TypeId::kDate32:
      return TypeOffset{fb::Type::Date, fb::CreateDate(b, fb::DateUnit::DAY).Union()};
    case TypeId::kDate64:
      return TypeOffset{fb::Type::Date, fb::CreateDate(b, fb::DateUnit::MILLISECOND).Union()};
    case TypeId::kTime32:
      return TypeOffset{fb::Type::Time, fb::CreateTime(b, ToFlatbuffer(type.unit()), 32).Union()};
    case TypeId::kTime64:
      return TypeOffset{fb::Type::Time, fb::CreateTime(b, ToFlatbuffer(type.unit()), 64).Union()};
    case TypeId::kTimestamp: {
      auto tz = type.timezone().empty() ? Offset<flatbuffers::String>()
                                        : b.CreateString(type.timezone());
      return TypeOffset{fb::Type::Timestamp,
                        fb::CreateTimestamp(b, ToFlatbuffer(type.unit()), tz).Union()};
    }
    case TypeId::kDuration:
      return TypeOffset{fb::Type::Duration,
                        fb::CreateDuration(b, ToFlatbuffer(type.unit())).Union()};
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return TypeOffset{fb::Type::Decimal,
                        fb::CreateDecimal(b, type.precision(), type.scale(), type.bit_width())
                            .Union()};
    case TypeId::kList:
      return TypeOffset{fb::Type::List, fb::CreateList(b).Union()};
    case TypeId::kLargeList:
      return TypeOffset{fb::Type::LargeList, fb::CreateLargeList(b).Union()};
    case TypeId::kFixedSizeList:
      return TypeOffset{fb::Type::FixedSizeList,
                        fb::CreateFixedSizeList(b, type.list_size()).Union()};
    case TypeId::kStruct:
      return TypeOffset{fb::Type::Struct_, fb::CreateStruct_(b).Union()};
    case TypeId::kMap:
      return TypeOffset{fb::Type::Map, fb::CreateMap(b, type.keys_sorted()).Union()};
    case TypeId::kDictionary:
      break;
  }
  return Status::InvalidArgument("IPC: dictionary type {} nested in a dictionary's values",
                                 type.ToString());
}

Result<Offset<fb::Field>> SerializeField(FlatBufferBuilder& b, const Field& field,
                                         int64_t* next_dictionary_id, bool in_dictionary) {
  const DataType* type = field.type().get();
  Offset<fb::DictionaryEncoding> dictionary;
  if (type->id() == TypeId::kDictionary) {
    if (in_dictionary) {
      return Status::InvalidArgument("IPC: field '{}' is a dictionary nested in a dictionary",
                                     field.name());
    }
    const DataType& index = *type->index_type();
    if (!index.is_integer()) {
      return Status::InvalidArgument("IPC: field '{}' has dictionary index type {}", field.name(),
                                     index.ToString());
    }
    auto index_type = fb::CreateInt(b, index.bit_width(), index.is_signed_integer());
    dictionary = fb::CreateDictionaryEncoding(b, (*next_dictionary_id)++, index_type,
                                              type->ordered());
    type = type->dictionary_value_type().get();
    in_dictionary = true;
  }
  std::vector<Offset<fb::Field>> children;
  children.reserve(type->fields().size());
  for (const auto& child : type->fields()) {
    LANCE_ASSIGN_OR_RAISE(auto c, SerializeField(b, *child, next_dictionary_id, in_dictionary));
    children.push_back(c);
  }
  LANCE_ASSIGN_OR_RAISE(TypeOffset t, SerializeType(b, *type));
  auto name = b.CreateString(field.name());
  auto children_vec = b.CreateVector(children);
  auto metadata = SerializeMetadata(b, field.metadata());
  return fb::CreateField(b, name, field.nullable(), t.tag, t.table, dictionary, children_vec,
                         metadata);
}

// ---- Reading ----

constexpr int kMaxNesting = 64;

struct FieldReader {
  SchemaInfo* info;

  Result<DataTypePtr> IntType(const fb::Int* t) {
    if (t == nullptr) return Status::Corruption("IPC schema: Int type without its table");
    const bool s = t->is_signed();
    switch (t->bit_width()) {
      case 8:
        return s ? int8() : uint8();
      case 16:
        return s ? int16() : uint16();
      case 32:
        return s ? int32() : uint32();
      case 64:
        return s ? int64() : uint64();
      default:
        return Status::Corruption("IPC schema: integer bit width {}, expected 8, 16, 32 or 64",
                                  t->bit_width());
    }
  }

  Status ExpectChildren(const std::string& name, const char* what, size_t found, size_t want) {
    if (found != want) {
      return Status::Corruption("IPC schema: {} field '{}' has {} children, expected {}", what,
                                name, found, want);
    }
    return Status::OK();
  }

  Result<DataTypePtr> TypeOf(const fb::Field* f, const std::string& name,
                             std::vector<FieldPtr> children) {
    const void* table = f->type();
    const fb::Type tag = f->type_type();
    if (tag != fb::Type::NONE && table == nullptr) {
      return Status::Corruption("IPC schema: field '{}' has a type tag but no type table", name);
    }
    auto leaf = [&](const char* what) -> Status {
      return ExpectChildren(name, what, children.size(), 0);
    };
    switch (tag) {
      case fb::Type::NONE:
        return Status::Corruption("IPC schema: field '{}' has no type", name);
      case fb::Type::Null:
        LANCE_RETURN_NOT_OK(leaf("null"));
        return null();
      case fb::Type::Int:
        LANCE_RETURN_NOT_OK(leaf("integer"));
        return IntType(f->type_as_Int());
      case fb::Type::FloatingPoint:
        LANCE_RETURN_NOT_OK(leaf("floating point"));
        switch (f->type_as_FloatingPoint()->precision()) {
          case fb::Precision::HALF:
            return float16();
          case fb::Precision::SINGLE:
            return float32();
          case fb::Precision::DOUBLE:
            return float64();
        }
        return Status::Corruption("IPC schema: field '{}' has an unknown float precision", name);
      case fb::Type::Binary:
        LANCE_RETURN_NOT_OK(leaf("binary"));
        return binary();
      case fb::Type::Utf8:
        LANCE_RETURN_NOT_OK(leaf("utf8"));
        return utf8();
      case fb::Type::LargeBinary:
        LANCE_RETURN_NOT_OK(leaf("large_binary"));
        return large_binary();
      case fb::Type::LargeUtf8:
        LANCE_RETURN_NOT_OK(leaf("large_utf8"));
        return large_utf8();
      case fb::Type::Bool:
        LANCE_RETURN_NOT_OK(leaf("bool"));
        return boolean();
      case fb::Type::Decimal: {
        LANCE_RETURN_NOT_OK(leaf("decimal"));
        const auto* d = f->type_as_Decimal();
        if (d->bit_width() != 128 && d->bit_width() != 256) {
          return Status::NotSupported(
              "IPC schema: field '{}' is a {}-bit decimal (128 and 256 bits are supported)", name,
              d->bit_width());
        }
        const int32_t max_precision = d->bit_width() == 128 ? 38 : 76;
        if (d->precision() < 1 || d->precision() > max_precision) {
          return Status::Corruption("IPC schema: field '{}' has decimal{} precision {} (expected 1..{})",
                                    name, d->bit_width(), d->precision(), max_precision);
        }
        return d->bit_width() == 128 ? decimal128(d->precision(), d->scale())
                                     : decimal256(d->precision(), d->scale());
      }
      case fb::Type::Date:
        LANCE_RETURN_NOT_OK(leaf("date"));
        return f->type_as_Date()->unit() == fb::DateUnit::DAY ? date32() : date64();
      case fb::Type::Time: {
        LANCE_RETURN_NOT_OK(leaf("time"));
        const auto* t = f->type_as_Time();
        LANCE_ASSIGN_OR_RAISE(TimeUnit unit, FromFlatbuffer(t->unit()));
        const bool small = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
        if (t->bit_width() != (small ? 32 : 64)) {
          return Status::Corruption("IPC schema: field '{}' is a {}-bit time in {}", name,
                                    t->bit_width(), TimeUnitName(unit));
        }
        return small ? time32(unit) : time64(unit);
      }
      case fb::Type::Timestamp: {
        LANCE_RETURN_NOT_OK(leaf("timestamp"));
        const auto* t = f->type_as_Timestamp();
        LANCE_ASSIGN_OR_RAISE(TimeUnit unit, FromFlatbuffer(t->unit()));
        return timestamp(unit, t->timezone() ? t->timezone()->str() : std::string());
      }
      case fb::Type::Duration: {
        LANCE_RETURN_NOT_OK(leaf("duration"));
        LANCE_ASSIGN_OR_RAISE(TimeUnit unit, FromFlatbuffer(f->type_as_Duration()->unit()));
        return duration(unit);
      }
      case fb::Type::FixedSizeBinary: {
        LANCE_RETURN_NOT_OK(leaf("fixed_size_binary"));
        const int32_t w = f->type_as_FixedSizeBinary()->byte_width();
        if (w < 0) {
          return Status::Corruption("IPC schema: field '{}' has byte width {}", name, w);
        }
        return fixed_size_binary(w);
      }
      case fb::Type::List:
        LANCE_RETURN_NOT_OK(ExpectChildren(name, "list", children.size(), 1));
        return list(children[0]);
      case fb::Type::LargeList:
        LANCE_RETURN_NOT_OK(ExpectChildren(name, "large_list", children.size(), 1));
        return large_list(children[0]);
      case fb::Type::FixedSizeList: {
        LANCE_RETURN_NOT_OK(ExpectChildren(name, "fixed_size_list", children.size(), 1));
        const int32_t n = f->type_as_FixedSizeList()->list_size();
        if (n < 0) return Status::Corruption("IPC schema: field '{}' has list size {}", name, n);
        return fixed_size_list(children[0], n);
      }
      case fb::Type::Struct_:
        return struct_(std::move(children));
      case fb::Type::Map: {
        LANCE_RETURN_NOT_OK(ExpectChildren(name, "map", children.size(), 1));
        const auto& entries = children[0];
        if (entries->type()->id() != TypeId::kStruct || entries->type()->num_fields() != 2) {
          return Status::Corruption(
              "IPC schema: map field '{}' entries must be a struct of key and value, found {}",
              name, entries->type()->ToString());
        }
        return map(entries, f->type_as_Map()->keys_sorted());
      }
      case fb::Type::Union:
      case fb::Type::Interval:
      case fb::Type::RunEndEncoded:
      case fb::Type::BinaryView:
      case fb::Type::Utf8View:
      case fb::Type::ListView:
      case fb::Type::LargeListView:
        return Status::NotSupported("IPC schema: field '{}' has type {}, not supported", name,
                                    fb::EnumNameType(tag));
    }
    return Status::Corruption("IPC schema: field '{}' has unknown type tag {}", name,
                              static_cast<int>(tag));
  }

  Result<FieldPtr> Read(const fb::Field* f, int depth, bool in_dictionary) {
    if (f == nullptr) return Status::Corruption("IPC schema: null field entry");
    if (depth > kMaxNesting) {
      return Status::Corruption("IPC schema: types nested deeper than {} levels", kMaxNesting);
    }
    std::string name = f->name() ? f->name()->str() : std::string();
    const fb::DictionaryEncoding* dict = f->dictionary();
    if (dict != nullptr && in_dictionary) {
      return Status::NotSupported("IPC schema: field '{}' is a dictionary nested in a dictionary",
                                  name);
    }
    if (dict != nullptr) info->field_dictionary_ids.push_back(dict->id());
    std::vector<FieldPtr> children;
    if (f->children() != nullptr) {
      children.reserve(f->children()->size());
      for (const fb::Field* c : *f->children()) {
        LANCE_ASSIGN_OR_RAISE(auto child, Read(c, depth + 1, in_dictionary || dict != nullptr));
        children.push_back(std::move(child));
      }
    }
    LANCE_ASSIGN_OR_RAISE(DataTypePtr type, TypeOf(f, name, std::move(children)));
    if (dict != nullptr) {
      DataTypePtr index = int32();
      if (dict->index_type() != nullptr) {
        LANCE_ASSIGN_OR_RAISE(index, IntType(dict->index_type()));
      }
      type = dictionary(index, type, dict->is_ordered());
      auto [it, inserted] = info->dictionary_types.emplace(dict->id(), type);
      if (!inserted && !it->second->Equals(*type)) {
        return Status::Corruption("IPC schema: dictionary id {} used with types {} and {}",
                                  dict->id(), it->second->ToString(), type->ToString());
      }
    }
    return std::make_shared<const Field>(std::move(name), std::move(type), f->nullable(),
                                         DeserializeMetadata(f->custom_metadata()));
  }
};

}  // namespace

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>> SerializeMetadata(
    FlatBufferBuilder& b, const KeyValueMetadataPtr& metadata) {
  if (metadata == nullptr || metadata->empty()) return 0;
  std::vector<Offset<fb::KeyValue>> entries;
  entries.reserve(metadata->pairs().size());
  for (const auto& [k, v] : metadata->pairs()) {
    auto key = b.CreateString(k);
    auto value = b.CreateString(v);
    entries.push_back(fb::CreateKeyValue(b, key, value));
  }
  return b.CreateVector(entries);
}

KeyValueMetadataPtr DeserializeMetadata(
    const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* metadata) {
  if (metadata == nullptr || metadata->size() == 0) return nullptr;
  std::vector<std::pair<std::string, std::string>> pairs;
  pairs.reserve(metadata->size());
  for (const fb::KeyValue* kv : *metadata) {
    if (kv == nullptr) continue;
    pairs.emplace_back(kv->key() ? kv->key()->str() : std::string(),
                       kv->value() ? kv->value()->str() : std::string());
  }
  return std::make_shared<const KeyValueMetadata>(std::move(pairs));
}

Result<Offset<fb::Schema>> SerializeSchema(FlatBufferBuilder& b, const Schema& schema) {
  int64_t next_dictionary_id = 0;
  std::vector<Offset<fb::Field>> fields;
  fields.reserve(schema.fields().size());
  for (const auto& f : schema.fields()) {
    LANCE_ASSIGN_OR_RAISE(auto field, SerializeField(b, *f, &next_dictionary_id, false));
    fields.push_back(field);
  }
  auto fields_vec = b.CreateVector(fields);
  auto metadata = SerializeMetadata(b, schema.metadata());
  return fb::CreateSchema(b, fb::Endianness::Little, fields_vec, metadata);
}

Result<SchemaInfo> DeserializeSchema(const fb::Schema* schema) {
  if (schema == nullptr) return Status::Corruption("IPC: schema message without a schema");
  if (schema->endianness() != fb::Endianness::Little) {
    return Status::NotSupported("IPC: big-endian data is not supported");
  }
  SchemaInfo info;
  FieldReader reader{&info};
  std::vector<FieldPtr> fields;
  if (schema->fields() != nullptr) {
    fields.reserve(schema->fields()->size());
    for (const fb::Field* f : *schema->fields()) {
      LANCE_ASSIGN_OR_RAISE(auto field, reader.Read(f, 0, false));
      fields.push_back(std::move(field));
    }
  }
  info.schema = std::make_shared<const Schema>(std::move(fields),
                                               DeserializeMetadata(schema->custom_metadata()));
  return info;
}

}  // namespace lance::ipc::internal
