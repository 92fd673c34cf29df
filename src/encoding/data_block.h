// DataBlock: the untyped intermediate form between Lance's compressive encodings and Arrow
// arrays. A decoder turns compressed buffers into a DataBlock of plain values; the structural
// layer then adds validity and nesting and types it as an Array.
//
// Kinds:
//   kFixed          num_values values of bits_per_value bits (1 = LSB-first bitmap, otherwise a
//                   multiple of 8), packed in `data`
//   kVariable       num_values byte strings: offsets (num_values + 1, offsets[0] == 0) into data
//   kFixedSizeList  num_values lists of `dimension` child values (`child`), with an optional
//                   per-child validity (one byte per child value, 1 = valid)
// A DataBlock is a value type; it is not shared between threads while being appended to.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"

namespace lance::encoding {

// Growable bytes backed by an aligned Buffer (big ones on huge pages) that a DataBlock hands
// over to its Array without copying (Release). It may also view an existing buffer (Adopt,
// zero-copy); the first mutation then copies it. Every call that may allocate returns a
// Status (OutOfMemory when the allocation fails) and leaves the bytes as they were on error;
// copies are explicit (CopyOf), so that no allocation can fail where it cannot report it.
class Bytes {
 public:
  Bytes() = default;
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  Bytes(Bytes&& other) noexcept { Swap(other); }
  Bytes& operator=(Bytes&& other) noexcept {
    Bytes tmp(std::move(other));
    Swap(tmp);
    return *this;
  }

  // Owned bytes holding a copy of `s`. Errors: OutOfMemory.
  static Result<Bytes> CopyOf(std::string_view s);
  // A read-only view of `buffer`'s bytes.
  static Bytes Adopt(BufferPtr buffer);

  const char* data() const { return data_; }
  // Writable bytes. REQUIRES: the bytes are owned, i.e. not adopted, or grown / resized (which
  // copies adopted bytes) since they were.
  char* mutable_data() {
    if (shared_) Status::Internal("Bytes::mutable_data on adopted bytes").Abort();
    return data_;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const char& operator[](size_t i) const { return data_[i]; }
  operator std::string_view() const { return {data_, size_}; }  // NOLINT: string-like

  // Makes room for n bytes; repeated growing reservations grow geometrically.
  Status Reserve(size_t n) {
    if (n > cap_ || shared_) return Unshare(cap_ == 0 ? n : std::max(n, cap_ * 2));
    return Status::OK();
  }
  size_t capacity() const { return cap_; }
  // Grows or shrinks to n bytes; new bytes are `fill`.
  Status Resize(size_t n, char fill = '\0');
  // Grows or shrinks to n bytes; new bytes are unspecified (to be overwritten).
  Status ResizeForOverwrite(size_t n) {
    if (n > cap_ || shared_) LANCE_RETURN_NOT_OK(Unshare(std::max(n, cap_ * 2)));
    size_ = n;
    return Status::OK();
  }
  Status Append(const char* p, size_t n) {
    if (n == 0) return Status::OK();
    if (size_ + n > cap_ || shared_) LANCE_RETURN_NOT_OK(Unshare(std::max(size_ + n, cap_ * 2)));
    std::memcpy(data_ + size_, p, n);
    size_ += n;
    return Status::OK();
  }
  Status Append(std::string_view s) { return Append(s.data(), s.size()); }
  // Shrinks to n bytes (never allocates). REQUIRES: n <= size().
  void Truncate(size_t n) { size_ = std::min(n, size_); }
  Status Append(size_t n, char c);
  // Replaces the bytes with a copy of `s`.
  Status Assign(std::string_view s);
  void clear() { *this = Bytes(); }
  // The bytes as a Buffer of size() bytes, without copying; *this becomes empty.
  // Errors: OutOfMemory (only for empty bytes, which need a buffer of their own).
  Result<BufferPtr> Release();

 private:
  void Swap(Bytes& o) noexcept {
    std::swap(buf_, o.buf_);
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
    std::swap(shared_, o.shared_);
  }
  // Moves the bytes to an owned allocation of at least `capacity` bytes.
  // Errors: OutOfMemory (the bytes stay as they were).
  Status Unshare(size_t capacity);

  BufferPtr buf_;
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
  bool shared_ = false;  // data_ belongs to an adopted buffer
};

struct DataBlock {
  enum class Kind { kFixed, kVariable, kFixedSizeList };

