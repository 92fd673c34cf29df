// Concatenate: copies the logical contents of several arrays of one type into a new array.
//
// Inputs may be slices at any level: offsets are rebased so the result's offsets start at 0,
// only the referenced child ranges are copied, and dictionaries are merged by appending the
// dictionaries and shifting indices (equal dictionaries are shared instead).
#include <limits>

#include "lance/columnar/array.h"

namespace lance {

namespace {

Result<BufferPtr> ConcatenateValidity(const std::vector<ArrayPtr>& arrays, int64_t total) {
  bool any_nulls = false;
  for (const auto& a : arrays) any_nulls = any_nulls || a->null_count > 0;
  if (!any_nulls) return BufferPtr();
  LANCE_ASSIGN_OR_RAISE(auto out, AllocateBuffer(bit_util::BytesForBits(total), true));
  int64_t pos = 0;
  for (const auto& a : arrays) {
    if (a->validity() == nullptr) {
      bit_util::SetBitsTo(out->mutable_data(), pos, a->length, true);
    } else {
      bit_util::CopyBitmap(a->validity(), a->offset, a->length, out->mutable_data(), pos);
    }
    pos += a->length;
  }
  return out;
}

Result<BufferPtr> ConcatenateFixedWidth(const std::vector<ArrayPtr>& arrays, int64_t total,
                                        int64_t width) {
  LANCE_ASSIGN_OR_RAISE(auto out, AllocateBuffer(total * width));
  uint8_t* dst = out->mutable_data();
  for (const auto& a : arrays) {
    const int64_t n = a->length * width;
    if (n > 0) std::memcpy(dst, a->buffers[1]->data() + a->offset * width, static_cast<size_t>(n));
    dst += n;
  }
  return out;
}

Result<BufferPtr> ConcatenateBits(const std::vector<ArrayPtr>& arrays, int64_t total) {
  LANCE_ASSIGN_OR_RAISE(auto out, AllocateBuffer(bit_util::BytesForBits(total), true));
  int64_t pos = 0;
  for (const auto& a : arrays) {
    if (a->length == 0) continue;  // an empty input may have no values buffer
    bit_util::CopyBitmap(a->buffers[1]->data(), a->offset, a->length, out->mutable_data(), pos);
    pos += a->length;
  }
  return out;
}

// Rebased offsets for binary-like or list-like inputs; `ranges` receives each input's
// [first, last) range into its data/child.
template <typename O>
Result<BufferPtr> ConcatenateOffsets(const std::vector<ArrayPtr>& arrays, int64_t total,
                                     std::vector<std::pair<int64_t, int64_t>>* ranges) {
  LANCE_ASSIGN_OR_RAISE(auto out, AllocateBuffer((total + 1) * static_cast<int64_t>(sizeof(O))));
  O* dst = out->mutable_data_as<O>();
  int64_t base = 0;
  int64_t pos = 0;
  dst[0] = 0;
  for (const auto& a : arrays) {
    if (a->length == 0) {
      ranges->emplace_back(0, 0);
      continue;
    }
    const O* src = a->buffers[1]->data_as<O>() + a->offset;
    const int64_t first = src[0];
    const int64_t last = src[a->length];
    if (base + (last - first) > static_cast<int64_t>(std::numeric_limits<O>::max())) {
      return Status::InvalidArgument("Concatenate: {} result exceeds the 32-bit offset range",
                                     a->type->ToString());
    }
    for (int64_t i = 1; i <= a->length; ++i) dst[pos + i] = static_cast<O>(base + src[i] - first);
    ranges->emplace_back(first, last);
    base += last - first;
    pos += a->length;
  }
  return out;
}

Result<BufferPtr> OffsetsFor(const DataType& type, const std::vector<ArrayPtr>& arrays,
                             int64_t total, std::vector<std::pair<int64_t, int64_t>>* ranges) {
  if (type.has_large_offsets()) return ConcatenateOffsets<int64_t>(arrays, total, ranges);
  return ConcatenateOffsets<int32_t>(arrays, total, ranges);
}

Result<ArrayPtr> ConcatenateDictionaries(const DataTypePtr& type,
                                         const std::vector<ArrayPtr>& arrays, int64_t total,
                                         BufferPtr validity) {
  const int width = type->index_type()->bit_width() / 8;
  bool same = true;
  for (const auto& a : arrays) {
    same = same && (a->dictionary == arrays[0]->dictionary ||
                    a->dictionary->Equals(*arrays[0]->dictionary));
  }
  if (same) {
    LANCE_ASSIGN_OR_RAISE(auto indices, ConcatenateFixedWidth(arrays, total, width));
    return Array::Make(type, total, {std::move(validity), std::move(indices)}, {}, 0,
                       arrays[0]->dictionary);
  }
  // Different dictionaries: append them and shift each input's indices by its base.
  std::vector<ArrayPtr> dicts;
  for (const auto& a : arrays) dicts.push_back(a->dictionary);
  LANCE_ASSIGN_OR_RAISE(auto dict, Concatenate(dicts));
  const int bits = width * 8;
  const bool is_signed = type->index_type()->is_signed_integer();
  const int value_bits = is_signed ? bits - 1 : bits;
  if (value_bits < 63 && dict->length > (int64_t{1} << value_bits)) {
    return Status::InvalidArgument(
        "Concatenate: merged dictionary of {} values does not fit index type {}", dict->length,
        type->index_type()->ToString());
  }
  LANCE_ASSIGN_OR_RAISE(auto indices, AllocateBuffer(total * width, true));
  int64_t pos = 0;
  int64_t base = 0;
  for (const auto& a : arrays) {
    for (int64_t i = 0; i < a->length; ++i, ++pos) {
      if (!a->IsValid(i)) continue;
      const int64_t v = a->DictionaryIndex(i) + base;
      std::memcpy(indices->mutable_data() + pos * width, &v, static_cast<size_t>(width));
    }
    base += a->dictionary->length;
  }
  return Array::Make(type, total, {std::move(validity), std::move(indices)}, {}, 0,
                     std::move(dict));
}

}  // namespace

Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays) {
  if (arrays.empty()) return Status::InvalidArgument("Concatenate: no arrays given");
  const DataTypePtr& type = arrays[0]->type;
  int64_t total = 0;
  for (const auto& a : arrays) {
    if (!a->type->Equals(*type)) {
      return Status::InvalidArgument("Concatenate: type {} differs from {}", a->type->ToString(),
                                     type->ToString());
    }
    total += a->length;
  }
  const DataType& t = *type;
  if (t.id() == TypeId::kNull) return Array::Make(type, total, {});
  LANCE_ASSIGN_OR_RAISE(auto validity, ConcatenateValidity(arrays, total));
  switch (t.id()) {
    case TypeId::kNull: break;
    case TypeId::kBool: {
      LANCE_ASSIGN_OR_RAISE(auto values, ConcatenateBits(arrays, total));
      return Array::Make(type, total, {std::move(validity), std::move(values)});
    }
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      std::vector<std::pair<int64_t, int64_t>> ranges;
      LANCE_ASSIGN_OR_RAISE(auto offsets, OffsetsFor(t, arrays, total, &ranges));
      int64_t bytes = 0;
      for (const auto& [first, last] : ranges) bytes += last - first;
      LANCE_ASSIGN_OR_RAISE(auto data, AllocateBuffer(bytes));
      uint8_t* dst = data->mutable_data();
      for (size_t k = 0; k < arrays.size(); ++k) {
        const auto [first, last] = ranges[k];
        if (last > first) {
          std::memcpy(dst, arrays[k]->buffers[2]->data() + first, static_cast<size_t>(last - first));
        }
        dst += last - first;
      }
      return Array::Make(type, total, {std::move(validity), std::move(offsets), std::move(data)});
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      std::vector<std::pair<int64_t, int64_t>> ranges;
      LANCE_ASSIGN_OR_RAISE(auto offsets, OffsetsFor(t, arrays, total, &ranges));
      std::vector<ArrayPtr> children;
      for (size_t k = 0; k < arrays.size(); ++k) {
        const auto [first, last] = ranges[k];
        children.push_back(arrays[k]->children[0]->Slice(first, last - first));
      }
      LANCE_ASSIGN_OR_RAISE(auto child, Concatenate(children));
      return Array::Make(type, total, {std::move(validity), std::move(offsets)}, {std::move(child)});
    }
    case TypeId::kFixedSizeList: {
      const int64_t size = t.list_size();
      std::vector<ArrayPtr> children;
      for (const auto& a : arrays) {
        children.push_back(a->children[0]->Slice(a->offset * size, a->length * size));
      }
      LANCE_ASSIGN_OR_RAISE(auto child, Concatenate(children));
      return Array::Make(type, total, {std::move(validity)}, {std::move(child)});
    }
    case TypeId::kStruct: {
      std::vector<ArrayPtr> out_children;
      for (size_t c = 0; c < static_cast<size_t>(t.num_fields()); ++c) {
        std::vector<ArrayPtr> parts;
        for (const auto& a : arrays) parts.push_back(a->children[c]->Slice(a->offset, a->length));
        LANCE_ASSIGN_OR_RAISE(auto child, Concatenate(parts));
        out_children.push_back(std::move(child));
      }
      return Array::Make(type, total, {std::move(validity)}, std::move(out_children));
    }
    case TypeId::kDictionary:
      return ConcatenateDictionaries(type, arrays, total, std::move(validity));
    default: {
      LANCE_ASSIGN_OR_RAISE(auto values, ConcatenateFixedWidth(arrays, total, t.bit_width() / 8));
      return Array::Make(type, total, {std::move(validity), std::move(values)});
    }
  }
  return Status::NotSupported("Concatenate: type {}", t.ToString());
}

}  // namespace lance
