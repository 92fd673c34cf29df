// Reading canonical JSON values into arrays: ArrayFromJSON, RecordBatchFromJSON and
// ReadJsonLines. The DOM comes from nlohmann::json; the conversion to Arrow is a recursive
// walk over builders, one per type node.
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "columnar/json_lines.h"
#include "lance/columnar/builder.h"
#include "lance/columnar/float16.h"
#include "lance/columnar/json.h"

namespace lance {

namespace {

using Json = nlohmann::json;

std::string Describe(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

// A dictionary of any value type read from JSON: values are stored in order, one dictionary
// entry per valid element (utf8/binary dictionaries use the deduplicating DictionaryBuilder).
class PlainDictionaryBuilder final : public ArrayBuilder {
 public:
  PlainDictionaryBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> values)
      : ArrayBuilder(std::move(type)), values_(std::move(values)) {}
  ArrayBuilder* value_builder() { return values_.get(); }
  Status AppendValid() {
    indices_.push_back(values_->length() - 1);
    return AppendValidity(true);
  }
  Status AppendNulls(int64_t n) override {
    indices_.insert(indices_.end(), static_cast<size_t>(n), 0);
    return AppendValidityRun(n, false);
  }
  Result<ArrayPtr> Finish() override {
    LANCE_ASSIGN_OR_RAISE(auto dict, values_->Finish());
    const int bits = type_->index_type()->bit_width();
    const bool is_signed = type_->index_type()->is_signed_integer();
    const int64_t max_index = bits >= 64 ? std::numeric_limits<int64_t>::max()
                                         : (int64_t{1} << (is_signed ? bits - 1 : bits)) - 1;
    if (dict->length - 1 > max_index) {
      return Status::InvalidArgument("{}: {} values do not fit the index type", type_->ToString(),
                                     dict->length);
    }
    const int64_t width = bits / 8;
    LANCE_ASSIGN_OR_RAISE(auto idx, AllocateBuffer(static_cast<int64_t>(indices_.size()) * width));
    for (size_t i = 0; i < indices_.size(); ++i) {
      std::memcpy(idx->mutable_data() + static_cast<int64_t>(i) * width, &indices_[i],
                  static_cast<size_t>(width));  // little-endian narrowing
    }
    indices_.clear();
    const int64_t len = length_;
    LANCE_ASSIGN_OR_RAISE(auto validity, FinishValidity());
    return Array::Make(type_, len, {std::move(validity), std::move(idx)}, {}, 0, std::move(dict));
  }

 private:
  std::unique_ptr<ArrayBuilder> values_;
  std::vector<int64_t> indices_;
};

// MakeBuilder, except that dictionaries of non-binary values get a PlainDictionaryBuilder.
Result<std::unique_ptr<ArrayBuilder>> MakeJsonBuilder(const DataTypePtr& type) {
  using B = std::unique_ptr<ArrayBuilder>;
  switch (type->id()) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      LANCE_ASSIGN_OR_RAISE(auto child, MakeJsonBuilder(type->value_type()));
      return B(new ListBuilder(type, std::move(child)));
    }
    case TypeId::kFixedSizeList: {
      LANCE_ASSIGN_OR_RAISE(auto child, MakeJsonBuilder(type->value_type()));
      return B(new FixedSizeListBuilder(type, std::move(child)));
    }
    case TypeId::kStruct: {
      std::vector<B> children;
      for (const auto& f : type->fields()) {
        LANCE_ASSIGN_OR_RAISE(auto child, MakeJsonBuilder(f->type()));
        children.push_back(std::move(child));
      }
      return B(new StructBuilder(type, std::move(children)));
    }
    case TypeId::kDictionary:
      if (!type->dictionary_value_type()->is_binary_like()) {
        if (!type->index_type()->is_integer()) {
          return Status::InvalidArgument("{}: index type must be an integer", type->ToString());
        }
        LANCE_ASSIGN_OR_RAISE(auto values, MakeJsonBuilder(type->dictionary_value_type()));
        return B(new PlainDictionaryBuilder(type, std::move(values)));
      }
      return MakeBuilder(type);
    default:
      return MakeBuilder(type);
  }
}

