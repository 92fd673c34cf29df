// ScalarValue: one key of a scalar index (or a query operand), and the total order the
// reference's indexes sort by.
//
// Kinds: null, bool, signed int (int8..64, date32/64, time, timestamp, duration as their
// stored integer), unsigned int, float (float16/32/64 widened to double), bytes (utf8,
// large_utf8, binary, large_binary, fixed_size_binary). The order is lance's
// OrderableScalarValue: null first; bools false < true; integers by value; floats by IEEE
// total order (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN); bytes lexicographically as
// unsigned bytes. Numbers of different kinds compare by their mathematical value (a query
// operand needs no cast to the column's width); a float NaN sorts after every integer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/type.h"
#include "lance/core/result.h"

namespace lance::index::scalar {

class ScalarValue {
 public:
  enum class Kind : uint8_t { kNull, kBool, kInt, kUInt, kFloat, kBytes };

  ScalarValue() = default;
  static ScalarValue Null() { return {}; }
  static ScalarValue Bool(bool v);
  static ScalarValue Int(int64_t v);
  static ScalarValue UInt(uint64_t v);
  static ScalarValue Float(double v);
  static ScalarValue Bytes(std::string v);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool bool_value() const { return i_ != 0; }
  int64_t int_value() const { return i_; }
  uint64_t uint_value() const { return static_cast<uint64_t>(i_); }
  double float_value() const { return f_; }
  const std::string& bytes() const { return s_; }

  bool operator==(const ScalarValue& o) const;
  std::string ToString() const;  // "null", "true", "-3", "1.5", "'abc'" (tests, plans)

 private:
  Kind kind_ = Kind::kNull;
  int64_t i_ = 0;
  double f_ = 0;
  std::string s_;
};

// -1, 0, 1 in the order above.
int Compare(const ScalarValue& a, const ScalarValue& b);
struct ScalarValueLess {
  bool operator()(const ScalarValue& a, const ScalarValue& b) const { return Compare(a, b) < 0; }
};

// Whether a scalar index can hold keys of `type` (the types above).
bool IsIndexableKeyType(const DataType& type);

// Element i of `array` (relative to its slice). REQUIRES: IsIndexableKeyType(*array.type).
ScalarValue ValueAt(const Array& array, int64_t i);
// Compare(ValueAt(array, i), v) without materializing the element.
int CompareAt(const Array& array, int64_t i, const ScalarValue& v);
// Compare(ValueAt(array, i), ValueAt(array, j)).
int CompareElements(const Array& array, int64_t i, int64_t j);

// An array of `type` holding `values` (nulls where null). Errors: InvalidArgument when a
// value's kind does not fit the type.
Result<ArrayPtr> MakeKeyArray(const DataTypePtr& type, const std::vector<ScalarValue>& values);
// Elements `rows` of `array`, in that order. REQUIRES: IsIndexableKeyType, rows in range.
Result<ArrayPtr> GatherKeys(const Array& array, const std::vector<int64_t>& rows);

}  // namespace lance::index::scalar
