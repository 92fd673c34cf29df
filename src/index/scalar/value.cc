#include "lance/index/scalar/value.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/float16.h"
#include "index/scalar/key_sort.h"

namespace lance::index::scalar {

ScalarValue ScalarValue::Bool(bool v) {
  ScalarValue s;
  s.kind_ = Kind::kBool;
  s.i_ = v ? 1 : 0;
  return s;
}
ScalarValue ScalarValue::Int(int64_t v) {
  ScalarValue s;
  s.kind_ = Kind::kInt;
  s.i_ = v;
  return s;
}
ScalarValue ScalarValue::UInt(uint64_t v) {
  ScalarValue s;
  s.kind_ = Kind::kUInt;
  s.i_ = static_cast<int64_t>(v);
  return s;
}
ScalarValue ScalarValue::Float(double v) {
  ScalarValue s;
  s.kind_ = Kind::kFloat;
  s.f_ = v;
  return s;
}
ScalarValue ScalarValue::Bytes(std::string v) {
  ScalarValue s;
  s.kind_ = Kind::kBytes;
  s.s_ = std::move(v);
  return s;
}

bool ScalarValue::operator==(const ScalarValue& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::kNull:
      return true;
    case Kind::kFloat:
      return std::memcmp(&f_, &o.f_, sizeof f_) == 0;
    case Kind::kBytes:
      return s_ == o.s_;
    default:
      return i_ == o.i_;
  }
}

std::string ScalarValue::ToString() const {
  switch (kind_) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return i_ ? "true" : "false";
    case Kind::kInt:
      return std::to_string(i_);
    case Kind::kUInt:
      return std::to_string(static_cast<uint64_t>(i_));
    case Kind::kFloat:
      return fmt::format("{}", f_);
    case Kind::kBytes:
      return "'" + s_ + "'";
  }
  return "?";
}

namespace {

template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// IEEE 754 totalOrder as a signed integer key (Rust's f64::total_cmp).
int64_t TotalKey(double d) {
  int64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return bits ^ static_cast<int64_t>(static_cast<uint64_t>(bits >> 63) >> 1);
}

int CmpIntUInt(int64_t a, uint64_t b) {
  if (a < 0) return -1;
  return Cmp(static_cast<uint64_t>(a), b);
}

// An integer (as long double, exact for 64-bit on x86) against a float.
int CmpNumFloat(long double a, double b) {
  if (std::isnan(b)) return std::signbit(b) ? 1 : -1;
  const long double lb = b;
  return a < lb ? -1 : (a > lb ? 1 : 0);
}

int CmpBytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return Cmp(a.size(), b.size());
}

using K = ScalarValue::Kind;

}  // namespace

int Compare(const ScalarValue& a, const ScalarValue& b) {
  if (a.is_null() || b.is_null()) return Cmp(!a.is_null(), !b.is_null());
  const K ka = a.kind();
  const K kb = b.kind();
  if (ka == kb) {
    switch (ka) {
      case K::kBool:
      case K::kInt:
        return Cmp(a.int_value(), b.int_value());
      case K::kUInt:
        return Cmp(a.uint_value(), b.uint_value());
      case K::kFloat:
        return Cmp(TotalKey(a.float_value()), TotalKey(b.float_value()));
      case K::kBytes:
        return CmpBytes(a.bytes(), b.bytes());
      default:
        return 0;
    }
  }
  if (ka == K::kBytes || kb == K::kBytes) return ka == K::kBytes ? 1 : -1;
  auto as_long = [](const ScalarValue& v) -> long double {
    return v.kind() == K::kUInt ? static_cast<long double>(v.uint_value())
                                : static_cast<long double>(v.int_value());
  };
  if (ka == K::kFloat) return -CmpNumFloat(as_long(b), a.float_value());
  if (kb == K::kFloat) return CmpNumFloat(as_long(a), b.float_value());
  if (ka == K::kUInt) return -CmpIntUInt(b.int_value(), a.uint_value());
  if (kb == K::kUInt) return CmpIntUInt(a.int_value(), b.uint_value());
  return Cmp(a.int_value(), b.int_value());  // bool vs int
}