template <typename T>
Status AppendInteger(ArrayBuilder* b, const Json& v) {
  auto* nb = static_cast<NumericBuilder<T>*>(b);
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      return Status::InvalidArgument("{} out of range for {}", u, b->type()->ToString());
    }
    return nb->Append(static_cast<T>(u));
  }
  if (v.is_number_integer()) {
    const int64_t s = v.get<int64_t>();
    if (std::is_unsigned_v<T> ? s < 0
                              : (s < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
                                 s > static_cast<int64_t>(std::numeric_limits<T>::max()))) {
      return Status::InvalidArgument("{} out of range for {}", s, b->type()->ToString());
    }
    return nb->Append(static_cast<T>(s));
  }
  return Status::InvalidArgument("expected an integer for {}, found {}", b->type()->ToString(),
                                 Describe(v));
}

Result<double> JsonToDouble(const Json& v, const DataType& type) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  return Status::InvalidArgument("expected a number for {}, found {}", type.ToString(),
                                 Describe(v));
}

Result<std::string> JsonToBytes(const Json& v, const DataType& type) {
  if (!v.is_string()) {
    return Status::InvalidArgument("expected a string for {}, found {}", type.ToString(),
                                   Describe(v));
  }
  const auto& s = v.get_ref<const std::string&>();
  if (type.id() == TypeId::kString || type.id() == TypeId::kLargeString) return s;
  return Base64Decode(s);
}

Status AppendJson(ArrayBuilder* b, const Json& v);

