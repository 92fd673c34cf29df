// Body buffer codecs for Arrow IPC compression: LZ4 frame and Zstandard.
//
// Stateless free functions, safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "lance/core/result.h"
#include "lance/ipc/options.h"

namespace lance::ipc::internal {

// Appends the compressed form of [data, data + size) to `out`. REQUIRES: codec != kNone.
Status CompressBytes(Compression codec, int level, const uint8_t* data, int64_t size,
                     std::string* out);

// Decompresses exactly `uncompressed_size` bytes into `dst`. Errors: Corruption when the
// input is not one valid frame of that codec or does not decode to exactly that many bytes.
Status DecompressBytes(Compression codec, const uint8_t* data, int64_t size, uint8_t* dst,
                       int64_t uncompressed_size);

}  // namespace lance::ipc::internal
