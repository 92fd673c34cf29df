// libFuzzer target: arbitrary bytes through the IPC stream and file readers.
//
// Every input must yield batches or an error; crashes, sanitizer reports, leaks and
// timeouts are bugs. Seeds live in fuzz/corpus/ipc_reader_fuzz/; see fuzz/README.md.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "lance/ipc/reader.h"

namespace {

void Drain(lance::RecordBatchReader& reader) {
  for (int i = 0; i < 1000; ++i) {
    auto batch = reader.Next();
    if (!batch.ok() || !*batch) return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The readers are zero-copy: give them an exact-size heap copy so ASan sees over-reads.
  auto buffer = lance::BufferFromString(std::string(reinterpret_cast<const char*>(data), size));
  lance::ipc::IpcReadOptions options;
  // Keep allocations within the fuzzer's memory limit.
  options.max_decompressed_buffer_size = 16 << 20;

  if (auto stream = lance::ipc::StreamReader::Open(buffer, options); stream.ok()) {
    Drain(**stream);
  }
  // The same bytes pulled through a read function in small reads (stdin's path).
  size_t pos = 0;
  auto read = [&](uint8_t* out, int64_t n) -> lance::Result<int64_t> {
    const size_t k = std::min<size_t>({static_cast<size_t>(n), size - pos, 4093});
    if (k > 0) std::memcpy(out, data + pos, k);
    pos += k;
    return static_cast<int64_t>(k);
  };
  if (auto pulled = lance::ipc::StreamReader::OpenFrom(read, options); pulled.ok()) {
    Drain(**pulled);
  }
  if (auto file = lance::ipc::FileReader::Open(buffer, options); file.ok()) {
    for (int i = 0; i < (*file)->num_record_batches() && i < 1000; ++i) {
      (void)(*file)->ReadRecordBatch(i);
    }
  }
  return 0;
}
