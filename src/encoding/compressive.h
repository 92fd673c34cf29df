// Decoders of Lance 2.1/2.2 compressive encodings (lance.encodings21.CompressiveEncoding).
//
// A compressive encoding turns a DataBlock into buffers. It is decoded in one of three forms,
// depending on where the buffers live:
//   mini-block  the value buffers of one mini-block chunk (up to a few thousand values)
//   block       one self-describing buffer: dictionary items, constant-page values, levels
//   per-value   one value of a full-zip page (see structural.h)
// Byte layouts (all little-endian):
//   Flat(bits)              packed values; bits == 1 is an LSB-first bitmap
//   Variable (mini-block)   (n + 1) offsets of the inner Flat width, absolute within the
//                           buffer (the first one is the size of the offsets), then the bytes
//   Variable (block)        offset width in bits | position of the bytes (both u32 with
//                           32-bit offsets, u64 with 64-bit ones) | (n + 1) offsets relative
//                           to the bytes | bytes. Writers before lance 12 (lance 0.33.0's
//                           dictionary items) put u8 width | n | position of the bytes (n and
//                           position in the offset width) instead; both are read
//   InlineBitpacking(T)     per 1024 values: a T holding the bit width w, then a FastLanes
//                           block of 1024 * w / 8 bytes (the last block is padded to 1024)
//   OutOfLineBitpacking(T)  FastLanes blocks of width `values.flat.bits_per_value`, no header;
//                           a partial last block is either padded to 1024 values or, when
//                           the buffer is exactly that much shorter, stored as raw T values
//   Rle                     mini-block: buffer 0 = run values, buffer 1 = u8 run lengths;
//                           block: u64 byte length of the values | values | u8 run lengths
//   General(LZ4/ZSTD)       u32 uncompressed size | LZ4 block, or (u64 uncompressed size |)
//                           zstd frame; over a chunk's value buffer or a block buffer
//   ByteStreamSplit         byte k of value i at k * n + i (after the inner decoding)
//   Fsst                    the inner Variable holds FSST codes (symbol table in the message)
//   FixedSizeList           flattened child values; with has_validity buffer 0 is an
//                           LSB-first bitmap over the child values and the values follow
// All functions are pure; every read is bounds-checked (Corruption on short/garbled input).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/proto/encodings_v2_1.pb.h"
#include "lance/core/result.h"
#include "encoding/data_block.h"

namespace lance::encoding {

namespace pb21 = ::lance::encodings21;

// FSST decompression straight into the output bytes of a variable-width block: the hot loop
// of string columns (FsstSymbolTable validates the table; this copies its symbols into a
// layout that decodes with one unaligned 8-byte store per code). Immutable once made.
class FsstDecoder {
 public:
  // Errors: as FsstSymbolTable::Parse.
  static Result<FsstDecoder> Make(std::string_view symbol_table);
  // Appends the decompressed `codes` as one more value of `out` (kind kVariable).
  // Errors: Corruption for an escape without a byte or an undefined code.
  Status AppendValue(std::string_view codes, DataBlock* out) const;
  // The same for every value of `codes` (kind kVariable) in one loop (the table in registers,
  // no call per value). On error `out` is as it was.
  Status AppendValues(const DataBlock& codes, DataBlock* out) const;

 private:
  bool compressed_ = false;
  uint32_t num_symbols_ = 0;
  uint64_t symbols_[256] = {};
  uint8_t lengths_[256] = {};
};

// The value buffers of one mini-block chunk (a view: chunks are parsed into a fixed array,
// not a vector allocated per chunk).
using ValueBuffers = std::span<const std::string_view>;

// Decodes `num_values` values from the value buffers of one mini-block chunk.
Result<DataBlock> DecodeMiniBlockValues(const pb21::CompressiveEncoding& encoding,
                                        ValueBuffers buffers,
                                        int64_t num_values);

// The same, appending the values to `out` (which must have the decoded shape). Flat,
// bit-packed, variable and FSST values are written straight into `out`.
Status DecodeMiniBlockValuesInto(const pb21::CompressiveEncoding& encoding,
                                 ValueBuffers buffers,
                                 int64_t num_values, DataBlock* out);

// Appends the values at `positions` (ascending, each < num_values, repeats allowed) of one
// mini-block chunk of `num_values` values to `out`. Flat values are copied one by one and
// bit-packed ones unpack only the 1024-value blocks that hold them; other encodings decode the
// chunk and pick. Errors: as DecodeMiniBlockValues; Corruption for a position out of range.
Status DecodeMiniBlockValuesAt(const pb21::CompressiveEncoding& encoding,
                               ValueBuffers buffers, int64_t num_values,
                               const std::vector<int64_t>& positions, DataBlock* out);

// Decodes a block-form buffer holding `num_values` values.
Result<DataBlock> DecodeBlockValues(const pb21::CompressiveEncoding& encoding,
                                    std::string_view bytes, int64_t num_values);

// Decodes repetition or definition levels (unsigned, at most 16 bits) to one u16 per level.
Result<std::vector<uint16_t>> DecodeLevels(const pb21::CompressiveEncoding& encoding,
                                           std::string_view bytes, int64_t num_levels);

// Value i of a kFixed block as an unsigned integer (dictionary indices, levels).
// REQUIRES: kind == kFixed, bits_per_value in {8, 16, 32, 64}, i < num_values.
uint64_t FixedValueAt(const DataBlock& block, int64_t i);

// A short human-readable description, e.g. "fsst(variable(flat(32)))".
std::string DescribeEncoding(const pb21::CompressiveEncoding& encoding);

// Decompresses General-compressed bytes: a `size_prefix_bytes` (4 or 8) uncompressed size then
// an LZ4 block (lance writes a u32), or a zstd frame optionally after a u32/u64 size (lance
// writes a u64). Errors: Corruption, NotSupported for other schemes.
Result<std::string> DecompressGeneral(pb21::CompressionScheme scheme, std::string_view bytes,
                                      int size_prefix_bytes);

}  // namespace lance::encoding
