// libFuzzer target for the MemWAL decoders of untrusted bytes: shard manifests, WAL entries
// (Arrow IPC streams with writer_epoch metadata) and MemWalIndexDetails. Any input must give a
// value or an error, never a crash or an out-of-bounds read; decoded values re-encode.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lance/columnar/buffer.h"
#include "lance/memwal/index_details.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/memwal/wal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto m = lance::memwal::DecodeShardManifest(bytes, "fuzz");
  if (m.ok()) {
    (void)lance::memwal::EncodeShardManifest(*m);
    (void)lance::memwal::ShardManifestToJson(*m);
  }
  auto d = lance::memwal::DecodeMemWalIndexDetails(bytes, "fuzz");
  if (d.ok()) {
    (void)lance::memwal::EncodeMemWalIndexDetails(*d);
    (void)lance::memwal::MemWalIndexDetailsToJson(*d);
  }
  auto buffer = lance::CopyBuffer(bytes);
  if (buffer.ok()) {
    auto e = lance::memwal::DecodeWalEntry(*buffer, 1, "fuzz");
    if (e.ok() && !e->batches.empty()) {
      (void)lance::memwal::EncodeWalEntry(e->schema, e->batches, e->writer_epoch);
    }
  }
  return 0;
}
