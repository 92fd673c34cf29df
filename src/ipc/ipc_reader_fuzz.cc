// libFuzzer target: arbitrary bytes through the IPC stream and file readers.
//
// Every input must yield batches or an error; crashes, sanitizer reports, leaks and
// timeouts are bugs. Seeds live in fuzz/corpus/ipc_reader_fuzz/; see fuzz/README.md.
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
  if (auto file = lance::ipc::FileReader::Open(buffer, options); file.ok()) {
    for (int i = 0; i < (*file)->num_record_batches() && i < 1000; ++i) {
      (void)(*file)->ReadRecordBatch(i);
    }
  }
  return 0;
}
