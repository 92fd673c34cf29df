// InferJsonLinesSchema: a schema for JSON lines given without one. Each sampled line is parsed
// into a DOM and its shape folded into one inferred type per key: null is "unknown yet",
// integers widen to float64 when a float is seen, arrays fold their elements, objects their
// keys (union, first-seen order). A kind that cannot be reconciled (a string where an earlier
// line had a number) is an error naming both lines, since guessing would store the data in a
// type the user did not mean.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "columnar/json_lines.h"
#include "lance/columnar/json.h"

namespace lance {
namespace {

using Json = nlohmann::ordered_json;  // keys in the order the line gives them

struct Shape {
  enum Kind { kUnknown, kBool, kInt, kFloat, kString, kList, kStruct };
  Kind kind = kUnknown;
  int64_t line = 0;                 // where the kind was first seen
  std::unique_ptr<Shape> element;   // kList
  int64_t list_size = -1;           // kList: the one length seen, or -2 when lengths vary
  bool numeric_elements = true;     // kList: every element a number (for the vector rule)
  std::vector<std::pair<std::string, std::unique_ptr<Shape>>> fields;  // kStruct
};

const char* KindName(Shape::Kind k) {
  switch (k) {
    case Shape::kUnknown: return "null";
    case Shape::kBool: return "a boolean";
    case Shape::kInt: return "an integer";
    case Shape::kFloat: return "a float";
    case Shape::kString: return "a string";
    case Shape::kList: return "an array";
    case Shape::kStruct: return "an object";
  }
  return "?";
}

Shape::Kind KindOf(const Json& v) {
  if (v.is_null()) return Shape::kUnknown;
  if (v.is_boolean()) return Shape::kBool;
  if (v.is_number_integer()) return Shape::kInt;
  if (v.is_number()) return Shape::kFloat;
  if (v.is_string()) return Shape::kString;
  if (v.is_array()) return Shape::kList;
  return Shape::kStruct;
}

// Deeper values are refused rather than folded (the folding recurses).
constexpr int kMaxDepth = 64;

Status Fold(Shape* s, const Json& v, int64_t line, const std::string& path, int depth) {
  if (depth > kMaxDepth) {
    return Status::InvalidArgument("line {}: field '{}' nests deeper than {} levels", line, path, kMaxDepth);
  }
  Shape::Kind k = KindOf(v);
  if (k == Shape::kUnknown) return Status::OK();
  if (s->kind == Shape::kUnknown) {
    s->kind = k;
    s->line = line;
  } else if (s->kind != k) {
    const bool numbers = (s->kind == Shape::kInt || s->kind == Shape::kFloat) &&
                         (k == Shape::kInt || k == Shape::kFloat);
    if (!numbers) {
      return Status::InvalidArgument(
          "line {}: field '{}' is {} where line {} had {}; give the types with --schema FILE.json",
          line, path, KindName(k), s->line, KindName(s->kind));
    }
    if (k == Shape::kFloat) s->kind = Shape::kFloat;
    return Status::OK();
  }
  if (k == Shape::kList) {
    if (!s->element) s->element = std::make_unique<Shape>();
    const auto n = static_cast<int64_t>(v.size());
    if (s->list_size == -1) {
      s->list_size = n;
    } else if (s->list_size != n) {
      s->list_size = -2;
    }
    for (const Json& e : v) {
      if (!e.is_number()) s->numeric_elements = false;
      LANCE_RETURN_NOT_OK(Fold(s->element.get(), e, line, path + "[]", depth + 1));
    }
  } else if (k == Shape::kStruct) {
    for (const auto& [key, value] : v.items()) {
      Shape* f = nullptr;
      for (auto& [name, shape] : s->fields) {
        if (name == key) f = shape.get();
      }
      if (!f) {
        s->fields.emplace_back(key, std::make_unique<Shape>());
        f = s->fields.back().second.get();
      }
      LANCE_RETURN_NOT_OK(Fold(f, value, line, path.empty() ? key : path + "." + key, depth + 1));
    }
  }
  return Status::OK();
}

DataTypePtr TypeOf(const Shape& s, bool vector_column) {
  switch (s.kind) {
    case Shape::kBool: return boolean();
    case Shape::kInt: return int64();
    case Shape::kFloat: return float64();
    case Shape::kList: {
      // lancedb's rule: a column named "vector" of equal-length number arrays is an embedding,
      // fixed_size_list<float32>, which the vector indexes and searches take.
      if (vector_column && s.numeric_elements && s.list_size > 0 && s.element &&
          s.element->kind != Shape::kUnknown) {
        return fixed_size_list(float32(), static_cast<int32_t>(s.list_size));
      }
      return list(s.element ? TypeOf(*s.element, false) : utf8());
    }
    case Shape::kStruct: {
      std::vector<FieldPtr> fields;
      for (const auto& [name, shape] : s.fields) fields.push_back(field(name, TypeOf(*shape, false)));
      return struct_(std::move(fields));
    }
    case Shape::kUnknown:  // only nulls seen: nothing to go on, text holds anything later
    case Shape::kString: return utf8();
  }
  return utf8();
}

}  // namespace

Result<SchemaPtr> InferJsonLinesSchema(std::string_view text, int64_t max_lines) {
  Shape row;
  row.kind = Shape::kStruct;
  LANCE_RETURN_NOT_OK(ForEachJsonLine(
      text, 1,
      [&](std::string_view l, int64_t line) -> Status {
        Json v = Json::parse(l.begin(), l.end(), nullptr, /*allow_exceptions=*/false);
        if (v.is_discarded()) return Status::InvalidArgument("line {}: not valid JSON", line);
        if (!v.is_object()) {
          return Status::InvalidArgument("line {}: expected one JSON object per line, found {}", line,
                                         KindName(KindOf(v)));
        }
        return Fold(&row, v, line, "", 0);
      },
      max_lines));
  if (row.fields.empty()) {
    return Status::InvalidArgument("no JSON object with a key in the input to infer a schema from; "
                                   "give one with --schema FILE.json");
  }
  std::vector<FieldPtr> fields;
  for (const auto& [name, shape] : row.fields) {
    fields.push_back(field(name, TypeOf(*shape, name == "vector")));
  }
  return schema(std::move(fields));
}

}  // namespace lance
