// Page encoders of the Lance 2.1/2.2 structural layouts: the inverse of structural.h.
//
// A leaf column's page arrives as its repetition/definition layers, its levels and its
// visible values (a DataBlock with placeholders under null items, see repdef.h); EncodePage
// picks the structural layout and the compressive encodings and produces the page buffers:
//   mini-block  values cut into chunks of a power-of-two number of values (at most
//               max_chunk_values, about 32 KiB each), u16 chunk words in 2.1, u32 with
//               has_large_chunk in 2.2; levels stay with the values they lead to (levels of
//               invisible items go to the chunk of the next visible value); a repetition
//               index (rows ending in the chunk, leftover levels of the row still open) when
//               there are lists
//   full-zip    wide fixed-width values (>= 256 bytes, e.g. 128-float vectors) and long
//               variable-width values (average >= 256 bytes or any value over 16 KiB)
//   constant    2.2 pages whose visible values are all equal (inline value up to 32 bytes),
//               and pages without one valid value (all null / all empty lists)
// With `compress`, the value encoding of a mini-block page is chosen from cheap statistics
// (bit widths, run count, distinct count, string lengths): FastLanes bit-packing, RLE,
// dictionary (strings; in 2.2 also 64-bit values with fewer distinct values than 30% of the
// page, as lance 12), FSST; otherwise Flat / Variable only. Arrow dictionary columns are
// mini-block pages of their own indices with their items as the page dictionary. Pure
// functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "encoding/proto/encodings_v2_1.pb.h"
#include "lance/core/result.h"
#include "lance/core/thread_pool.h"
#include "encoding/data_block.h"
#include "encoding/repdef.h"

namespace lance::encoding {

struct PageEncodeOptions {
  int minor_version = 2;           // 1 or 2 (2.1 / 2.2)
  int64_t max_chunk_values = 4096;  // power of two, <= 4096
  bool compress = true;
  bool flat_levels = false;  // plain u16 levels even with `compress`
  // Where a large page's FSST codes are computed, in pieces (null: on the caller). The
  // bytes are the same either way.
  ThreadPool* pool = nullptr;
};

// One leaf column page, as the writer's shredder produced it.
struct LeafPage {
  int64_t num_rows = 0;
  std::vector<LayerKind> layers;  // innermost first
  std::vector<uint16_t> rep;      // one per level; empty without list layers
  std::vector<uint16_t> def;      // one per level; empty when every level is 0
  DataBlock values;               // the visible values
  int offset_bits = 32;           // variable-width values: 64 for large_utf8 / large_binary
  // An Arrow dictionary column: `values` are its indices (fixed width of the index type) and
  // `dictionary` its items, written as a mini-block page with the dictionary in buffer 2 (how
  // lance 12 stores dictionary-typed fields; the reader gives back the indices' width).
  bool has_dictionary = false;
  DataBlock dictionary;
};

struct EncodedPage {
  ::lance::encodings21::PageLayout layout;
  std::vector<std::string> buffers;
  // When set, buffer `borrowed_index` is these bytes of the LeafPage's values instead (no
  // copy); valid while the LeafPage lives.
  int borrowed_index = -1;
  std::string_view borrowed;

  std::string_view buffer(size_t i) const {
    return static_cast<int>(i) == borrowed_index ? borrowed : std::string_view(buffers[i]);
  }
};

// Errors: InvalidArgument for inconsistent input (levels vs values), NotSupported for data
// the layouts cannot hold (e.g. more than 32767 levels before one visible value).
Result<EncodedPage> EncodePage(const LeafPage& page, const PageEncodeOptions& options);

}  // namespace lance::encoding
