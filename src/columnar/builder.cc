#include "lance/columnar/builder.h"
#include "lance/core/reserve.h"

#include <limits>

namespace lance {

// ---------------------------------------------------------------------------------------------
// BitmapBuilder / validity

Status BitmapBuilder::AppendRun(int64_t n, bool bit) {
  if (n <= 0) return Status::OK();
  const int64_t new_bytes = bit_util::BytesForBits(length_ + n);
  LANCE_RETURN_NOT_OK(bytes_.Resize(new_bytes));  // new bytes are zero
  if (bit) bit_util::SetBitsTo(bytes_.mutable_data(), length_, n, true);
  length_ += n;
  return Status::OK();
}

Status BitmapBuilder::AppendBits(const uint8_t* bits, int64_t offset, int64_t n) {
  if (n <= 0) return Status::OK();
  LANCE_RETURN_NOT_OK(bytes_.Resize(bit_util::BytesForBits(length_ + n)));
  bit_util::CopyBitmap(bits, offset, n, bytes_.mutable_data(), length_);
  length_ += n;
  return Status::OK();
}

Status ArrayBuilder::AppendValidityRun(int64_t n, bool valid) {
  if (n <= 0) return Status::OK();
  if (valid) {
    if (null_count_ > 0) LANCE_RETURN_NOT_OK(validity_.AppendRun(n, true));
  } else {
    if (null_count_ == 0) LANCE_RETURN_NOT_OK(validity_.AppendRun(length_, true));
    LANCE_RETURN_NOT_OK(validity_.AppendRun(n, false));
    null_count_ += n;
  }
  length_ += n;
  return Status::OK();
}

Status ArrayBuilder::AppendValidityBits(const uint8_t* bits, int64_t offset, int64_t n) {
  if (n <= 0) return Status::OK();
  const int64_t nulls = bits == nullptr ? 0 : n - bit_util::CountSetBits(bits, offset, n);
  if (nulls == 0) return AppendValidityRun(n, true);
  if (null_count_ == 0) LANCE_RETURN_NOT_OK(validity_.AppendRun(length_, true));
  LANCE_RETURN_NOT_OK(validity_.AppendBits(bits, offset, n));
  null_count_ += nulls;
  length_ += n;
  return Status::OK();
}

Result<BufferPtr> ArrayBuilder::FinishValidity() {
  BufferPtr out;
  if (null_count_ > 0) {
    LANCE_ASSIGN_OR_RAISE(out, validity_.Finish());
  } else {
    validity_.Reset();
  }
  length_ = 0;
  null_count_ = 0;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Leaf builders

Status NullBuilder::AppendNulls(int64_t n) {
  if (n > 0) {
    length_ += n;
    null_count_ += n;
  }
  return Status::OK();
}

Result<ArrayPtr> NullBuilder::Finish() {
  const int64_t len = length_;
  length_ = 0;
  null_count_ = 0;
  return Array::Make(type_, len, {});
}

template <typename CType>
Status NumericBuilder<CType>::AppendValues(const CType* values, int64_t n, const uint8_t* valid) {
  LANCE_RETURN_NOT_OK(values_.Append(values, n * static_cast<int64_t>(sizeof(CType))));
  if (valid == nullptr) return AppendValidityRun(n, true);
  for (int64_t i = 0; i < n; ++i) LANCE_RETURN_NOT_OK(AppendValidity(valid[i] != 0));
  return Status::OK();
}

template <typename CType>
Result<ArrayPtr> NumericBuilder<CType>::Finish() {
  const int64_t len = length_;
  LANCE_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(auto values, values_.Finish());
  return Array::Make(type_, len, {std::move(validity), std::move(values)});
}

template class NumericBuilder<int8_t>;
template class NumericBuilder<int16_t>;
template class NumericBuilder<int32_t>;
template class NumericBuilder<int64_t>;
template class NumericBuilder<uint8_t>;
template class NumericBuilder<uint16_t>;
template class NumericBuilder<uint32_t>;
template class NumericBuilder<uint64_t>;
template class NumericBuilder<float>;
template class NumericBuilder<double>;

Status BooleanBuilder::AppendNulls(int64_t n) {
  LANCE_RETURN_NOT_OK(values_.AppendRun(n, false));
  return AppendValidityRun(n, false);
}

Status BooleanBuilder::Reserve(int64_t n) { return values_.Reserve(n); }

Result<ArrayPtr> BooleanBuilder::Finish() {
  const int64_t len = length_;
  LANCE_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(auto values, values_.Finish());
  return Array::Make(type_, len, {std::move(validity), std::move(values)});
}

BinaryBuilder::BinaryBuilder(DataTypePtr type)
    : ArrayBuilder(std::move(type)), large_(type_->has_large_offsets()) {}

Status BinaryBuilder::AppendOffset() {
  const int64_t pos = data_.size();
  if (large_) return offsets_.AppendValue<int64_t>(pos);
  if (pos > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument("{} builder: value data exceeds 2 GiB ({} bytes); use the large type",
                                   type_->ToString(), pos);
  }
  return offsets_.AppendValue<int32_t>(static_cast<int32_t>(pos));
}

Status BinaryBuilder::AppendNulls(int64_t n) {
  for (int64_t i = 0; i < n; ++i) LANCE_RETURN_NOT_OK(AppendOffset());
  return AppendValidityRun(n, false);
}

Status BinaryBuilder::Reserve(int64_t n) { return offsets_.Reserve(n * (large_ ? 8 : 4)); }

Result<ArrayPtr> BinaryBuilder::Finish() {
  LANCE_RETURN_NOT_OK(AppendOffset());  // the end offset
  const int64_t len = length_;
  LANCE_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(auto offsets, offsets_.Finish());
  LANCE_ASSIGN_OR_RAISE(auto data, data_.Finish());
  return Array::Make(type_, len, {std::move(validity), std::move(offsets), std::move(data)});
}

Status FixedSizeBinaryBuilder::Append(std::string_view v) {
  if (static_cast<int64_t>(v.size()) != byte_width_) {
    return Status::InvalidArgument("{}: value of {} bytes, expected {}", type_->ToString(),
                                   v.size(), byte_width_);
  }
  return AppendBytes(v.data());
}

Status FixedWidthBytesBuilder::AppendNulls(int64_t n) {
  LANCE_RETURN_NOT_OK(values_.AppendZeros(n * byte_width_));
  return AppendValidityRun(n, false);
}

Status FixedWidthBytesBuilder::Reserve(int64_t n) { return values_.Reserve(n * byte_width_); }

Result<ArrayPtr> FixedWidthBytesBuilder::Finish() {
  const int64_t len = length_;
  LANCE_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(auto values, values_.Finish());
  return Array::Make(type_, len, {std::move(validity), std::move(values)});
}

// ---------------------------------------------------------------------------------------------
// Nested builders

ListBuilder::ListBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> value_builder)
    : ArrayBuilder(std::move(type)),
      large_(type_->has_large_offsets()),
      value_builder_(std::move(value_builder)) {}

Status ListBuilder::AppendOffset() {
  const int64_t pos = value_builder_->length();
  if (large_) return offsets_.AppendValue<int64_t>(pos);
  if (pos > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument("{} builder: more than 2^31-1 child values; use large_list",
                                   type_->ToString());
  }
  return offsets_.AppendValue<int32_t>(static_cast<int32_t>(pos));
}

Status ListBuilder::AppendNulls(int64_t n) {
  for (int64_t i = 0; i < n; ++i) LANCE_RETURN_NOT_OK(AppendOffset());
  return AppendValidityRun(n, false);
}

Status ListBuilder::AppendEmptyValues(int64_t n) {
  for (int64_t i = 0; i < n; ++i) LANCE_RETURN_NOT_OK(AppendOffset());
  return AppendValidityRun(n, true);
}

Status ListBuilder::Reserve(int64_t n) { return offsets_.Reserve(n * (large_ ? 8 : 4)); }

Result<ArrayPtr> ListBuilder::Finish() {
  LANCE_RETURN_NOT_OK(AppendOffset());
  const int64_t len = length_;
  LANCE_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(auto offsets, offsets_.Finish());
  LANCE_ASSIGN_OR_RAISE(auto values, value_builder_->Finish());
  return Array::Make(type_, len, {std::move(validity), std::move(offsets)}, {std::move(values)});
}

FixedSizeListBuilder::FixedSizeListBuilder(DataTypePtr type,
                                           std::unique_ptr<ArrayBuilder> value_builder)
    : ArrayBuilder(std::move(type)), value_builder_(std::move(value_builder)) {}

Status FixedSizeListBuilder::AppendNulls(int64_t n) {
  LANCE_RETURN_NOT_OK(value_builder_->AppendNulls(n * type_->list_size()));
  return AppendValidityRun(n, false);
}

Result<ArrayPtr> FixedSizeListBuilder::Finish() {
  const int64_t len = length_;
  const int64_t expected = len * type_->list_size();
  if (value_builder_->length() != expected) {
    return Status::InvalidArgument("{} builder: {} elements need {} child values, found {}",
                                   type_->ToString(), len, expected, value_builder_->length());
  }
  LANCE_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(auto values, value_builder_->Finish());
  return Array::Make(type_, len, {std::move(validity)}, {std::move(values)});
}

StructBuilder::StructBuilder(DataTypePtr type,
                             std::vector<std::unique_ptr<ArrayBuilder>> field_builders)
    : ArrayBuilder(std::move(type)), children_(std::move(field_builders)) {}

Status StructBuilder::AppendNulls(int64_t n) {
  for (auto& c : children_) LANCE_RETURN_NOT_OK(c->AppendNulls(n));
  return AppendValidityRun(n, false);
}

Result<ArrayPtr> StructBuilder::Finish() {
  const int64_t len = length_;
  for (size_t i = 0; i < children_.size(); ++i) {
    if (children_[i]->length() != len) {
      return Status::InvalidArgument("{} builder: field '{}' has {} values, expected {}",
                                     type_->ToString(), type_->field(static_cast<int>(i))->name(),
                                     children_[i]->length(), len);
    }
  }
  LANCE_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  std::vector<ArrayPtr> children;
  children.reserve(children_.size());
  for (auto& c : children_) {
    LANCE_ASSIGN_OR_RAISE(auto child, c->Finish());
    children.push_back(std::move(child));
  }
  return Array::Make(type_, len, {std::move(validity)}, std::move(children));
}

// ---------------------------------------------------------------------------------------------
// Dictionary

DictionaryBuilder::DictionaryBuilder(DataTypePtr type)
    : ArrayBuilder(type), values_(type->dictionary_value_type()) {}

Status DictionaryBuilder::Append(std::string_view v) {
  auto [it, inserted] = memo_.try_emplace(std::string(v), static_cast<int64_t>(memo_.size()));
  if (inserted) LANCE_RETURN_NOT_OK(values_.Append(v));
  indices_.push_back(it->second);
  return AppendValidity(true);
}

Status DictionaryBuilder::AppendNulls(int64_t n) {
  if (n <= 0) return Status::OK();
  indices_.insert(indices_.end(), static_cast<size_t>(n), 0);
  return AppendValidityRun(n, false);
}

Status DictionaryBuilder::Reserve(int64_t n) {
  ReserveMore(indices_, static_cast<size_t>(n));
  return Status::OK();
}

Result<ArrayPtr> DictionaryBuilder::Finish() {
  const DataType& index_type = *type_->index_type();
  if (!index_type.is_integer()) {
    return Status::InvalidArgument("{}: index type must be an integer", type_->ToString());
  }
  const int bits = index_type.bit_width();
  const int value_bits = index_type.is_signed_integer() ? bits - 1 : bits;
  if (value_bits < 63 && memo_.size() > (uint64_t{1} << value_bits)) {
    return Status::InvalidArgument("{} builder: {} distinct values do not fit the index type",
                                   type_->ToString(), memo_.size());
  }
  // Narrow the int64 indices to the index width (little-endian: the low bytes).
  const int64_t width = bits / 8;
  LANCE_ASSIGN_OR_RAISE(auto indices,
                        AllocateBuffer(static_cast<int64_t>(indices_.size()) * width));
  for (size_t i = 0; i < indices_.size(); ++i) {
    std::memcpy(indices->mutable_data() + static_cast<int64_t>(i) * width, &indices_[i],
                static_cast<size_t>(width));
  }
  const int64_t len = length_;
  LANCE_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(auto dict, values_.Finish());
  indices_.clear();
  memo_.clear();
  return Array::Make(type_, len, {std::move(validity), std::move(indices)}, {}, 0, std::move(dict));
}

// ---------------------------------------------------------------------------------------------
// Factory

Result<std::unique_ptr<ArrayBuilder>> MakeBuilder(DataTypePtr type) {
  using B = std::unique_ptr<ArrayBuilder>;
  switch (type->id()) {
    case TypeId::kNull: return B(new NullBuilder(std::move(type)));
    case TypeId::kBool: return B(new BooleanBuilder(std::move(type)));
    case TypeId::kInt8: return B(new Int8Builder(std::move(type)));
    case TypeId::kInt16: return B(new Int16Builder(std::move(type)));
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: return B(new Int32Builder(std::move(type)));
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration: return B(new Int64Builder(std::move(type)));
    case TypeId::kUInt8: return B(new UInt8Builder(std::move(type)));
    case TypeId::kUInt16:
    case TypeId::kHalfFloat: return B(new UInt16Builder(std::move(type)));
    case TypeId::kUInt32: return B(new UInt32Builder(std::move(type)));
    case TypeId::kUInt64: return B(new UInt64Builder(std::move(type)));
    case TypeId::kFloat: return B(new FloatBuilder(std::move(type)));
    case TypeId::kDouble: return B(new DoubleBuilder(std::move(type)));
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary: return B(new BinaryBuilder(std::move(type)));
    case TypeId::kFixedSizeBinary: return B(new FixedSizeBinaryBuilder(std::move(type)));
    case TypeId::kDecimal128: return B(new Decimal128Builder(std::move(type)));
    case TypeId::kDecimal256: return B(new Decimal256Builder(std::move(type)));
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      LANCE_ASSIGN_OR_RAISE(auto child, MakeBuilder(type->value_type()));
      return B(new ListBuilder(std::move(type), std::move(child)));
    }
    case TypeId::kFixedSizeList: {
      LANCE_ASSIGN_OR_RAISE(auto child, MakeBuilder(type->value_type()));
      return B(new FixedSizeListBuilder(std::move(type), std::move(child)));
    }
    case TypeId::kStruct: {
      std::vector<B> children;
      for (const auto& f : type->fields()) {
        LANCE_ASSIGN_OR_RAISE(auto child, MakeBuilder(f->type()));
        children.push_back(std::move(child));
      }
      return B(new StructBuilder(std::move(type), std::move(children)));
    }
    case TypeId::kDictionary: {
      if (!type->dictionary_value_type()->is_binary_like() || !type->index_type()->is_integer()) {
        return Status::NotSupported("no builder for {}: dictionary values must be utf8/binary",
                                    type->ToString());
      }
      return B(new DictionaryBuilder(std::move(type)));
    }
  }
  return Status::NotSupported("no builder for type {}", type->ToString());
}

}  // namespace lance
