#include "lance/columnar/type.h"

#include <fmt/format.h>

namespace lance {

std::string_view TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "?";
}

std::optional<std::string> KeyValueMetadata::Get(std::string_view key) const {
  for (const auto& [k, v] : pairs_) {
    if (k == key) return v;
  }
  return std::nullopt;
}

void KeyValueMetadata::Set(std::string key, std::string value) {
  for (auto& [k, v] : pairs_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  pairs_.emplace_back(std::move(key), std::move(value));
}

struct DataTypeFactory {
  static std::shared_ptr<DataType> Make(TypeId id) { return std::make_shared<DataType>(id); }
  static DataType& Mut(const std::shared_ptr<DataType>& t) { return *t; }
  static void SetByteWidth(DataType& t, int32_t w) { t.byte_width_ = w; }
  static void SetListSize(DataType& t, int32_t n) { t.list_size_ = n; }
  static void SetDecimal(DataType& t, int32_t p, int32_t s, int32_t bytes) {
    t.precision_ = p;
    t.scale_ = s;
    t.byte_width_ = bytes;
  }
  static void SetUnit(DataType& t, TimeUnit u) { t.unit_ = u; }
  static void SetTimezone(DataType& t, std::string tz) { t.timezone_ = std::move(tz); }
  static void SetFields(DataType& t, std::vector<FieldPtr> f) { t.fields_ = std::move(f); }
  static void SetKeysSorted(DataType& t, bool v) { t.keys_sorted_ = v; }
  static void SetDictionary(DataType& t, DataTypePtr idx, DataTypePtr val, bool ordered) {
    t.index_type_ = std::move(idx);
    t.value_type_ = std::move(val);
    t.ordered_ = ordered;
  }
};

namespace {
DataTypePtr Singleton(TypeId id) { return DataTypeFactory::Make(id); }
}  // namespace

#define LANCE_SINGLETON_TYPE(fn, id)          \
  DataTypePtr fn() {                          \
    static const DataTypePtr kType = Singleton(id); \
    return kType;                             \
  }
LANCE_SINGLETON_TYPE(null, TypeId::kNull)
LANCE_SINGLETON_TYPE(boolean, TypeId::kBool)
LANCE_SINGLETON_TYPE(int8, TypeId::kInt8)
LANCE_SINGLETON_TYPE(int16, TypeId::kInt16)
LANCE_SINGLETON_TYPE(int32, TypeId::kInt32)
LANCE_SINGLETON_TYPE(int64, TypeId::kInt64)
LANCE_SINGLETON_TYPE(uint8, TypeId::kUInt8)
LANCE_SINGLETON_TYPE(uint16, TypeId::kUInt16)
LANCE_SINGLETON_TYPE(uint32, TypeId::kUInt32)
LANCE_SINGLETON_TYPE(uint64, TypeId::kUInt64)
LANCE_SINGLETON_TYPE(float16, TypeId::kHalfFloat)
LANCE_SINGLETON_TYPE(float32, TypeId::kFloat)
LANCE_SINGLETON_TYPE(float64, TypeId::kDouble)
LANCE_SINGLETON_TYPE(utf8, TypeId::kString)
LANCE_SINGLETON_TYPE(large_utf8, TypeId::kLargeString)
LANCE_SINGLETON_TYPE(binary, TypeId::kBinary)
LANCE_SINGLETON_TYPE(large_binary, TypeId::kLargeBinary)
LANCE_SINGLETON_TYPE(date32, TypeId::kDate32)
LANCE_SINGLETON_TYPE(date64, TypeId::kDate64)
#undef LANCE_SINGLETON_TYPE

DataTypePtr fixed_size_binary(int32_t byte_width) {
  auto t = DataTypeFactory::Make(TypeId::kFixedSizeBinary);
  DataTypeFactory::SetByteWidth(*t, byte_width);
  return t;
}

namespace {
DataTypePtr WithUnit(TypeId id, TimeUnit unit, std::string tz = "") {
  auto t = DataTypeFactory::Make(id);
  DataTypeFactory::SetUnit(*t, unit);
  DataTypeFactory::SetTimezone(*t, std::move(tz));
  return t;
}
DataTypePtr ListOf(TypeId id, FieldPtr value_field, int32_t list_size) {
  auto t = DataTypeFactory::Make(id);
  DataTypeFactory::SetFields(*t, {std::move(value_field)});
  DataTypeFactory::SetListSize(*t, list_size);
  return t;
}
}  // namespace

DataTypePtr time32(TimeUnit unit) { return WithUnit(TypeId::kTime32, unit); }
DataTypePtr time64(TimeUnit unit) { return WithUnit(TypeId::kTime64, unit); }
DataTypePtr timestamp(TimeUnit unit, std::string timezone) {
  return WithUnit(TypeId::kTimestamp, unit, std::move(timezone));
}
DataTypePtr duration(TimeUnit unit) { return WithUnit(TypeId::kDuration, unit); }

DataTypePtr decimal128(int32_t precision, int32_t scale) {
  auto t = DataTypeFactory::Make(TypeId::kDecimal128);
  DataTypeFactory::SetDecimal(*t, precision, scale, 16);
  return t;
}

DataTypePtr decimal256(int32_t precision, int32_t scale) {
  auto t = DataTypeFactory::Make(TypeId::kDecimal256);
  DataTypeFactory::SetDecimal(*t, precision, scale, 32);
  return t;
}

DataTypePtr list(FieldPtr value_field) { return ListOf(TypeId::kList, std::move(value_field), 0); }
DataTypePtr list(DataTypePtr value_type) { return list(field("item", std::move(value_type))); }
DataTypePtr large_list(FieldPtr value_field) {
  return ListOf(TypeId::kLargeList, std::move(value_field), 0);
}
DataTypePtr large_list(DataTypePtr value_type) {
  return large_list(field("item", std::move(value_type)));
}
DataTypePtr fixed_size_list(FieldPtr value_field, int32_t list_size) {
  return ListOf(TypeId::kFixedSizeList, std::move(value_field), list_size);
}
DataTypePtr fixed_size_list(DataTypePtr value_type, int32_t list_size) {
  return fixed_size_list(field("item", std::move(value_type)), list_size);
}

DataTypePtr struct_(std::vector<FieldPtr> fields) {
  auto t = DataTypeFactory::Make(TypeId::kStruct);
  DataTypeFactory::SetFields(*t, std::move(fields));
  return t;
}

DataTypePtr map(DataTypePtr key_type, DataTypePtr item_type, bool keys_sorted) {
  auto entries = field("entries",
                       struct_({field("key", std::move(key_type), false),
                                field("value", std::move(item_type), true)}),
                       false);
  return map(std::move(entries), keys_sorted);
}

DataTypePtr map(FieldPtr entries_field, bool keys_sorted) {
  auto t = DataTypeFactory::Make(TypeId::kMap);
  DataTypeFactory::SetFields(*t, {std::move(entries_field)});
  DataTypeFactory::SetKeysSorted(*t, keys_sorted);
  return t;
}

DataTypePtr dictionary(DataTypePtr index_type, DataTypePtr value_type, bool ordered) {
  auto t = DataTypeFactory::Make(TypeId::kDictionary);
  DataTypeFactory::SetDictionary(*t, std::move(index_type), std::move(value_type), ordered);
  return t;
}

int DataType::bit_width() const {
  switch (id_) {
    case TypeId::kBool: return 1;
    case TypeId::kInt8:
    case TypeId::kUInt8: return 8;
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kHalfFloat: return 16;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat:
    case TypeId::kDate32:
    case TypeId::kTime32: return 32;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kDouble:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration: return 64;
    case TypeId::kDecimal128: return 128;
    case TypeId::kDecimal256: return 256;
    case TypeId::kFixedSizeBinary: return 8 * byte_width_;
    case TypeId::kDictionary: return index_type_->bit_width();
    default: return 0;
  }
}

bool DataType::is_fixed_width() const {
  return id_ != TypeId::kDictionary && bit_width() > 0;
}

const DataTypePtr& DataType::value_type() const {
  if (id_ == TypeId::kDictionary) return value_type_;
  return fields_[0]->type();
}

std::string DataType::ToString() const {
  switch (id_) {
    case TypeId::kNull: return "null";
    case TypeId::kBool: return "bool";
    case TypeId::kInt8: return "int8";
    case TypeId::kInt16: return "int16";
    case TypeId::kInt32: return "int32";
    case TypeId::kInt64: return "int64";
    case TypeId::kUInt8: return "uint8";
    case TypeId::kUInt16: return "uint16";
    case TypeId::kUInt32: return "uint32";
    case TypeId::kUInt64: return "uint64";
    case TypeId::kHalfFloat: return "halffloat";
    case TypeId::kFloat: return "float";
    case TypeId::kDouble: return "double";
    case TypeId::kString: return "string";
    case TypeId::kLargeString: return "large_string";
    case TypeId::kBinary: return "binary";
    case TypeId::kLargeBinary: return "large_binary";
    case TypeId::kFixedSizeBinary: return fmt::format("fixed_size_binary[{}]", byte_width_);
    case TypeId::kDate32: return "date32[day]";
    case TypeId::kDate64: return "date64[ms]";
    case TypeId::kTime32: return fmt::format("time32[{}]", TimeUnitName(unit_));
    case TypeId::kTime64: return fmt::format("time64[{}]", TimeUnitName(unit_));
    case TypeId::kTimestamp:
      if (timezone_.empty()) return fmt::format("timestamp[{}]", TimeUnitName(unit_));
      return fmt::format("timestamp[{}, tz={}]", TimeUnitName(unit_), timezone_);
    case TypeId::kDuration: return fmt::format("duration[{}]", TimeUnitName(unit_));
    case TypeId::kDecimal128: return fmt::format("decimal128({}, {})", precision_, scale_);
    case TypeId::kDecimal256: return fmt::format("decimal256({}, {})", precision_, scale_);
    case TypeId::kList: return fmt::format("list<{}>", fields_[0]->ToString());
    case TypeId::kLargeList: return fmt::format("large_list<{}>", fields_[0]->ToString());
    case TypeId::kFixedSizeList:
      return fmt::format("fixed_size_list<{}>[{}]", fields_[0]->ToString(), list_size_);
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i) out += ", ";
        out += fields_[i]->ToString();
      }
      return out + ">";
    }
    case TypeId::kMap: {
      const auto& entries = fields_[0]->type();
      return fmt::format("map<{}, {}{}>", entries->field(0)->type()->ToString(),
                         entries->field(1)->type()->ToString(), keys_sorted_ ? ", keys_sorted" : "");
    }
    case TypeId::kDictionary:
      return fmt::format("dictionary<values={}, indices={}, ordered={}>", value_type_->ToString(),
                         index_type_->ToString(), ordered_ ? 1 : 0);
  }
  return "unknown";
}

