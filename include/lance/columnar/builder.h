// Array builders: append values one at a time (or in runs) and Finish() into an Arrow array.
//
// Every builder owns growable buffers for one Arrow layout; Finish() hands the buffers over as
// an immutable Array and resets the builder so it can be reused. The validity buffer is left
// out of the finished array when no null was appended, and offsets always start at 0. Nested
// builders (list, fixed_size_list, struct, map) own their child builders; values of a child
// are appended through value_builder()/field_builder() and the parent only tracks offsets and
// validity. Builders are single-threaded objects.
//
// MakeBuilder(type) returns the right builder for any type (recursively for nested types), so
// generic code can cast to the concrete class it expects from type->id().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/buffer.h"
#include "lance/columnar/type.h"
#include "lance/core/bit_util.h"
#include "lance/core/int128.h"
#include "lance/core/result.h"

namespace lance {

// A growable LSB-first bitmap (validity bits, boolean values).
class BitmapBuilder {
 public:
  Status Reserve(int64_t additional_bits) {
    return bytes_.Reserve(bit_util::BytesForBits(length_ + additional_bits) - bytes_.size());
  }
  Status Append(bool bit) {
    if ((length_ & 7) == 0) LANCE_RETURN_NOT_OK(bytes_.AppendValue<uint8_t>(0));
    if (bit) bit_util::SetBit(bytes_.mutable_data(), length_);
    ++length_;
    return Status::OK();
  }
  Status AppendRun(int64_t n, bool bit);
  // Appends `n` bits of `bits` starting at bit `offset`.
  Status AppendBits(const uint8_t* bits, int64_t offset, int64_t n);
  int64_t length() const { return length_; }
  const uint8_t* data() const { return bytes_.data(); }
  Result<BufferPtr> Finish() {
    length_ = 0;
    return bytes_.Finish();
  }
  void Reset() {
    length_ = 0;
    bytes_.Reset();
  }

 private:
  BufferBuilder bytes_;
  int64_t length_ = 0;
};

class ArrayBuilder {
 public:
  explicit ArrayBuilder(DataTypePtr type) : type_(std::move(type)) {}
  virtual ~ArrayBuilder() = default;
  ArrayBuilder(const ArrayBuilder&) = delete;
  ArrayBuilder& operator=(const ArrayBuilder&) = delete;

  const DataTypePtr& type() const { return type_; }
  // Number of elements appended since construction or the last Finish().
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }

  Status AppendNull() { return AppendNulls(1); }
  // Appends `n` null elements. Nested builders also append placeholder elements to their
  // children where the layout needs them (struct children, fixed_size_list values).
  virtual Status AppendNulls(int64_t n) = 0;
  // Makes room for `n` more elements (a hint; never required).
  virtual Status Reserve(int64_t /*n*/) { return Status::OK(); }
  // Returns the array built so far and resets the builder. Errors: InvalidArgument when the
  // children of a nested builder are inconsistent with it (e.g. a fixed_size_list child of the
  // wrong length), OutOfMemory.
  virtual Result<ArrayPtr> Finish() = 0;

 protected:
  // Records the validity of one appended element.
  Status AppendValidity(bool valid) {
    if (valid && null_count_ == 0) {  // the bitmap is only materialized at the first null
      ++length_;
      return Status::OK();
    }
    return AppendValidityRun(1, valid);
  }
  Status AppendValidityRun(int64_t n, bool valid);
  // Appends `n` validity bits copied from `bits` starting at bit `offset` (null = all valid).
  Status AppendValidityBits(const uint8_t* bits, int64_t offset, int64_t n);
  // The validity buffer for Finish() (null when no nulls) and resets length/null count.
  Result<BufferPtr> FinishValidity();

  DataTypePtr type_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  BitmapBuilder validity_;  // holds length_ bits once the first null has been appended
};

// The null type: only a length.
class NullBuilder final : public ArrayBuilder {
 public:
  NullBuilder() : ArrayBuilder(null()) {}
  explicit NullBuilder(DataTypePtr type) : ArrayBuilder(std::move(type)) {}
  Status AppendNulls(int64_t n) override;
  Result<ArrayPtr> Finish() override;
};

// Fixed-width primitive values: integers, floats (float16 as its uint16 bits), date32/64,
// time32/64, timestamp and duration (int32/int64 in the type's unit).
// REQUIRES: sizeof(CType) * 8 == type->bit_width().
template <typename CType>
class NumericBuilder final : public ArrayBuilder {
 public:
  explicit NumericBuilder(DataTypePtr type) : ArrayBuilder(std::move(type)) {}