bool IsIndexableKeyType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBool:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kHalfFloat:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
    case TypeId::kDate32:
    case TypeId::kDate64:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      return true;
    default:
      return false;
  }
}

namespace {

// The class of a key type, for the typed fast paths.
enum class Repr { kBool, kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64, kF16, kF32, kF64, kBytes };

Repr ReprOf(const DataType& t) {
  switch (t.id()) {
    case TypeId::kBool:
      return Repr::kBool;
    case TypeId::kInt8:
      return Repr::kI8;
    case TypeId::kInt16:
      return Repr::kI16;
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      return Repr::kI32;
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      return Repr::kI64;
    case TypeId::kUInt8:
      return Repr::kU8;
    case TypeId::kUInt16:
      return Repr::kU16;
    case TypeId::kUInt32:
      return Repr::kU32;
    case TypeId::kUInt64:
      return Repr::kU64;
    case TypeId::kHalfFloat:
      return Repr::kF16;
    case TypeId::kFloat:
      return Repr::kF32;
    case TypeId::kDouble:
      return Repr::kF64;
    default:
      return Repr::kBytes;
  }
}

}  // namespace

ScalarValue ValueAt(const Array& a, int64_t i) {
  if (a.IsNull(i)) return ScalarValue::Null();
  switch (ReprOf(*a.type)) {
    case Repr::kBool:
      return ScalarValue::Bool(a.BoolValue(i));
    case Repr::kI8:
      return ScalarValue::Int(a.Values<int8_t>()[i]);
    case Repr::kI16:
      return ScalarValue::Int(a.Values<int16_t>()[i]);
    case Repr::kI32:
      return ScalarValue::Int(a.Values<int32_t>()[i]);
    case Repr::kI64:
      return ScalarValue::Int(a.Values<int64_t>()[i]);
    case Repr::kU8:
      return ScalarValue::UInt(a.Values<uint8_t>()[i]);
    case Repr::kU16:
      return ScalarValue::UInt(a.Values<uint16_t>()[i]);
    case Repr::kU32:
      return ScalarValue::UInt(a.Values<uint32_t>()[i]);
    case Repr::kU64:
      return ScalarValue::UInt(a.Values<uint64_t>()[i]);
    case Repr::kF16:
      return ScalarValue::Float(HalfToFloat(a.Values<uint16_t>()[i]));
    case Repr::kF32:
      return ScalarValue::Float(a.Values<float>()[i]);
    case Repr::kF64:
      return ScalarValue::Float(a.Values<double>()[i]);
    case Repr::kBytes:
      return ScalarValue::Bytes(std::string(a.GetView(i)));
  }
  return ScalarValue::Null();
}

int CompareAt(const Array& a, int64_t i, const ScalarValue& v) {
  if (a.IsNull(i)) return v.is_null() ? 0 : -1;
  if (v.is_null()) return 1;
  const Repr r = ReprOf(*a.type);
  // Same-kind fast paths; anything mixed goes through Compare.
  switch (r) {
    case Repr::kI32:
      if (v.kind() == K::kInt) return Cmp<int64_t>(a.Values<int32_t>()[i], v.int_value());
      break;
    case Repr::kI64:
      if (v.kind() == K::kInt) return Cmp<int64_t>(a.Values<int64_t>()[i], v.int_value());
      break;
    case Repr::kU64:
      if (v.kind() == K::kUInt) return Cmp<uint64_t>(a.Values<uint64_t>()[i], v.uint_value());
      break;
    case Repr::kF64:
      if (v.kind() == K::kFloat) {
        return Cmp(TotalKey(a.Values<double>()[i]), TotalKey(v.float_value()));
      }
      break;
    case Repr::kBytes:
      if (v.kind() == K::kBytes) return CmpBytes(a.GetView(i), v.bytes());
      break;
    default:
      break;
  }
  return Compare(ValueAt(a, i), v);
}

