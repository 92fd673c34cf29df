// MakeArrayOfNulls / MakeEmptyArray: arrays whose every slot is null (or which have no slots),
// with zero-filled buffers of the sizes the layout requires, so that they validate and can be
// handed to any consumer.
#include "lance/columnar/array.h"

namespace lance {

namespace {

Result<BufferPtr> Zeros(int64_t bytes) { return AllocateBuffer(bytes, /*zero_fill=*/true); }

}  // namespace

Result<ArrayPtr> MakeArrayOfNulls(DataTypePtr type, int64_t length) {
  if (length < 0) return Status::InvalidArgument("MakeArrayOfNulls: negative length {}", length);
  if (type->id() == TypeId::kNull) return Array::Make(std::move(type), length, {});
  BufferPtr validity;
  if (length > 0) {
    LANCE_ASSIGN_OR_RAISE(validity, Zeros(bit_util::BytesForBits(length)));
  }
  const DataType& t = *type;
  switch (t.id()) {
    case TypeId::kNull: break;
    case TypeId::kBool: {
      LANCE_ASSIGN_OR_RAISE(auto values, Zeros(bit_util::BytesForBits(length)));
      return Array::Make(std::move(type), length, {std::move(validity), std::move(values)});
    }
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: {
      LANCE_ASSIGN_OR_RAISE(auto offsets, Zeros((length + 1) * (t.has_large_offsets() ? 8 : 4)));
      LANCE_ASSIGN_OR_RAISE(auto data, Zeros(0));
      return Array::Make(std::move(type), length,
                         {std::move(validity), std::move(offsets), std::move(data)});
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      LANCE_ASSIGN_OR_RAISE(auto offsets, Zeros((length + 1) * (t.has_large_offsets() ? 8 : 4)));
      LANCE_ASSIGN_OR_RAISE(auto child, MakeArrayOfNulls(t.value_type(), 0));
      return Array::Make(std::move(type), length, {std::move(validity), std::move(offsets)},
                         {std::move(child)});
    }
    case TypeId::kFixedSizeList: {
      LANCE_ASSIGN_OR_RAISE(auto child, MakeArrayOfNulls(t.value_type(), length * t.list_size()));
      return Array::Make(std::move(type), length, {std::move(validity)}, {std::move(child)});
    }
    case TypeId::kStruct: {
      std::vector<ArrayPtr> children;
      for (const auto& f : t.fields()) {
        LANCE_ASSIGN_OR_RAISE(auto child, MakeArrayOfNulls(f->type(), length));
        children.push_back(std::move(child));
      }
      return Array::Make(std::move(type), length, {std::move(validity)}, std::move(children));
    }
    case TypeId::kDictionary: {
      LANCE_ASSIGN_OR_RAISE(auto indices, Zeros(length * (t.index_type()->bit_width() / 8)));
      LANCE_ASSIGN_OR_RAISE(auto dict, MakeArrayOfNulls(t.dictionary_value_type(), 0));
      return Array::Make(std::move(type), length, {std::move(validity), std::move(indices)}, {}, 0,
                         std::move(dict));
    }
    default: {
      LANCE_ASSIGN_OR_RAISE(auto values, Zeros(length * (t.bit_width() / 8)));
      return Array::Make(std::move(type), length, {std::move(validity), std::move(values)});
    }
  }
  return Status::NotSupported("MakeArrayOfNulls: type {}", t.ToString());
}

Result<ArrayPtr> MakeEmptyArray(DataTypePtr type) { return MakeArrayOfNulls(std::move(type), 0); }

}  // namespace lance
