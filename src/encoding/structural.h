// Page decoders of the Lance 2.1/2.2 structural layouts (lance.encodings21.PageLayout).
//
// Mini-block page buffers: [0] chunk metadata, [1] chunk data, [2] dictionary (if any), then
// the repetition index (if repetition_index_depth > 0).
//   chunk metadata word (u16 in 2.1, u32 with has_large_chunk in 2.2): low 4 bits = log2 of
//   the values in the chunk (0 for the last chunk, which holds the remainder), the other bits
//   = chunk bytes / 8 - 1.
//   chunk: u16 num_levels | u16 rep bytes (if rep) | u16 def bytes (if def) | one size per
//   value buffer (u16 in 2.1, u32 in 2.2) | pad to 8 | rep | pad | def | pad | each value
//   buffer followed by padding to 8 (offsets relative to the chunk start).
// Full-zip page buffers: [0] the zipped values, [1] the repetition index (variable width or
//   with repetition). Per item: control word (rep << bits_def | def, ceil((bits_rep +
//   bits_def) / 8) bytes, absent when both are 0) | length (bits_per_offset / 8 bytes,
//   variable width only) | value bytes. Invisible items (under null/empty lists) and null
//   variable-width items have only the control word; null fixed-width items keep their bytes.
// Constant page: no buffers unless levels are present (raw u16 rep, then def); `inline_value`
//   holds one fixed-width value; for other types page buffer 0 is `u32 buffer count | u32
//   size of each | buffers` (offsets then bytes of the single value); neither = all null.
// Pure functions; all offsets are bounds-checked against the page buffers.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "encoding/proto/encodings_v2_1.pb.h"
#include "lance/columnar/buffer.h"
#include "lance/core/result.h"
#include "encoding/data_block.h"
#include "encoding/repdef.h"

namespace lance::encoding {

struct PageInput {
  const ::lance::encodings21::PageLayout* layout = nullptr;
  std::vector<std::string_view> buffers;  // the page's buffers, in order
  int64_t num_rows = 0;
  int minor_version = 2;  // 1: u16 chunk grammar unless has_large_chunk
  // An empty block shaped like the leaf's values (width, variable, fixed-size list), used
  // for placeholders under nulls and for constant pages.
  DataBlock prototype;
  // Optional: where the visible values go. When set they are appended to *output (shaped like
  // `prototype`) instead of DecodedPage::values, so that pages decode straight into one
  // column-wide block.
  DataBlock* output = nullptr;
  // Optional: the Buffers behind `buffers` (same order). When given, values that are already
  // laid out as Arrow expects (fixed-width full-zip without control words) are referenced, not
  // copied, if the output is empty.
  std::vector<BufferPtr> owners;
  // Full-zip only: buffer 0 is a slice of the page holding exactly `num_rows` whole rows (found
  // through the repetition index) rather than the page; items are decoded until it ends.
  bool full_zip_row_slice = false;
};

struct DecodedPage {
  int64_t num_rows = 0;
  std::vector<LayerKind> layers;  // innermost first
  std::vector<uint16_t> rep;      // one per level, empty when absent
  std::vector<uint16_t> def;      // one per level, empty when absent
  DataBlock values;               // the visible values, in order (empty with PageInput::output)
  int64_t num_values = 0;         // visible values decoded (wherever they went)
};

// Errors: Corruption for inconsistent buffers; NotSupported for layouts/encodings this
// reader does not implement (blob, packed structs, ...).
Result<DecodedPage> DecodePage(const PageInput& input);

// Where one mini-block chunk lives in page buffer 1 and how many values it holds.
struct MiniBlockChunk {
  uint64_t offset = 0;
  uint64_t size = 0;
  int64_t num_values = 0;
};

// Parses the chunk metadata (page buffer 0) of a mini-block layout. Errors: Corruption when
// the chunks do not add up to the layout's num_items.
Result<std::vector<MiniBlockChunk>> ParseMiniBlockChunks(
    const ::lance::encodings21::MiniBlockLayout& layout, std::string_view metadata,
    int minor_version);

// Which top-level rows each chunk of a mini-block page holds. A list row may span chunks: it
// starts in one chunk (counted there) and continues as the preamble of the next ones.
struct MiniBlockChunkRows {
  int64_t first_row = 0;      // page-local index of the first row that starts in the chunk
  int64_t num_starts = 0;     // rows that start in the chunk, a trailing unfinished one included
  bool has_preamble = false;  // the chunk opens with the rest of a row begun in an earlier chunk
  bool has_trailer = false;   // the chunk's last row continues in the next chunk
};

// Reads the repetition index of a mini-block page (the buffer after the dictionary, per chunk
// `repetition_index_depth + 1` u64: the rows that end in the chunk, then the levels of a row
// left open at its end; only the first two are used). Without an index (depth 0, no
// repetition) every value is a row. Errors: Corruption when the index disagrees with the
// chunks or does not add up to `num_rows`; NotSupported for repetition without an index.
Result<std::vector<MiniBlockChunkRows>> ParseMiniBlockRowIndex(
    const ::lance::encodings21::MiniBlockLayout& layout, std::string_view rep_index,
    const std::vector<MiniBlockChunk>& chunks, int64_t num_rows);

// Decodes the levels and values of consecutive chunks of the mini-block page `in.layout`:
// `meta` their chunk metadata words, `data` their bytes back to back, `num_items` the values
// they hold; `dictionary` the page's decoded dictionary (REQUIRED when the page has one).
// in.buffers is not used; values go to in.output or the result. Errors: Corruption.
Result<DecodedPage> DecodeMiniBlockRun(const PageInput& in, std::string_view meta,
                                       std::string_view data, int64_t num_items,
                                       const DataBlock* dictionary);

// Appends the levels (to out->rep / out->def) and visible values (to *values, counted in
// out->num_values) of the rows `rows` (ascending, unique) found in `run`, decoded levels whose
// first row start is row `first_row`; with `has_preamble` the levels open with the end of an
// earlier row, which is skipped. Rows outside the run are ignored. Returns the number of rows
// that start in `run`. Errors: Corruption when the levels, values or preamble disagree.
Result<int64_t> AppendSelectedRows(const DecodedPage& run, int64_t first_row, bool has_preamble,
                                   const int64_t* rows, size_t num_rows, DecodedPage* out,
                                   DataBlock* values);

// Where rows [first, first + count) of a full-zip page without repetition live in its buffer 0:
// a byte range. `rep_index` is page buffer 1 (ignored for fixed-width values, whose rows are
// at a fixed stride); pass the index entries [first, first + count] of it, i.e. the slice that
// starts at entry `first`. Errors: Corruption for an index that does not fit.
struct ByteRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};
// Bytes of one repetition index entry of a full-zip page of `num_rows` rows whose buffer 1 has
// `rep_index_size` bytes (1, 2, 4 or 8). Errors: Corruption when the size fits none.
Result<int> FullZipRepIndexWidth(uint64_t rep_index_size, int64_t num_rows);
// The byte range of rows [first, first + count) of a fixed-width full-zip page (no repetition).
Result<ByteRange> FullZipFixedRowRange(const ::lance::encodings21::FullZipLayout& layout,
                                       int64_t first, int64_t count, uint64_t data_size);
