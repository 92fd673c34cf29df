// ReadJsonLines: JSON lines -> record batch, streaming each line's SAX events from
// nlohmann::json straight into the column builders (no DOM per line). A stack of frames
// tracks where the next value goes: a row or struct field, a list element, a map entry's key
// or value. Floats are converted from their source text (float32 with strtof), so each value
// is rounded once. Schemas holding a dictionary of non-binary values take the DOM path in
// json_reader.cc instead.
#include <cmath>
#include <cstdlib>
#include <limits>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "columnar/json_lines.h"
#include "lance/columnar/builder.h"
#include "lance/columnar/float16.h"
#include "lance/columnar/json.h"

namespace lance {

// The DOM implementation, for schemas this reader does not handle (json_reader.cc).
Result<RecordBatchPtr> ReadJsonLinesWithDom(std::string_view text, SchemaPtr schema, int64_t first_line);

namespace {

using Json = nlohmann::json;

bool SaxSupported(const DataType& type) {
  if (type.id() == TypeId::kDictionary) {
    return type.dictionary_value_type()->is_binary_like() && type.index_type()->is_integer();
  }
  for (const auto& f : type.fields()) {
    if (!SaxSupported(*f->type())) return false;
  }
  return true;
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  out.append(s.substr(0, 40));
  if (s.size() > 40) out += "...";
  return out + "\"";
}

Status Mismatch(const DataType& type, std::string_view found) {
  return Status::InvalidArgument("value {} does not fit type {}", found, type.ToString());
}

template <typename T>
Status AppendIntegral(ArrayBuilder* b, int64_t v, bool is_unsigned_source, uint64_t u) {
  auto* nb = static_cast<NumericBuilder<T>*>(b);
  if (is_unsigned_source) {
    if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      return Status::InvalidArgument("{} out of range for {}", u, b->type()->ToString());
    }
    return nb->Append(static_cast<T>(u));
  }
  if constexpr (std::is_unsigned_v<T>) {
    if (v < 0) return Status::InvalidArgument("{} out of range for {}", v, b->type()->ToString());
  } else {
    if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
      return Status::InvalidArgument("{} out of range for {}", v, b->type()->ToString());
    }
  }
  return nb->Append(static_cast<T>(v));
}

Status AppendFloating(ArrayBuilder* b, double d, const char* text) {
  switch (b->type()->id()) {
    case TypeId::kHalfFloat: return static_cast<UInt16Builder*>(b)->Append(DoubleToHalf(d));
    case TypeId::kFloat:
      // From the text when there is one: a single rounding to float.
      return static_cast<FloatBuilder*>(b)->Append(text ? std::strtof(text, nullptr)
                                                        : static_cast<float>(d));
    default: return static_cast<DoubleBuilder*>(b)->Append(d);
  }
}

// A JSON integer (signed or unsigned source) into any builder.
Status AppendInteger(ArrayBuilder* b, int64_t v, bool is_unsigned, uint64_t u) {
  const DataType& type = *b->type();
  switch (type.id()) {
    case TypeId::kInt8: return AppendIntegral<int8_t>(b, v, is_unsigned, u);
    case TypeId::kInt16: return AppendIntegral<int16_t>(b, v, is_unsigned, u);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: return AppendIntegral<int32_t>(b, v, is_unsigned, u);
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration: return AppendIntegral<int64_t>(b, v, is_unsigned, u);
    case TypeId::kUInt8: return AppendIntegral<uint8_t>(b, v, is_unsigned, u);
    case TypeId::kUInt16: return AppendIntegral<uint16_t>(b, v, is_unsigned, u);
    case TypeId::kUInt32: return AppendIntegral<uint32_t>(b, v, is_unsigned, u);
    case TypeId::kUInt64: return AppendIntegral<uint64_t>(b, v, is_unsigned, u);
    case TypeId::kHalfFloat:
    case TypeId::kFloat:
    case TypeId::kDouble: {
      // Integers convert exactly to long double range-wise; go through the text for float32
      // so that 2^24+1-style values round once.
      const std::string text = is_unsigned ? std::to_string(u) : std::to_string(v);
      return AppendFloating(b, std::strtod(text.c_str(), nullptr), text.c_str());
    }
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return AppendDecimalText(b, is_unsigned ? std::to_string(u) : std::to_string(v));
    default:
      return Mismatch(type, is_unsigned ? std::to_string(u) : std::to_string(v));
  }
}

