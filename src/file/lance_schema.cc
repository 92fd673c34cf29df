#include "lance/file/lance_schema.h"

#include <charconv>
#include <functional>
#include <map>

namespace lance::file {

namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t p = s.find(sep, start);
    parts.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return parts;
}

Result<int32_t> ParseInt(const std::string& s, const std::string& logical_type) {
  int32_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return Status::Corruption("logical type '{}': '{}' is not an integer", logical_type, s);
  }
  return v;
}

Result<TimeUnit> ParseUnit(const std::string& s, const std::string& logical_type) {
  if (s == "s") return TimeUnit::kSecond;
  if (s == "ms") return TimeUnit::kMilli;
  if (s == "us") return TimeUnit::kMicro;
  if (s == "ns") return TimeUnit::kNano;
  return Status::Corruption("logical type '{}': unknown time unit '{}'", logical_type, s);
}

bool IsNestedLogicalType(const std::string& t) {
  return t == "list" || t == "large_list" || t == "struct" || t == "list.struct" ||
         t == "large_list.struct" || t == "map";
}

}  // namespace

Result<DataTypePtr> LogicalTypeToArrow(const std::string& t) {
  static const std::map<std::string, DataTypePtr (*)()> kSimple = {
      {"null", null},       {"bool", boolean},         {"int8", int8},
      {"int16", int16},     {"int32", int32},          {"int64", int64},
      {"uint8", uint8},     {"uint16", uint16},        {"uint32", uint32},
      {"uint64", uint64},   {"halffloat", float16},    {"float", float32},
      {"double", float64},  {"string", utf8},          {"large_string", large_utf8},
      {"binary", binary},   {"large_binary", large_binary}, {"date32:day", date32},
      {"date64:ms", date64},
  };
  if (auto it = kSimple.find(t); it != kSimple.end()) return it->second();
  if (t.rfind("fixed_size_list:", 0) == 0) {
    const size_t last = t.rfind(':');
    const std::string child = t.substr(16, last - 16);
    LANCE_ASSIGN_OR_RAISE(int32_t n, ParseInt(t.substr(last + 1), t));
    if (n <= 0) return Status::Corruption("logical type '{}': list size {}", t, n);
    LANCE_ASSIGN_OR_RAISE(DataTypePtr child_type, LogicalTypeToArrow(child));
    return fixed_size_list(field("item", child_type, true), n);
  }
  const auto parts = Split(t, ':');
  if (parts[0] == "dict" && parts.size() >= 4) {
    // dict:{value logical type}:{index logical type}:{ordered}; the value type may itself
    // hold ':' (timestamps, fixed-size binary), so take the last two parts first.
    const std::string& ordered = parts.back();
    const std::string& index = parts[parts.size() - 2];
    if (ordered != "true" && ordered != "false") {
      return Status::Corruption("logical type '{}': ordered flag '{}'", t, ordered);
    }
    LANCE_ASSIGN_OR_RAISE(DataTypePtr index_type, LogicalTypeToArrow(index));
    if (!index_type->is_integer()) {
      return Status::Corruption("logical type '{}': index type {} is not an integer", t, index);
    }
    const size_t value_len = t.size() - 5 - index.size() - ordered.size() - 2;
    LANCE_ASSIGN_OR_RAISE(DataTypePtr value_type, LogicalTypeToArrow(t.substr(5, value_len)));
    return dictionary(std::move(index_type), std::move(value_type), ordered == "true");
  }
  if (parts[0] == "fixed_size_binary" && parts.size() == 2) {
    LANCE_ASSIGN_OR_RAISE(int32_t n, ParseInt(parts[1], t));
    if (n <= 0) return Status::Corruption("logical type '{}': width {}", t, n);
    return fixed_size_binary(n);
  }
  if (parts[0] == "decimal" && parts.size() == 4) {
    if (parts[1] != "128" && parts[1] != "256") {
      return Status::NotSupported("logical type '{}': decimal{} (expected decimal:128 or decimal:256)",
                                  t, parts[1]);
    }
    const bool wide = parts[1] == "256";
    LANCE_ASSIGN_OR_RAISE(int32_t precision, ParseInt(parts[2], t));
    LANCE_ASSIGN_OR_RAISE(int32_t scale, ParseInt(parts[3], t));
    if (precision < 1 || precision > (wide ? 76 : 38)) {
      return Status::Corruption("logical type '{}': precision {} (expected 1..{})", t, precision,
                                wide ? 76 : 38);
    }
    return wide ? decimal256(precision, scale) : decimal128(precision, scale);
  }
  if (parts[0] == "timestamp" && parts.size() >= 2) {
    LANCE_ASSIGN_OR_RAISE(TimeUnit unit, ParseUnit(parts[1], t));
    std::string tz;
    if (parts.size() >= 3) {
      tz = t.substr(parts[0].size() + parts[1].size() + 2);  // timezones may contain ':'
      if (tz == "-") tz.clear();
    }
    return timestamp(unit, tz);
  }
  if ((parts[0] == "time32" || parts[0] == "time64" || parts[0] == "duration" ||
       parts[0] == "time") && parts.size() == 2) {
    LANCE_ASSIGN_OR_RAISE(TimeUnit unit, ParseUnit(parts[1], t));
    if (parts[0] == "duration") return duration(unit);
    const bool is32 = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
    return is32 ? time32(unit) : time64(unit);
  }
  return Status::NotSupported("logical type '{}' is not supported", t);
}

