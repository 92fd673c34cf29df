// libFuzzer target: arbitrary bytes through the Lance data file reader (footer, offset tables,
// protobuf metadata, every page decoder). Every input must give a batch or an error; crashes,
// sanitizer reports and leaks are bugs. Seeds: tests/golden/lance_file/*.lance.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lance/file/file_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size heap copy so that ASan sees any over-read past the end.
  auto buffer = lance::BufferFromString(std::string(reinterpret_cast<const char*>(data), size));
  auto reader = lance::file::FileReader::Open(buffer);
  if (!reader.ok()) return 0;
  // Keep the work bounded: a tiny file may claim billions of constant rows.
  if ((*reader)->num_rows() > (1 << 20)) return 0;
  auto batch = (*reader)->ReadAll();
  if (batch.ok()) (void)(*batch)->Validate();
  if ((*reader)->num_rows() > 2) (void)(*reader)->Take({(*reader)->num_rows() - 1, 0});
  return 0;
}
