#include "encoding/data_block.h"

#include <cstring>

#include "lance/columnar/array.h"
#include "lance/core/bit_util.h"

namespace lance::encoding {

Result<Bytes> Bytes::CopyOf(std::string_view s) {
  Bytes b;
  LANCE_RETURN_NOT_OK(b.Append(s));
  return b;
}

Status Bytes::Assign(std::string_view s) {
  LANCE_ASSIGN_OR_RAISE(Bytes copy, CopyOf(s));
  Swap(copy);
  return Status::OK();
}

Bytes Bytes::Adopt(BufferPtr buffer) {
  Bytes b;
  if (!buffer) return b;
  b.data_ = reinterpret_cast<char*>(const_cast<uint8_t*>(buffer->data()));
  b.size_ = b.cap_ = static_cast<size_t>(buffer->size());
  b.buf_ = std::move(buffer);
  b.shared_ = true;
  return b;
}

Status Bytes::Unshare(size_t capacity) {
  capacity = std::max(capacity, size_);
  if (capacity > static_cast<size_t>(INT64_MAX)) {
    return Status::OutOfMemory("cannot grow a data block to {} bytes", capacity);
  }
  auto fresh = AllocateBuffer(static_cast<int64_t>(std::max<size_t>(capacity, 64)));
  if (!fresh.ok()) return fresh.status();
  char* p = reinterpret_cast<char*>((*fresh)->mutable_data());
  if (size_ > 0) std::memcpy(p, data_, size_);
  buf_ = std::move(*fresh);
  data_ = p;
  cap_ = static_cast<size_t>(buf_->capacity());
  shared_ = false;
  return Status::OK();
}

Status Bytes::Resize(size_t n, char fill) {
  const size_t old = size_;
  LANCE_RETURN_NOT_OK(ResizeForOverwrite(n));
  if (n > old) std::memset(data_ + old, fill, n - old);
  return Status::OK();
}

Status Bytes::Append(size_t n, char c) {
  const size_t old = size_;
  LANCE_RETURN_NOT_OK(ResizeForOverwrite(size_ + n));
  std::memset(data_ + old, c, n);
  return Status::OK();
}

Result<BufferPtr> Bytes::Release() {
  BufferPtr out;
  if (!buf_) {
    LANCE_ASSIGN_OR_RAISE(out, AllocateBuffer(0));
  } else if (shared_) {
    out = SliceBuffer(buf_, reinterpret_cast<const uint8_t*>(data_) - buf_->data(),
                      static_cast<int64_t>(size_));
  } else {
    buf_->set_size(static_cast<int64_t>(size_));
    out = std::move(buf_);
  }
  *this = Bytes();
  return out;
}

DataBlock DataBlock::EmptyLike(const DataBlock& like) {
  switch (like.kind) {
    case Kind::kFixed:
      return Fixed(like.bits_per_value);
    case Kind::kVariable:
      return Variable();
    case Kind::kFixedSizeList:
      return FixedSizeList(like.dimension, EmptyLike(*like.child));
  }
  return DataBlock();
}

Result<DataBlock> DataBlock::Clone() const {
  DataBlock out;
  out.kind = kind;
  out.num_values = num_values;
  out.bits_per_value = bits_per_value;
  LANCE_ASSIGN_OR_RAISE(out.data, Bytes::CopyOf(data));
  out.offsets = offsets;
  out.dimension = dimension;
  out.child = child;
  out.child_validity = child_validity;
  return out;
}

Status DataBlock::AppendFixedBytes(const uint8_t* bytes, int64_t n) {
  LANCE_RETURN_NOT_OK(
      data.Append(reinterpret_cast<const char*>(bytes), static_cast<size_t>(n * bits_per_value / 8)));
  num_values += n;
  return Status::OK();
}

Status DataBlock::AppendBits(const uint8_t* bits, int64_t offset, int64_t n) {
  LANCE_RETURN_NOT_OK(data.Resize(static_cast<size_t>(bit_util::BytesForBits(num_values + n)), '\0'));
  auto* out = reinterpret_cast<uint8_t*>(data.mutable_data());
  for (int64_t i = 0; i < n; ++i) {
    if (bit_util::GetBit(bits, offset + i)) bit_util::SetBit(out, num_values + i);
  }
  num_values += n;
  return Status::OK();
}

Status DataBlock::AppendEmpty(int64_t n) {
  switch (kind) {
    case Kind::kFixed:
      if (bits_per_value == 1) {
        LANCE_RETURN_NOT_OK(data.Resize(static_cast<size_t>(bit_util::BytesForBits(num_values + n)), '\0'));
      } else {
        LANCE_RETURN_NOT_OK(data.Append(static_cast<size_t>(n * bits_per_value / 8), '\0'));
      }
      break;
    case Kind::kVariable:
      offsets.insert(offsets.end(), static_cast<size_t>(n), offsets.back());
      break;
    case Kind::kFixedSizeList:
      LANCE_RETURN_NOT_OK(child->AppendEmpty(n * dimension));
      if (!child_validity.empty()) {
        child_validity.insert(child_validity.end(), static_cast<size_t>(n * dimension), 1);
      }
      break;
  }
  num_values += n;
  return Status::OK();
}

namespace {

// Bytes one value takes in a block of this shape (offsets for variable width), at least 1.
int64_t BytesPerValue(const DataBlock& b) {
  switch (b.kind) {
    case DataBlock::Kind::kFixed:
      return std::max<int64_t>(1, b.bits_per_value / 8);
    case DataBlock::Kind::kVariable:
      return 8;
    case DataBlock::Kind::kFixedSizeList: {
      const int64_t child = b.child ? BytesPerValue(*b.child) : 1;
      const int64_t dim = std::max<int64_t>(1, b.dimension);
      return dim > INT64_MAX / child ? INT64_MAX : dim * child;
    }
  }
  return 1;
}

}  // namespace

Status DataBlock::Reserve(int64_t values, int64_t bytes, int64_t max_bytes) {
  if (values <= 0 && bytes <= 0) return Status::OK();
  values = std::min(std::max<int64_t>(values, 0), max_bytes / BytesPerValue(*this));
  bytes = std::min(std::max<int64_t>(bytes, 0), max_bytes);
  switch (kind) {
    case Kind::kFixed:
      return data.Reserve(static_cast<size_t>(bit_util::BytesForBits((num_values + values) * bits_per_value)));
    case Kind::kVariable: {
      const size_t want = offsets.size() + static_cast<size_t>(std::max<int64_t>(values, 0));
      if (want > offsets.capacity()) offsets.reserve(std::max(want, offsets.capacity() * 2));
      return data.Reserve(data.size() + static_cast<size_t>(std::max<int64_t>(bytes, 0)));
    }
    case Kind::kFixedSizeList:
      return child->Reserve(values * dimension, bytes);
  }
  return Status::OK();
}

Status DataBlock::AppendRange(const DataBlock& src, int64_t start, int64_t n) {
  if (src.kind != kind || start < 0 || n < 0 || start + n > src.num_values) {
    return Status::Corruption("data block: cannot take values [{}, {}) of a block of {} values",
                              start, start + n, src.num_values);
  }
  switch (kind) {
    case Kind::kFixed:
      if (src.bits_per_value != bits_per_value) {
        return Status::Corruption("data block: {} bit values appended to {} bit values",
                                  src.bits_per_value, bits_per_value);
      }
      if (bits_per_value == 1) {
        return AppendBits(reinterpret_cast<const uint8_t*>(src.data.data()), start, n);
      } else {
        const int64_t width = bits_per_value / 8;
        return AppendFixedBytes(reinterpret_cast<const uint8_t*>(src.data.data()) + start * width, n);
      }
    case Kind::kVariable: {
      const int64_t begin = src.offsets[static_cast<size_t>(start)];
      const int64_t end = src.offsets[static_cast<size_t>(start + n)];
      const int64_t shift = static_cast<int64_t>(data.size()) - begin;
      LANCE_RETURN_NOT_OK(data.Append(src.data.data() + begin, static_cast<size_t>(end - begin)));
      for (int64_t i = 1; i <= n; ++i) offsets.push_back(src.offsets[static_cast<size_t>(start + i)] + shift);
      num_values += n;
      return Status::OK();
    }
    case Kind::kFixedSizeList: {
      if (src.dimension != dimension) {
        return Status::Corruption("data block: lists of {} appended to lists of {}",
                                  src.dimension, dimension);
      }
      const bool had_validity = !child_validity.empty();
      if (!src.child_validity.empty() && !had_validity) {
        child_validity.assign(static_cast<size_t>(child->num_values), 1);
      }
      LANCE_RETURN_NOT_OK(child->AppendRange(*src.child, start * dimension, n * dimension));
      if (!src.child_validity.empty()) {
        child_validity.insert(child_validity.end(),
                              src.child_validity.begin() + start * dimension,
                              src.child_validity.begin() + (start + n) * dimension);
      } else if (had_validity) {
        child_validity.insert(child_validity.end(), static_cast<size_t>(n * dimension), 1);
      }
      num_values += n;
      return Status::OK();
    }
  }
  return Status::OK();
}

Result<BufferPtr> ValidityFromBytes(const std::vector<uint8_t>& valid, int64_t length) {
  if (valid.empty()) return BufferPtr();
  LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(bit_util::BytesForBits(length), true));
  for (int64_t i = 0; i < length; ++i) {
    if (valid[static_cast<size_t>(i)]) bit_util::SetBit(buf->mutable_data(), i);
  }
  return buf;
}

