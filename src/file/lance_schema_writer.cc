// Arrow-model Schema -> Lance's flattened field list (the inverse of lance_schema.cc).
#include <functional>
#include <set>

#include <fmt/format.h>

#include "lance/file/lance_schema.h"

namespace lance::file {

Result<std::string> LogicalTypeFromArrow(const DataType& t) {
  switch (t.id()) {
    case TypeId::kNull: return std::string("null");
    case TypeId::kBool: return std::string("bool");
    case TypeId::kInt8: return std::string("int8");
    case TypeId::kInt16: return std::string("int16");
    case TypeId::kInt32: return std::string("int32");
    case TypeId::kInt64: return std::string("int64");
    case TypeId::kUInt8: return std::string("uint8");
    case TypeId::kUInt16: return std::string("uint16");
    case TypeId::kUInt32: return std::string("uint32");
    case TypeId::kUInt64: return std::string("uint64");
    case TypeId::kHalfFloat: return std::string("halffloat");
    case TypeId::kFloat: return std::string("float");
    case TypeId::kDouble: return std::string("double");
    case TypeId::kString: return std::string("string");
    case TypeId::kLargeString: return std::string("large_string");
    case TypeId::kBinary: return std::string("binary");
    case TypeId::kLargeBinary: return std::string("large_binary");
    case TypeId::kDate32: return std::string("date32:day");
    case TypeId::kDate64: return std::string("date64:ms");
    case TypeId::kFixedSizeBinary: return fmt::format("fixed_size_binary:{}", t.byte_width());
    case TypeId::kDecimal128: return fmt::format("decimal:128:{}:{}", t.precision(), t.scale());
    case TypeId::kDecimal256: return fmt::format("decimal:256:{}:{}", t.precision(), t.scale());
    case TypeId::kTime32: return fmt::format("time32:{}", TimeUnitName(t.unit()));
    case TypeId::kTime64: return fmt::format("time64:{}", TimeUnitName(t.unit()));
    case TypeId::kDuration: return fmt::format("duration:{}", TimeUnitName(t.unit()));
    case TypeId::kTimestamp:
      return fmt::format("timestamp:{}:{}", TimeUnitName(t.unit()),
                         t.timezone().empty() ? std::string("-") : t.timezone());
    case TypeId::kFixedSizeList: {
      const DataType& child = *t.value_type();
      if (child.is_nested()) {
        return Status::NotSupported("fixed_size_list of {} in a Lance file", child.ToString());
      }
      LANCE_ASSIGN_OR_RAISE(std::string inner, LogicalTypeFromArrow(child));
      return fmt::format("fixed_size_list:{}:{}", inner, t.list_size());
    }
    // A list of structs is "list.struct": what lance 12 writes, and it refuses "list" there.
    case TypeId::kList:
      return std::string(t.value_type()->id() == TypeId::kStruct ? "list.struct" : "list");
    case TypeId::kLargeList:
      return std::string(t.value_type()->id() == TypeId::kStruct ? "large_list.struct" : "large_list");
    case TypeId::kStruct: return std::string("struct");
    case TypeId::kMap: return std::string("map");
    // dict:<value>:<index>:<ordered>, as lance 12 names Arrow dictionary fields.
    case TypeId::kDictionary: {
      const DataType& index = *t.index_type();
      const DataType& value = *t.dictionary_value_type();
      if (!index.is_integer()) {
        return Status::NotSupported("dictionary index type {} is not an integer", index.ToString());
      }
      if (value.is_nested() || value.id() == TypeId::kDictionary || value.id() == TypeId::kBool ||
          value.id() == TypeId::kNull) {
        return Status::NotSupported("dictionary of {} values in a Lance file", value.ToString());
      }
      LANCE_ASSIGN_OR_RAISE(std::string value_type, LogicalTypeFromArrow(value));
      LANCE_ASSIGN_OR_RAISE(std::string index_type, LogicalTypeFromArrow(index));
      return fmt::format("dict:{}:{}:{}", value_type, index_type, t.ordered() ? "true" : "false");
    }
  }
  return Status::NotSupported("type {} cannot be stored in a Lance file", t.ToString());
}

namespace {

// Pre-order flattening shared by both entry points; `id_of` gives each field's Lance id.
Result<std::vector<LanceField>> Flatten(const ::lance::Schema& schema, SchemaPtr* with_ids,
                                        const std::function<Result<int32_t>(const Field&)>& id_of) {
  std::vector<LanceField> out;
  std::function<Result<FieldPtr>(const FieldPtr&, int32_t)> visit =
      [&](const FieldPtr& f, int32_t parent) -> Result<FieldPtr> {
    LanceField lf;
    lf.name = f->name();
    LANCE_ASSIGN_OR_RAISE(lf.id, id_of(*f));
    lf.parent_id = parent;
    auto lt = LogicalTypeFromArrow(*f->type());
    if (!lt.ok()) {
      return Status(lt.status().code(), fmt::format("field '{}': {}", f->name(), lt.status().message()));
    }
    lf.logical_type = std::move(*lt);
    lf.nullable = f->nullable();
    if (f->metadata()) lf.metadata = f->metadata()->pairs();
    const int32_t id = lf.id;
    out.push_back(std::move(lf));
    const DataType& t = *f->type();
    DataTypePtr type = f->type();
    if (t.id() == TypeId::kStruct || t.id() == TypeId::kList || t.id() == TypeId::kLargeList ||
        t.id() == TypeId::kMap) {
      std::vector<FieldPtr> children;
      for (const auto& c : t.fields()) {
        LANCE_ASSIGN_OR_RAISE(FieldPtr child, visit(c, id));
        children.push_back(std::move(child));
      }
      switch (t.id()) {
        case TypeId::kStruct: type = struct_(std::move(children)); break;
        case TypeId::kList: type = list(children[0]); break;
        case TypeId::kLargeList: type = large_list(children[0]); break;
        default: type = map(children[0], t.keys_sorted()); break;
      }
    }
    return std::make_shared<Field>(f->name(), std::move(type), f->nullable(), f->metadata(), id);
  };
  std::vector<FieldPtr> fields;
  for (const auto& f : schema.fields()) {
    LANCE_ASSIGN_OR_RAISE(FieldPtr g, visit(f, -1));
    fields.push_back(std::move(g));
  }
  if (with_ids) *with_ids = ::lance::schema(std::move(fields), schema.metadata());
  return out;
}

}  // namespace

Result<std::vector<LanceField>> LanceFieldsFromSchema(const ::lance::Schema& schema, SchemaPtr* with_ids) {
  // The ids already present.
  std::set<int32_t> used;
  int32_t max_id = -1;
  bool duplicate = false;
  int32_t dup_id = 0;
  std::function<void(const Field&)> collect = [&](const Field& f) {
    if (f.id() >= 0) {
      if (!used.insert(f.id()).second) {
        duplicate = true;
        dup_id = f.id();
      }
      max_id = std::max(max_id, f.id());
    }
    const DataType& t = *f.type();
    if (t.id() == TypeId::kStruct || t.id() == TypeId::kList || t.id() == TypeId::kLargeList ||
        t.id() == TypeId::kMap) {
      for (const auto& c : t.fields()) collect(*c);
    }
  };
  for (const auto& f : schema.fields()) collect(*f);
  if (duplicate) return Status::InvalidArgument("schema: field id {} is used twice", dup_id);

  int32_t next_id = max_id + 1;
  return Flatten(schema, with_ids,
                 [&](const Field& f) -> Result<int32_t> { return f.id() >= 0 ? f.id() : next_id++; });
}

Result<std::vector<LanceField>> LanceFieldsWithIds(const ::lance::Schema& schema,
                                                   const std::vector<int32_t>* ids,
                                                   SchemaPtr* with_ids) {
  size_t next = 0;
  LANCE_ASSIGN_OR_RAISE(auto out, Flatten(schema, with_ids, [&](const Field&) -> Result<int32_t> {
    if (ids == nullptr) return static_cast<int32_t>(next++);
    if (next >= ids->size()) {
      return Status::InvalidArgument("the schema has more fields than the {} ids given", ids->size());
    }
    return (*ids)[next++];
  }));
  if (ids != nullptr && next != ids->size()) {
    return Status::InvalidArgument("the schema has {} fields but {} ids were given", next, ids->size());
  }
  return out;
}

}  // namespace lance::file
