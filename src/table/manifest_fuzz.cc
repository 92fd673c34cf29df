// libFuzzer target for the manifest decoder: any bytes must give a Manifest or an error,
// never a crash or an out-of-bounds read. Decoded manifests also go through the flag checks
// and the row-id decoder of every fragment.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lance/table/snapshot.h"
#include "lance/table/feature_flags.h"
#include "lance/table/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto m = lance::table::DecodeManifest(bytes, "fuzz");
  if (m.ok()) {
    (void)lance::table::CheckCanRead(m->reader_feature_flags, m->writer_feature_flags, "fuzz");
    for (const auto& f : m->fragments) {
      if (!f.inline_row_ids.empty()) (void)lance::table::DecodeRowIdSequence(f.inline_row_ids);
    }
    (void)m->num_rows();
  }
  (void)lance::table::ParseVersionJson(bytes, "fuzz");
  return 0;
}