bool DataType::Equals(const DataType& o, bool check_metadata) const {
  if (this == &o) return true;
  if (id_ != o.id_ || byte_width_ != o.byte_width_ || list_size_ != o.list_size_ ||
      precision_ != o.precision_ || scale_ != o.scale_ || keys_sorted_ != o.keys_sorted_ ||
      ordered_ != o.ordered_ || timezone_ != o.timezone_ || fields_.size() != o.fields_.size()) {
    return false;
  }
  switch (id_) {
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      if (unit_ != o.unit_) return false;
      break;
    default: break;
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i]->Equals(*o.fields_[i], check_metadata)) return false;
  }
  if (id_ == TypeId::kDictionary) {
    if (!index_type_->Equals(*o.index_type_) || !value_type_->Equals(*o.value_type_, check_metadata)) {
      return false;
    }
  }
  return true;
}

FieldPtr Field::WithName(std::string name) const {
  return std::make_shared<Field>(std::move(name), type_, nullable_, metadata_, id_);
}
FieldPtr Field::WithType(DataTypePtr type) const {
  return std::make_shared<Field>(name_, std::move(type), nullable_, metadata_, id_);
}
FieldPtr Field::WithNullable(bool nullable) const {
  return std::make_shared<Field>(name_, type_, nullable, metadata_, id_);
}
FieldPtr Field::WithMetadata(KeyValueMetadataPtr metadata) const {
  return std::make_shared<Field>(name_, type_, nullable_, std::move(metadata), id_);
}
FieldPtr Field::WithId(int32_t id) const {
  return std::make_shared<Field>(name_, type_, nullable_, metadata_, id);
}