  Status Append(CType v) {
    LANCE_RETURN_NOT_OK(values_.AppendValue(v));
    return AppendValidity(true);
  }
  // Appends `n` values; `valid` (optional) is a byte per value, 0 meaning null.
  Status AppendValues(const CType* values, int64_t n, const uint8_t* valid = nullptr);
  Status AppendNulls(int64_t n) override {
    LANCE_RETURN_NOT_OK(values_.AppendZeros(n * static_cast<int64_t>(sizeof(CType))));
    return AppendValidityRun(n, false);
  }
  Status Reserve(int64_t n) override {
    LANCE_RETURN_NOT_OK(values_.Reserve(n * static_cast<int64_t>(sizeof(CType))));
    return ArrayBuilder::Reserve(n);
  }
  // Value i appended so far (nulls read as 0).
  CType Value(int64_t i) const { return reinterpret_cast<const CType*>(values_.data())[i]; }
  Result<ArrayPtr> Finish() override;

 private:
  BufferBuilder values_;
};

using Int8Builder = NumericBuilder<int8_t>;
using Int16Builder = NumericBuilder<int16_t>;
using Int32Builder = NumericBuilder<int32_t>;
using Int64Builder = NumericBuilder<int64_t>;
using UInt8Builder = NumericBuilder<uint8_t>;
using UInt16Builder = NumericBuilder<uint16_t>;
using UInt32Builder = NumericBuilder<uint32_t>;
using UInt64Builder = NumericBuilder<uint64_t>;
using FloatBuilder = NumericBuilder<float>;
using DoubleBuilder = NumericBuilder<double>;

class BooleanBuilder final : public ArrayBuilder {
 public:
  BooleanBuilder() : ArrayBuilder(boolean()) {}
  explicit BooleanBuilder(DataTypePtr type) : ArrayBuilder(std::move(type)) {}
  Status Append(bool v) {
    LANCE_RETURN_NOT_OK(values_.Append(v));
    return AppendValidity(true);
  }
  Status AppendNulls(int64_t n) override;
  Status Reserve(int64_t n) override;
  Result<ArrayPtr> Finish() override;

 private:
  BitmapBuilder values_;
};

// utf8, large_utf8, binary, large_binary (the offset width follows the type). Appending to a
// 32-bit-offset builder past 2 GiB of data fails with InvalidArgument. UTF-8 is not checked
// here (ValidateFull does).
class BinaryBuilder final : public ArrayBuilder {
 public:
  explicit BinaryBuilder(DataTypePtr type = binary());
  Status Append(std::string_view v) {
    LANCE_RETURN_NOT_OK(AppendOffset());
    LANCE_RETURN_NOT_OK(data_.Append(v.data(), static_cast<int64_t>(v.size())));
    return AppendValidity(true);
  }
  Status AppendNulls(int64_t n) override;
  Status Reserve(int64_t n) override;
  // Makes room for `bytes` more bytes of value data.
  Status ReserveData(int64_t bytes) { return data_.Reserve(bytes); }
  int64_t value_data_length() const { return data_.size(); }
  Result<ArrayPtr> Finish() override;

 private:
  Status AppendOffset();
  bool large_;
  BufferBuilder offsets_;  // start offset of each element appended so far
  BufferBuilder data_;
};

using StringBuilder = BinaryBuilder;

// The values of fixed_size_binary, decimal128 and decimal256: `type->byte_width()` bytes per
// element (zeros under a null).
class FixedWidthBytesBuilder : public ArrayBuilder {
 public:
  Status AppendNulls(int64_t n) override;
  Status Reserve(int64_t n) override;
  Result<ArrayPtr> Finish() override;

 protected:
  explicit FixedWidthBytesBuilder(DataTypePtr type)
      : ArrayBuilder(std::move(type)), byte_width_(type_->byte_width()) {}
  // REQUIRES: `bytes` holds byte_width_ bytes.
  Status AppendBytes(const void* bytes) {
    LANCE_RETURN_NOT_OK(values_.Append(bytes, byte_width_));
    return AppendValidity(true);
  }
  int32_t byte_width_;

 private:
  BufferBuilder values_;
};

class FixedSizeBinaryBuilder final : public FixedWidthBytesBuilder {
 public:
  explicit FixedSizeBinaryBuilder(DataTypePtr type) : FixedWidthBytesBuilder(std::move(type)) {}
  // Errors: InvalidArgument when v.size() != byte_width.
  Status Append(std::string_view v);
};

