// Test helpers shared by the file layer's tests.
#pragma once

#include <cstdint>
#include <string_view>

#include "lance/io/fault_injecting_object_store.h"

namespace lance::file {

// An object store that counts the bytes of every backend read (GetRanges reaches the backend
// through GetRange, once per merged range), for asserting how much a read fetched.
class ByteCountingStore : public io::FaultInjectingObjectStore {
 public:
  using io::FaultInjectingObjectStore::FaultInjectingObjectStore;
  Result<BufferPtr> GetRange(std::string_view path, int64_t offset, int64_t length) override {
    bytes += length;
    return io::FaultInjectingObjectStore::GetRange(path, offset, length);
  }
  int64_t bytes = 0;
};

}  // namespace lance::file
