// The integer codecs of lance 12's inverted-index files (index format 2):
//
// * BitPacker4x (the `bitpacking` crate's 4x layout): 128 u32 values in four interleaved lanes
//   (value i in lane i % 4), each lane packed LSB first into 32-bit words, word w of lane j
//   stored as little-endian u32 number 4w + j; `bits` bits per value take 16 * bits bytes.
// * Varints: LEB128 u32.
// * A posting block: f32 block max score, then for a full block (block_size documents) u32
//   first doc id, u8 width + packed doc-id deltas (from the previous id, the first 0), u8 width
//   + packed frequencies; the last, partial block: varint doc ids (the first absolute, then
//   deltas) then varint frequencies ("varint_delta_v1" tail codec).
// * A position stream (`shared_stream_v2` layout, `packed_delta_v1` codec): per posting block,
//   from the byte offset `_position_block_offset` names, the block's documents' positions
//   concatenated, each document's as deltas (its first absolute), in groups of 128 values
//   packed as [u8 width][BitPacker4x], the rest as varints.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/core/result.h"

namespace lance::index::fts {

inline constexpr size_t kPackedBlock = 128;

// Unpacks 128 values of `bits` bits (0..32) from `in` (16 * bits bytes) into out[0..127].
void Unpack4x(const uint8_t* in, int bits, uint32_t* out);
// Packs 128 values (each < 2^bits) into `out` (16 * bits bytes, zeroed by the caller).
void Pack4x(const uint32_t* in, int bits, uint8_t* out);

// Reads one varint at *pos of `data`, advancing *pos. Corruption (naming `what`) when it runs
// past the end or over 32 bits.
Result<uint32_t> ReadVarint(std::string_view data, size_t* pos, std::string_view what);

// Appends the (doc id, frequency) pairs of one posting block to *docs / *freqs; `n` is the
// number of documents in it (block_size for a full block, fewer for the last one, which must
// be the partial one). *max_score gets the block's stored score. Corruption when the ids are
// not ascending or a frequency is 0.
Status DecodePostingBlock(std::string_view block, size_t n, size_t block_size, std::vector<uint32_t>* docs,
                          std::vector<uint32_t>* freqs, float* max_score, std::string_view what);
// The same into docs[0..n) and freqs[0..n); also Corruption when the ids are not ascending or
// a frequency is 0.
Status DecodePostingBlockTo(std::string_view block, size_t n, size_t block_size, uint32_t* docs, uint32_t* freqs,
                            float* max_score, std::string_view what);

// Decodes `count` position deltas at `data[*pos]` (packed groups of 128, then varints).
Status DecodePositionRun(std::string_view data, size_t* pos, size_t count, std::vector<uint32_t>* out,
                         std::string_view what);

// --- writing (the inverse of the above, as lance 12 writes them) ---

// Bits needed for `v` (0 for 0).
inline int BitWidth(uint32_t v) { return static_cast<int>(std::bit_width(v)); }
void AppendVarint(std::string* out, uint32_t v);
// One posting block of `n` documents (ascending ids) with its block max score.
std::string EncodePostingBlock(const uint32_t* docs, const uint32_t* freqs, size_t n, float max_score);
// Appends `count` position deltas: groups of 128 packed at their widest value, then varints.
void EncodePositionRun(const uint32_t* deltas, size_t count, std::string* out);
// Impacts (one `_impacts` value): the documents that can score best in a range of postings,
// as (frequency, length code) pairs, frequency ascending with code strictly ascending (every
// pair no other beats on both), lance 12's encoding: varint last doc id of the range, varint
// pair count, then per pair v = (frequency step - 1) << 1 | (code step != 1), and the code
// step as a varint when that bit is set (steps from (0, 0)). The length code is lossy above
// 15 (LengthCode). `_impacts` holds one value per posting block, then one per group of 32
// blocks (kImpactGroup), checked against lance 12 up to 35 blocks.
inline constexpr size_t kImpactGroup = 32;
std::string EncodeImpacts(uint32_t last_doc, const std::vector<std::pair<uint32_t, uint32_t>>& pareto);
// The inverse: appends the value's pairs to *pareto (as EncodeImpacts takes them) and sets
// *last_doc. Corruption (naming `what`) when it is cut short, has bytes left over, holds no
// pair, or a step overflows 32 bits.
Status DecodeImpacts(std::string_view value, uint32_t* last_doc, std::vector<std::pair<uint32_t, uint32_t>>* pareto,
                     std::string_view what);
// A document length as 4 significant bits and an exponent (exact below 16): the top bit of
// the length dropped, the next three kept, the shift + 1 above them.
inline uint32_t LengthCode(uint32_t len) {
  const int bits = BitWidth(len);
  if (bits < 4) return len;
  const int shift = bits - 4;
  return ((len >> shift) & 7u) | (static_cast<uint32_t>(shift + 1) << 3);
}
// The shortest length with LengthCode `code` (a document of that code has at least this many
// tokens); codes above any length's give UINT32_MAX.
uint32_t MinLengthOfCode(uint32_t code);
// The (frequency, length code) pairs of documents with frequencies `freqs` and length codes
// `codes`, kept as EncodeImpacts wants them.
std::vector<std::pair<uint32_t, uint32_t>> ParetoImpacts(const uint32_t* freqs, const uint32_t* codes, size_t n);

}  // namespace lance::index::fts
