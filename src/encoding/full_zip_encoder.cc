// Full-zip pages: each value zipped with its control word (levels) and length, and the
// repetition index that finds each row's bytes.
#include "encoding/layout_encoders.h"

#include <algorithm>
#include <cstring>

#include "lance/core/bit_util.h"

namespace lance::encoding::encoder {

Result<EncodedPage> EncodeFullZip(const LeafPage& p, const PageEncodeOptions&, const CodedValues* coded) {
  const bool has_rep = !p.rep.empty();
  const bool has_def = !p.def.empty();
  const int64_t num_levels = has_rep ? static_cast<int64_t>(p.rep.size())
                                     : (has_def ? static_cast<int64_t>(p.def.size()) : p.values.num_values);
  const int bits_rep = BitsFor(static_cast<uint64_t>(NumLists(p.layers)));
  const int bits_def = BitsFor(static_cast<uint64_t>(NumDefCodes(p.layers)));
  const int ctrl_bytes = (bits_rep + bits_def + 7) / 8;
  const uint16_t max_rep = static_cast<uint16_t>(NumLists(p.layers));
  std::vector<uint8_t> visible_codes;
  if (has_def) {
    LANCE_ASSIGN_OR_RAISE(visible_codes, VisibleCodes(p.layers));
  }
  const DataBlock& v = coded != nullptr ? coded->values : p.values;
  const bool variable = v.kind == DataBlock::Kind::kVariable;
  int64_t value_bytes = 0;
  int offset_bytes = 0;
  EncodedPage out;
  auto* fz = out.layout.mutable_full_zip_layout();
  if (variable) {
    offset_bytes = p.offset_bits == 64 || v.offsets.back() > UINT32_MAX / 2 ? 8 : 4;
    fz->set_bits_per_offset(static_cast<uint32_t>(offset_bytes * 8));
    const Enc lengths = VariableEncoding(offset_bytes * 8);
    *fz->mutable_value_compression() = coded != nullptr ? coded->encoding(lengths) : lengths;
  } else if (v.kind == DataBlock::Kind::kFixedSizeList) {
    value_bytes = v.dimension * v.child->bits_per_value / 8;
    fz->set_bits_per_value(static_cast<uint32_t>(value_bytes * 8));
    auto* fsl = fz->mutable_value_compression()->mutable_fixed_size_list();
    fsl->set_items_per_value(static_cast<uint64_t>(v.dimension));
    *fsl->mutable_values() = FlatEncoding(v.child->bits_per_value);
  } else {
    value_bytes = v.bits_per_value / 8;
    fz->set_bits_per_value(static_cast<uint32_t>(v.bits_per_value));
    *fz->mutable_value_compression() = FlatEncoding(v.bits_per_value);
  }
  const char* fixed_data = v.kind == DataBlock::Kind::kFixedSizeList ? v.child->data.data() : v.data.data();
  if (!variable && ctrl_bytes == 0 && !has_rep) {
    // Fixed-width values without levels: the zipped buffer is the values themselves.
    fz->set_bits_rep(0);
    fz->set_bits_def(0);
    fz->set_num_items(static_cast<uint32_t>(v.num_values));
    fz->set_num_visible_items(static_cast<uint32_t>(v.num_values));
    SetLayers(p.layers, fz->mutable_layers());
    out.buffers.emplace_back();
    out.borrowed_index = 0;
    out.borrowed = std::string_view(fixed_data, static_cast<size_t>(v.num_values * value_bytes));
    return out;
  }
  std::string zipped;
  int64_t reserve = num_levels * (ctrl_bytes + offset_bytes);
  reserve += variable ? v.offsets.back() : v.num_values * value_bytes;
  zipped.reserve(static_cast<size_t>(reserve));
  std::vector<uint64_t> row_starts;
  const bool want_index = variable || has_rep;
  int64_t value = 0;
  for (int64_t i = 0; i < num_levels; ++i) {
    const uint16_t r = has_rep ? p.rep[static_cast<size_t>(i)] : max_rep;
    const uint16_t d = has_def ? p.def[static_cast<size_t>(i)] : 0;
    if (want_index && (!has_rep || r == max_rep)) row_starts.push_back(zipped.size());
    if (ctrl_bytes > 0) PutLE(&zipped, static_cast<uint64_t>(r) << bits_def | d, ctrl_bytes);
    if (has_def && (d >= visible_codes.size())) {
      return Status::InvalidArgument("definition level {} undefined", d);
    }
    const bool vis = !has_def || visible_codes[d] != 0;
    if (!vis) continue;
    if (value >= v.num_values) return Status::InvalidArgument("full-zip: more visible levels than values");
    if (variable) {
      if (d == 0) {
        const int64_t len = v.offsets[static_cast<size_t>(value + 1)] - v.offsets[static_cast<size_t>(value)];
        PutLE(&zipped, static_cast<uint64_t>(len), offset_bytes);
        zipped.append(v.data.data() + v.offsets[static_cast<size_t>(value)], static_cast<size_t>(len));
      }
    } else {
      zipped.append(fixed_data + value * value_bytes, static_cast<size_t>(value_bytes));
    }
    ++value;
  }
  if (value != v.num_values) return Status::InvalidArgument("full-zip: {} values but {} visible levels", v.num_values, value);
  fz->set_bits_rep(static_cast<uint32_t>(bits_rep));
  fz->set_bits_def(static_cast<uint32_t>(bits_def));
  fz->set_num_items(static_cast<uint32_t>(num_levels));
  fz->set_num_visible_items(static_cast<uint32_t>(v.num_values));
  SetLayers(p.layers, fz->mutable_layers());
  if (want_index) {
    row_starts.push_back(zipped.size());
    const uint64_t max = zipped.size();
    const int w = max <= UINT8_MAX ? 1 : max <= UINT16_MAX ? 2 : max <= UINT32_MAX ? 4 : 8;
    std::string idx;
    idx.reserve(row_starts.size() * static_cast<size_t>(w));
    for (uint64_t o : row_starts) PutLE(&idx, o, w);
    out.buffers.push_back(std::move(zipped));
    out.buffers.push_back(std::move(idx));
  } else {
    out.buffers.push_back(std::move(zipped));
  }
  return out;
}


}  // namespace lance::encoding::encoder