// decimal128(precision, scale): 16-byte little-endian two's complement unscaled integers.
class Decimal128Builder final : public FixedWidthBytesBuilder {
 public:
  explicit Decimal128Builder(DataTypePtr type) : FixedWidthBytesBuilder(std::move(type)) {}
  Status Append(Int128 unscaled) { return AppendBytes(&unscaled); }
  // The value high * 2^64 + low.
  Status Append(uint64_t low, int64_t high) {
    return Append(static_cast<Int128>((static_cast<UInt128>(static_cast<uint64_t>(high))
                                         << 64) |
                                        low));
  }
};

// decimal256(precision, scale): 32-byte little-endian two's complement unscaled integers.
class Decimal256Builder final : public FixedWidthBytesBuilder {
 public:
  explicit Decimal256Builder(DataTypePtr type) : FixedWidthBytesBuilder(std::move(type)) {}
  Status Append(const Int256& unscaled) { return AppendBytes(unscaled.limbs.data()); }
};

// list, large_list and map. Append() starts a new element; its items are then appended to
// value_builder() (for map: a StructBuilder of key/value whose Append() must be called per
// entry). A null element is empty.
class ListBuilder final : public ArrayBuilder {
 public:
  ListBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> value_builder);
  Status Append(bool valid = true) {
    LANCE_RETURN_NOT_OK(AppendOffset());
    return AppendValidity(valid);
  }
  Status AppendNulls(int64_t n) override;
  Status AppendEmptyValues(int64_t n);
  Status Reserve(int64_t n) override;
  ArrayBuilder* value_builder() const { return value_builder_.get(); }
  Result<ArrayPtr> Finish() override;

 private:
  Status AppendOffset();
  bool large_;
  BufferBuilder offsets_;
  std::unique_ptr<ArrayBuilder> value_builder_;
};

// fixed_size_list<T>[n]: Append() marks an element valid; the caller then appends exactly n
// values to value_builder(). AppendNull() appends n nulls to the child itself.
class FixedSizeListBuilder final : public ArrayBuilder {
 public:
  FixedSizeListBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> value_builder);
  Status Append() { return AppendValidity(true); }
  Status AppendNulls(int64_t n) override;
  ArrayBuilder* value_builder() const { return value_builder_.get(); }
  Result<ArrayPtr> Finish() override;

 private:
  std::unique_ptr<ArrayBuilder> value_builder_;
};

// struct: Append() marks an element valid and the caller appends one value to every
// field_builder(i). AppendNull()/AppendNulls() also append nulls to every child.
class StructBuilder final : public ArrayBuilder {
 public:
  StructBuilder(DataTypePtr type, std::vector<std::unique_ptr<ArrayBuilder>> field_builders);
  Status Append(bool valid = true) { return AppendValidity(valid); }
  Status AppendNulls(int64_t n) override;
  int num_fields() const { return static_cast<int>(children_.size()); }
  ArrayBuilder* field_builder(int i) const { return children_[static_cast<size_t>(i)].get(); }
  Result<ArrayPtr> Finish() override;

 private:
  std::vector<std::unique_ptr<ArrayBuilder>> children_;
};

// dictionary<intN|uintN, utf8|large_utf8|binary|large_binary>: each distinct value is stored
// once in the dictionary, in order of first appearance. Finish() fails with InvalidArgument if
// the number of distinct values does not fit the index type.
class DictionaryBuilder final : public ArrayBuilder {
 public:
  explicit DictionaryBuilder(DataTypePtr type);
  Status Append(std::string_view v);
  Status AppendNulls(int64_t n) override;
  Status Reserve(int64_t n) override;
  int64_t dictionary_length() const { return static_cast<int64_t>(memo_.size()); }
  Result<ArrayPtr> Finish() override;

 private:
  BinaryBuilder values_;
  std::unordered_map<std::string, int64_t> memo_;
  std::vector<int64_t> indices_;
};

// A builder for any supported type (nested builders recursively). Errors: NotSupported for a
// dictionary whose values are not utf8/binary-like.
Result<std::unique_ptr<ArrayBuilder>> MakeBuilder(DataTypePtr type);

// Test and tool helpers: an array from a JSON array of values in the canonical row form of
// lance/columnar/json.h (e.g. ArrayFromJSON(list(int32()), "[[1,2],null,[]]")), and a record
// batch from a JSON array of row objects (missing keys read as null). Errors: InvalidArgument
// naming the element that does not fit the type.
Result<ArrayPtr> ArrayFromJSON(DataTypePtr type, std::string_view json);
Result<RecordBatchPtr> RecordBatchFromJSON(SchemaPtr schema, std::string_view json);

}  // namespace lance
