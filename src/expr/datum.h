// Internal values of expression evaluation: a Datum is either a whole array or one scalar
// that stands for every row (literals, and anything computed only from literals).
#pragma once

#include <cstdint>
#include <string>

#include "lance/columnar/array.h"
#include "lance/columnar/builder.h"
#include "lance/core/result.h"

namespace lance::expr {

// One value of `type`. Which member holds it depends on the type: bool -> b; integers,
// dates, times, timestamps, durations -> i (in the type's unit); floats -> d; strings and
// binaries -> s; decimal128 -> dec, decimal256 -> dec256 (unscaled).
struct Scalar {
  DataTypePtr type;
  bool valid = false;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;
  __int128 dec = 0;
  Int256 dec256;
};

struct Datum {
  ArrayPtr array;  // null for a scalar
  Scalar scalar;
  bool is_array() const { return array != nullptr; }
  const DataTypePtr& type() const { return array ? array->type : scalar.type; }
};

// Element i of `array` as a scalar. REQUIRES: a type Scalar can hold (not nested).
Scalar GetScalar(const Array& array, int64_t i);
// `n` copies of `s` as an array of s.type.
Result<ArrayPtr> MakeArrayFromScalar(const Scalar& s, int64_t n);
// Appends `s` to a builder made by MakeBuilder(s.type).
Status AppendScalar(ArrayBuilder* builder, const Scalar& s);

// The C type of fixed-width numeric/temporal values (not bool, float16 or decimal).
template <typename F>
auto VisitNative(const Array& a, F&& f) {
  switch (a.type_id()) {
    case TypeId::kInt8: return f(a.Values<int8_t>());
    case TypeId::kInt16: return f(a.Values<int16_t>());
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: return f(a.Values<int32_t>());
    case TypeId::kUInt8: return f(a.Values<uint8_t>());
    case TypeId::kUInt16: return f(a.Values<uint16_t>());
    case TypeId::kUInt32: return f(a.Values<uint32_t>());
    case TypeId::kUInt64: return f(a.Values<uint64_t>());
    case TypeId::kFloat: return f(a.Values<float>());
    case TypeId::kDouble: return f(a.Values<double>());
    default: return f(a.Values<int64_t>());  // int64, date64, time64, timestamp, duration
  }
}

// True for the types VisitNative reads.
inline bool IsNativeNumeric(TypeId id) {
  switch (id) {
    case TypeId::kInt8: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
    case TypeId::kUInt8: case TypeId::kUInt16: case TypeId::kUInt32: case TypeId::kUInt64:
    case TypeId::kFloat: case TypeId::kDouble: case TypeId::kDate32: case TypeId::kDate64:
    case TypeId::kTime32: case TypeId::kTime64: case TypeId::kTimestamp: case TypeId::kDuration:
      return true;
    default:
      return false;
  }
}

}  // namespace lance::expr