int CompareElements(const Array& a, int64_t i, int64_t j) {
  const bool ni = a.IsNull(i);
  const bool nj = a.IsNull(j);
  if (ni || nj) return Cmp(!ni, !nj);
  switch (ReprOf(*a.type)) {
    case Repr::kBool:
      return Cmp(a.BoolValue(i), a.BoolValue(j));
    case Repr::kI8:
      return Cmp(a.Values<int8_t>()[i], a.Values<int8_t>()[j]);
    case Repr::kI16:
      return Cmp(a.Values<int16_t>()[i], a.Values<int16_t>()[j]);
    case Repr::kI32:
      return Cmp(a.Values<int32_t>()[i], a.Values<int32_t>()[j]);
    case Repr::kI64:
      return Cmp(a.Values<int64_t>()[i], a.Values<int64_t>()[j]);
    case Repr::kU8:
      return Cmp(a.Values<uint8_t>()[i], a.Values<uint8_t>()[j]);
    case Repr::kU16:
      return Cmp(a.Values<uint16_t>()[i], a.Values<uint16_t>()[j]);
    case Repr::kU32:
      return Cmp(a.Values<uint32_t>()[i], a.Values<uint32_t>()[j]);
    case Repr::kU64:
      return Cmp(a.Values<uint64_t>()[i], a.Values<uint64_t>()[j]);
    case Repr::kF16:
      return Cmp(TotalKey(HalfToFloat(a.Values<uint16_t>()[i])),
                 TotalKey(HalfToFloat(a.Values<uint16_t>()[j])));
    case Repr::kF32:
      return Cmp(TotalKey(a.Values<float>()[i]), TotalKey(a.Values<float>()[j]));
    case Repr::kF64:
      return Cmp(TotalKey(a.Values<double>()[i]), TotalKey(a.Values<double>()[j]));
    case Repr::kBytes:
      return CmpBytes(a.GetView(i), a.GetView(j));
  }
  return 0;
}

bool OrderKeys(const Array& a, std::vector<uint64_t>* keys) {
  const Repr r = ReprOf(*a.type);
  if (r == Repr::kBytes) return false;
  const int64_t n = a.length;
  keys->resize(static_cast<size_t>(n));
  uint64_t* k = keys->data();
  constexpr uint64_t kSign = uint64_t{1} << 63;
  auto ints = [&](auto* v) {
    for (int64_t i = 0; i < n; ++i) k[i] = static_cast<uint64_t>(static_cast<int64_t>(v[i])) ^ kSign;
  };
  auto uints = [&](auto* v) {
    for (int64_t i = 0; i < n; ++i) k[i] = static_cast<uint64_t>(v[i]);
  };
  auto floats = [&](auto* v) {
    for (int64_t i = 0; i < n; ++i) k[i] = static_cast<uint64_t>(TotalKey(static_cast<double>(v[i]))) ^ kSign;
  };
  switch (r) {
    case Repr::kBool:
      for (int64_t i = 0; i < n; ++i) k[i] = a.BoolValue(i) ? 1 : 0;
      break;
    case Repr::kI8: ints(a.Values<int8_t>()); break;
    case Repr::kI16: ints(a.Values<int16_t>()); break;
    case Repr::kI32: ints(a.Values<int32_t>()); break;
    case Repr::kI64: ints(a.Values<int64_t>()); break;
    case Repr::kU8: uints(a.Values<uint8_t>()); break;
    case Repr::kU16: uints(a.Values<uint16_t>()); break;
    case Repr::kU32: uints(a.Values<uint32_t>()); break;
    case Repr::kU64: uints(a.Values<uint64_t>()); break;
    case Repr::kF16: {
      const uint16_t* v = a.Values<uint16_t>();
      for (int64_t i = 0; i < n; ++i) k[i] = static_cast<uint64_t>(TotalKey(HalfToFloat(v[i]))) ^ kSign;
      break;
    }
    case Repr::kF32: floats(a.Values<float>()); break;
    case Repr::kF64: floats(a.Values<double>()); break;
    case Repr::kBytes: return false;
  }
  return true;
}

