// How the kernels build their results and read their scalar operands: datums of scalars,
// boolean bitmaps packed 8 results a byte, validity copied or merged from the operands,
// all-null results, and scalar literals as int64 / double. Internal to the expr layer
// (kernels.cc, predicate_kernels.cc).
#pragma once

#include <cstdint>
#include <utility>

#include "expr/datum.h"
#include "lance/columnar/array.h"
#include "lance/core/bit_util.h"
#include "lance/core/result.h"

namespace lance::expr::kernel {

inline Datum ScalarDatum(Scalar s) {
  Datum d;
  d.scalar = std::move(s);
  return d;
}

inline Scalar BoolScalar(bool valid, bool v) {
  Scalar s;
  s.type = boolean();
  s.valid = valid;
  s.b = v;
  return s;
}

// Writes bit i = pred(i) for i in [0, n), a byte at a time.
template <typename Pred>
void PackBits(int64_t n, uint8_t* out, Pred pred) {
  const int64_t full = n / 8;
  for (int64_t b = 0; b < full; ++b) {
    const int64_t base = b * 8;
    uint8_t byte = 0;
    for (int j = 0; j < 8; ++j) byte |= static_cast<uint8_t>(pred(base + j) ? 1 : 0) << j;
    out[b] = byte;
  }
  if (n % 8) {
    uint8_t byte = 0;
    for (int64_t i = full * 8; i < n; ++i) {
      byte |= static_cast<uint8_t>(pred(i) ? 1 : 0) << (i - full * 8);
    }
    out[full] = byte;
  }
}

inline Result<BufferPtr> NewBitmap(int64_t n) { return AllocateBuffer(bit_util::BytesForBits(n), true); }

// Validity of `a` (n elements) copied to offset 0, or null when all valid.
inline Result<BufferPtr> ValidityOf(const Array& a, int64_t n) {
  if (a.type_id() == TypeId::kNull) return NewBitmap(n);  // all null
  if (a.null_count == 0 || a.validity() == nullptr) return BufferPtr();
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, NewBitmap(n));
  bit_util::CopyBitmap(a.validity(), a.offset, n, out->mutable_data(), 0);
  return out;
}

// AND of the validity of the array operands (null = all valid).
inline Result<BufferPtr> MergeValidity(const Datum& a, const Datum& b, int64_t n) {
  BufferPtr va, vb;
  if (a.is_array()) {
    LANCE_ASSIGN_OR_RAISE(va, ValidityOf(*a.array, n));
  }
  if (b.is_array()) {
    LANCE_ASSIGN_OR_RAISE(vb, ValidityOf(*b.array, n));
  }
  if (!va) return vb;
  if (!vb) return va;
  uint8_t* o = va->mutable_data();
  const uint8_t* p = vb->data();
  for (int64_t i = 0; i < bit_util::BytesForBits(n); ++i) o[i] &= p[i];
  return va;
}

inline Result<Datum> BoolArray(int64_t n, BufferPtr values, BufferPtr validity) {
  Datum d;
  d.array = Array::Make(boolean(), n, {std::move(validity), std::move(values)});
  return d;
}

inline Result<Datum> AllNull(const DataTypePtr& type, int64_t n, bool scalar) {
  if (scalar) {
    Scalar s;
    s.type = type;
    return ScalarDatum(s);
  }
  Datum d;
  LANCE_ASSIGN_OR_RAISE(d.array, MakeArrayOfNulls(type, n));
  return d;
}

inline int64_t IntValue(const Scalar& s) { return s.type->id() == TypeId::kBool ? s.b : s.i; }
inline double FloatValue(const Scalar& s) {
  const TypeId id = s.type->id();
  if (id >= TypeId::kHalfFloat && id <= TypeId::kDouble) return s.d;
  if (id == TypeId::kUInt64) return static_cast<double>(static_cast<uint64_t>(s.i));
  return static_cast<double>(IntValue(s));
}

}  // namespace lance::expr::kernel