// The byte range between repetition index entries `entries` (count + 1 of `width` bytes).
Result<ByteRange> FullZipIndexedRowRange(std::string_view entries, int width, int64_t count,
                                         uint64_t data_size);

// The dictionary items of a mini-block page (page buffer 2, block form).
Result<DataBlock> DecodeMiniBlockDictionary(const ::lance::encodings21::MiniBlockLayout& layout,
                                            std::string_view bytes);
// Appends the values at `positions` (ascending, relative to the chunk) of one chunk (its bytes)
// of a mini-block page without repetition or definition levels, decoding as little of the
// chunk as the encoding allows. `dictionary`: the page's decoded dictionary items, or null.
// Errors: Corruption; InvalidArgument for a page with levels.
Status DecodeMiniBlockChunkAt(const ::lance::encodings21::MiniBlockLayout& layout,
                              std::string_view chunk, int64_t chunk_values,
                              const DataBlock* dictionary, const std::vector<int64_t>& positions,
                              DataBlock* out);
// Dictionary pages: appends the dictionary indices (not the items) of the values at
// `positions` of one chunk to `out`, each plus `base`. An index is at most `dictionary_size`
// (the number of decoded items; index == dictionary_size is the null entry the writer counts
// without storing, which DecodeMiniBlockChunkAt turns into an empty value).
// Errors: Corruption (an index past the dictionary, base + index past int32); InvalidArgument
// for a page with levels or without a dictionary.
Status DecodeMiniBlockChunkIndicesAt(const ::lance::encodings21::MiniBlockLayout& layout,
                                     std::string_view chunk, int64_t chunk_values,
                                     int64_t dictionary_size, const std::vector<int64_t>& positions,
                                     int32_t base, std::vector<int32_t>* out);

// The same two for the values [first, first + count) of the chunk (a ranged read): a whole
// chunk decodes in one pass, without a list of positions.
Status DecodeMiniBlockChunkRange(const ::lance::encodings21::MiniBlockLayout& layout,
                                 std::string_view chunk, int64_t chunk_values,
                                 const DataBlock* dictionary, int64_t first, int64_t count,
                                 DataBlock* out);
Status DecodeMiniBlockChunkIndicesRange(const ::lance::encodings21::MiniBlockLayout& layout,
                                        std::string_view chunk, int64_t chunk_values,
                                        int64_t dictionary_size, int64_t first, int64_t count,
                                        int32_t base, std::vector<int32_t>* out);

// A one-line description of a page layout for `lance file info`.
std::string DescribePageLayout(const ::lance::encodings21::PageLayout& layout);

}  // namespace lance::encoding