bool ValuesFromOrderKeys(const DataType& type, const KeyRow* rows, int64_t n, uint8_t* dst) {
  constexpr uint64_t kSign = uint64_t{1} << 63;
  auto ints = [&](auto tag) {
    using T = decltype(tag);
    T* d = reinterpret_cast<T*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<T>(static_cast<int64_t>(rows[i].key ^ kSign));
  };
  auto uints = [&](auto tag) {
    using T = decltype(tag);
    T* d = reinterpret_cast<T*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<T>(rows[i].key);
  };
  switch (ReprOf(type)) {
    case Repr::kI8: ints(int8_t{}); return true;
    case Repr::kI16: ints(int16_t{}); return true;
    case Repr::kI32: ints(int32_t{}); return true;
    case Repr::kI64: ints(int64_t{}); return true;
    case Repr::kU8: uints(uint8_t{}); return true;
    case Repr::kU16: uints(uint16_t{}); return true;
    case Repr::kU32: uints(uint32_t{}); return true;
    case Repr::kU64: uints(uint64_t{}); return true;
    case Repr::kF64: {
      // TotalKey is its own inverse (its mask keeps the sign bit).
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = static_cast<int64_t>(rows[i].key ^ kSign);
        const int64_t bits = k ^ static_cast<int64_t>(static_cast<uint64_t>(k >> 63) >> 1);
        std::memcpy(dst + 8 * i, &bits, 8);
      }
      return true;
    }
    default:
      return false;
  }
}

namespace {

template <typename T>
Status AppendInt(ArrayBuilder& b, const ScalarValue& v) {
  auto& nb = static_cast<NumericBuilder<T>&>(b);
  if (v.kind() == K::kInt || v.kind() == K::kBool) return nb.Append(static_cast<T>(v.int_value()));
  if (v.kind() == K::kUInt) return nb.Append(static_cast<T>(v.uint_value()));
  return Status::InvalidArgument("key {} does not fit an integer column", v.ToString());
}

template <typename T>
Status AppendFloat(ArrayBuilder& b, const ScalarValue& v) {
  if (v.kind() != K::kFloat) {
    return Status::InvalidArgument("key {} does not fit a float column", v.ToString());
  }
  return static_cast<NumericBuilder<T>&>(b).Append(static_cast<T>(v.float_value()));
}

BufferPtr BytesOf(const void* p, size_t n) {
  return BufferFromString(std::string(static_cast<const char*>(p), n));
}

}  // namespace

Result<ArrayPtr> MakeKeyArray(const DataTypePtr& type, const std::vector<ScalarValue>& values) {
  if (!IsIndexableKeyType(*type)) {
    return Status::InvalidArgument("scalar index keys of type {}", type->ToString());
  }
  LANCE_ASSIGN_OR_RAISE(std::unique_ptr<ArrayBuilder> b, MakeBuilder(type));
  LANCE_RETURN_NOT_OK(b->Reserve(static_cast<int64_t>(values.size())));
  const Repr r = ReprOf(*type);
  for (const ScalarValue& v : values) {
    if (v.is_null()) {
      LANCE_RETURN_NOT_OK(b->AppendNull());
      continue;
    }
    switch (r) {
      case Repr::kBool:
        LANCE_RETURN_NOT_OK(static_cast<BooleanBuilder&>(*b).Append(v.int_value() != 0));
        break;
      case Repr::kI8:
        LANCE_RETURN_NOT_OK(AppendInt<int8_t>(*b, v));
        break;
      case Repr::kI16:
        LANCE_RETURN_NOT_OK(AppendInt<int16_t>(*b, v));
        break;
      case Repr::kI32:
        LANCE_RETURN_NOT_OK(AppendInt<int32_t>(*b, v));
        break;
      case Repr::kI64:
        LANCE_RETURN_NOT_OK(AppendInt<int64_t>(*b, v));
        break;
      case Repr::kU8:
        LANCE_RETURN_NOT_OK(AppendInt<uint8_t>(*b, v));
        break;
      case Repr::kU16:
        LANCE_RETURN_NOT_OK(AppendInt<uint16_t>(*b, v));
        break;
      case Repr::kU32:
        LANCE_RETURN_NOT_OK(AppendInt<uint32_t>(*b, v));
        break;
      case Repr::kU64:
        LANCE_RETURN_NOT_OK(AppendInt<uint64_t>(*b, v));
        break;
      case Repr::kF16:
        if (v.kind() != K::kFloat) return Status::InvalidArgument("key {} for float16", v.ToString());
        LANCE_RETURN_NOT_OK(static_cast<NumericBuilder<uint16_t>&>(*b).Append(
            FloatToHalf(static_cast<float>(v.float_value()))));
        break;
      case Repr::kF32:
        LANCE_RETURN_NOT_OK(AppendFloat<float>(*b, v));
        break;
      case Repr::kF64:
        LANCE_RETURN_NOT_OK(AppendFloat<double>(*b, v));
        break;
      case Repr::kBytes:
        if (v.kind() != K::kBytes) return Status::InvalidArgument("key {} for {}", v.ToString(), type->ToString());
        if (type->id() == TypeId::kFixedSizeBinary) {
          LANCE_RETURN_NOT_OK(static_cast<FixedSizeBinaryBuilder&>(*b).Append(v.bytes()));
        } else {
          LANCE_RETURN_NOT_OK(static_cast<BinaryBuilder&>(*b).Append(v.bytes()));
        }
        break;
    }
  }
  return b->Finish();
}