Status AppendString(ArrayBuilder* b, const std::string& s) {
  const DataType& type = *b->type();
  switch (type.id()) {
    case TypeId::kString:
    case TypeId::kLargeString: return static_cast<BinaryBuilder*>(b)->Append(s);
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      LANCE_ASSIGN_OR_RAISE(auto bytes, Base64Decode(s));
      return static_cast<BinaryBuilder*>(b)->Append(bytes);
    }
    case TypeId::kFixedSizeBinary: {
      LANCE_ASSIGN_OR_RAISE(auto bytes, Base64Decode(s));
      return static_cast<FixedSizeBinaryBuilder*>(b)->Append(bytes);
    }
    case TypeId::kHalfFloat:
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (s == "NaN") return AppendFloating(b, std::numeric_limits<double>::quiet_NaN(), nullptr);
      if (s == "Infinity") return AppendFloating(b, std::numeric_limits<double>::infinity(), nullptr);
      if (s == "-Infinity") {
        return AppendFloating(b, -std::numeric_limits<double>::infinity(), nullptr);
      }
      return Mismatch(type, Quote(s));
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: return AppendDecimalText(b, s);
    case TypeId::kDictionary: {
      if (type.dictionary_value_type()->id() == TypeId::kString ||
          type.dictionary_value_type()->id() == TypeId::kLargeString) {
        return static_cast<DictionaryBuilder*>(b)->Append(s);
      }
      LANCE_ASSIGN_OR_RAISE(auto bytes, Base64Decode(s));
      return static_cast<DictionaryBuilder*>(b)->Append(bytes);
    }
    default: return Mismatch(type, Quote(s));
  }
}

class RowSax final : public nlohmann::json_sax<Json> {
 public:
  RowSax(const Schema& schema, std::vector<std::unique_ptr<ArrayBuilder>>* columns)
      : schema_(schema), columns_(columns) {}

  const Status& status() const { return status_; }
  int64_t rows() const { return rows_; }
  // Where the error happened, e.g. "field 'a.b[2]'".
  std::string Path() const {
    std::string path;
    for (const auto& f : stack_) {
      switch (f.kind) {
        case Kind::kRow:
          if (f.field >= 0) path += schema_.field(f.field)->name();
          break;
        case Kind::kStruct:
          if (f.field >= 0) path += "." + f.builder->type()->field(f.field)->name();
          break;
        case Kind::kList:
        case Kind::kFixedList:
        case Kind::kMap: path += fmt::format("[{}]", f.count); break;
        case Kind::kPair: path += f.count == 0 ? ".key" : ".value"; break;
      }
    }
    return path;
  }

  bool null() override {
    ArrayBuilder* b = Target();
    if (b == nullptr) return false;
    if (stack_.back().kind == Kind::kPair && stack_.back().count == 0) {
      return Fail(Status::InvalidArgument("map key is null"));
    }
    return Done(b->AppendNull());
  }
  bool boolean(bool v) override {
    ArrayBuilder* b = Target();
    if (b == nullptr) return false;
    if (b->type()->id() != TypeId::kBool) return Fail(Mismatch(*b->type(), v ? "true" : "false"));
    return Done(static_cast<BooleanBuilder*>(b)->Append(v));
  }
  bool number_integer(number_integer_t v) override {
    ArrayBuilder* b = Target();
    return b != nullptr && Done(AppendInteger(b, v, false, 0));
  }
  bool number_unsigned(number_unsigned_t v) override {
    ArrayBuilder* b = Target();
    return b != nullptr && Done(AppendInteger(b, 0, true, v));
  }
  bool number_float(number_float_t v, const string_t& text) override {
    ArrayBuilder* b = Target();
    if (b == nullptr) return false;
    if (!b->type()->is_floating()) return Fail(Mismatch(*b->type(), text));
    return Done(AppendFloating(b, v, text.c_str()));
  }
  bool string(string_t& s) override {
    ArrayBuilder* b = Target();
    return b != nullptr && Done(AppendString(b, s));
  }
  bool binary(binary_t&) override { return Fail(Status::InvalidArgument("unexpected binary")); }