Result<SchemaPtr> SchemaFromLanceFields(const std::vector<LanceField>& fields,
                                        std::vector<std::pair<std::string, std::string>> metadata) {
  std::map<int32_t, std::vector<size_t>> children;
  std::map<int32_t, size_t> by_id;
  std::vector<size_t> top;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!by_id.emplace(fields[i].id, i).second) {
      return Status::Corruption("schema: field id {} appears twice", fields[i].id);
    }
    if (fields[i].parent_id < 0) {
      top.push_back(i);
    } else {
      children[fields[i].parent_id].push_back(i);
    }
  }
  for (const auto& [parent, kids] : children) {
    if (!by_id.count(parent)) {
      return Status::Corruption("schema: field '{}' has unknown parent id {}",
                                fields[kids[0]].name, parent);
    }
  }
  // Recursive build, depth-limited against cycles.
  std::function<Result<FieldPtr>(size_t, int)> build = [&](size_t i, int depth) -> Result<FieldPtr> {
    const LanceField& f = fields[i];
    if (depth > 64) return Status::Corruption("schema: nesting deeper than 64 at '{}'", f.name);
    const auto kids_it = children.find(f.id);
    const std::vector<size_t> no_kids;
    const auto& kids = kids_it == children.end() ? no_kids : kids_it->second;
    DataTypePtr type;
    if (IsNestedLogicalType(f.logical_type)) {
      std::vector<FieldPtr> child_fields;
      for (size_t k : kids) {
        LANCE_ASSIGN_OR_RAISE(FieldPtr c, build(k, depth + 1));
        child_fields.push_back(std::move(c));
      }
      if (f.logical_type == "struct") {
        type = struct_(std::move(child_fields));
      } else if (f.logical_type == "map") {
        if (child_fields.size() != 1 || child_fields[0]->type()->id() != TypeId::kStruct ||
            child_fields[0]->type()->num_fields() != 2) {
          return Status::Corruption("schema: map '{}' needs one struct<key, value> child", f.name);
        }
        type = map(child_fields[0], false);
      } else {
        if (child_fields.size() != 1) {
          return Status::Corruption("schema: list '{}' has {} children", f.name, child_fields.size());
        }
        const bool large = f.logical_type.rfind("large_list", 0) == 0;
        type = large ? large_list(child_fields[0]) : list(child_fields[0]);
      }
    } else {
      if (!kids.empty()) {
        return Status::Corruption("schema: leaf '{}' ({}) has child fields", f.name, f.logical_type);
      }
      LANCE_ASSIGN_OR_RAISE(type, LogicalTypeToArrow(f.logical_type));
    }
    KeyValueMetadataPtr md;
    if (!f.metadata.empty()) md = std::make_shared<KeyValueMetadata>(f.metadata);
    return std::make_shared<Field>(f.name, std::move(type), f.nullable, std::move(md), f.id);
  };
  std::vector<FieldPtr> out;
  for (size_t i : top) {
    LANCE_ASSIGN_OR_RAISE(FieldPtr fp, build(i, 0));
    out.push_back(std::move(fp));
  }
  KeyValueMetadataPtr md;
  if (!metadata.empty()) md = std::make_shared<KeyValueMetadata>(std::move(metadata));
  return schema(std::move(out), std::move(md));
}

}  // namespace lance::file
