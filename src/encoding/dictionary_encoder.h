// Dictionaries the page encoder chooses for mini-block pages: of strings when there are few
// distinct ones, of 64-bit values when lance 12 would pick one (file 2.2), and the page
// dictionary buffer (items in block form, LZ4-compressed in 2.2). Internal to the encoding
// layer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "encoding/chunk_codecs.h"
#include "encoding/data_block.h"
#include "lance/core/result.h"

namespace lance::encoding::encoder {

// A dictionary of distinct strings when there are few of them; nullopt otherwise.
struct StringDictionary {
  DataBlock items = DataBlock::Variable();
  DataBlock indices = DataBlock::Fixed(32);
};

Result<std::optional<StringDictionary>> BuildDictionary(const DataBlock& v);  // Errors: OutOfMemory

// Variable block form: offset width in bits | position of the bytes (both u32 with 32-bit
// offsets, u64 with 64-bit ones) | offsets relative to the bytes | bytes.
std::string VariableBlock(const DataBlock& items, int offset_bits);

// The dictionary buffer of a mini-block page and its encoding: the items in block form
// (Variable block or plain fixed-width bytes), LZ4-compressed in 2.2 as lance 12 writes them.
Result<std::pair<Enc, std::string>> EncodeDictionaryItems(const DataBlock& items, int offset_bits,
                                                         int minor_version);

// A dictionary of the distinct 64-bit values when lance 12 would pick one (file 2.2): at least
// 100 values and (distinct * 8 + values * 4) < 0.8 * values * 8 bytes, i.e. fewer distinct
// values than 30% of them. Indices are u32 in first-occurrence order.
struct FixedDictionary {
  DataBlock items = DataBlock::Fixed(64);
  DataBlock indices = DataBlock::Fixed(32);
};

Result<std::optional<FixedDictionary>> BuildFixedDictionary(const DataBlock& v);

}  // namespace lance::encoding::encoder
