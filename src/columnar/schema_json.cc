// The schema JSON form (docs/cli.md, "Schema JSON"): how `--schema` arguments and schema
// dumps spell fields and types. Not on a hot path, so it is built on nlohmann::ordered_json
// (ordered so that keys come out in the documented order).
#include <limits>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "lance/columnar/json.h"

namespace lance {

namespace {

using Json = nlohmann::ordered_json;

Json FieldToJson(const Field& f);

Json MetadataToJson(const KeyValueMetadata& m) {
  Json out = Json::object();
  for (const auto& [k, v] : m.pairs()) out[k] = v;
  return out;
}

std::string_view SimpleTypeName(TypeId id) {
  switch (id) {
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
    case TypeId::kHalfFloat: return "float16";
    case TypeId::kFloat: return "float32";
    case TypeId::kDouble: return "float64";
    case TypeId::kString: return "utf8";
    case TypeId::kLargeString: return "large_utf8";
    case TypeId::kBinary: return "binary";
    case TypeId::kLargeBinary: return "large_binary";
    case TypeId::kDate32: return "date32";
    case TypeId::kDate64: return "date64";
    default: return {};
  }
}

Json TypeToJson(const DataType& t) {
  const std::string_view simple = SimpleTypeName(t.id());
  if (!simple.empty()) return std::string(simple);
  Json out = Json::object();
  switch (t.id()) {
    case TypeId::kFixedSizeBinary:
      out["name"] = "fixed_size_binary";
      out["byte_width"] = t.byte_width();
      break;
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
      out["name"] = t.id() == TypeId::kTime32 ? "time32"
                    : t.id() == TypeId::kTime64 ? "time64"
                                                : "duration";
      out["unit"] = std::string(TimeUnitName(t.unit()));
      break;
    case TypeId::kTimestamp:
      out["name"] = "timestamp";
      out["unit"] = std::string(TimeUnitName(t.unit()));
      if (!t.timezone().empty()) out["timezone"] = t.timezone();
      break;
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      out["name"] = t.id() == TypeId::kDecimal128 ? "decimal128" : "decimal256";
      out["precision"] = t.precision();
      out["scale"] = t.scale();
      break;
    case TypeId::kList:
    case TypeId::kLargeList:
      out["name"] = t.id() == TypeId::kList ? "list" : "large_list";
      out["item"] = FieldToJson(*t.value_field());
      break;
    case TypeId::kFixedSizeList:
      out["name"] = "fixed_size_list";
      out["item"] = FieldToJson(*t.value_field());
      out["list_size"] = t.list_size();
      break;
    case TypeId::kStruct: {
      out["name"] = "struct";
      Json fields = Json::array();
      for (const auto& f : t.fields()) fields.push_back(FieldToJson(*f));
      out["fields"] = std::move(fields);
      break;
    }
    case TypeId::kMap:
      out["name"] = "map";
      out["entries"] = FieldToJson(*t.value_field());
      out["keys_sorted"] = t.keys_sorted();
      break;
    case TypeId::kDictionary:
      out["name"] = "dictionary";
      out["index"] = TypeToJson(*t.index_type());
      out["value"] = TypeToJson(*t.dictionary_value_type());
      out["ordered"] = t.ordered();
      break;
    default:
      out["name"] = "unknown";
      break;
  }
  return out;
}

Json FieldToJson(const Field& f) {
  Json out = Json::object();
  out["name"] = f.name();
  out["type"] = TypeToJson(*f.type());
  out["nullable"] = f.nullable();
  if (f.metadata() && !f.metadata()->empty()) out["metadata"] = MetadataToJson(*f.metadata());
  if (f.id() >= 0) out["id"] = f.id();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reading

Result<FieldPtr> FieldFromJson(const Json& j, std::string_view where);

Result<KeyValueMetadataPtr> MetadataFromJson(const Json& j, std::string_view where) {
  if (!j.is_object()) return Status::InvalidArgument("{}: metadata must be an object", where);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_string()) {
      return Status::InvalidArgument("{}: metadata value of '{}' must be a string", where,
                                     it.key());
    }
    pairs.emplace_back(it.key(), it.value().get<std::string>());
  }
  return std::make_shared<const KeyValueMetadata>(std::move(pairs));
}

Result<TimeUnit> UnitFromJson(const Json& j, std::string_view where) {
  auto it = j.find("unit");
  if (it == j.end() || !it->is_string()) {
    return Status::InvalidArgument("{}: \"unit\" (s, ms, us or ns) is required", where);
  }
  const auto& u = it->get_ref<const std::string&>();
  if (u == "s") return TimeUnit::kSecond;
  if (u == "ms") return TimeUnit::kMilli;
  if (u == "us") return TimeUnit::kMicro;
  if (u == "ns") return TimeUnit::kNano;
  return Status::InvalidArgument("{}: unknown time unit '{}' (expected s, ms, us or ns)", where, u);
}

Result<int64_t> IntMember(const Json& j, const char* key, std::string_view where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) {
    return Status::InvalidArgument("{}: integer \"{}\" is required", where, key);
  }
  return it->get<int64_t>();
}

