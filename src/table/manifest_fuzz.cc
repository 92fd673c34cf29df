// libFuzzer target for the manifest codec: any bytes must give a Manifest or an error, never
// a crash or an out-of-bounds read. A decoded manifest also goes through the flag checks, the
// row-id and row-version decoders of every fragment, and the encoder, whose output must decode
// again to a manifest with the same content. The read fix-ups for older writers' manifests
// (table/legacy_fixups.h: data storage version inferred, counts from files that are missing
// here) and the check before writing on top of one run on every decoded manifest too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lance/table/feature_flags.h"
#include "lance/table/manifest.h"
#include "lance/io/memory_object_store.h"
#include "lance/table/location.h"
#include "lance/table/row_ids.h"
#include "table/legacy_fixups.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string inline_txn;
  auto m = lance::table::DecodeManifest(bytes, "fuzz", &inline_txn);
  if (m.ok()) {
    (void)lance::table::CheckCanRead(m->reader_feature_flags, m->writer_feature_flags, "fuzz");
    for (const auto& f : m->fragments) {
      // Every claim is checked; expanding one id or version per row is proportional to the
      // claim by design, so only modest claims are expanded here.
      constexpr uint64_t kExpandAtMost = uint64_t{1} << 22;
      if (!f.inline_row_ids.empty()) {
        auto n = lance::table::RowIdSequenceLength(f.inline_row_ids);
        if (n.ok() && *n <= kExpandAtMost) {
          auto ids = lance::table::DecodeRowIdSequence(f.inline_row_ids);
          if (!ids.ok() || ids->size() != *n) std::abort();
        }
      }
      for (bool created : {true, false}) {
        const bool valid = lance::table::ValidateRowVersions(f, created).ok();
        if (valid && f.physical_rows <= kExpandAtMost) {
          auto v = lance::table::RowVersions(f, created);
          if (!v.ok() || v->size() != f.physical_rows) std::abort();
        }
      }
    }
    (void)m->num_rows();
    (void)lance::table::internal::InferDataStorageVersion(*m, "fuzz");
    (void)lance::table::internal::CheckLegacyWritable(*m, "fuzz");
    {
      static const auto store = lance::io::MemoryObjectStore::Make();
      const lance::table::TableLocation loc(store, "t");
      lance::table::Manifest fixed = *m;
      (void)lance::table::internal::ApplyReadFixups(loc, "fuzz", &fixed, /*tolerate_missing=*/true);
      fixed = *m;
      (void)lance::table::internal::ApplyReadFixups(loc, "fuzz", &fixed, /*tolerate_missing=*/false);
    }
    auto again = lance::table::EncodeManifest(*m, inline_txn);
    if (again.ok()) {
      auto back = lance::table::DecodeManifest(*again, "fuzz again");
      // What was decoded once encodes to something that decodes to the same content.
      if (!back.ok() || back->fragments.size() != m->fragments.size() ||
          back->fields.size() != m->fields.size() || back->indices.size() != m->indices.size() ||
          back->version != m->version) {
        std::abort();
      }
    }
  }
  (void)lance::table::ParseVersionJson(bytes, "fuzz");
  return 0;
}
