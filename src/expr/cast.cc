// CAST between numbers, strings, booleans, dates, timestamps and decimals, element by
// element through Scalar, with one native loop for number -> number.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "expr/cast.h"
#include "expr/temporal.h"
#include "lance/columnar/builder.h"
#include "lance/columnar/float16.h"
#include "lance/columnar/json.h"
#include "lance/expr/expression.h"

namespace lance::expr {

namespace {

int64_t UnitsPerSecond(TimeUnit u) {
  switch (u) {
    case TimeUnit::kSecond: return 1;
    case TimeUnit::kMilli: return 1000;
    case TimeUnit::kMicro: return 1000000;
    case TimeUnit::kNano: return 1000000000;
  }
  return 1;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

__int128 Pow10(int32_t n) {
  __int128 v = 1;
  for (int32_t i = 0; i < n; ++i) v *= 10;
  return v;
}

bool IsInt(TypeId id) { return id >= TypeId::kInt8 && id <= TypeId::kUInt64; }
bool IsFloat(TypeId id) { return id >= TypeId::kHalfFloat && id <= TypeId::kDouble; }
bool IsString(TypeId id) { return id == TypeId::kString || id == TypeId::kLargeString; }

struct IntRange {
  __int128 lo, hi;
};
IntRange RangeOf(TypeId id) {
  switch (id) {
    case TypeId::kInt8: return {INT8_MIN, INT8_MAX};
    case TypeId::kInt16: return {INT16_MIN, INT16_MAX};
    case TypeId::kInt32: return {INT32_MIN, INT32_MAX};
    case TypeId::kUInt8: return {0, UINT8_MAX};
    case TypeId::kUInt16: return {0, UINT16_MAX};
    case TypeId::kUInt32: return {0, UINT32_MAX};
    case TypeId::kUInt64: return {0, static_cast<__int128>(UINT64_MAX)};
    default: return {INT64_MIN, INT64_MAX};
  }
}

// The value of a numeric scalar as a double (ints, floats, decimals, bools).
double AsDouble(const Scalar& s) {
  const TypeId id = s.type->id();
  if (IsFloat(id)) return s.d;
  if (id == TypeId::kDecimal128) {
    return static_cast<double>(s.dec) / std::pow(10.0, s.type->scale());
  }
  if (id == TypeId::kDecimal256) return Decimal256ToDouble(s.dec256, s.type->scale());
  if (id == TypeId::kBool) return s.b ? 1 : 0;
  if (id == TypeId::kUInt64) return static_cast<double>(static_cast<uint64_t>(s.i));
  return static_cast<double>(s.i);
}

std::string FloatText(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

Status Bad(const Scalar& s, const DataTypePtr& to, const std::string& why) {
  return Status::InvalidArgument("cannot cast {} value {} to {}: {}", s.type->ToString(),
                                 ScalarToString(s), to->ToString(), why);
}

}  // namespace

std::string ScalarToString(const Scalar& s) {
  if (!s.valid) return "NULL";
  const TypeId id = s.type->id();
  if (id == TypeId::kBool) return s.b ? "true" : "false";
  if (IsFloat(id)) return FloatText(s.d);
  if (id == TypeId::kUInt64) return std::to_string(static_cast<uint64_t>(s.i));
  if (IsInt(id)) return std::to_string(s.i);
  if (id == TypeId::kDecimal128) return Decimal128ToString(s.dec, s.type->scale());
  if (id == TypeId::kDecimal256) return Decimal256ToString(s.dec256, s.type->scale());
  if (IsString(id) || s.type->is_binary_like()) return fmt::format("'{}'", s.s);
  if (id == TypeId::kDate32) return FormatDate(s.i);
  if (id == TypeId::kDate64) return FormatDate(FloorDiv(s.i, 86400000));
  if (id == TypeId::kTimestamp) {
    const int64_t f = 1000000000 / UnitsPerSecond(s.type->unit());
    return FormatTimestampNs(s.i * f);
  }
  return std::to_string(s.i);
}

Scalar GetScalar(const Array& a, int64_t i) {
  Scalar s;
  s.type = a.type;
  if (a.IsNull(i)) return s;
  s.valid = true;
  switch (a.type_id()) {
    case TypeId::kBool: s.b = a.BoolValue(i); break;
    case TypeId::kHalfFloat: s.d = static_cast<double>(HalfToFloat(a.Values<uint16_t>()[i])); break;
    case TypeId::kFloat: s.d = a.Values<float>()[i]; break;
    case TypeId::kDouble: s.d = a.Values<double>()[i]; break;
    case TypeId::kDecimal128: {
      __int128 v;
      std::memcpy(&v, a.buffers[1]->data() + (a.offset + i) * 16, 16);
      s.dec = v;
      break;
    }
    case TypeId::kDecimal256:
      std::memcpy(s.dec256.limbs.data(), a.buffers[1]->data() + (a.offset + i) * 32, 32);
      break;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
      s.s = std::string(a.GetView(i));
      break;
    default:
      if (IsNativeNumeric(a.type_id())) {
        s.i = VisitNative(a, [&](const auto* v) { return static_cast<int64_t>(v[i]); });
      } else {
        s.valid = false;  // nested types are not scalars
      }
  }
  return s;
}

Status AppendScalar(ArrayBuilder* builder, const Scalar& s) {
  if (!s.valid) return builder->AppendNull();
  switch (s.type->id()) {
    case TypeId::kBool: return static_cast<BooleanBuilder*>(builder)->Append(s.b);
    case TypeId::kInt8: return static_cast<NumericBuilder<int8_t>*>(builder)->Append(static_cast<int8_t>(s.i));
    case TypeId::kInt16: return static_cast<NumericBuilder<int16_t>*>(builder)->Append(static_cast<int16_t>(s.i));
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      return static_cast<NumericBuilder<int32_t>*>(builder)->Append(static_cast<int32_t>(s.i));
    case TypeId::kUInt8: return static_cast<NumericBuilder<uint8_t>*>(builder)->Append(static_cast<uint8_t>(s.i));
    case TypeId::kUInt16: return static_cast<NumericBuilder<uint16_t>*>(builder)->Append(static_cast<uint16_t>(s.i));
    case TypeId::kUInt32: return static_cast<NumericBuilder<uint32_t>*>(builder)->Append(static_cast<uint32_t>(s.i));
    case TypeId::kUInt64: return static_cast<NumericBuilder<uint64_t>*>(builder)->Append(static_cast<uint64_t>(s.i));
    case TypeId::kHalfFloat:
      return static_cast<NumericBuilder<uint16_t>*>(builder)->Append(FloatToHalf(static_cast<float>(s.d)));
    case TypeId::kFloat: return static_cast<NumericBuilder<float>*>(builder)->Append(static_cast<float>(s.d));
    case TypeId::kDouble: return static_cast<NumericBuilder<double>*>(builder)->Append(s.d);
    case TypeId::kDecimal128: return static_cast<Decimal128Builder*>(builder)->Append(s.dec);
    case TypeId::kDecimal256: return static_cast<Decimal256Builder*>(builder)->Append(s.dec256);
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return static_cast<BinaryBuilder*>(builder)->Append(s.s);
    case TypeId::kFixedSizeBinary: return static_cast<FixedSizeBinaryBuilder*>(builder)->Append(s.s);
    default:
      if (IsNativeNumeric(s.type->id())) {
        return static_cast<NumericBuilder<int64_t>*>(builder)->Append(s.i);
      }
      return Status::NotSupported("expression values of type {}", s.type->ToString());
  }
}

Result<ArrayPtr> MakeArrayFromScalar(const Scalar& s, int64_t n) {
  if (!s.valid) return MakeArrayOfNulls(s.type, n);
  LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(s.type));
  LANCE_RETURN_NOT_OK(builder->Reserve(n));
  for (int64_t i = 0; i < n; ++i) LANCE_RETURN_NOT_OK(AppendScalar(builder.get(), s));
  return builder->Finish();
}

Result<Scalar> CastScalar(const Scalar& s, const DataTypePtr& to) {
  Scalar out;
  out.type = to;
  if (!s.valid) return out;
  out.valid = true;
  const TypeId from = s.type->id();
  const TypeId tid = to->id();
  if (s.type->Equals(*to)) {
    out = s;
    out.type = to;
    return out;
  }
  const bool numeric_from = IsInt(from) || IsFloat(from) || from == TypeId::kDecimal128 ||
                            from == TypeId::kDecimal256 ||
                            from == TypeId::kBool;
  if (tid == TypeId::kBool) {
    if (numeric_from) {
      out.b = AsDouble(s) != 0;
      return out;
    }
    if (IsString(from)) {
      std::string t = s.s;
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (t == "true" || t == "t" || t == "1" || t == "yes" || t == "y" || t == "on") {
        out.b = true;
        return out;
      }
      if (t == "false" || t == "f" || t == "0" || t == "no" || t == "n" || t == "off") {
        out.b = false;
        return out;
      }
      return Bad(s, to, "not a boolean");
    }
  } else if (IsInt(tid)) {
    const IntRange r = RangeOf(tid);
    __int128 v = 0;
    if (IsInt(from)) {
      v = from == TypeId::kUInt64 ? static_cast<__int128>(static_cast<uint64_t>(s.i)) : s.i;
    } else if (from == TypeId::kBool) {
      v = s.b;
    } else if (IsFloat(from)) {
      if (std::isnan(s.d) || std::trunc(s.d) < -1.8e19 || std::trunc(s.d) > 1.9e19) {
        return Bad(s, to, "out of range");
      }
      v = static_cast<__int128>(std::trunc(s.d));
    } else if (from == TypeId::kDecimal128) {
      v = s.dec / Pow10(s.type->scale());
    } else if (IsString(from)) {
      std::string t = s.s;
      while (!t.empty() && t.back() == ' ') t.pop_back();
      size_t start = 0;
      while (start < t.size() && t[start] == ' ') ++start;
      t = t.substr(start);
      errno = 0;
      char* end = nullptr;
      const long long p = std::strtoll(t.c_str(), &end, 10);
      if (t.empty() || errno != 0 || end != t.c_str() + t.size()) return Bad(s, to, "not an integer");
      v = p;
    } else if (from == TypeId::kDate32 || from == TypeId::kDate64 || from == TypeId::kTimestamp ||
               from == TypeId::kDuration || from == TypeId::kTime32 || from == TypeId::kTime64) {
      v = s.i;
    } else {
      return Status::NotSupported("CAST from {} to {}", s.type->ToString(), to->ToString());
    }
    if (v < r.lo || v > r.hi) return Bad(s, to, "out of range");
    out.i = static_cast<int64_t>(v);
    return out;
  } else if (IsFloat(tid)) {
    if (numeric_from) {
      out.d = AsDouble(s);
      if (tid != TypeId::kDouble) out.d = static_cast<float>(out.d);
      return out;
    }
    if (IsString(from)) {
      errno = 0;
      char* end = nullptr;
      const double d = std::strtod(s.s.c_str(), &end);
      if (s.s.empty() || end != s.s.c_str() + s.s.size()) return Bad(s, to, "not a number");
      out.d = tid == TypeId::kDouble ? d : static_cast<float>(d);
      return out;
    }
  } else if (IsString(tid)) {
    if (IsString(from) || s.type->is_binary_like()) {
      out.s = s.s;
    } else {
      std::string t = ScalarToString(s);
      if (from == TypeId::kTimestamp) {
        const int64_t f = 1000000000 / UnitsPerSecond(s.type->unit());
        t = FormatTimestampNs(s.i * f);
      }
      out.s = t;
    }
    return out;
  } else if (tid == TypeId::kDate32) {
    if (IsString(from)) {
      auto d = ParseDate(s.s);
      if (!d) {
        auto ts = ParseTimestampNs(s.s);
        if (!ts) return Bad(s, to, "not a date (YYYY-MM-DD)");
        d = FloorDiv(*ts, 86400LL * 1000000000LL);
      }
      out.i = *d;
      return out;
    }
    if (from == TypeId::kDate64) {
      out.i = FloorDiv(s.i, 86400000);
      return out;
    }
    if (from == TypeId::kTimestamp) {
      out.i = FloorDiv(s.i, 86400 * UnitsPerSecond(s.type->unit()));
      return out;
    }
  } else if (tid == TypeId::kDate64) {
    if (from == TypeId::kDate32) {
      out.i = s.i * 86400000;
      return out;
    }
  } else if (tid == TypeId::kTimestamp) {
    const int64_t per_s = UnitsPerSecond(tid == TypeId::kTimestamp ? to->unit() : TimeUnit::kNano);
    if (IsString(from)) {
      auto ts = ParseTimestampNs(s.s);
      if (!ts) return Bad(s, to, "not a timestamp (YYYY-MM-DD HH:MM:SS[.f])");
      out.i = FloorDiv(*ts, 1000000000 / per_s);
      return out;
    }
    if (from == TypeId::kDate32) {
      out.i = s.i * 86400 * per_s;
      return out;
    }
    if (from == TypeId::kDate64) {
      out.i = per_s >= 1000 ? s.i * (per_s / 1000) : FloorDiv(s.i, 1000);
      return out;
    }
    if (from == TypeId::kTimestamp) {
      const int64_t src = UnitsPerSecond(s.type->unit());
      out.i = per_s >= src ? s.i * (per_s / src) : FloorDiv(s.i, src / per_s);
      return out;
    }
    if (IsInt(from)) {
      out.i = s.i;
      return out;
    }
  } else if (tid == TypeId::kDecimal128) {
    const __int128 limit = Pow10(to->precision());
    __int128 v = 0;
    if (IsInt(from) || from == TypeId::kBool) {
      v = (from == TypeId::kBool ? s.b : s.i) * Pow10(to->scale());
    } else if (IsFloat(from)) {
      const double scaled = std::round(s.d * std::pow(10.0, to->scale()));
      if (std::isnan(scaled) || std::fabs(scaled) >= 1e38) return Bad(s, to, "out of range");
      v = static_cast<__int128>(scaled);
    } else if (from == TypeId::kDecimal128) {
      const int32_t diff = to->scale() - s.type->scale();
      if (diff >= 0) {
        v = s.dec * Pow10(diff);
      } else {
        const __int128 p = Pow10(-diff);
        v = s.dec / p;
        const __int128 rem = s.dec % p;
        if (rem * 2 >= p) ++v;  // round half away from zero
        if (rem * 2 <= -p) --v;
      }
    } else if (IsString(from)) {
      auto r = Decimal128FromString(s.s, to->precision(), to->scale());
      if (!r.ok()) return Bad(s, to, r.status().message());
      v = *r;
    } else {
      return Status::NotSupported("CAST from {} to {}", s.type->ToString(), to->ToString());
    }
    if (v >= limit || v <= -limit) return Bad(s, to, "does not fit the precision");
    out.dec = v;
    return out;
  } else if (tid == TypeId::kDecimal256) {
    // Through the exact decimal text of the value; the parser checks precision and scale.
    // Floats are scaled and rounded half away from zero first, as for decimal128.
    std::string text;
    int32_t text_scale = to->scale();
    if (IsString(from)) {
      text = s.s;
    } else if (IsFloat(from)) {
      const double scaled = std::round(s.d * std::pow(10.0, to->scale()));
      if (!std::isfinite(scaled)) return Bad(s, to, "out of range");
      text = fmt::format("{:.0f}", scaled);
      text_scale = 0;  // the text is the unscaled value
    } else if (IsInt(from) || from == TypeId::kBool || from == TypeId::kDecimal128 ||
               from == TypeId::kDecimal256) {
      text = ScalarToString(s);
    } else {
      return Status::NotSupported("CAST from {} to {}", s.type->ToString(), to->ToString());
    }
    auto r = Decimal256FromString(text, to->precision(), text_scale);
    if (!r.ok()) return Bad(s, to, r.status().message());
    out.dec256 = *r;
    return out;
  }
  return Status::NotSupported("CAST from {} to {}", s.type->ToString(), to->ToString());
}

Result<ArrayPtr> Cast(const ArrayPtr& array, const DataTypePtr& to) {
  if (array->type->Equals(*to)) return array;
  const int64_t n = array->length;
  if (array->type_id() == TypeId::kNull) return MakeArrayOfNulls(to, n);
  // Number -> float/double, and int -> wider int: one native loop.
  const TypeId from = array->type_id();
  if ((IsInt(from) || from == TypeId::kFloat || from == TypeId::kDouble) &&
      (to->id() == TypeId::kDouble || to->id() == TypeId::kFloat || to->id() == TypeId::kInt64)) {
    const bool to_int64 = to->id() == TypeId::kInt64;
    if (!to_int64 || (IsInt(from) && from != TypeId::kUInt64)) {
      const int64_t width = to->id() == TypeId::kFloat ? 4 : 8;
      LANCE_ASSIGN_OR_RAISE(BufferPtr values, AllocateBuffer(n * width));
      VisitNative(*array, [&](const auto* v) {
        if (to->id() == TypeId::kDouble) {
          double* o = values->mutable_data_as<double>();
          for (int64_t i = 0; i < n; ++i) o[i] = static_cast<double>(v[i]);
        } else if (to->id() == TypeId::kFloat) {
          float* o = values->mutable_data_as<float>();
          for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>(v[i]);
        } else {
          int64_t* o = values->mutable_data_as<int64_t>();
          for (int64_t i = 0; i < n; ++i) o[i] = static_cast<int64_t>(v[i]);
        }
        return 0;
      });
      BufferPtr validity;
      if (array->null_count > 0) {
        LANCE_ASSIGN_OR_RAISE(validity, AllocateBuffer(bit_util::BytesForBits(n), true));
        bit_util::CopyBitmap(array->validity(), array->offset, n, validity->mutable_data(), 0);
      }
      return Array::Make(to, n, {validity, values});
    }
  }
  LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(to));
  LANCE_RETURN_NOT_OK(builder->Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    LANCE_ASSIGN_OR_RAISE(Scalar s, CastScalar(GetScalar(*array, i), to));
    LANCE_RETURN_NOT_OK(AppendScalar(builder.get(), s));
  }
  return builder->Finish();
}

}  // namespace lance::expr