bool BoolMember(const Json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

Result<DataTypePtr> TypeFromJson(const Json& j, std::string_view where) {
  std::string name;
  if (j.is_string()) {
    name = j.get<std::string>();
  } else if (j.is_object() && j.contains("name") && j["name"].is_string()) {
    name = j["name"].get<std::string>();
  } else {
    return Status::InvalidArgument("{}: a type is a name or an object with \"name\"", where);
  }
  static const std::pair<const char*, DataTypePtr (*)()> kSimple[] = {
      {"null", null},       {"bool", boolean},   {"boolean", boolean},
      {"int8", int8},       {"int16", int16},     {"int32", int32},
      {"int64", int64},     {"uint8", uint8},     {"uint16", uint16},
      {"uint32", uint32},   {"uint64", uint64},   {"float16", float16},
      {"float32", float32}, {"float64", float64}, {"utf8", utf8},
      {"string", utf8},     {"large_utf8", large_utf8},
      {"large_string", large_utf8},               {"binary", binary},
      {"large_binary", large_binary},             {"date32", date32},
      {"date64", date64}};
  for (const auto& [n, factory] : kSimple) {
    if (name == n) return factory();
  }
  if (!j.is_object()) {
    return Status::InvalidArgument("{}: unknown type '{}' (or it needs parameters)", where, name);
  }
  const std::string here = fmt::format("{} ({})", where, name);
  if (name == "fixed_size_binary") {
    LANCE_ASSIGN_OR_RAISE(auto w, IntMember(j, "byte_width", here));
    if (w < 0 || w > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidArgument("{}: invalid byte_width {}", here, w);
    }
    return fixed_size_binary(static_cast<int32_t>(w));
  }
  if (name == "time32" || name == "time64" || name == "duration" || name == "timestamp") {
    LANCE_ASSIGN_OR_RAISE(auto unit, UnitFromJson(j, here));
    if (name == "time32") {
      if (unit != TimeUnit::kSecond && unit != TimeUnit::kMilli) {
        return Status::InvalidArgument("{}: time32 unit must be s or ms", here);
      }
      return time32(unit);
    }
    if (name == "time64") {
      if (unit != TimeUnit::kMicro && unit != TimeUnit::kNano) {
        return Status::InvalidArgument("{}: time64 unit must be us or ns", here);
      }
      return time64(unit);
    }
    if (name == "duration") return duration(unit);
    std::string tz;
    if (auto it = j.find("timezone"); it != j.end() && !it->is_null()) {
      if (!it->is_string()) return Status::InvalidArgument("{}: timezone must be a string", here);
      tz = it->get<std::string>();
    }
    return timestamp(unit, tz);
  }
  if (name == "decimal128" || name == "decimal256") {
    const int64_t max_precision = name == "decimal128" ? 38 : 76;
    LANCE_ASSIGN_OR_RAISE(auto precision, IntMember(j, "precision", here));
    LANCE_ASSIGN_OR_RAISE(auto scale, IntMember(j, "scale", here));
    if (precision < 1 || precision > max_precision || scale < -max_precision || scale > precision) {
      return Status::InvalidArgument("{}: invalid precision {} / scale {} (precision 1..{})", here,
                                     precision, scale, max_precision);
    }
    const auto p = static_cast<int32_t>(precision);
    const auto s = static_cast<int32_t>(scale);
    return name == "decimal128" ? decimal128(p, s) : decimal256(p, s);
  }
  if (name == "list" || name == "large_list" || name == "fixed_size_list") {
    auto it = j.find("item");
    if (it == j.end()) return Status::InvalidArgument("{}: \"item\" field is required", here);
    LANCE_ASSIGN_OR_RAISE(auto item, FieldFromJson(*it, here + " item"));
    if (name == "list") return list(std::move(item));
    if (name == "large_list") return large_list(std::move(item));
    LANCE_ASSIGN_OR_RAISE(auto size, IntMember(j, "list_size", here));
    if (size < 0 || size > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidArgument("{}: invalid list_size {}", here, size);
    }
    return fixed_size_list(std::move(item), static_cast<int32_t>(size));
  }
  if (name == "struct") {
    auto it = j.find("fields");
    if (it == j.end() || !it->is_array()) {
      return Status::InvalidArgument("{}: \"fields\" array is required", here);
    }
    std::vector<FieldPtr> fields;
    for (size_t i = 0; i < it->size(); ++i) {
      LANCE_ASSIGN_OR_RAISE(auto f, FieldFromJson((*it)[i], fmt::format("{} field {}", here, i)));
      fields.push_back(std::move(f));
    }
    return struct_(std::move(fields));
  }
  if (name == "map") {
    const bool sorted = BoolMember(j, "keys_sorted", false);
    if (auto it = j.find("entries"); it != j.end()) {
      LANCE_ASSIGN_OR_RAISE(auto entries, FieldFromJson(*it, here + " entries"));
      const auto& et = *entries->type();
      if (et.id() != TypeId::kStruct || et.num_fields() != 2) {
        return Status::InvalidArgument("{}: entries must be a struct of key and value", here);
      }
      return map(std::move(entries), sorted);
    }
    auto k = j.find("key");
    auto v = j.find("value");
    if (k == j.end() || v == j.end()) {
      return Status::InvalidArgument("{}: \"entries\" (or \"key\" and \"value\") required", here);
    }
    LANCE_ASSIGN_OR_RAISE(auto key, TypeFromJson(*k, here + " key"));
    LANCE_ASSIGN_OR_RAISE(auto value, TypeFromJson(*v, here + " value"));
    return map(std::move(key), std::move(value), sorted);
  }
  if (name == "dictionary") {
    auto i = j.find("index");
    auto v = j.find("value");
    if (i == j.end() || v == j.end()) {
      return Status::InvalidArgument("{}: \"index\" and \"value\" types are required", here);
    }
    LANCE_ASSIGN_OR_RAISE(auto index, TypeFromJson(*i, here + " index"));
    if (!index->is_integer()) {
      return Status::InvalidArgument("{}: index type must be an integer, found {}", here,
                                     index->ToString());
    }
    LANCE_ASSIGN_OR_RAISE(auto value, TypeFromJson(*v, here + " value"));
    return dictionary(std::move(index), std::move(value), BoolMember(j, "ordered", false));
  }
  return Status::InvalidArgument("{}: unknown type '{}'", where, name);
}

Result<FieldPtr> FieldFromJson(const Json& j, std::string_view where) {
  if (!j.is_object()) return Status::InvalidArgument("{}: a field must be an object", where);
  auto n = j.find("name");
  if (n == j.end() || !n->is_string()) {
    return Status::InvalidArgument("{}: field \"name\" is required", where);
  }
  const std::string name = n->get<std::string>();
  const std::string here = fmt::format("{} '{}'", where, name);
  auto t = j.find("type");
  if (t == j.end()) return Status::InvalidArgument("{}: field \"type\" is required", here);
  LANCE_ASSIGN_OR_RAISE(auto type, TypeFromJson(*t, here));
  const bool nullable = BoolMember(j, "nullable", true);
  KeyValueMetadataPtr metadata;
  if (auto m = j.find("metadata"); m != j.end() && !m->is_null()) {
    LANCE_ASSIGN_OR_RAISE(metadata, MetadataFromJson(*m, here));
  }
  int32_t id = -1;
  if (auto i = j.find("id"); i != j.end()) {
    if (!i->is_number_integer() || i->get<int64_t>() < -1 ||
        i->get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidArgument("{}: \"id\" must be an integer in [-1, 2^31)", here);
    }
    id = static_cast<int32_t>(i->get<int64_t>());
  }
  return std::make_shared<const Field>(name, std::move(type), nullable, std::move(metadata), id);
}

Result<Json> Parse(std::string_view text) {
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Status::InvalidArgument("schema JSON is not valid JSON: {}", text.substr(0, 80));
  }
  return doc;
}