  Kind kind = Kind::kFixed;
  int64_t num_values = 0;
  int bits_per_value = 0;
  Bytes data;
  std::vector<int64_t> offsets{0};
  int64_t dimension = 0;
  std::shared_ptr<DataBlock> child;
  std::vector<uint8_t> child_validity;  // empty: all valid

  static DataBlock Fixed(int bits_per_value) {
    DataBlock b;
    b.bits_per_value = bits_per_value;
    return b;
  }
  static DataBlock Variable() {
    DataBlock b;
    b.kind = Kind::kVariable;
    return b;
  }
  static DataBlock FixedSizeList(int64_t dimension, DataBlock child) {
    DataBlock b;
    b.kind = Kind::kFixedSizeList;
    b.dimension = dimension;
    b.child = std::make_shared<DataBlock>(std::move(child));
    return b;
  }

  // An empty block shaped like `like` (same kind, width, dimension).
  static DataBlock EmptyLike(const DataBlock& like);

  // Value i of a kVariable block. REQUIRES: kind == kVariable, 0 <= i < num_values.
  std::string_view ValueView(int64_t i) const {
    return std::string_view(data).substr(static_cast<size_t>(offsets[i]),
                                         static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }

  // A DataBlock is moved, or copied explicitly (Clone): copying allocates.
  DataBlock() = default;
  DataBlock(const DataBlock&) = delete;
  DataBlock& operator=(const DataBlock&) = delete;
  DataBlock(DataBlock&&) noexcept = default;
  DataBlock& operator=(DataBlock&&) noexcept = default;
  // A copy of the values (the child of a fixed-size list block is shared, not copied).
  // Errors: OutOfMemory.
  Result<DataBlock> Clone() const;

  // Appends one variable-width value. REQUIRES: kind == kVariable.
  // The Append* and Reserve calls below fail only with OutOfMemory, leaving the block as it was.
  Status AppendVariable(std::string_view value) {
    LANCE_RETURN_NOT_OK(data.Append(value));
    offsets.push_back(static_cast<int64_t>(data.size()));
    ++num_values;
    return Status::OK();
  }
  // Appends n fixed-width values from `bytes` (n * bits_per_value / 8 bytes).
  // REQUIRES: kind == kFixed, bits_per_value % 8 == 0.
  Status AppendFixedBytes(const uint8_t* bytes, int64_t n);
  // Appends n bits from an LSB-first bitmap starting at bit `offset`.
  // REQUIRES: kind == kFixed, bits_per_value == 1.
  Status AppendBits(const uint8_t* bits, int64_t offset, int64_t n);
  // Appends n zero/empty values (placeholders under nulls).
  Status AppendEmpty(int64_t n);
  // Makes room for `values` more values and, for variable-width blocks, `bytes` more value
  // bytes, so that appends up to that size do not reallocate. At most `max_bytes` are reserved
  // (pass a bound when the counts come from a file and could be absurd).
  Status Reserve(int64_t values, int64_t bytes = 0, int64_t max_bytes = INT64_MAX);

  // Appends values [start, start + n) of `src`. Errors: Corruption if `src` has a different
  // shape or the range is out of bounds; OutOfMemory.
  Status AppendRange(const DataBlock& src, int64_t start, int64_t n);
};

// An LSB-first validity bitmap from one byte per slot (1 = valid); null when `valid` is empty.
Result<BufferPtr> ValidityFromBytes(const std::vector<uint8_t>& valid, int64_t length);

// Types a block as an Array of `type` with the given per-slot validity (empty = all valid).
// Errors: Corruption when the block does not fit the type.
Result<ArrayPtr> DataBlockToArray(const DataTypePtr& type, const DataBlock& block,
                                  const std::vector<uint8_t>& validity);
// The same, handing the block's bytes over to the Array without copying them.
Result<ArrayPtr> DataBlockToArray(const DataTypePtr& type, DataBlock&& block,
                                  const std::vector<uint8_t>& validity);

// An empty block of the shape that leaf values of `type` decode into: fixed-width bits, variable
// bytes or a fixed-size list of those (null: 8-bit placeholders, every slot is null).
// Errors: NotSupported for types that are not leaves of the Lance structural encodings.
Result<DataBlock> DataBlockPrototype(const DataType& type);

}  // namespace lance::encoding