Status AppendJsonImpl(ArrayBuilder* b, const Json& v) {
  if (v.is_null()) return b->AppendNull();
  const DataType& type = *b->type();
  switch (type.id()) {
    case TypeId::kNull:
      return Status::InvalidArgument("expected null for type null, found {}", Describe(v));
    case TypeId::kBool:
      if (!v.is_boolean()) {
        return Status::InvalidArgument("expected true/false for bool, found {}", Describe(v));
      }
      return static_cast<BooleanBuilder*>(b)->Append(v.get<bool>());
    case TypeId::kInt8: return AppendInteger<int8_t>(b, v);
    case TypeId::kInt16: return AppendInteger<int16_t>(b, v);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: return AppendInteger<int32_t>(b, v);
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration: return AppendInteger<int64_t>(b, v);
    case TypeId::kUInt8: return AppendInteger<uint8_t>(b, v);
    case TypeId::kUInt16: return AppendInteger<uint16_t>(b, v);
    case TypeId::kUInt32: return AppendInteger<uint32_t>(b, v);
    case TypeId::kUInt64: return AppendInteger<uint64_t>(b, v);
    case TypeId::kHalfFloat: {
      LANCE_ASSIGN_OR_RAISE(double d, JsonToDouble(v, type));
      return static_cast<UInt16Builder*>(b)->Append(DoubleToHalf(d));
    }
    case TypeId::kFloat: {
      LANCE_ASSIGN_OR_RAISE(double d, JsonToDouble(v, type));
      return static_cast<FloatBuilder*>(b)->Append(static_cast<float>(d));
    }
    case TypeId::kDouble: {
      LANCE_ASSIGN_OR_RAISE(double d, JsonToDouble(v, type));
      return static_cast<DoubleBuilder*>(b)->Append(d);
    }
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      LANCE_ASSIGN_OR_RAISE(auto bytes, JsonToBytes(v, type));
      return static_cast<BinaryBuilder*>(b)->Append(bytes);
    }
    case TypeId::kFixedSizeBinary: {
      LANCE_ASSIGN_OR_RAISE(auto bytes, JsonToBytes(v, type));
      return static_cast<FixedSizeBinaryBuilder*>(b)->Append(bytes);
    }
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      std::string text;
      if (v.is_string()) {
        text = v.get<std::string>();
      } else if (v.is_number_integer()) {
        text = v.dump();
      } else {
        return Status::InvalidArgument("expected a decimal string for {}, found {}",
                                       type.ToString(), Describe(v));
      }
      return AppendDecimalText(b, text);
    }
    case TypeId::kList:
    case TypeId::kLargeList: {
      if (!v.is_array()) {
        return Status::InvalidArgument("expected an array for {}, found {}", type.ToString(),
                                       Describe(v));
      }
      auto* lb = static_cast<ListBuilder*>(b);
      LANCE_RETURN_NOT_OK(lb->Append());
      for (size_t i = 0; i < v.size(); ++i) {
        LANCE_RETURN_NOT_OK(AppendJson(lb->value_builder(), v[i])
                                .WithContext(fmt::format("[{}]", i)));
      }
      return Status::OK();
    }
    case TypeId::kFixedSizeList: {
      if (!v.is_array() || static_cast<int64_t>(v.size()) != type.list_size()) {
        return Status::InvalidArgument("expected an array of {} values for {}, found {}",
                                       type.list_size(), type.ToString(), Describe(v));
      }
      auto* lb = static_cast<FixedSizeListBuilder*>(b);
      LANCE_RETURN_NOT_OK(lb->Append());
      for (size_t i = 0; i < v.size(); ++i) {
        LANCE_RETURN_NOT_OK(AppendJson(lb->value_builder(), v[i])
                                .WithContext(fmt::format("[{}]", i)));
      }
      return Status::OK();
    }
    case TypeId::kMap: {
      if (!v.is_array()) {
        return Status::InvalidArgument("expected an array of [key, value] pairs for {}, found {}",
                                       type.ToString(), Describe(v));
      }
      auto* lb = static_cast<ListBuilder*>(b);
      auto* entries = static_cast<StructBuilder*>(lb->value_builder());
      LANCE_RETURN_NOT_OK(lb->Append());
      for (size_t i = 0; i < v.size(); ++i) {
        const Json& pair = v[i];
        if (!pair.is_array() || pair.size() != 2) {
          return Status::InvalidArgument("map entry {}: expected [key, value], found {}", i,
                                         Describe(pair));
        }
        if (pair[0].is_null()) return Status::InvalidArgument("map entry {}: null key", i);
        LANCE_RETURN_NOT_OK(entries->Append());
        LANCE_RETURN_NOT_OK(AppendJson(entries->field_builder(0), pair[0])
                                .WithContext(fmt::format("map entry {} key", i)));
        LANCE_RETURN_NOT_OK(AppendJson(entries->field_builder(1), pair[1])
                                .WithContext(fmt::format("map entry {} value", i)));
      }
      return Status::OK();
    }
    case TypeId::kStruct: {
      if (!v.is_object()) {
        return Status::InvalidArgument("expected an object for {}, found {}", type.ToString(),
                                       Describe(v));
      }
      auto* sb = static_cast<StructBuilder*>(b);
      size_t found = 0;
      for (int i = 0; i < type.num_fields(); ++i) {
        const std::string& name = type.field(i)->name();
        auto it = v.find(name);
        if (it == v.end()) {
          LANCE_RETURN_NOT_OK(sb->field_builder(i)->AppendNull());
        } else {
          ++found;
          LANCE_RETURN_NOT_OK(AppendJson(sb->field_builder(i), *it).WithContext(name));
        }
      }
      if (found != v.size()) {
        for (auto it = v.begin(); it != v.end(); ++it) {
          bool known = false;
          for (const auto& f : type.fields()) known = known || f->name() == it.key();
          if (!known) {
            return Status::InvalidArgument("unknown field '{}' for {}", it.key(), type.ToString());
          }
        }
      }
      return sb->Append();
    }
    case TypeId::kDictionary: {
      if (type.dictionary_value_type()->is_binary_like()) {
        LANCE_ASSIGN_OR_RAISE(auto bytes, JsonToBytes(v, *type.dictionary_value_type()));
        return static_cast<DictionaryBuilder*>(b)->Append(bytes);
      }
      auto* db = static_cast<PlainDictionaryBuilder*>(b);
      LANCE_RETURN_NOT_OK(AppendJson(db->value_builder(), v));
      return db->AppendValid();
    }
  }
  return Status::NotSupported("JSON reading of {}", type.ToString());
}

Status AppendJson(ArrayBuilder* b, const Json& v) { return AppendJsonImpl(b, v); }

Result<Json> ParseJson(std::string_view text) {
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    std::string head(text.substr(0, 60));
    return Status::InvalidArgument("invalid JSON: {}", head);
  }
  return doc;
}

