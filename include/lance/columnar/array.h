// Array: one column of values in the Arrow columnar memory layout.
//
// An Array is a plain immutable description of Arrow memory: a type, a logical length, a
// slice offset in elements, the buffers and the child arrays. Buffer slots follow the Arrow
// spec:
//
//   null                      {}                                  (no buffers)
//   bool, fixed-width types   {validity, values}
//   utf8/binary (+large)      {validity, offsets (int32|int64), data}
//   fixed_size_binary         {validity, values}
//   list/large_list/map       {validity, offsets}                 children = {values}
//   fixed_size_list           {validity}                          children = {values}
//   struct                    {validity}                          children = one per field
//   dictionary                {validity, indices}                 dictionary = values array
//
// A null validity buffer means "all valid". `offset` applies, the Arrow way, to this level's
// buffers: element i lives at buffer index offset + i. Children are not sliced with the parent:
// list-likes reach their child through the offsets (list) or (offset + i) * list_size
// (fixed_size_list); element i of a struct is element offset + i of each child. Arrays are
// shared as shared_ptr<const Array> and safe to read from many threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/buffer.h"
#include "lance/columnar/type.h"
#include "lance/core/bit_util.h"

namespace lance {

struct Array;
using ArrayPtr = std::shared_ptr<const Array>;

struct Array {
  DataTypePtr type;
  int64_t length = 0;
  int64_t null_count = 0;  // always exact
  int64_t offset = 0;
  std::vector<BufferPtr> buffers;
  std::vector<ArrayPtr> children;
  ArrayPtr dictionary;  // dictionary-encoded arrays only

  // Builds an array and computes its null count from the validity buffer (null type: length).
  static ArrayPtr Make(DataTypePtr type, int64_t length, std::vector<BufferPtr> buffers,
                       std::vector<ArrayPtr> children = {}, int64_t offset = 0,
                       ArrayPtr dictionary = nullptr);

  TypeId type_id() const { return type->id(); }
  const uint8_t* validity() const {
    return buffers.empty() || !buffers[0] ? nullptr : buffers[0]->data();
  }
  // Element i (0-based, relative to this slice) is non-null.
  bool IsValid(int64_t i) const {
    if (type->id() == TypeId::kNull) return false;
    const uint8_t* v = validity();
    return v == nullptr || bit_util::GetBit(v, offset + i);
  }
  bool IsNull(int64_t i) const { return !IsValid(i); }

  // Fixed-width values starting at this slice's first element. REQUIRES: fixed-width type
  // other than bool (bool values are bits: use BoolValue).
  template <typename T>
  const T* Values() const {
    return buffers[1]->data_as<T>() + offset;
  }
  bool BoolValue(int64_t i) const { return bit_util::GetBit(buffers[1]->data(), offset + i); }

  // Dictionary index of element i as int64 (any index width). REQUIRES: dictionary type.
  int64_t DictionaryIndex(int64_t i) const;

  // Offsets of binary-like/list-like arrays as int64, for element i of this slice.
  int64_t ValueOffset(int64_t i) const {
    const bool large = type->has_large_offsets();
    return large ? buffers[1]->data_as<int64_t>()[offset + i]
                 : buffers[1]->data_as<int32_t>()[offset + i];
  }
  int64_t ValueLength(int64_t i) const { return ValueOffset(i + 1) - ValueOffset(i); }
  // Bytes of element i of a utf8/binary (any offset width) or fixed_size_binary array.
  std::string_view GetView(int64_t i) const;

  // Zero-copy slice [off, off + len) of this array. REQUIRES: in bounds.
  ArrayPtr Slice(int64_t off, int64_t len) const;

  // Cheap structural checks (buffer counts and sizes vs. length/offset, child lengths):
  // enough to access the array without reading out of bounds as long as offsets are sane.
  Status Validate() const;
  // Validate() plus a scan of the data: offsets monotonic and within the data buffer, utf8 is
  // valid UTF-8, dictionary indices in range. Use on untrusted input (IPC, C Data import).
  Status ValidateFull() const;

  // Logical equality: same type, length and values (null slots compare equal regardless of
  // the bytes beneath them; floats compare bitwise so NaN == NaN with the same bits).
  bool Equals(const Array& other) const;
  // Human-readable form for tests and debugging, e.g. `[1, null, 3]`.
  std::string ToString() const;
};

// An array of `length` nulls of `type`. For non-nullable-capable layouts the buffers are
// zero-filled.
Result<ArrayPtr> MakeArrayOfNulls(DataTypePtr type, int64_t length);
// An empty (length 0) array of `type`.
Result<ArrayPtr> MakeEmptyArray(DataTypePtr type);
// Concatenates arrays of equal type into one new array (buffers copied).
Result<ArrayPtr> Concatenate(const std::vector<ArrayPtr>& arrays);

class RecordBatch;
using RecordBatchPtr = std::shared_ptr<const RecordBatch>;

// A RecordBatch: equal-length columns described by a schema. Immutable, shareable.
class RecordBatch {
 public:
  RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<ArrayPtr> columns)
      : schema_(std::move(schema)), num_rows_(num_rows), columns_(std::move(columns)) {}

  // Checks that the columns match the schema's types and the row count. Errors: InvalidArgument.
  static Result<RecordBatchPtr> Make(SchemaPtr schema, int64_t num_rows,
                                     std::vector<ArrayPtr> columns);

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const ArrayPtr& column(int i) const { return columns_[static_cast<size_t>(i)]; }
  const std::vector<ArrayPtr>& columns() const { return columns_; }
  ArrayPtr GetColumnByName(std::string_view name) const;

  RecordBatchPtr Slice(int64_t offset, int64_t length) const;
  Status Validate() const;
  Status ValidateFull() const;
  bool Equals(const RecordBatch& other, bool check_metadata = false) const;
  std::string ToString() const;

 private:
  SchemaPtr schema_;
  int64_t num_rows_;
  std::vector<ArrayPtr> columns_;
};

}  // namespace lance
