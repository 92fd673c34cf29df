// What Arrow C Data Interface export (c_bridge_export.cc) and import (c_bridge_import.cc)
// agree on: the buffer and child layout the Arrow columnar format gives each type, time unit
// letters of format strings, and the zero bytes that stand in for empty buffers. Internal to
// the columnar layer.
#pragma once

#include <cstdint>

#include "lance/columnar/buffer.h"
#include "lance/columnar/type.h"

namespace lance::c_layout {

// Stands in for buffers a producer may leave null because they are empty (offsets of an empty
// array, the data of an all-empty binary array), and for the ones we export in the same case.
alignas(kBufferAlignment) inline constexpr uint8_t kZeroBytes[kBufferAlignment] = {};

// Number of buffers the Arrow columnar format gives arrays of `type` (children excluded).
inline int NumBuffers(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull: return 0;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: return 3;
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: return 2;
    case TypeId::kFixedSizeList:
    case TypeId::kStruct: return 1;
    default: return 2;  // validity + fixed-width values (or dictionary indices)
  }
}

// Number of child arrays of `type` (a dictionary's values are not a child).
inline int NumChildren(const DataType& type) {
  return type.is_nested() ? type.num_fields() : 0;
}

inline bool HasOffsets(const DataType& type) {
  return type.is_binary_like() || type.id() == TypeId::kList ||
         type.id() == TypeId::kLargeList || type.id() == TypeId::kMap;
}

inline char UnitChar(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return 's';
    case TimeUnit::kMilli: return 'm';
    case TimeUnit::kMicro: return 'u';
    case TimeUnit::kNano: return 'n';
  }
  return '?';
}

}  // namespace lance::c_layout
