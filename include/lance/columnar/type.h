// Arrow-compatible logical types, fields and schemas.
//
// DataType is one immutable class for every type; the parameters a type does not use are
// empty. Types, fields and schemas are shared as shared_ptr<const ...> and never mutated after
// construction, so they are safe to share across threads. Field carries the Lance field id
// (-1 when unassigned); the table layer assigns ids, Arrow IPC does not store them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/core/result.h"

namespace lance {

enum class TypeId : uint8_t {
  kNull,
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kHalfFloat,
  kFloat,
  kDouble,
  kString,
  kLargeString,
  kBinary,
  kLargeBinary,
  kFixedSizeBinary,
  kDate32,
  kDate64,
  kTime32,
  kTime64,
  kTimestamp,
  kDuration,
  kDecimal128,
  kDecimal256,
  kList,
  kLargeList,
  kFixedSizeList,
  kStruct,
  kMap,
  kDictionary,
};

enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };
std::string_view TimeUnitName(TimeUnit unit);  // "s", "ms", "us", "ns"

class DataType;
class Field;
class Schema;
using DataTypePtr = std::shared_ptr<const DataType>;
using FieldPtr = std::shared_ptr<const Field>;
using SchemaPtr = std::shared_ptr<const Schema>;

// Ordered string key/value pairs (Arrow custom metadata). Keys are unique.
class KeyValueMetadata {
 public:
  KeyValueMetadata() = default;
  explicit KeyValueMetadata(std::vector<std::pair<std::string, std::string>> pairs)
      : pairs_(std::move(pairs)) {}
  const std::vector<std::pair<std::string, std::string>>& pairs() const { return pairs_; }
  int64_t size() const { return static_cast<int64_t>(pairs_.size()); }
  bool empty() const { return pairs_.empty(); }
  std::optional<std::string> Get(std::string_view key) const;
  // Sets key to value, replacing an existing entry.
  void Set(std::string key, std::string value);
  bool Equals(const KeyValueMetadata& other) const { return pairs_ == other.pairs_; }

 private:
  std::vector<std::pair<std::string, std::string>> pairs_;
};
using KeyValueMetadataPtr = std::shared_ptr<const KeyValueMetadata>;

class DataType {
 public:
  TypeId id() const { return id_; }

  // Fixed width in bits for fixed-width types (bool = 1, decimal128 = 128, decimal256 = 256,
  // fixed_size_binary = 8 * byte_width); 0 otherwise. For dictionary: the index width.
  int bit_width() const;
  // Byte width of fixed_size_binary / decimal128 / decimal256; fixed_size_list: list_size.
  int32_t byte_width() const { return byte_width_; }
  int32_t list_size() const { return list_size_; }
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }
  TimeUnit unit() const { return unit_; }
  const std::string& timezone() const { return timezone_; }
  bool keys_sorted() const { return keys_sorted_; }
  bool ordered() const { return ordered_; }

  // Child fields: struct members; list/large_list/fixed_size_list/map: exactly one
  // (for map, the non-null "entries" struct<key, value>).
  const std::vector<FieldPtr>& fields() const { return fields_; }
  int num_fields() const { return static_cast<int>(fields_.size()); }
  const FieldPtr& field(int i) const { return fields_[static_cast<size_t>(i)]; }
  // list-like element field. REQUIRES: list, large_list, fixed_size_list or map.
  const FieldPtr& value_field() const { return fields_[0]; }
  const DataTypePtr& value_type() const;  // list-like element type, or dictionary value type
  // Dictionary only.
  const DataTypePtr& index_type() const { return index_type_; }
  const DataTypePtr& dictionary_value_type() const { return value_type_; }

  bool is_integer() const { return id_ >= TypeId::kInt8 && id_ <= TypeId::kUInt64; }
  bool is_signed_integer() const { return id_ >= TypeId::kInt8 && id_ <= TypeId::kInt64; }
  bool is_floating() const { return id_ >= TypeId::kHalfFloat && id_ <= TypeId::kDouble; }
  // Types whose layout is [validity, fixed-width values] (includes bool, temporal, decimal,
  // fixed_size_binary).
  bool is_fixed_width() const;
  // string/large_string/binary/large_binary.
  bool is_binary_like() const {
    return id_ == TypeId::kString || id_ == TypeId::kLargeString || id_ == TypeId::kBinary ||
           id_ == TypeId::kLargeBinary;
  }
  bool has_large_offsets() const {
    return id_ == TypeId::kLargeString || id_ == TypeId::kLargeBinary || id_ == TypeId::kLargeList;
  }
  bool is_list_like() const {
    return id_ == TypeId::kList || id_ == TypeId::kLargeList || id_ == TypeId::kFixedSizeList ||
           id_ == TypeId::kMap;
  }
  bool is_nested() const { return is_list_like() || id_ == TypeId::kStruct; }

  // Arrow-style text, e.g. "timestamp[us, tz=UTC]", "list<item: int32>".
  std::string ToString() const;
  // Structural equality; field names and nullability of children count, metadata only when
  // `check_metadata`.
  bool Equals(const DataType& other, bool check_metadata = false) const;

  // Construction goes through the factories below.
  struct Params;
  explicit DataType(TypeId id) : id_(id) {}

 private:
  friend struct DataTypeFactory;
  TypeId id_;
  int32_t byte_width_ = 0;
  int32_t list_size_ = 0;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  TimeUnit unit_ = TimeUnit::kSecond;
  bool keys_sorted_ = false;
  bool ordered_ = false;
  std::string timezone_;
  std::vector<FieldPtr> fields_;
  DataTypePtr index_type_;
  DataTypePtr value_type_;
};