// Names and metadata are not guaranteed to be UTF-8: invalid bytes become U+FFFD instead of
// nlohmann's exception.
std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace

std::string DataTypeToJson(const DataType& type) { return Dump(TypeToJson(type)); }

Result<DataTypePtr> DataTypeFromJson(std::string_view json) {
  LANCE_ASSIGN_OR_RAISE(auto doc, Parse(json));
  return TypeFromJson(doc, "type");
}

std::string SchemaToJson(const Schema& schema) {
  Json out = Json::object();
  Json fields = Json::array();
  for (const auto& f : schema.fields()) fields.push_back(FieldToJson(*f));
  out["fields"] = std::move(fields);
  if (schema.metadata() && !schema.metadata()->empty()) {
    out["metadata"] = MetadataToJson(*schema.metadata());
  }
  return Dump(out);
}

Result<SchemaPtr> SchemaFromJson(std::string_view json) {
  LANCE_ASSIGN_OR_RAISE(auto doc, Parse(json));
  if (!doc.is_object() || !doc.contains("fields") || !doc["fields"].is_array()) {
    return Status::InvalidArgument("schema JSON: expected {{\"fields\": [...]}}");
  }
  std::vector<FieldPtr> fields;
  const Json& arr = doc["fields"];
  for (size_t i = 0; i < arr.size(); ++i) {
    LANCE_ASSIGN_OR_RAISE(auto f, FieldFromJson(arr[i], fmt::format("schema field {}", i)));
    fields.push_back(std::move(f));
  }
  KeyValueMetadataPtr metadata;
  if (auto m = doc.find("metadata"); m != doc.end() && !m->is_null()) {
    LANCE_ASSIGN_OR_RAISE(metadata, MetadataFromJson(*m, "schema"));
  }
  return schema(std::move(fields), std::move(metadata));
}

}  // namespace lance
