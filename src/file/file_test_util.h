// Test helpers shared by the file layer's tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "lance/file/file_reader.h"
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

// The first row of every page after the first, over all columns, sorted and distinct: the rows
// where a ranged read or take crosses a page boundary.
inline std::vector<int64_t> PageBoundaries(const FileReader& reader) {
  std::vector<int64_t> out;
  for (const auto& col : reader.columns()) {
    int64_t row = 0;
    for (const auto& page : col.pages) {
      if (row > 0) out.push_back(row);
      row += page.num_rows;
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace lance::file