std::string Field::ToString() const {
  return fmt::format("{}: {}{}", name_, type_->ToString(), nullable_ ? "" : " not null");
}

namespace {
bool MetadataEquals(const KeyValueMetadataPtr& a, const KeyValueMetadataPtr& b) {
  const bool a_empty = !a || a->empty();
  const bool b_empty = !b || b->empty();
  if (a_empty || b_empty) return a_empty == b_empty;
  return a->Equals(*b);
}
}  // namespace

bool Field::Equals(const Field& o, bool check_metadata) const {
  if (this == &o) return true;
  if (name_ != o.name_ || nullable_ != o.nullable_ || !type_->Equals(*o.type_, check_metadata)) {
    return false;
  }
  return !check_metadata || MetadataEquals(metadata_, o.metadata_);
}

FieldPtr field(std::string name, DataTypePtr type, bool nullable, KeyValueMetadataPtr metadata) {
  return std::make_shared<Field>(std::move(name), std::move(type), nullable, std::move(metadata));
}

int Schema::GetFieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i]->name() == name) return static_cast<int>(i);
  }
  return -1;
}

FieldPtr Schema::GetFieldByName(std::string_view name) const {
  const int i = GetFieldIndex(name);
  return i < 0 ? nullptr : fields_[static_cast<size_t>(i)];
}

SchemaPtr Schema::WithMetadata(KeyValueMetadataPtr metadata) const {
  return std::make_shared<Schema>(fields_, std::move(metadata));
}

std::string Schema::ToString() const {
  std::string out;
  for (const auto& f : fields_) {
    out += f->ToString();
    out += '\n';
  }
  return out;
}

bool Schema::Equals(const Schema& o, bool check_metadata) const {
  if (this == &o) return true;
  if (fields_.size() != o.fields_.size()) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i]->Equals(*o.fields_[i], check_metadata)) return false;
  }
  return !check_metadata || MetadataEquals(metadata_, o.metadata_);
}

SchemaPtr schema(std::vector<FieldPtr> fields, KeyValueMetadataPtr metadata) {
  return std::make_shared<Schema>(std::move(fields), std::move(metadata));
}

}  // namespace lance
