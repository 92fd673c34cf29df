#include "lance/index/scalar/query.h"

#include <algorithm>

#include <fmt/format.h>

namespace lance::index::scalar {

ScalarQuery ScalarQuery::Equals(ScalarValue v) {
  ScalarQuery q;
  q.op = Op::kEquals;
  q.value = std::move(v);
  return q;
}
ScalarQuery ScalarQuery::Range(std::optional<RangeBound> lo, std::optional<RangeBound> hi) {
  ScalarQuery q;
  q.op = Op::kRange;
  q.lower = std::move(lo);
  q.upper = std::move(hi);
  return q;
}
ScalarQuery ScalarQuery::LessThan(ScalarValue v) { return Range(std::nullopt, RangeBound{std::move(v), false}); }
ScalarQuery ScalarQuery::LessEq(ScalarValue v) { return Range(std::nullopt, RangeBound{std::move(v), true}); }
ScalarQuery ScalarQuery::GreaterThan(ScalarValue v) { return Range(RangeBound{std::move(v), false}, std::nullopt); }
ScalarQuery ScalarQuery::GreaterEq(ScalarValue v) { return Range(RangeBound{std::move(v), true}, std::nullopt); }
ScalarQuery ScalarQuery::Between(ScalarValue lo, ScalarValue hi) {
  return Range(RangeBound{std::move(lo), true}, RangeBound{std::move(hi), true});
}
ScalarQuery ScalarQuery::In(std::vector<ScalarValue> values) {
  ScalarQuery q;
  q.op = Op::kIn;
  q.values = std::move(values);
  return q;
}
ScalarQuery ScalarQuery::IsNull() {
  ScalarQuery q;
  q.op = Op::kIsNull;
  return q;
}
ScalarQuery ScalarQuery::IsNotNull() {
  ScalarQuery q;
  q.op = Op::kIsNotNull;
  return q;
}
ScalarQuery ScalarQuery::StartsWith(std::string prefix) {
  ScalarQuery q;
  q.op = Op::kPrefix;
  q.value = ScalarValue::Bytes(std::move(prefix));
  return q;
}

bool ScalarQuery::Matches(const ScalarValue& v) const {
  switch (op) {
    case Op::kIsNull:
      return v.is_null();
    case Op::kIsNotNull:
      return !v.is_null();
    default:
      break;
  }
  if (v.is_null()) return false;
  switch (op) {
    case Op::kEquals:
      return !value.is_null() && Compare(v, value) == 0;
    case Op::kIn:
      return std::any_of(values.begin(), values.end(), [&](const ScalarValue& x) {
        return !x.is_null() && Compare(v, x) == 0;
      });
    case Op::kRange: {
      if (lower) {
        if (lower->value.is_null()) return false;
        const int c = Compare(v, lower->value);
        if (c < 0 || (c == 0 && !lower->inclusive)) return false;
      }
      if (upper) {
        if (upper->value.is_null()) return false;
        const int c = Compare(v, upper->value);
        if (c > 0 || (c == 0 && !upper->inclusive)) return false;
      }
      return true;
    }
    case Op::kPrefix:
      return v.kind() == ScalarValue::Kind::kBytes && v.bytes().starts_with(value.bytes());
    default:
      return false;
  }
}

std::string ScalarQuery::ToString(std::string_view column) const {
  const std::string x(column);
  switch (op) {
    case Op::kEquals:
      return x + " = " + value.ToString();
    case Op::kIsNull:
      return x + " IS NULL";
    case Op::kIsNotNull:
      return x + " IS NOT NULL";
    case Op::kPrefix:
      return x + " LIKE " + value.ToString().substr(0, value.ToString().size() - 1) + "%'";
    case Op::kIn: {
      std::string s = x + " IN (";
      for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + values[i].ToString();
      return s + ")";
    }
    case Op::kRange: {
      std::string s;
      if (lower) s = fmt::format("{} {} {}", x, lower->inclusive ? ">=" : ">", lower->value.ToString());
      if (upper) {
        s += fmt::format("{}{} {} {}", s.empty() ? "" : " AND ", x, upper->inclusive ? "<=" : "<",
                         upper->value.ToString());
      }
      return s.empty() ? x + " IS NOT NULL" : s;
    }
  }
  return "?";
}

LabelListQuery LabelListQuery::HasAny(std::vector<ScalarValue> labels) {
  return LabelListQuery{Op::kHasAny, std::move(labels)};
}
LabelListQuery LabelListQuery::HasAll(std::vector<ScalarValue> labels) {
  return LabelListQuery{Op::kHasAll, std::move(labels)};
}
LabelListQuery LabelListQuery::Contains(ScalarValue label) {
  return LabelListQuery{Op::kHasAny, {std::move(label)}};
}

std::optional<bool> LabelListQuery::Matches(
    const std::optional<std::vector<ScalarValue>>& list) const {
  if (!list) return std::nullopt;
  auto has = [&](const ScalarValue& label) {
    if (label.is_null()) return false;
    return std::any_of(list->begin(), list->end(), [&](const ScalarValue& item) {
      return !item.is_null() && Compare(item, label) == 0;
    });
  };
  if (op == Op::kHasAny) return std::any_of(labels.begin(), labels.end(), has);
  return std::all_of(labels.begin(), labels.end(), has);
}

std::string TextQuery::ToString(std::string_view column) const {
  std::string lit;
  for (char c : substring) {
    if (c == '"' || c == '\\') lit.push_back('\\');
    lit.push_back(c);
  }
  return fmt::format("{}contains({}, Utf8(\"{}\"))", negated ? "NOT " : "", column, lit);
}

std::string LabelListQuery::ToString(std::string_view column) const {
  std::string s = std::string(op == Op::kHasAny ? "array_has_any(" : "array_has_all(") +
                  std::string(column) + ", [";
  for (size_t i = 0; i < labels.size(); ++i) s += (i ? ", " : "") + labels[i].ToString();
  return s + "])";
}

}  // namespace lance::index::scalar
