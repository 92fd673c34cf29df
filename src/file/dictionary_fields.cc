// Arrow dictionary fields: the storage type a dictionary field is read as, and the
// dictionary encoding that turns what was read back into the field's type.
#include "file/dictionary_fields.h"

#include <cstring>
#include <string_view>
#include <unordered_map>

#include "encoding/data_block.h"
#include "lance/core/bit_util.h"

namespace lance::file {

using encoding::DataBlock;

bool HasDictionary(const DataType& t) {
  if (t.id() == TypeId::kDictionary) return true;
  for (const auto& f : t.fields()) {
    if (HasDictionary(*f->type())) return true;
  }
  return false;
}

// `t` with every dictionary type replaced by its value type.
DataTypePtr StorageType(const DataTypePtr& t) {
  if (t->id() == TypeId::kDictionary) return StorageType(t->dictionary_value_type());
  if (!HasDictionary(*t)) return t;
  std::vector<FieldPtr> fields;
  for (const auto& f : t->fields()) fields.push_back(f->WithType(StorageType(f->type())));
  switch (t->id()) {
    case TypeId::kStruct:
      return struct_(std::move(fields));
    case TypeId::kList:
      return list(fields[0]);
    case TypeId::kLargeList:
      return large_list(fields[0]);
    case TypeId::kFixedSizeList:
      return fixed_size_list(fields[0], t->list_size());
    case TypeId::kMap:
      return map(fields[0], t->keys_sorted());
    default:
      return t;
  }
}

namespace {

// Dictionary-encodes `values` (of the dictionary's value type) into `type`: first
// occurrences in order become the dictionary.
Result<ArrayPtr> DictionaryEncode(const DataTypePtr& type, const ArrayPtr& values) {
  const DataTypePtr& vt = type->dictionary_value_type();
  const DataTypePtr& it = type->index_type();
  const bool variable = vt->id() == TypeId::kString || vt->id() == TypeId::kLargeString ||
                        vt->id() == TypeId::kBinary || vt->id() == TypeId::kLargeBinary;
  const int width = vt->bit_width();
  if (!variable && (width == 0 || width % 8 != 0 || vt->id() == TypeId::kFixedSizeList)) {
    return Status::NotSupported("dictionary fields of value type {}", vt->ToString());
  }
  const int index_bytes = it->bit_width() / 8;
  if (!it->is_integer() || index_bytes <= 0) {
    return Status::Corruption("dictionary index type {}", it->ToString());
  }
  const int64_t n = values->length;
  auto value_at = [&](int64_t i) -> std::string_view {
    if (variable) return values->GetView(i);
    const auto* p = reinterpret_cast<const char*>(values->buffers[1]->data()) +
                    (values->offset + i) * (width / 8);
    return {p, static_cast<size_t>(width / 8)};
  };
  LANCE_ASSIGN_OR_RAISE(DataBlock unique, encoding::DataBlockPrototype(*vt));
  std::unordered_map<std::string_view, int64_t> index_of;
  LANCE_ASSIGN_OR_RAISE(BufferPtr indices, AllocateBuffer(n * index_bytes, true));
  const bool is_signed = it->id() == TypeId::kInt8 || it->id() == TypeId::kInt16 ||
                         it->id() == TypeId::kInt32 || it->id() == TypeId::kInt64;
  const uint64_t max_index =
      index_bytes >= 8 ? (is_signed ? uint64_t{INT64_MAX} : UINT64_MAX)
                       : (uint64_t{1} << (index_bytes * 8 - (is_signed ? 1 : 0))) - 1;
  for (int64_t i = 0; i < n; ++i) {
    if (values->IsNull(i)) continue;
    const std::string_view v = value_at(i);
    auto [pos, added] = index_of.emplace(v, unique.num_values);
    if (added) {
      if (static_cast<uint64_t>(unique.num_values) > max_index) {
        return Status::Corruption("dictionary field of type {} has more than {} distinct values",
                                  type->ToString(), max_index + 1);
      }
      if (variable) {
        LANCE_RETURN_NOT_OK(unique.AppendVariable(v));
      } else {
        LANCE_RETURN_NOT_OK(unique.AppendFixedBytes(reinterpret_cast<const uint8_t*>(v.data()), 1));
      }
    }
    const uint64_t k = static_cast<uint64_t>(pos->second);
    std::memcpy(indices->mutable_data() + i * index_bytes, &k, static_cast<size_t>(index_bytes));
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr dict, encoding::DataBlockToArray(vt, std::move(unique), {}));
  BufferPtr validity;
  if (values->null_count > 0) {
    LANCE_ASSIGN_OR_RAISE(validity, AllocateBuffer(bit_util::BytesForBits(n), true));
    for (int64_t i = 0; i < n; ++i) {
      if (values->IsValid(i)) bit_util::SetBit(validity->mutable_data(), i);
    }
  }
  return Array::Make(type, n, {validity, indices}, {}, 0, std::move(dict));
}

}  // namespace

// Turns an array read with StorageType(type) into `type`.
Result<ArrayPtr> RestoreDictionaries(const DataTypePtr& type, const ArrayPtr& arr) {
  if (type->id() == TypeId::kDictionary) return DictionaryEncode(type, arr);
  if (!HasDictionary(*type)) return arr;
  std::vector<ArrayPtr> children;
  for (size_t i = 0; i < arr->children.size(); ++i) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr c, RestoreDictionaries(type->fields()[i]->type(), arr->children[i]));
    children.push_back(std::move(c));
  }
  return Array::Make(type, arr->length, arr->buffers, std::move(children), arr->offset);
}

}  // namespace lance::file
