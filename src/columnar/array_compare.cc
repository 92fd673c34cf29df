// Array::Equals: logical comparison of two arrays of the same type.
//
// Ranges are compared element by element over the logical values: slice offsets are applied,
// bytes beneath null slots are ignored, list-likes compare their element ranges (wherever the
// offsets put them) and dictionaries compare decoded values, so two dictionary arrays with
// different dictionaries but the same values are equal. Fixed-width values compare bitwise.
#include <cstring>

#include "lance/columnar/array.h"

namespace lance {

namespace {

bool RangeEquals(const Array& a, int64_t ai, const Array& b, int64_t bi, int64_t n);

// Same validity for a[ai + k] and b[bi + k]; returns false at the first difference.
bool ValidityEquals(const Array& a, int64_t ai, const Array& b, int64_t bi, int64_t n) {
  if (a.null_count == 0 && b.null_count == 0) return true;
  for (int64_t k = 0; k < n; ++k) {
    if (a.IsValid(ai + k) != b.IsValid(bi + k)) return false;
  }
  return true;
}

bool FixedWidthEquals(const Array& a, int64_t ai, const Array& b, int64_t bi, int64_t n,
                      int64_t width) {
  const uint8_t* pa = a.buffers[1]->data() + (a.offset + ai) * width;
  const uint8_t* pb = b.buffers[1]->data() + (b.offset + bi) * width;
  if (a.null_count == 0 && b.null_count == 0) {
    return std::memcmp(pa, pb, static_cast<size_t>(n * width)) == 0;
  }
  for (int64_t k = 0; k < n; ++k) {
    if (a.IsValid(ai + k) &&
        std::memcmp(pa + k * width, pb + k * width, static_cast<size_t>(width)) != 0) {
      return false;
    }
  }
  return true;
}

bool RangeEquals(const Array& a, int64_t ai, const Array& b, int64_t bi, int64_t n) {
  if (n == 0) return true;
  const DataType& type = *a.type;
  if (type.id() == TypeId::kNull) return true;
  if (!ValidityEquals(a, ai, b, bi, n)) return false;
  switch (type.id()) {
    case TypeId::kNull: return true;
    case TypeId::kBool:
      for (int64_t k = 0; k < n; ++k) {
        if (a.IsValid(ai + k) && a.BoolValue(ai + k) != b.BoolValue(bi + k)) return false;
      }
      return true;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      for (int64_t k = 0; k < n; ++k) {
        if (a.IsValid(ai + k) && a.GetView(ai + k) != b.GetView(bi + k)) return false;
      }
      return true;
    case TypeId::kFixedSizeBinary:
      return FixedWidthEquals(a, ai, b, bi, n, type.byte_width());
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
      for (int64_t k = 0; k < n; ++k) {
        if (!a.IsValid(ai + k)) continue;
        const int64_t len = a.ValueLength(ai + k);
        if (len != b.ValueLength(bi + k)) return false;
        if (!RangeEquals(*a.children[0], a.ValueOffset(ai + k), *b.children[0],
                         b.ValueOffset(bi + k), len)) {
          return false;
        }
      }
      return true;
    case TypeId::kFixedSizeList: {
      const int64_t size = type.list_size();
      if (a.null_count == 0 && b.null_count == 0) {
        return RangeEquals(*a.children[0], (a.offset + ai) * size, *b.children[0],
                           (b.offset + bi) * size, n * size);
      }
      for (int64_t k = 0; k < n; ++k) {
        if (a.IsValid(ai + k) &&
            !RangeEquals(*a.children[0], (a.offset + ai + k) * size, *b.children[0],
                         (b.offset + bi + k) * size, size)) {
          return false;
        }
      }
      return true;
    }
    case TypeId::kStruct:
      for (size_t c = 0; c < a.children.size(); ++c) {
        const Array& ca = *a.children[c];
        const Array& cb = *b.children[c];
        if (a.null_count == 0 && b.null_count == 0) {
          if (!RangeEquals(ca, a.offset + ai, cb, b.offset + bi, n)) return false;
          continue;
        }
        for (int64_t k = 0; k < n; ++k) {
          if (a.IsValid(ai + k) && !RangeEquals(ca, a.offset + ai + k, cb, b.offset + bi + k, 1)) {
            return false;
          }
        }
      }
      return true;
    case TypeId::kDictionary:
      for (int64_t k = 0; k < n; ++k) {
        if (!a.IsValid(ai + k)) continue;
        if (!RangeEquals(*a.dictionary, a.DictionaryIndex(ai + k), *b.dictionary,
                         b.DictionaryIndex(bi + k), 1)) {
          return false;
        }
      }
      return true;
    default:
      return FixedWidthEquals(a, ai, b, bi, n, type.bit_width() / 8);
  }
}

}  // namespace

bool Array::Equals(const Array& other) const {
  if (this == &other) return true;
  if (length != other.length || null_count != other.null_count) return false;
  if (!type->Equals(*other.type)) return false;
  return RangeEquals(*this, 0, other, 0, length);
}

}  // namespace lance