Result<ArrayPtr> DataBlockToArray(const DataTypePtr& type, const DataBlock& block,
                                  const std::vector<uint8_t>& validity) {
  LANCE_ASSIGN_OR_RAISE(DataBlock copy, block.Clone());
  if (block.child) {
    LANCE_ASSIGN_OR_RAISE(DataBlock child, block.child->Clone());
    copy.child = std::make_shared<DataBlock>(std::move(child));
  }
  return DataBlockToArray(type, std::move(copy), validity);
}

Result<ArrayPtr> DataBlockToArray(const DataTypePtr& type, DataBlock&& block,
                                  const std::vector<uint8_t>& validity) {
  const int64_t n = block.num_values;
  LANCE_ASSIGN_OR_RAISE(BufferPtr valid, ValidityFromBytes(validity, n));
  switch (block.kind) {
    case DataBlock::Kind::kFixed: {
      const int64_t need = bit_util::BytesForBits(n * block.bits_per_value);
      if (static_cast<int64_t>(block.data.size()) < need) {
        return Status::Corruption("decoded {} bytes for {} values of {} bits", block.data.size(), n,
                                  block.bits_per_value);
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr values, block.data.Release());
      values->set_size(need);
      return Array::Make(type, n, {valid, values});
    }
    case DataBlock::Kind::kVariable: {
      const bool large = type->has_large_offsets();
      if (static_cast<int64_t>(block.offsets.size()) != n + 1) {
        return Status::Corruption("{} offsets for {} values", block.offsets.size(), n);
      }
      if (!large && block.offsets.back() > INT32_MAX) {
        return Status::Corruption("{} bytes of values do not fit 32-bit offsets", block.offsets.back());
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr off, AllocateBuffer((n + 1) * (large ? 8 : 4)));
      if (large) {
        std::memcpy(off->mutable_data(), block.offsets.data(), static_cast<size_t>(n + 1) * 8);
      } else {
        auto* o = off->mutable_data_as<int32_t>();
        const int64_t* src = block.offsets.data();
        for (int64_t i = 0; i <= n; ++i) o[i] = static_cast<int32_t>(src[i]);
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr data, block.data.Release());
      return Array::Make(type, n, {valid, off, data});
    }
    case DataBlock::Kind::kFixedSizeList: {
      if (type->id() != TypeId::kFixedSizeList || type->list_size() != block.dimension) {
        return Status::Corruption("fixed size list of {} decoded for type {}", block.dimension,
                                  type->ToString());
      }
      if (!block.child) return Status::Corruption("fixed size list without child values");
      ArrayPtr child;
      if (block.child.use_count() == 1) {
        LANCE_ASSIGN_OR_RAISE(child, DataBlockToArray(type->value_type(), std::move(*block.child),
                                                      block.child_validity));
      } else {
        LANCE_ASSIGN_OR_RAISE(child, DataBlockToArray(type->value_type(), *block.child,
                                                      block.child_validity));
      }
      return Array::Make(type, n, {valid}, {child});
    }
  }
  return Status::Internal("unreachable");
}

Result<DataBlock> DataBlockPrototype(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return DataBlock::Fixed(8);
    case TypeId::kBool:
      return DataBlock::Fixed(1);
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return DataBlock::Variable();
    case TypeId::kFixedSizeBinary:
      return DataBlock::Fixed(type.byte_width() * 8);
    case TypeId::kFixedSizeList: {
      LANCE_ASSIGN_OR_RAISE(DataBlock child, DataBlockPrototype(*type.value_type()));
      return DataBlock::FixedSizeList(type.list_size(), std::move(child));
    }
    default:
      if (type.is_fixed_width() && type.bit_width() > 0) return DataBlock::Fixed(type.bit_width());
      return Status::NotSupported("reading columns of type {}", type.ToString());
  }
}

}  // namespace lance::encoding
