// Options shared by the Arrow IPC readers and writers.
//
// Plain value types: copy them freely, share them read-only between threads.
#pragma once

#include <cstdint>
#include <string_view>

#include "lance/core/result.h"

namespace lance::ipc {

// Body compression of record and dictionary batches (Arrow's BodyCompression, per buffer).
enum class Compression : uint8_t { kNone, kLz4Frame, kZstd };

// "none", "lz4" (also "lz4_frame") or "zstd", case-sensitive. Errors: InvalidArgument.
Result<Compression> CompressionFromName(std::string_view name);
std::string_view CompressionName(Compression compression);

struct IpcWriteOptions {
  Compression compression = Compression::kNone;
  // Codec level; 0 means the codec's default.
  int compression_level = 0;
  // Padding of every message and body buffer: 8 or 64. Bodies start at a multiple of this
  // from the start of the stream or file, which is what lets readers map them zero-copy.
  int32_t alignment = 64;
  // When a later batch carries a dictionary that extends the one already sent for the same
  // field, send only the new tail as a delta. Otherwise (and when the dictionary changed in
  // any other way) a stream sends a replacement; a file cannot hold replacements and its
  // writer rejects them with InvalidArgument.
  bool emit_dictionary_deltas = true;
};

struct IpcReadOptions {
  // Run RecordBatch::ValidateFull() on every batch read (offsets, UTF-8, dictionary indices).
  // Leave on for untrusted input; the structural checks the reader makes itself stay on.
  bool validate_full = true;
  // Upper bound on the declared uncompressed size of one compressed body buffer.
  int64_t max_decompressed_buffer_size = int64_t{1} << 34;
};

}  // namespace lance::ipc