Result<ArrayPtr> GatherKeys(const Array& a, const std::vector<int64_t>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size());
  // Validity.
  BufferPtr validity;
  int64_t nulls = 0;
  if (a.null_count > 0) {
    BitmapBuilder vb;
    LANCE_RETURN_NOT_OK(vb.Reserve(n));
    for (int64_t r : rows) {
      const bool valid = a.IsValid(r);
      nulls += valid ? 0 : 1;
      LANCE_RETURN_NOT_OK(vb.Append(valid));
    }
    if (nulls > 0) {
      LANCE_ASSIGN_OR_RAISE(validity, vb.Finish());
    }
  }
  const DataType& t = *a.type;
  if (t.id() == TypeId::kBool) {
    BitmapBuilder bits;
    LANCE_RETURN_NOT_OK(bits.Reserve(n));
    for (int64_t r : rows) LANCE_RETURN_NOT_OK(bits.Append(a.BoolValue(r)));
    LANCE_ASSIGN_OR_RAISE(BufferPtr values, bits.Finish());
    return Array::Make(a.type, n, {validity, values});
  }
  if (t.is_binary_like() && t.id() != TypeId::kFixedSizeBinary) {
    const bool large = t.has_large_offsets();
    std::string data;
    std::vector<int64_t> offs;
    offs.reserve(rows.size() + 1);
    offs.push_back(0);
    for (int64_t r : rows) {
      if (a.IsValid(r)) data.append(a.GetView(r));
      offs.push_back(static_cast<int64_t>(data.size()));
    }
    BufferPtr offsets;
    if (large) {
      offsets = BytesOf(offs.data(), offs.size() * 8);
    } else {
      if (data.size() > static_cast<size_t>(INT32_MAX)) {
        return Status::InvalidArgument("gathered keys exceed 2 GiB of {} data", t.ToString());
      }
      std::vector<int32_t> o32(offs.begin(), offs.end());
      offsets = BytesOf(o32.data(), o32.size() * 4);
    }
    return Array::Make(a.type, n, {validity, offsets, BufferFromString(std::move(data))});
  }
  const int width = t.id() == TypeId::kFixedSizeBinary ? t.byte_width() : t.bit_width() / 8;
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, AllocateBuffer(n * width));
  const uint8_t* src = a.buffers[1]->data() + a.offset * width;
  uint8_t* dst = out->mutable_data();
  // A typed copy per element for the common widths (a memcpy of a runtime width is a call).
  auto gather = [&](auto tag) {
    using T = decltype(tag);
    const T* s = reinterpret_cast<const T*>(src);
    T* d = reinterpret_cast<T*>(dst);
    for (int64_t k = 0; k < n; ++k) d[k] = s[rows[static_cast<size_t>(k)]];
  };
  switch (width) {
    case 1: gather(uint8_t{}); break;
    case 2: gather(uint16_t{}); break;
    case 4: gather(uint32_t{}); break;
    case 8: gather(uint64_t{}); break;
    default:
      for (int64_t k = 0; k < n; ++k) {
        std::memcpy(dst + k * width, src + rows[static_cast<size_t>(k)] * width, static_cast<size_t>(width));
      }
  }
  return Array::Make(a.type, n, {validity, std::move(out)});
}

}  // namespace lance::index::scalar
