// Mini-block pages: values cut into chunks of a power-of-two number of values with the levels
// that lead to them, the chunk metadata words, and the repetition index of list pages; and
// the level facts the layout encoders share (layout_encoders.h).
#include "encoding/layout_encoders.h"

#include <algorithm>
#include <cstring>

#include "encoding/fastlanes.h"
#include "lance/core/bit_util.h"

namespace lance::encoding::encoder {

Result<std::vector<uint8_t>> VisibleCodes(const std::vector<LayerKind>& layers) {
  std::vector<uint8_t> out;
  for (uint16_t code = 0;; ++code) {
    auto v = IsVisibleDefinition(layers, code);
    if (!v.ok()) break;
    out.push_back(*v ? 1 : 0);
  }
  return out;
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

namespace {

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

}  // namespace

Result<EncodedPage> EncodeMiniBlock(const LeafPage& p, const ChunkCodec& codec,
                                    const PageEncodeOptions& opt, const Enc* dictionary,
                                    const std::string* dictionary_buffer, uint64_t dict_items) {
  // Lance reads inline bit-packed buffers of at most 1024 values per chunk.
  const bool pack_levels = opt.compress && !opt.flat_levels;
  const int64_t max_levels = pack_levels ? kFastLanesBlockValues : kMaxChunkLevels;
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
  // Bytes of `levels` levels in a chunk (an upper bound when bit-packed).
  // Bit-packed levels are out-of-line as lance 12 writes them: one width for the page (in the
  // encoding), FastLanes blocks of 1024 levels, and a last partial block either padded or, when
  // that is no larger, its levels as raw u16 (the reader tells the two apart by the size).
  int level_width = 1;
  for (uint16_t r : p.rep) level_width = std::max(level_width, BitsFor(r));
  for (uint16_t d : p.def) level_width = std::max(level_width, BitsFor(d));
  const int64_t level_block_bytes = FastLanesPackedBytes(16, level_width);
  auto level_bytes = [&](int64_t levels) -> int64_t {
    if (!pack_levels) return levels * 2;
    const int64_t tail = levels % kFastLanesBlockValues;
    return levels / kFastLanesBlockValues * level_block_bytes +
           (tail == 0 ? 0 : std::min(tail * 2, level_block_bytes));
  };
  auto encode_levels = [&](const std::vector<uint16_t>& lv, int64_t from, int64_t count) {
    std::string out;
    if (pack_levels) {
      uint16_t tmp[kFastLanesBlockValues];
      for (int64_t b = 0; b < count; b += kFastLanesBlockValues) {
        const int64_t m = std::min<int64_t>(kFastLanesBlockValues, count - b);
        if (m < kFastLanesBlockValues && m * 2 <= level_block_bytes) {
          out.append(reinterpret_cast<const char*>(lv.data() + from + b), static_cast<size_t>(m * 2));
          break;
        }
        std::memcpy(tmp, lv.data() + from + b, static_cast<size_t>(m) * 2);
        std::memset(tmp + m, 0, static_cast<size_t>(kFastLanesBlockValues - m) * 2);
        const size_t at = out.size();
        out.resize(at + static_cast<size_t>(level_block_bytes));
        PackFastLanesBlock<uint16_t>(tmp, level_width, reinterpret_cast<uint8_t*>(out.data() + at));
      }
    } else {
      out.assign(reinterpret_cast<const char*>(lv.data() + from), static_cast<size_t>(count * 2));
    }
    return out;
  };
  const int64_t header = bit_util::RoundUpToMultipleOf8(2 + 2 * level_streams +
                                                        codec.num_buffers * (large ? 4 : 2));
  int64_t max_chunk = 1;
  const int64_t chunk_cap = codec.encoding.has_inline_bitpacking() ? kFastLanesBlockValues : 4096;
  while (max_chunk * 2 <= std::min<int64_t>(opt.max_chunk_values, chunk_cap)) max_chunk *= 2;

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
      bytes = header + level_streams * bit_util::RoundUpToMultipleOf8(level_bytes(levels)) +
              codec.size(s, take);
      if ((bytes <= kChunkTargetBytes && levels <= max_levels && level_bytes(levels) <= UINT16_MAX) ||
          n == 1) {
        break;
      }
      n /= 2;
    }
    const int64_t levels = level_streams == 0 ? 0 : lv_end - level_pos;
    if (levels > max_levels) {
      return Status::NotSupported("mini-block chunk with {} levels (at most {})", levels, max_levels);
    }
    bufs.clear();
    codec.encode(s, take, &bufs);
    const std::string rep_bytes = has_rep ? encode_levels(p.rep, level_pos, levels) : std::string();
    const std::string def_bytes = has_def ? encode_levels(p.def, level_pos, levels) : std::string();
    if (rep_bytes.size() > UINT16_MAX || def_bytes.size() > UINT16_MAX) {
      return Status::NotSupported("mini-block chunk with {} bytes of levels", std::max(rep_bytes.size(), def_bytes.size()));
    }
    const size_t chunk_start = data.size();
    Put<uint16_t>(&data, static_cast<uint16_t>(levels));
    if (has_rep) Put<uint16_t>(&data, static_cast<uint16_t>(rep_bytes.size()));
    if (has_def) Put<uint16_t>(&data, static_cast<uint16_t>(def_bytes.size()));
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
      data.append(rep_bytes);
      PadTo(&data, 8);
    }
    if (has_def) {
      data.append(def_bytes);
      PadTo(&data, 8);
    }
    for (const auto& b : bufs) {
      data.append(b);
      PadTo(&data, 8);
    }
    const uint64_t chunk_bytes = data.size() - chunk_start;
    if (chunk_start == 0 && !last) {
      // Room for the page at the first chunk's bytes per value (+1/8): appending chunk by
      // chunk regrew and copied the page's bytes ~log2(chunks) times (1.3M instructions of a
      // 10k-row merge-insert's 72M).
      // (At most the values' own bytes and 8 per value: a first chunk of long values must
      // not reserve for all values as long.)
      const uint64_t expect = std::min<uint64_t>(
          chunk_bytes * static_cast<uint64_t>(num_items) / static_cast<uint64_t>(take),
          p.values.data.size() + 8 * static_cast<uint64_t>(num_items));
      data.reserve(static_cast<size_t>(expect + expect / 8 + 64));
    }
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
  Enc level_encoding = FlatEncoding(16);
  if (pack_levels) {
    auto* oob = level_encoding.mutable_out_of_line_bitpacking();
    oob->set_uncompressed_bits_per_value(16);
    *oob->mutable_values() = FlatEncoding(level_width);
  }
  if (has_rep) *mb->mutable_rep_compression() = level_encoding;
  if (has_def) *mb->mutable_def_compression() = level_encoding;
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


}  // namespace lance::encoding::encoder
