// Buffer: an immutable, reference-counted span of bytes, the unit of Arrow memory.
//
// A Buffer either owns its memory (allocated 64-byte aligned and zero-padded to a multiple of
// 64 bytes, as the Arrow layout recommends) or views memory kept alive by an opaque owner
// (a parent buffer for zero-copy slices, a memory map, an imported C Data array). Buffers are
// shared as std::shared_ptr<Buffer> and are never mutated once published, so they may be read
// from any number of threads. BufferBuilder is the single-threaded growable counterpart.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "lance/core/result.h"

namespace lance {

inline constexpr int64_t kBufferAlignment = 64;

class Buffer {
 public:
  // A non-owning view of [data, data + size) kept alive by `owner` (may be null for static
  // memory that outlives every use).
  Buffer(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner = nullptr)
      : data_(const_cast<uint8_t*>(data)), size_(size), capacity_(size), owner_(std::move(owner)) {}

  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }
  // Allocated bytes available from data() (>= size()); the tail is zero for owned buffers.
  int64_t capacity() const { return capacity_; }
  template <typename T>
  const T* data_as() const { return reinterpret_cast<const T*>(data_); }
  std::string_view view() const {
    return {reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)};
  }
  bool is_aligned(int64_t alignment = kBufferAlignment) const {
    return reinterpret_cast<uintptr_t>(data_) % static_cast<uintptr_t>(alignment) == 0;
  }

  // Writable access. REQUIRES: the buffer was made by AllocateBuffer/BufferBuilder and has not
  // been published to other threads yet.
  uint8_t* mutable_data() { return data_; }
  template <typename T>
  T* mutable_data_as() { return reinterpret_cast<T*>(data_); }

  // Shrinks the logical size (capacity unchanged). REQUIRES: new_size <= capacity().
  void set_size(int64_t new_size) { size_ = new_size; }

  bool Equals(const Buffer& other) const {
    return size_ == other.size_ && (data_ == other.data_ || std::memcmp(data_, other.data_, size_) == 0);
  }

  // The memory owner; a slice holds its parent here.
  const std::shared_ptr<const void>& owner() const { return owner_; }

 private:
  friend Result<std::shared_ptr<Buffer>> AllocateBuffer(int64_t, bool);
  uint8_t* data_;
  int64_t size_;
  int64_t capacity_;
  std::shared_ptr<const void> owner_;
};

using BufferPtr = std::shared_ptr<Buffer>;

// Allocates `size` bytes, 64-byte aligned, capacity rounded up to a multiple of 64 with the
// padding zeroed. With `zero_fill` the whole buffer is zeroed. Errors: OutOfMemory.
Result<BufferPtr> AllocateBuffer(int64_t size, bool zero_fill = false);

// A zero-copy slice [offset, offset + length) of `parent`, keeping the parent alive.
// REQUIRES: 0 <= offset, offset + length <= parent->size().
BufferPtr SliceBuffer(const BufferPtr& parent, int64_t offset, int64_t length);

// A buffer owning a copy of `bytes` (aligned, padded).
Result<BufferPtr> CopyBuffer(std::string_view bytes);

// A buffer that takes ownership of `s` without copying (not necessarily aligned).
BufferPtr BufferFromString(std::string s);

// BufferBuilder: a growable, 64-byte aligned byte buffer. Single-threaded.
class BufferBuilder {
 public:
  BufferBuilder() = default;
  BufferBuilder(BufferBuilder&&) noexcept = default;
  BufferBuilder& operator=(BufferBuilder&&) noexcept = default;

  // Ensures room for `additional` more bytes.
  Status Reserve(int64_t additional) {
    if (size_ + additional > capacity_) return Grow(size_ + additional);
    return Status::OK();
  }
  Status Append(const void* data, int64_t n) {
    LANCE_RETURN_NOT_OK(Reserve(n));
    if (n > 0) std::memcpy(data_ + size_, data, static_cast<size_t>(n));
    size_ += n;
    return Status::OK();
  }
  template <typename T>
  Status AppendValue(const T& v) { return Append(&v, sizeof(T)); }
  // Appends n zero bytes.
  Status AppendZeros(int64_t n) {
    LANCE_RETURN_NOT_OK(Reserve(n));
    std::memset(data_ + size_, 0, static_cast<size_t>(n));
    size_ += n;
    return Status::OK();
  }
  // Unchecked appends. REQUIRES: Reserve() made room.
  void UnsafeAppend(const void* data, int64_t n) {
    std::memcpy(data_ + size_, data, static_cast<size_t>(n));
    size_ += n;
  }
  template <typename T>
  void UnsafeAppendValue(const T& v) { UnsafeAppend(&v, sizeof(T)); }

  // Resizes to exactly `n` bytes; new bytes are zero.
  Status Resize(int64_t n);

  uint8_t* mutable_data() { return data_; }
  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }

  // Hands over the bytes as a Buffer (padding zeroed) and resets the builder.
  Result<BufferPtr> Finish();
  void Reset();

 private:
  Status Grow(int64_t min_capacity);
  BufferPtr buffer_;
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
};

}  // namespace lance