  bool start_object(std::size_t) override {
    if (stack_.empty()) {
      stack_.push_back(Frame{Kind::kRow, nullptr});
      stack_.back().seen.assign(static_cast<size_t>(schema_.num_fields()), 0);
      return true;
    }
    ArrayBuilder* b = Target();
    if (b == nullptr) return false;
    if (b->type()->id() != TypeId::kStruct) return Fail(Mismatch(*b->type(), "{...}"));
    stack_.push_back(Frame{Kind::kStruct, b});
    stack_.back().seen.assign(static_cast<size_t>(b->type()->num_fields()), 0);
    return true;
  }
  bool key(string_t& k) override {
    Frame& f = stack_.back();
    const auto& fields = f.kind == Kind::kRow ? schema_.fields() : f.builder->type()->fields();
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i]->name() != k) continue;
      if (f.seen[i]) return Fail(Status::InvalidArgument("duplicate key '{}'", k));
      f.seen[i] = 1;
      f.field = static_cast<int>(i);
      return true;
    }
    return Fail(Status::InvalidArgument(
        "unknown field '{}' ({})", k,
        f.kind == Kind::kRow ? std::string("not in the schema") : f.builder->type()->ToString()));
  }
  bool end_object() override {
    Frame& f = stack_.back();
    f.field = -1;
    for (size_t i = 0; i < f.seen.size(); ++i) {
      if (f.seen[i]) continue;
      ArrayBuilder* child = f.kind == Kind::kRow
                                ? (*columns_)[i].get()
                                : static_cast<StructBuilder*>(f.builder)->field_builder(
                                      static_cast<int>(i));
      if (!child->AppendNull().ok()) return Fail(Status::Internal("append null"));
    }
    if (f.kind == Kind::kRow) {
      stack_.pop_back();
      ++rows_;
      return true;
    }
    ArrayBuilder* b = f.builder;
    stack_.pop_back();
    return Done(static_cast<StructBuilder*>(b)->Append());
  }
  bool start_array(std::size_t) override {
    if (stack_.empty()) return Fail(Status::InvalidArgument("expected a row object, found an array"));
    if (stack_.back().kind == Kind::kMap) {
      auto* entries = static_cast<StructBuilder*>(
          static_cast<ListBuilder*>(stack_.back().builder)->value_builder());
      if (!entries->Append().ok()) return Fail(Status::Internal("append entry"));
      stack_.push_back(Frame{Kind::kPair, entries});
      return true;
    }
    ArrayBuilder* b = Target();
    if (b == nullptr) return false;
    switch (b->type()->id()) {
      case TypeId::kList:
      case TypeId::kLargeList:
        if (!static_cast<ListBuilder*>(b)->Append().ok()) return Fail(Status::Internal("list"));
        stack_.push_back(Frame{Kind::kList, b});
        return true;
      case TypeId::kMap:
        if (!static_cast<ListBuilder*>(b)->Append().ok()) return Fail(Status::Internal("map"));
        stack_.push_back(Frame{Kind::kMap, b});
        return true;
      case TypeId::kFixedSizeList:
        if (!static_cast<FixedSizeListBuilder*>(b)->Append().ok()) {
          return Fail(Status::Internal("fixed_size_list"));
        }
        stack_.push_back(Frame{Kind::kFixedList, b});
        return true;
      default: return Fail(Mismatch(*b->type(), "[...]"));
    }
  }
  bool end_array() override {
    Frame& f = stack_.back();
    if (f.kind == Kind::kFixedList && f.count != f.builder->type()->list_size()) {
      return Fail(Status::InvalidArgument("{} values for {}", f.count, f.builder->type()->ToString()));
    }
    if (f.kind == Kind::kPair && f.count != 2) {
      return Fail(Status::InvalidArgument("map entry must be [key, value], found {} values", f.count));
    }
    stack_.pop_back();
    return Done(Status::OK());
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    return Fail(Status::InvalidArgument("invalid JSON at byte {}: {}", position, ex.what()));
  }

 private:
  enum class Kind { kRow, kStruct, kList, kFixedList, kMap, kPair };
  struct Frame {
    Kind kind;
    ArrayBuilder* builder;
    int field = -1;
    int64_t count = 0;
    std::vector<uint8_t> seen;
  };

  bool Fail(Status st) {
    if (status_.ok()) status_ = std::move(st);
    return false;
  }

  // The builder that receives the next value, or null (with the error recorded).
  ArrayBuilder* Target() {
    if (stack_.empty()) {
      Fail(Status::InvalidArgument("expected a row object"));
      return nullptr;
    }
    Frame& f = stack_.back();
    switch (f.kind) {
      case Kind::kRow: return (*columns_)[static_cast<size_t>(f.field)].get();
      case Kind::kStruct: return static_cast<StructBuilder*>(f.builder)->field_builder(f.field);
      case Kind::kList: return static_cast<ListBuilder*>(f.builder)->value_builder();
      case Kind::kFixedList:
        if (f.count >= f.builder->type()->list_size()) {
          Fail(Status::InvalidArgument("more than {} values for {}", f.builder->type()->list_size(),
                                       f.builder->type()->ToString()));
          return nullptr;
        }
        return static_cast<FixedSizeListBuilder*>(f.builder)->value_builder();
      case Kind::kMap:
        Fail(Status::InvalidArgument("map entries must be [key, value] arrays"));
        return nullptr;
      case Kind::kPair:
        if (f.count >= 2) {
          Fail(Status::InvalidArgument("map entry must be [key, value]"));
          return nullptr;
        }
        return static_cast<StructBuilder*>(f.builder)->field_builder(static_cast<int>(f.count));
    }
    return nullptr;
  }

  // A complete value was appended to the current target.
  bool Done(Status st) {
    if (!st.ok()) return Fail(std::move(st));
    if (stack_.empty()) return true;
    Frame& f = stack_.back();
    switch (f.kind) {
      case Kind::kRow:
      case Kind::kStruct: f.field = -1; break;
      default: ++f.count; break;
    }
    return true;
  }

  const Schema& schema_;
  std::vector<std::unique_ptr<ArrayBuilder>>* columns_;
  std::vector<Frame> stack_;
  Status status_;
  int64_t rows_ = 0;
};

}  // namespace

