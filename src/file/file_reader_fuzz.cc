// libFuzzer target: arbitrary bytes through the Lance data file reader (footer, offset tables,
// protobuf metadata, every page decoder), 2.x and legacy v1 (footer 0.1/0.2: metadata,
// embedded schema, page table, every v1 page layout, dictionaries, statistics). Every input
// must give a batch or an error; crashes, sanitizer reports and leaks are bugs. Seeds:
// tests/golden/lance_file/*.lance and v1 files of tests/golden/legacy.
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
  const int64_t n = (*reader)->num_rows();
  if (n > 2) (void)(*reader)->Take({n - 1, 0});
  if ((*reader)->version().is_v1()) {
    auto stats = (*reader)->LegacyStatistics();
    if (stats.ok() && *stats) (void)(*stats)->Validate();
  }
  // Ranged reads (whole-chunk decodes) and dictionary indices kept as they are.
  if (n > 0) {
    lance::file::ReadOptions keep;
    keep.keep_dictionaries = true;
    auto range = (*reader)->ReadRange(n / 3, n - n / 3, {}, keep);
    if (range.ok()) (void)(*range)->Validate();
    auto taken = (*reader)->Take({n / 2, 0, n - 1, n / 2}, {}, keep);
    if (taken.ok()) (void)(*taken)->Validate();
  }
  return 0;
}