// Appends one row object to the per-column builders.
Status AppendRow(const Schema& schema, const Json& row,
                 const std::vector<std::unique_ptr<ArrayBuilder>>& builders) {
  if (!row.is_object()) {
    return Status::InvalidArgument("expected a row object, found {}", Describe(row));
  }
  size_t found = 0;
  for (int i = 0; i < schema.num_fields(); ++i) {
    const auto& name = schema.field(i)->name();
    auto it = row.find(name);
    if (it == row.end()) {
      LANCE_RETURN_NOT_OK(builders[static_cast<size_t>(i)]->AppendNull());
    } else {
      ++found;
      LANCE_RETURN_NOT_OK(AppendJson(builders[static_cast<size_t>(i)].get(), *it)
                              .WithContext(fmt::format("field '{}'", name)));
    }
  }
  if (found != row.size()) {
    for (auto it = row.begin(); it != row.end(); ++it) {
      if (schema.GetFieldIndex(it.key()) < 0) {
        return Status::InvalidArgument("unknown field '{}' (not in the schema)", it.key());
      }
    }
  }
  return Status::OK();
}

Result<std::vector<std::unique_ptr<ArrayBuilder>>> MakeRowBuilders(const Schema& schema) {
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  for (const auto& f : schema.fields()) {
    LANCE_ASSIGN_OR_RAISE(auto b, MakeJsonBuilder(f->type()));
    builders.push_back(std::move(b));
  }
  return builders;
}

Result<RecordBatchPtr> FinishRows(SchemaPtr schema, int64_t rows,
                                  std::vector<std::unique_ptr<ArrayBuilder>>& builders) {
  std::vector<ArrayPtr> columns;
  for (auto& b : builders) {
    LANCE_ASSIGN_OR_RAISE(auto col, b->Finish());
    columns.push_back(std::move(col));
  }
  return RecordBatch::Make(std::move(schema), rows, std::move(columns));
}

}  // namespace

Result<ArrayPtr> ArrayFromJSON(DataTypePtr type, std::string_view json) {
  LANCE_ASSIGN_OR_RAISE(auto doc, ParseJson(json));
  if (!doc.is_array()) return Status::InvalidArgument("ArrayFromJSON: expected a JSON array");
  LANCE_ASSIGN_OR_RAISE(auto builder, MakeJsonBuilder(type));
  for (size_t i = 0; i < doc.size(); ++i) {
    LANCE_RETURN_NOT_OK(
        AppendJson(builder.get(), doc[i]).WithContext(fmt::format("element {}", i)));
  }
  return builder->Finish();
}

Result<RecordBatchPtr> RecordBatchFromJSON(SchemaPtr schema, std::string_view json) {
  LANCE_ASSIGN_OR_RAISE(auto doc, ParseJson(json));
  if (!doc.is_array()) {
    return Status::InvalidArgument("RecordBatchFromJSON: expected a JSON array of row objects");
  }
  LANCE_ASSIGN_OR_RAISE(auto builders, MakeRowBuilders(*schema));
  for (size_t i = 0; i < doc.size(); ++i) {
    LANCE_RETURN_NOT_OK(AppendRow(*schema, doc[i], builders).WithContext(fmt::format("row {}", i)));
  }
  return FinishRows(std::move(schema), static_cast<int64_t>(doc.size()), builders);
}

// The DOM form of ReadJsonLines (json_lines_reader.cc), for schemas it does not stream.
Result<RecordBatchPtr> ReadJsonLinesWithDom(std::string_view text, SchemaPtr schema, int64_t first_line) {
  LANCE_ASSIGN_OR_RAISE(auto builders, MakeRowBuilders(*schema));
  int64_t rows = 0;
  LANCE_RETURN_NOT_OK(ForEachJsonLine(text, first_line, [&](std::string_view line, int64_t line_no) -> Status {
    auto doc = ParseJson(line);
    if (!doc.ok()) return doc.status().WithContext(fmt::format("line {}", line_no));
    LANCE_RETURN_NOT_OK(
        AppendRow(*schema, *doc, builders).WithContext(fmt::format("line {}", line_no)));
    ++rows;
    return Status::OK();
  }));
  return FinishRows(std::move(schema), rows, builders);
}

}  // namespace lance
