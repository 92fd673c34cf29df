// Variable values (offsets then bytes) as the compressive decoders read them: the offset
// width a Variable encoding declares, and the copy of n values' offsets and bytes into a
// block. Internal to the encoding layer (compressive.cc, compressive_at.cc).
#pragma once

#include <cstdint>
#include <string_view>

#include "encoding/data_block.h"
#include "encoding/proto/encodings_v2_1.pb.h"
#include "lance/core/result.h"

namespace lance::encoding {

// The offset width in bits (32 or 64). Errors: NotSupported for compressed value buffers or
// offsets that are not Flat, Corruption for another width.
Result<int> OffsetWidth(const ::lance::encodings21::Variable& variable);

// Reads n + 1 offsets of `width` bits at `pos`, rebased so that `base` maps to 0, and the
// bytes they cover from `data`. Errors: Corruption for offsets out of order or past `data`.
Status ReadVariable(std::string_view offsets_bytes, int width, int64_t n, int64_t base,
                    std::string_view data, DataBlock* out);

}  // namespace lance::encoding
