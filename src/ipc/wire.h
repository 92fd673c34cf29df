// Framing constants of the Arrow IPC encapsulated message and file formats.
//
// Message:  <0xFFFFFFFF: u32> <metadata length: i32> <flatbuffer Message, zero padded so the
//           body starts aligned> <body: the buffers, each padded>
// End of stream: <0xFFFFFFFF: u32> <0: i32>. (Pre-1.0 streams omit the 0xFFFFFFFF marker and
//           start with the length; readers still accept that.)
// File:     "ARROW1" <2 zero bytes> <stream, with end marker> <flatbuffer Footer>
//           <footer length: i32> "ARROW1"
// All integers are little-endian.
#pragma once

#include <cstdint>
#include <string_view>

namespace lance::ipc::internal {

inline constexpr uint32_t kContinuationMarker = 0xFFFFFFFFu;
inline constexpr std::string_view kFileMagic{"ARROW1", 6};
// Magic plus padding to 8 bytes at the start of a file.
inline constexpr int64_t kFileHeaderSize = 8;
// Footer length and trailing magic.
inline constexpr int64_t kFileTrailerSize = 4 + 6;
// Compressed body buffers start with the int64 uncompressed length; -1 = stored raw.
inline constexpr int64_t kCompressedPrefixSize = 8;
inline constexpr int64_t kStoredUncompressed = -1;

}  // namespace lance::ipc::internal