// Factories (parameter-free types are shared singletons).
DataTypePtr null();
DataTypePtr boolean();
DataTypePtr int8();
DataTypePtr int16();
DataTypePtr int32();
DataTypePtr int64();
DataTypePtr uint8();
DataTypePtr uint16();
DataTypePtr uint32();
DataTypePtr uint64();
DataTypePtr float16();
DataTypePtr float32();
DataTypePtr float64();
DataTypePtr utf8();
DataTypePtr large_utf8();
DataTypePtr binary();
DataTypePtr large_binary();
DataTypePtr fixed_size_binary(int32_t byte_width);
DataTypePtr date32();
DataTypePtr date64();
DataTypePtr time32(TimeUnit unit);  // REQUIRES: second or milli
DataTypePtr time64(TimeUnit unit);  // REQUIRES: micro or nano
DataTypePtr timestamp(TimeUnit unit, std::string timezone = "");
DataTypePtr duration(TimeUnit unit);
DataTypePtr decimal128(int32_t precision, int32_t scale);
// Unscaled 256-bit two's complement values, little-endian (precision up to 76).
DataTypePtr decimal256(int32_t precision, int32_t scale);
DataTypePtr list(FieldPtr value_field);
DataTypePtr list(DataTypePtr value_type);  // element field "item", nullable
DataTypePtr large_list(FieldPtr value_field);
DataTypePtr large_list(DataTypePtr value_type);
DataTypePtr fixed_size_list(FieldPtr value_field, int32_t list_size);
DataTypePtr fixed_size_list(DataTypePtr value_type, int32_t list_size);
DataTypePtr struct_(std::vector<FieldPtr> fields);
// map<key, item>: entries field "entries" (non-null struct of non-null "key" and "value").
DataTypePtr map(DataTypePtr key_type, DataTypePtr item_type, bool keys_sorted = false);
// A map whose entries field is given (names as found in a file).
DataTypePtr map(FieldPtr entries_field, bool keys_sorted);
DataTypePtr dictionary(DataTypePtr index_type, DataTypePtr value_type, bool ordered = false);

class Field {
 public:
  Field(std::string name, DataTypePtr type, bool nullable = true,
        KeyValueMetadataPtr metadata = nullptr, int32_t id = -1)
      : name_(std::move(name)), type_(std::move(type)), nullable_(nullable),
        metadata_(std::move(metadata)), id_(id) {}

  const std::string& name() const { return name_; }
  const DataTypePtr& type() const { return type_; }
  bool nullable() const { return nullable_; }
  // May be null (no metadata).
  const KeyValueMetadataPtr& metadata() const { return metadata_; }
  // Lance field id, -1 when not assigned.
  int32_t id() const { return id_; }

  FieldPtr WithName(std::string name) const;
  FieldPtr WithType(DataTypePtr type) const;
  FieldPtr WithNullable(bool nullable) const;
  FieldPtr WithMetadata(KeyValueMetadataPtr metadata) const;
  FieldPtr WithId(int32_t id) const;

  std::string ToString() const;  // "name: type" (+ " not null")
  bool Equals(const Field& other, bool check_metadata = false) const;

 private:
  std::string name_;
  DataTypePtr type_;
  bool nullable_;
  KeyValueMetadataPtr metadata_;
  int32_t id_;
};

FieldPtr field(std::string name, DataTypePtr type, bool nullable = true,
               KeyValueMetadataPtr metadata = nullptr);

class Schema {
 public:
  explicit Schema(std::vector<FieldPtr> fields, KeyValueMetadataPtr metadata = nullptr)
      : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

  const std::vector<FieldPtr>& fields() const { return fields_; }
  int num_fields() const { return static_cast<int>(fields_.size()); }
  const FieldPtr& field(int i) const { return fields_[static_cast<size_t>(i)]; }
  const KeyValueMetadataPtr& metadata() const { return metadata_; }
  // Index of the first top-level field named `name`, or -1.
  int GetFieldIndex(std::string_view name) const;
  FieldPtr GetFieldByName(std::string_view name) const;

  SchemaPtr WithMetadata(KeyValueMetadataPtr metadata) const;
  std::string ToString() const;  // one "name: type" per line
  bool Equals(const Schema& other, bool check_metadata = false) const;

 private:
  std::vector<FieldPtr> fields_;
  KeyValueMetadataPtr metadata_;
};

SchemaPtr schema(std::vector<FieldPtr> fields, KeyValueMetadataPtr metadata = nullptr);

}  // namespace lance
