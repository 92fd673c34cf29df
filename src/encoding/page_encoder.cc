#include <algorithm>
#include <cstring>
#include <functional>

#include "lance/core/bit_util.h"
#include "lance/encoding/encoder.h"

namespace lance::encoding {

namespace {

namespace pb21 = ::lance::encodings21;
using Enc = pb21::CompressiveEncoding;

constexpr int64_t kChunkTargetBytes = 32 * 1024;  // the 2.1 limit: 4096 words of 8 bytes
constexpr int64_t kMaxChunkLevels = 32767;        // u16 level buffers of u16 levels
constexpr int64_t kFullZipValueBytes = 256;
constexpr int64_t kMaxMiniBlockValueBytes = 16 * 1024;
constexpr char kPad = static_cast<char>(0xFE);

void PadTo(std::string* s, size_t multiple) {
  const size_t rem = s->size() % multiple;
  if (rem != 0) s->append(multiple - rem, kPad);
}

template <typename T>
void Put(std::string* s, T v) {
  s->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void PutLE(std::string* s, uint64_t v, int bytes) {
  s->append(reinterpret_cast<const char*>(&v), static_cast<size_t>(bytes));
}

Enc FlatEncoding(int bits) {
  Enc e;
  e.mutable_flat()->set_bits_per_value(static_cast<uint64_t>(bits));
  return e;
}

Enc VariableEncoding(int offset_bits) {
  Enc e;
  *e.mutable_variable()->mutable_offsets() = FlatEncoding(offset_bits);
  return e;
}

// Bits [start, start + n) of an LSB-first bitmap, as a new bitmap.
std::string ExtractBits(std::string_view bits, int64_t start, int64_t n) {
  std::string out(static_cast<size_t>(bit_util::BytesForBits(n)), '\0');
  const auto* in = reinterpret_cast<const uint8_t*>(bits.data());
  auto* o = reinterpret_cast<uint8_t*>(out.data());
  if (start % 8 == 0) {
    std::memcpy(o, in + start / 8, static_cast<size_t>(n / 8));
    for (int64_t i = n / 8 * 8; i < n; ++i) {
      if (bit_util::GetBit(in, start + i)) bit_util::SetBit(o, i);
    }
    return out;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (bit_util::GetBit(in, start + i)) bit_util::SetBit(o, i);
  }
  return out;
}

// How the values of a mini-block page are written into each chunk.
struct ChunkCodec {
  Enc encoding;
  int num_buffers = 1;
  // Bytes (with each buffer padded to 8) that values [start, start + n) take.
  std::function<int64_t(int64_t start, int64_t n)> size;
  // Appends the value buffers of values [start, start + n).
  std::function<void(int64_t start, int64_t n, std::vector<std::string>* out)> encode;
};

ChunkCodec PlainCodec(const DataBlock& v) {
  ChunkCodec c;
  switch (v.kind) {
    case DataBlock::Kind::kFixed: {
      const int bits = v.bits_per_value;
      c.encoding = FlatEncoding(bits);
      c.size = [bits](int64_t, int64_t n) {
        return bit_util::RoundUpToMultipleOf8(bit_util::BytesForBits(n * bits));
      };
      c.encode = [&v, bits](int64_t start, int64_t n, std::vector<std::string>* out) {
        if (bits == 1) {
          out->push_back(ExtractBits(v.data, start, n));
        } else {
          out->emplace_back(std::string_view(v.data).substr(static_cast<size_t>(start * bits / 8),
                                                            static_cast<size_t>(n * bits / 8)));
        }
      };
      return c;
    }
    case DataBlock::Kind::kVariable: {
      const bool wide = v.offsets.back() > UINT32_MAX / 2;
      const int w = wide ? 8 : 4;
      c.encoding = VariableEncoding(w * 8);
      c.size = [&v, w](int64_t start, int64_t n) {
        return bit_util::RoundUpToMultipleOf8((n + 1) * w + v.offsets[start + n] - v.offsets[start]);
      };
      c.encode = [&v, w](int64_t start, int64_t n, std::vector<std::string>* out) {
        std::string buf;
        const int64_t bytes = v.offsets[start + n] - v.offsets[start];
        buf.reserve(static_cast<size_t>((n + 1) * w + bytes + w));
        const int64_t base = (n + 1) * w - v.offsets[start];
        for (int64_t i = 0; i <= n; ++i) PutLE(&buf, static_cast<uint64_t>(v.offsets[start + i] + base), w);
        buf.append(v.data.data() + v.offsets[start], static_cast<size_t>(bytes));
        PadTo(&buf, static_cast<size_t>(w));
        out->push_back(std::move(buf));
      };
      return c;
    }
    case DataBlock::Kind::kFixedSizeList: {
      const DataBlock& child = *v.child;
      const int64_t dim = v.dimension;
      const bool validity = !v.child_validity.empty() &&
                            std::find(v.child_validity.begin(), v.child_validity.end(), 0) !=
                                v.child_validity.end();
      const int bits = child.bits_per_value;
      c.encoding.mutable_fixed_size_list()->set_items_per_value(static_cast<uint64_t>(dim));
      *c.encoding.mutable_fixed_size_list()->mutable_values() = FlatEncoding(bits);
      c.encoding.mutable_fixed_size_list()->set_has_validity(validity);
      c.num_buffers = validity ? 2 : 1;
      c.size = [=](int64_t, int64_t n) {
        int64_t s = bit_util::RoundUpToMultipleOf8(bit_util::BytesForBits(n * dim * bits));
        if (validity) s += bit_util::RoundUpToMultipleOf8(bit_util::BytesForBits(n * dim));
        return s;
      };
      c.encode = [&v, &child, dim, bits, validity](int64_t start, int64_t n,
                                                    std::vector<std::string>* out) {
        if (validity) {
          std::string bm(static_cast<size_t>(bit_util::BytesForBits(n * dim)), '\0');
          auto* o = reinterpret_cast<uint8_t*>(bm.data());
          for (int64_t i = 0; i < n * dim; ++i) {
            if (v.child_validity[static_cast<size_t>(start * dim + i)]) bit_util::SetBit(o, i);
          }
          out->push_back(std::move(bm));
        }
        if (bits == 1) {
          out->push_back(ExtractBits(child.data, start * dim, n * dim));
        } else {
          out->emplace_back(std::string_view(child.data).substr(static_cast<size_t>(start * dim * bits / 8),
                                                                static_cast<size_t>(n * dim * bits / 8)));
        }
      };
      return c;
    }
  }
  return c;
}

// Which definition codes are visible (carry a value) for `layers`.
Result<std::vector<uint8_t>> VisibleCodes(const std::vector<LayerKind>& layers) {
  std::vector<uint8_t> out;
  for (uint16_t code = 0;; ++code) {
    auto v = IsVisibleDefinition(layers, code);
    if (!v.ok()) break;
    out.push_back(*v ? 1 : 0);
  }
  return out;
}

int BitsFor(uint64_t max_value) {
  int b = 0;
  while (max_value > 0) {
    ++b;
    max_value >>= 1;
  }
  return b;
}

int NumDefCodes(const std::vector<LayerKind>& layers) {
  int n = 0;
  for (LayerKind l : layers) {
    if (l == LayerKind::kNullableItem || l == LayerKind::kNullableList ||
        l == LayerKind::kEmptyableList) {
      n += 1;
    } else if (l == LayerKind::kNullAndEmptyList) {
      n += 2;
    }
  }
  return n;
}

int NumLists(const std::vector<LayerKind>& layers) {
  int n = 0;
  for (LayerKind l : layers) n += IsListLayer(l) ? 1 : 0;
  return n;
}

void SetLayers(const std::vector<LayerKind>& layers, google::protobuf::RepeatedField<int>* out) {
  for (LayerKind l : layers) out->Add(static_cast<int>(l));
}

// Level index of each visible value (levels present), in order.
Result<std::vector<int64_t>> VisibleLevelIndex(const LeafPage& p, int64_t num_levels) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(p.values.num_values));
  if (p.def.empty()) {
    for (int64_t i = 0; i < num_levels; ++i) out.push_back(i);
  } else {
    LANCE_ASSIGN_OR_RAISE(auto visible, VisibleCodes(p.layers));
    for (int64_t i = 0; i < num_levels; ++i) {
      const uint16_t d = p.def[static_cast<size_t>(i)];
      if (d >= visible.size()) return Status::InvalidArgument("definition level {} undefined", d);
      if (visible[d]) out.push_back(i);
    }
  }
  if (static_cast<int64_t>(out.size()) != p.values.num_values) {
    return Status::InvalidArgument("page: levels describe {} visible values, {} given", out.size(),
                                   p.values.num_values);
  }
  return out;
}

Result<EncodedPage> EncodeMiniBlock(const LeafPage& p, const ChunkCodec& codec,
                                    const PageEncodeOptions& opt, const Enc* dictionary,
                                    const std::string* dictionary_buffer, uint64_t dict_items) {
  const bool large = opt.minor_version >= 2;
  const bool has_rep = !p.rep.empty();
  const bool has_def = !p.def.empty();
  const int64_t num_items = p.values.num_values;
  const int64_t num_levels = has_rep ? static_cast<int64_t>(p.rep.size())
                                     : (has_def ? static_cast<int64_t>(p.def.size()) : 0);
  std::vector<int64_t> vis;
  if (has_rep || has_def) {
    LANCE_ASSIGN_OR_RAISE(vis, VisibleLevelIndex(p, num_levels));
  }
  const int level_streams = (has_rep ? 1 : 0) + (has_def ? 1 : 0);
  const int64_t header = bit_util::RoundUpToMultipleOf8(2 + 2 * level_streams +
                                                        codec.num_buffers * (large ? 4 : 2));
  int64_t max_chunk = 1;
  while (max_chunk * 2 <= std::min<int64_t>(opt.max_chunk_values, 4096)) max_chunk *= 2;

  EncodedPage out;
  std::string meta, data;
  std::vector<uint64_t> rep_index;
  const uint16_t max_rep = static_cast<uint16_t>(NumLists(p.layers));
  int64_t s = 0, level_pos = 0;
  std::vector<std::string> bufs;
  while (s < num_items) {
    const int64_t remaining = num_items - s;
    int64_t n = max_chunk, take = 0, lv_end = 0, bytes = 0;
    bool last = false;
    for (;;) {
      take = std::min(n, remaining);
      last = take == remaining;
      lv_end = level_streams == 0 ? 0 : (last ? num_levels : vis[static_cast<size_t>(s + take - 1)] + 1);
      const int64_t levels = lv_end - level_pos;
      bytes = header + level_streams * bit_util::RoundUpToMultipleOf8(levels * 2) + codec.size(s, take);
      if ((bytes <= kChunkTargetBytes && levels <= kMaxChunkLevels) || n == 1) break;
      n /= 2;
    }
    const int64_t levels = level_streams == 0 ? 0 : lv_end - level_pos;
    if (levels > kMaxChunkLevels) {
      return Status::NotSupported("mini-block chunk with {} levels (at most {})", levels,
                                  kMaxChunkLevels);
    }
    bufs.clear();
    codec.encode(s, take, &bufs);
    const size_t chunk_start = data.size();
    Put<uint16_t>(&data, static_cast<uint16_t>(levels));
    if (has_rep) Put<uint16_t>(&data, static_cast<uint16_t>(levels * 2));
    if (has_def) Put<uint16_t>(&data, static_cast<uint16_t>(levels * 2));
    for (const auto& b : bufs) {
      if (large) {
        if (b.size() > UINT32_MAX) return Status::NotSupported("chunk buffer of {} bytes", b.size());
        Put<uint32_t>(&data, static_cast<uint32_t>(b.size()));
      } else {
        if (b.size() > UINT16_MAX) {
          return Status::NotSupported("2.1 chunk buffer of {} bytes (at most 65535)", b.size());
        }
        Put<uint16_t>(&data, static_cast<uint16_t>(b.size()));
      }
    }
    PadTo(&data, 8);
    if (has_rep) {
      data.append(reinterpret_cast<const char*>(p.rep.data() + level_pos), static_cast<size_t>(levels * 2));
      PadTo(&data, 8);
    }
    if (has_def) {
      data.append(reinterpret_cast<const char*>(p.def.data() + level_pos), static_cast<size_t>(levels * 2));
      PadTo(&data, 8);
    }
    for (const auto& b : bufs) {
      data.append(b);
      PadTo(&data, 8);
    }
    const uint64_t chunk_bytes = data.size() - chunk_start;
    const uint64_t words = chunk_bytes / 8 - 1;
    int log_n = 0;
    if (!last) {
      while ((int64_t{1} << log_n) < take) ++log_n;
    }
    if (large) {
      if (words >= (uint64_t{1} << 28)) return Status::NotSupported("chunk of {} bytes", chunk_bytes);
      Put<uint32_t>(&meta, static_cast<uint32_t>(words << 4 | static_cast<uint64_t>(log_n)));
    } else {
      if (words >= 4096) {
        return Status::NotSupported("2.1 mini-block chunk of {} bytes (at most 32 KiB)", chunk_bytes);
      }
      Put<uint16_t>(&meta, static_cast<uint16_t>(words << 4 | static_cast<uint64_t>(log_n)));
    }
    if (has_rep) {
      // Rows that end in this chunk and the levels of the row still open at its end.
      const uint16_t* r = p.rep.data() + level_pos;
      uint64_t rows = 0;
      for (int64_t i = 1; i < levels; ++i) rows += r[i] == max_rep ? 1 : 0;
      uint64_t leftovers = 0;
      if (!last) {
        leftovers = static_cast<uint64_t>(levels);
        for (int64_t i = levels - 1; i >= 0; --i) {
          if (r[i] == max_rep) {
            leftovers = static_cast<uint64_t>(levels - i);
            break;
          }
        }
      }
      if (!rep_index.empty() && levels > 0 && r[0] == max_rep && rep_index.back() != 0) {
        rep_index[rep_index.size() - 2] += 1;
        rep_index.back() = 0;
      }
      if (last) rows += 1;
      rep_index.push_back(rows);
      rep_index.push_back(leftovers);
    }
    s += take;
    level_pos = lv_end;
  }
  auto* mb = out.layout.mutable_mini_block_layout();
  SetLayers(p.layers, mb->mutable_layers());
  if (has_rep) *mb->mutable_rep_compression() = FlatEncoding(16);
  if (has_def) *mb->mutable_def_compression() = FlatEncoding(16);
  *mb->mutable_value_compression() = codec.encoding;
  mb->set_num_buffers(static_cast<uint64_t>(codec.num_buffers));
  mb->set_num_items(static_cast<uint64_t>(num_items));
  if (large) mb->set_has_large_chunk(true);
  out.buffers.push_back(std::move(meta));
  out.buffers.push_back(std::move(data));
  if (dictionary != nullptr) {
    *mb->mutable_dictionary() = *dictionary;
    mb->set_num_dictionary_items(dict_items);
    out.buffers.push_back(*dictionary_buffer);
  }
  if (has_rep) {
    mb->set_repetition_index_depth(1);
    std::string idx(reinterpret_cast<const char*>(rep_index.data()), rep_index.size() * 8);
    out.buffers.push_back(std::move(idx));
  }
  return out;
}

Result<EncodedPage> EncodeFullZip(const LeafPage& p, const PageEncodeOptions&) {
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
  const DataBlock& v = p.values;
  const bool variable = v.kind == DataBlock::Kind::kVariable;
  int64_t value_bytes = 0;
  int offset_bytes = 0;
  EncodedPage out;
  auto* fz = out.layout.mutable_full_zip_layout();
  if (variable) {
    offset_bytes = v.offsets.back() > UINT32_MAX / 2 ? 8 : 4;
    fz->set_bits_per_offset(static_cast<uint32_t>(offset_bytes * 8));
    *fz->mutable_value_compression() = VariableEncoding(offset_bytes * 8);
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

// A page without one valid value.
EncodedPage EncodeAllNull(const LeafPage& p) {
  EncodedPage out;
  auto* cl = out.layout.mutable_constant_layout();
  SetLayers(p.layers, cl->mutable_layers());
  if (!p.rep.empty()) {
    cl->set_num_rep_values(p.rep.size());
    cl->set_num_def_values(p.def.size());
    out.buffers.emplace_back(reinterpret_cast<const char*>(p.rep.data()), p.rep.size() * 2);
    out.buffers.emplace_back(reinterpret_cast<const char*>(p.def.data()), p.def.size() * 2);
  }
  return out;
}

bool WantsFullZip(const DataBlock& v) {
  switch (v.kind) {
    case DataBlock::Kind::kFixed:
      return v.bits_per_value % 8 == 0 && v.bits_per_value / 8 >= kFullZipValueBytes;
    case DataBlock::Kind::kFixedSizeList: {
      const bool nulls = std::find(v.child_validity.begin(), v.child_validity.end(), 0) !=
                         v.child_validity.end();
      return !nulls && v.child->bits_per_value % 8 == 0 &&
             v.dimension * v.child->bits_per_value / 8 >= kFullZipValueBytes;
    }
    case DataBlock::Kind::kVariable: {
      if (v.num_values == 0) return false;
      if (v.offsets.back() / v.num_values >= kFullZipValueBytes) return true;
      for (int64_t i = 0; i < v.num_values; ++i) {
        if (v.offsets[static_cast<size_t>(i + 1)] - v.offsets[static_cast<size_t>(i)] > kMaxMiniBlockValueBytes) {
          return true;
        }
      }
      return false;
    }
  }
  return false;
}

}  // namespace

Result<EncodedPage> EncodePage(const LeafPage& p, const PageEncodeOptions& opt) {
  if (opt.minor_version != 1 && opt.minor_version != 2) {
    return Status::InvalidArgument("page encoder: file version 2.{}", opt.minor_version);
  }
  if (p.layers.empty()) return Status::InvalidArgument("page encoder: no layers");
  if (!p.rep.empty() && !p.def.empty() && p.rep.size() != p.def.size()) {
    return Status::InvalidArgument("page encoder: {} repetition but {} definition levels",
                                   p.rep.size(), p.def.size());
  }
  // Pages without a valid value.
  bool any_valid = p.values.num_values > 0 && p.def.empty();
  if (!any_valid && p.values.num_values > 0) {
    any_valid = std::find(p.def.begin(), p.def.end(), 0) != p.def.end();
  }
  if (!any_valid) {
    bool simple = p.rep.empty();
    if (simple && !p.def.empty()) {
      // Without levels the reader nulls every row at the innermost nullable item.
      uint16_t code = 0, next = 1;
      for (LayerKind l : p.layers) {
        if (l == LayerKind::kNullableItem) {
          code = next;
          break;
        }
        if (l != LayerKind::kAllValidItem) ++next;
      }
      for (uint16_t d : p.def) simple = simple && d == code;
    }
    if (simple || p.values.num_values == 0) return EncodeAllNull(p);
  }
  if (WantsFullZip(p.values)) return EncodeFullZip(p, opt);
  const ChunkCodec codec = PlainCodec(p.values);
  return EncodeMiniBlock(p, codec, opt, nullptr, nullptr, 0);
}

}  // namespace lance::encoding