Result<RecordBatchPtr> ReadJsonLines(std::string_view text, SchemaPtr schema, int64_t first_line) {
  for (const auto& f : schema->fields()) {
    if (!SaxSupported(*f->type())) return ReadJsonLinesWithDom(text, std::move(schema), first_line);
  }
  std::vector<std::unique_ptr<ArrayBuilder>> columns;
  for (const auto& f : schema->fields()) {
    LANCE_ASSIGN_OR_RAISE(auto b, MakeBuilder(f->type()));
    columns.push_back(std::move(b));
  }
  RowSax sax(*schema, &columns);
  LANCE_RETURN_NOT_OK(ForEachJsonLine(text, first_line, [&](std::string_view line, int64_t line_no) -> Status {
    const int64_t rows_before = sax.rows();
    const bool ok = Json::sax_parse(line.begin(), line.end(), &sax);
    if (!ok || !sax.status().ok()) {
      const Status st = sax.status().ok() ? Status::InvalidArgument("invalid JSON") : sax.status();
      const std::string path = sax.Path();
      return st.WithContext(path.empty() ? fmt::format("line {}", line_no)
                                         : fmt::format("line {}: field '{}'", line_no, path));
    }
    if (sax.rows() != rows_before + 1) {
      return Status::InvalidArgument("line {}: expected one row object", line_no);
    }
    return Status::OK();
  }));
  std::vector<ArrayPtr> arrays;
  for (auto& b : columns) {
    LANCE_ASSIGN_OR_RAISE(auto a, b->Finish());
    arrays.push_back(std::move(a));
  }
  return RecordBatch::Make(std::move(schema), sax.rows(), std::move(arrays));
}

}  // namespace lance
