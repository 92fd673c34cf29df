// The layout encoders EncodePage (page_encoder.cc) chooses between -- mini-block
// (mini_block_encoder.cc), full-zip (full_zip_encoder.cc) -- and the facts about layers and
// levels they share. Internal to the encoding layer.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "encoding/chunk_codecs.h"
#include "encoding/encoder.h"
#include "encoding/repdef.h"
#include "lance/core/result.h"

namespace lance::encoding::encoder {

// Which definition codes are visible (carry a value) for `layers`.
Result<std::vector<uint8_t>> VisibleCodes(const std::vector<LayerKind>& layers);
int NumDefCodes(const std::vector<LayerKind>& layers);
int NumLists(const std::vector<LayerKind>& layers);
void SetLayers(const std::vector<LayerKind>& layers, google::protobuf::RepeatedField<int>* out);

// A mini-block page of `p`'s values written by `codec`, with the page dictionary `dictionary`
// (its encoding, buffer and item count) when given.
Result<EncodedPage> EncodeMiniBlock(const LeafPage& p, const ChunkCodec& codec,
                                    const PageEncodeOptions& opt, const Enc* dictionary = nullptr,
                                    const std::string* dictionary_buffer = nullptr,
                                    uint64_t dict_items = 0);

// Variable-width values coded one by one before they are zipped (FSST codes, zstd frames):
// the coded bytes of each value, and the value encoding of the page given the Variable
// encoding of the zipped lengths (e.g. fsst(table, variable) or general(zstd, variable)).
struct CodedValues {
  DataBlock values = DataBlock::Variable();
  std::function<Enc(const Enc& variable)> encoding;
};

// A full-zip page of `p`'s values, or of their coded form when given.
Result<EncodedPage> EncodeFullZip(const LeafPage& p, const PageEncodeOptions& opt,
                                  const CodedValues* coded = nullptr);

}  // namespace lance::encoding::encoder
