// Mini-block chunk codecs: how the values of a mini-block page are written into each chunk
// (Flat / Variable, FastLanes inline bit-packing, RLE) with the size each would take, the
// choice among them for fixed-width integers, and the byte writers and small encodings the
// page encoders share. Internal to the encoding layer (page_encoder.cc and the layout
// encoders, layout_encoders.h).
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/data_block.h"
#include "encoding/proto/encodings_v2_1.pb.h"

namespace lance::encoding::encoder {

namespace pb21 = ::lance::encodings21;
using Enc = pb21::CompressiveEncoding;

inline constexpr int64_t kChunkTargetBytes = 32 * 1024;  // the 2.1 limit: 4096 words of 8 bytes
inline constexpr int64_t kMaxChunkLevels = 32767;        // u16 level buffers of u16 levels
inline constexpr int64_t kFullZipValueBytes = 256;
inline constexpr int64_t kMaxMiniBlockValueBytes = 16 * 1024;
inline constexpr char kPad = static_cast<char>(0xFE);

inline void PadTo(std::string* s, size_t multiple) {
  const size_t rem = s->size() % multiple;
  if (rem != 0) s->append(multiple - rem, kPad);
}

template <typename T>
void Put(std::string* s, T v) {
  s->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

template <typename T>
T LoadT(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

inline void PutLE(std::string* s, uint64_t v, int bytes) {
  s->append(reinterpret_cast<const char*>(&v), static_cast<size_t>(bytes));
}

Enc FlatEncoding(int bits);
Enc VariableEncoding(int offset_bits);

// Bits needed for `max_value` (0 for 0).
int BitsFor(uint64_t max_value);

// How the values of a mini-block page are written into each chunk.
struct ChunkCodec {
  Enc encoding;
  int num_buffers = 1;
  // Bytes (with each buffer padded to 8) that values [start, start + n) take.
  std::function<int64_t(int64_t start, int64_t n)> size;
  // Appends the value buffers of values [start, start + n).
  std::function<void(int64_t start, int64_t n, std::vector<std::string>* out)> encode;
};

// Flat (fixed width) or Variable values, as they are.
ChunkCodec PlainCodec(const DataBlock& v, int offset_bits = 32);
// InlineBitpacking of fixed-width integers of 8, 16, 32 or 64 bits.
ChunkCodec BitpackCodec(const DataBlock& v);
// The smallest of Flat, InlineBitpacking and RLE for fixed-width integers.
ChunkCodec ChooseFixedCodec(const DataBlock& v);

}  // namespace lance::encoding::encoder
