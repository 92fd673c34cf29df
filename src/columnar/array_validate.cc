// Array::Validate / ValidateFull: the guard between untrusted Arrow memory (IPC, C Data import)
// and code that indexes buffers without bounds checks.
//
// Validate() checks everything that can be checked in O(1) per array node: buffer counts,
// buffer sizes against offset + length, the first and last offsets, child lengths. After it
// passes, reading any element is in bounds provided the offsets in between are monotonic,
// which ValidateFull() checks along with UTF-8, dictionary indices and null counts.
#include <limits>

#include <fmt/format.h>

#include "lance/columnar/array.h"
#include "lance/columnar/utf8.h"

namespace lance {

namespace {

int ExpectedBufferCount(TypeId id) {
  switch (id) {
    case TypeId::kNull: return 0;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: return 3;
    case TypeId::kFixedSizeList:
    case TypeId::kStruct: return 1;
    default: return 2;
  }
}

Status CheckBufferSize(const Array& a, int index, int64_t needed, const char* what) {
  const BufferPtr& buf = a.buffers[static_cast<size_t>(index)];
  if (needed == 0) return Status::OK();
  if (!buf) {
    return Status::Corruption("{} array of length {}: {} buffer is missing", a.type->ToString(),
                              a.length, what);
  }
  if (buf->size() < needed) {
    return Status::Corruption("{} array (offset {}, length {}): {} buffer has {} bytes, needs {}",
                              a.type->ToString(), a.offset, a.length, what, buf->size(), needed);
  }
  return Status::OK();
}

// Reads offset k (absolute index into the offsets buffer). REQUIRES: size checked.
int64_t OffsetAt(const Array& a, int64_t k) {
  return a.type->has_large_offsets() ? a.buffers[1]->data_as<int64_t>()[k]
                                     : a.buffers[1]->data_as<int32_t>()[k];
}

// Checks the offsets buffer size and the first/last offsets against `limit` (the data size or
// the child length). Length-0 arrays may have no offsets at all.
Status CheckOffsets(const Array& a, int64_t limit, const char* limit_name) {
  if (a.length == 0) {
    const BufferPtr& buf = a.buffers[1];
    if (!buf || buf->size() == 0) return Status::OK();
  }
  const int64_t width = a.type->has_large_offsets() ? 8 : 4;
  LANCE_RETURN_NOT_OK(CheckBufferSize(a, 1, (a.offset + a.length + 1) * width, "offsets"));
  if (a.buffers[1] == nullptr) {
    return Status::Corruption("{} array: offsets buffer is missing", a.type->ToString());
  }
  const int64_t first = OffsetAt(a, a.offset);
  const int64_t last = OffsetAt(a, a.offset + a.length);
  if (first < 0 || last < first || last > limit) {
    return Status::Corruption("{} array (offset {}, length {}): offsets [{}, {}] outside {} {}",
                              a.type->ToString(), a.offset, a.length, first, last, limit_name,
                              limit);
  }
  return Status::OK();
}

Status ValidateNode(const Array& a, bool full);

Status ValidateChild(const Array& a, const ArrayPtr& child, std::string_view name,
                     const DataType& expected, bool full) {
  if (!child) return Status::Corruption("{} array: child '{}' is missing", a.type->ToString(), name);
  if (!child->type || child->type->id() != expected.id()) {
    return Status::Corruption("{} array: child '{}' has type {}, expected {}", a.type->ToString(),
                              name, child->type ? child->type->ToString() : "none",
                              expected.ToString());
  }
  return ValidateNode(*child, full).WithContext(fmt::format("child '{}'", name));
}

Status ValidateLayout(const Array& a) {
  const DataType& type = *a.type;
  if (a.length < 0 || a.offset < 0 || a.length > std::numeric_limits<int64_t>::max() / 16 - a.offset) {
    return Status::Corruption("{} array: invalid offset {} / length {}", type.ToString(), a.offset,
                              a.length);
  }
  if (a.null_count < 0 || a.null_count > a.length) {
    return Status::Corruption("{} array: null count {} outside [0, {}]", type.ToString(),
                              a.null_count, a.length);
  }
  const int64_t end = a.offset + a.length;
  const int expected = ExpectedBufferCount(type.id());
  if (type.id() == TypeId::kNull) {
    if (a.null_count != a.length) {
      return Status::Corruption("null array: null count {} != length {}", a.null_count, a.length);
    }
    return Status::OK();
  }
  if (static_cast<int>(a.buffers.size()) != expected) {
    return Status::Corruption("{} array: {} buffers, expected {}", type.ToString(),
                              a.buffers.size(), expected);
  }
  if (a.buffers[0]) {
    LANCE_RETURN_NOT_OK(CheckBufferSize(a, 0, bit_util::BytesForBits(end), "validity"));
  } else if (a.null_count != 0) {
    return Status::Corruption("{} array: null count {} without a validity buffer",
                              type.ToString(), a.null_count);
  }
  switch (type.id()) {
    case TypeId::kNull: return Status::OK();
    case TypeId::kBool: return CheckBufferSize(a, 1, bit_util::BytesForBits(end), "values");
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      const int64_t data_size = a.buffers[2] ? a.buffers[2]->size() : 0;
      return CheckOffsets(a, data_size, "data size");
    }
    case TypeId::kFixedSizeBinary: {
      int64_t bytes;
      if (type.byte_width() < 0 || __builtin_mul_overflow(end, int64_t{type.byte_width()}, &bytes)) {
        return Status::Corruption("{} array: invalid byte width for {} elements", type.ToString(),
                                  end);
      }
      return CheckBufferSize(a, 1, bytes, "values");
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      if (a.children.size() != 1 || !a.children[0]) {
        return Status::Corruption("{} array: {} children, expected 1", type.ToString(),
                                  a.children.size());
      }
      if (type.id() == TypeId::kMap) {
        const Array& entries = *a.children[0];
        if (entries.type_id() != TypeId::kStruct || entries.children.size() != 2) {
          return Status::Corruption("map array: entries must be a struct of key and value, found {}",
                                    entries.type->ToString());
        }
      }
      return CheckOffsets(a, a.children[0]->length, "child length");
    }
    case TypeId::kFixedSizeList: {
      if (a.children.size() != 1 || !a.children[0]) {
        return Status::Corruption("{} array: {} children, expected 1", type.ToString(),
                                  a.children.size());
      }
      int64_t needed;
      if (type.list_size() < 0 || __builtin_mul_overflow(end, int64_t{type.list_size()}, &needed)) {
        return Status::Corruption("{} array: invalid list size for {} elements", type.ToString(),
                                  end);
      }
      if (a.children[0]->length < needed) {
        return Status::Corruption("{} array (offset {}, length {}): child has {} values, needs {}",
                                  type.ToString(), a.offset, a.length, a.children[0]->length,
                                  needed);
      }
      return Status::OK();
    }
    case TypeId::kStruct: {
      if (static_cast<int>(a.children.size()) != type.num_fields()) {
        return Status::Corruption("{} array: {} children, expected {}", type.ToString(),
                                  a.children.size(), type.num_fields());
      }
      for (size_t i = 0; i < a.children.size(); ++i) {
        const auto& name = type.field(static_cast<int>(i))->name();
        if (!a.children[i]) return Status::Corruption("struct array: child '{}' is missing", name);
        if (a.children[i]->length < end) {
          return Status::Corruption("{} array (offset {}, length {}): child '{}' has {} values",
                                    type.ToString(), a.offset, a.length, name,
                                    a.children[i]->length);
        }
      }
      return Status::OK();
    }
    case TypeId::kDictionary: {
      if (!type.index_type()->is_integer()) {
        return Status::Corruption("{}: index type must be an integer", type.ToString());
      }
      if (!a.dictionary) {
        return Status::Corruption("{} array: dictionary is missing", type.ToString());
      }
      if (a.dictionary->type->id() != type.dictionary_value_type()->id()) {
        return Status::Corruption("{} array: dictionary has type {}", type.ToString(),
                                  a.dictionary->type->ToString());
      }
      return CheckBufferSize(a, 1, end * (type.index_type()->bit_width() / 8), "indices");
    }
    default:  // remaining fixed-width types
      return CheckBufferSize(a, 1, end * (type.bit_width() / 8), "values");
  }
}

template <typename O>
Status CheckMonotonic(const Array& a) {
  if (a.length == 0 && (!a.buffers[1] || a.buffers[1]->size() == 0)) return Status::OK();
  const O* off = a.buffers[1]->data_as<O>() + a.offset;
  for (int64_t i = 0; i < a.length; ++i) {
    if (off[i + 1] < off[i]) {
      return Status::Corruption("{} array: offsets decrease at element {} ({} > {})",
                                a.type->ToString(), i, off[i], off[i + 1]);
    }
  }
  return Status::OK();
}

Status CheckUtf8(const Array& a) {
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.IsValid(i)) continue;
    const std::string_view v = a.GetView(i);
    if (!IsValidUtf8(v)) {
      return Status::Corruption("{} array: element {} is not valid UTF-8", a.type->ToString(), i);
    }
  }
  return Status::OK();
}

