// The page-layout decoders behind DecodePage (structural.h), one per layout -- mini-block
// (mini_block.cc), full-zip (full_zip.cc), constant (constant_page.cc) -- and what they share:
// the repetition / definition layer list of a layout (loads of page bytes: little_endian.h).
// Internal to the encoding layer.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "encoding/proto/encodings_v2_1.pb.h"
#include "encoding/little_endian.h"
#include "encoding/repdef.h"
#include "encoding/structural.h"
#include "lance/core/result.h"

namespace lance::encoding::layout {

// The layers of a layout, outermost first.
inline std::vector<LayerKind> Layers(const google::protobuf::RepeatedField<int>& layers) {
  std::vector<LayerKind> out;
  for (int l : layers) out.push_back(static_cast<LayerKind>(l));
  return out;
}

inline int NumListLayers(const std::vector<LayerKind>& layers) {
  int n = 0;
  for (LayerKind l : layers) n += IsListLayer(l) ? 1 : 0;
  return n;
}

// Errors: Corruption for no layers or an unknown layer kind.
inline Status CheckLayers(const std::vector<LayerKind>& layers) {
  if (layers.empty()) return Status::Corruption("page layout without repetition/definition layers");
  for (LayerKind l : layers) {
    if (static_cast<int>(l) < 1 || static_cast<int>(l) > 6) {
      return Status::Corruption("unknown repetition/definition layer {}", static_cast<int>(l));
    }
  }
  return Status::OK();
}

// Whole pages of each layout (the contract of DecodePage).
Result<DecodedPage> DecodeMiniBlock(const PageInput& in);
Result<DecodedPage> DecodeFullZip(const PageInput& in);
Result<DecodedPage> DecodeConstant(const PageInput& in);

}  // namespace lance::encoding::layout