template <typename I>
Status CheckIndices(const Array& a) {
  const I* idx = a.buffers[1]->data_as<I>() + a.offset;
  const int64_t n = a.dictionary->length;
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.IsValid(i)) continue;
    const auto v = idx[i];
    if (v < 0 || static_cast<uint64_t>(v) >= static_cast<uint64_t>(n)) {
      return Status::Corruption("{} array: index {} at element {} outside dictionary of {}",
                                a.type->ToString(), static_cast<int64_t>(v), i, n);
    }
  }
  return Status::OK();
}

Status CheckDictionaryIndices(const Array& a) {
  switch (a.type->index_type()->id()) {
    case TypeId::kInt8: return CheckIndices<int8_t>(a);
    case TypeId::kInt16: return CheckIndices<int16_t>(a);
    case TypeId::kInt32: return CheckIndices<int32_t>(a);
    case TypeId::kInt64: return CheckIndices<int64_t>(a);
    case TypeId::kUInt8: return CheckIndices<uint8_t>(a);
    case TypeId::kUInt16: return CheckIndices<uint16_t>(a);
    case TypeId::kUInt32: return CheckIndices<uint32_t>(a);
    case TypeId::kUInt64: return CheckIndices<uint64_t>(a);
    default: return Status::Corruption("{}: index type must be an integer", a.type->ToString());
  }
}

// Data checks that need a scan; REQUIRES: ValidateLayout passed.
Status ValidateData(const Array& a) {
  const DataType& type = *a.type;
  if (a.buffers.size() > 0 && a.buffers[0] && type.id() != TypeId::kNull) {
    const int64_t nulls = a.length - bit_util::CountSetBits(a.buffers[0]->data(), a.offset, a.length);
    if (nulls != a.null_count) {
      return Status::Corruption("{} array: null count {} but the validity bitmap has {} nulls",
                                type.ToString(), a.null_count, nulls);
    }
  }
  switch (type.id()) {
    case TypeId::kString:
    case TypeId::kLargeString:
      LANCE_RETURN_NOT_OK(type.has_large_offsets() ? CheckMonotonic<int64_t>(a)
                                                   : CheckMonotonic<int32_t>(a));
      return CheckUtf8(a);
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
      return type.has_large_offsets() ? CheckMonotonic<int64_t>(a) : CheckMonotonic<int32_t>(a);
    case TypeId::kDictionary: return CheckDictionaryIndices(a);
    default: return Status::OK();
  }
}

Status ValidateNode(const Array& a, bool full) {
  if (!a.type) return Status::Corruption("array without a type");
  LANCE_RETURN_NOT_OK(ValidateLayout(a));
  if (full) LANCE_RETURN_NOT_OK(ValidateData(a));
  const DataType& type = *a.type;
  switch (type.id()) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
    case TypeId::kFixedSizeList:
      return ValidateChild(a, a.children[0], type.value_field()->name(), *type.value_type(),
                           full);
    case TypeId::kStruct:
      for (size_t i = 0; i < a.children.size(); ++i) {
        LANCE_RETURN_NOT_OK(
            ValidateChild(a, a.children[i], type.field(static_cast<int>(i))->name(),
                          *type.field(static_cast<int>(i))->type(), full));
      }
      return Status::OK();
    case TypeId::kDictionary:
      return ValidateChild(a, a.dictionary, "dictionary", *type.dictionary_value_type(), full);
    default: return Status::OK();
  }
}

}  // namespace

Status Array::Validate() const { return ValidateNode(*this, false); }

Status Array::ValidateFull() const { return ValidateNode(*this, true); }

}  // namespace lance
