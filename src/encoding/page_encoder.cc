#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>

#include <lz4.h>

#include <unordered_map>

#include "lance/core/bit_util.h"
#include "encoding/encoder.h"
#include "encoding/fastlanes.h"
#include "encoding/fsst_encoder.h"

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

int BitsFor(uint64_t max_value) {
  int b = 0;
  while (max_value > 0) {
    ++b;
    max_value >>= 1;
  }
  return b;
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

ChunkCodec PlainCodec(const DataBlock& v, int offset_bits = 32) {
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
      const bool wide = offset_bits == 64 || v.offsets.back() > UINT32_MAX / 2;
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


template <typename T>
T LoadT(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Bit width of the largest of n values of T at p.
template <typename T>
int BlockWidth(const char* p, int64_t n) {
  T acc = 0;
  for (int64_t i = 0; i < n; ++i) acc = static_cast<T>(acc | LoadT<T>(p + i * static_cast<int64_t>(sizeof(T))));
  return BitsFor(acc);
}

// InlineBitpacking(T) of n values: per 1024 values a T bit width then a FastLanes block.
template <typename T>
int64_t InlineBitpackedSize(const char* p, int64_t n) {
  int64_t total = 0;
  for (int64_t b = 0; b < n; b += kFastLanesBlockValues) {
    const int64_t m = std::min<int64_t>(kFastLanesBlockValues, n - b);
    total += static_cast<int64_t>(sizeof(T)) +
             FastLanesPackedBytes(static_cast<int>(sizeof(T) * 8),
                                  BlockWidth<T>(p + b * static_cast<int64_t>(sizeof(T)), m));
  }
  return total;
}

template <typename T>
void InlineBitpack(const char* p, int64_t n, std::string* out) {
  T tmp[kFastLanesBlockValues];
  for (int64_t b = 0; b < n; b += kFastLanesBlockValues) {
    const int64_t m = std::min<int64_t>(kFastLanesBlockValues, n - b);
    std::memcpy(tmp, p + b * static_cast<int64_t>(sizeof(T)), static_cast<size_t>(m) * sizeof(T));
    std::memset(tmp + m, 0, static_cast<size_t>(kFastLanesBlockValues - m) * sizeof(T));
    const int w = BlockWidth<T>(reinterpret_cast<const char*>(tmp), m);
    Put<T>(out, static_cast<T>(w));
    const size_t at = out->size();
    out->resize(at + static_cast<size_t>(FastLanesPackedBytes(static_cast<int>(sizeof(T) * 8), w)));
    PackFastLanesBlock<T>(tmp, w, reinterpret_cast<uint8_t*>(out->data() + at));
  }
}

Enc InlineBitpackingEncoding(int bits) {
  Enc e;
  e.mutable_inline_bitpacking()->set_uncompressed_bits_per_value(static_cast<uint64_t>(bits));
  return e;
}

template <typename T>
ChunkCodec BitpackCodecT(const DataBlock& v) {
  ChunkCodec c;
  c.encoding = InlineBitpackingEncoding(static_cast<int>(sizeof(T) * 8));
  c.size = [&v](int64_t start, int64_t n) {
    return bit_util::RoundUpToMultipleOf8(
        InlineBitpackedSize<T>(v.data.data() + start * static_cast<int64_t>(sizeof(T)), n));
  };
  c.encode = [&v](int64_t start, int64_t n, std::vector<std::string>* out) {
    std::string buf;
    InlineBitpack<T>(v.data.data() + start * static_cast<int64_t>(sizeof(T)), n, &buf);
    out->push_back(std::move(buf));
  };
  return c;
}

ChunkCodec BitpackCodec(const DataBlock& v) {
  switch (v.bits_per_value) {
    case 8: return BitpackCodecT<uint8_t>(v);
    case 16: return BitpackCodecT<uint16_t>(v);
    case 32: return BitpackCodecT<uint32_t>(v);
    default: return BitpackCodecT<uint64_t>(v);
  }
}

// Runs of equal values in [start, start + n), split at 255.
int64_t CountRuns(const DataBlock& v, int64_t start, int64_t n) {
  const int64_t w = v.bits_per_value / 8;
  const char* p = v.data.data() + start * w;
  int64_t runs = n > 0 ? 1 : 0, len = 1;
  for (int64_t i = 1; i < n; ++i) {
    if (std::memcmp(p + i * w, p + (i - 1) * w, static_cast<size_t>(w)) == 0 && len < 255) {
      ++len;
    } else {
      ++runs;
      len = 1;
    }
  }
  return runs;
}

ChunkCodec RleCodec(const DataBlock& v) {
  ChunkCodec c;
  const int bits = v.bits_per_value;
  *c.encoding.mutable_rle()->mutable_values() = FlatEncoding(bits);
  *c.encoding.mutable_rle()->mutable_run_lengths() = FlatEncoding(8);
  c.num_buffers = 2;
  c.size = [&v, bits](int64_t start, int64_t n) {
    const int64_t runs = CountRuns(v, start, n);
    return bit_util::RoundUpToMultipleOf8(runs * bits / 8) + bit_util::RoundUpToMultipleOf8(runs);
  };
  c.encode = [&v, bits](int64_t start, int64_t n, std::vector<std::string>* out) {
    const int64_t w = bits / 8;
    const char* p = v.data.data() + start * w;
    std::string values, lengths;
    int64_t i = 0;
    while (i < n) {
      int64_t len = 1;
      while (i + len < n && len < 255 &&
             std::memcmp(p + (i + len) * w, p + i * w, static_cast<size_t>(w)) == 0) {
        ++len;
      }
      values.append(p + i * w, static_cast<size_t>(w));
      lengths.push_back(static_cast<char>(len));
      i += len;
    }
    out->push_back(std::move(values));
    out->push_back(std::move(lengths));
  };
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
                                    const PageEncodeOptions& opt, const Enc* dictionary = nullptr,
                                    const std::string* dictionary_buffer = nullptr,
                                    uint64_t dict_items = 0) {
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

Result<EncodedPage> EncodeFullZip(const LeafPage& p, const PageEncodeOptions&,
                                  const DataBlock* fsst_codes = nullptr,
                                  const std::string* fsst_table = nullptr) {
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
  const DataBlock& v = fsst_codes != nullptr ? *fsst_codes : p.values;
  const bool variable = v.kind == DataBlock::Kind::kVariable;
  int64_t value_bytes = 0;
  int offset_bytes = 0;
  EncodedPage out;
  auto* fz = out.layout.mutable_full_zip_layout();
  if (variable) {
    offset_bytes = p.offset_bits == 64 || v.offsets.back() > UINT32_MAX / 2 ? 8 : 4;
    fz->set_bits_per_offset(static_cast<uint32_t>(offset_bytes * 8));
    if (fsst_table != nullptr) {
      auto* f = fz->mutable_value_compression()->mutable_fsst();
      f->set_symbol_table(*fsst_table);
      *f->mutable_values() = VariableEncoding(offset_bytes * 8);
    } else {
      *fz->mutable_value_compression() = VariableEncoding(offset_bytes * 8);
    }
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

// A page without one valid value.
EncodedPage EncodeAllNull(const LeafPage& p) {
  EncodedPage out;
  auto* cl = out.layout.mutable_constant_layout();
  SetLayers(p.layers, cl->mutable_layers());
  // Levels as lance 12 writes them: none for a single nullable layer (every row is null there),
  // else the pair [rep (empty without lists), def] — lance 12 needs the definition levels
  // whenever there is more than one layer (it panics on a struct page without them).
  if (!p.rep.empty() || (p.layers.size() > 1 && !p.def.empty())) {
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



// FSST codes of every string, when a table trained on a sample makes them clearly smaller.
struct FsstCompressed {
  std::string table;
  DataBlock codes = DataBlock::Variable();
};

std::optional<FsstCompressed> FsstCompress(const DataBlock& v) {
  constexpr int64_t kMinBytes = 32 * 1024;
  constexpr int64_t kSampleBytes = 32 * 1024;
  const int64_t n = v.num_values;
  const int64_t total = v.offsets.back() - v.offsets.front();
  if (n == 0 || total < kMinBytes) return std::nullopt;
  std::vector<std::string_view> sample;
  const int64_t avg = std::max<int64_t>(1, total / n);
  const int64_t want = std::max<int64_t>(1, kSampleBytes / avg);
  const int64_t stride = std::max<int64_t>(1, n / want);
  int64_t sample_bytes = 0;
  for (int64_t i = 0; i < n && sample_bytes < kSampleBytes; i += stride) {
    std::string_view s = v.ValueView(i);
    if (s.size() > 4096) s = s.substr(0, 4096);
    sample.push_back(s);
    sample_bytes += static_cast<int64_t>(s.size());
  }
  const FsstEncoder enc = FsstEncoder::Train(sample);
  std::string probe;
  for (std::string_view s : sample) enc.Compress(s, &probe);
  if (static_cast<int64_t>(probe.size()) * 10 > sample_bytes * 8) return std::nullopt;
  FsstCompressed out;
  out.table = enc.SymbolTable();
  // Codes straight into the block's bytes (room for the worst case, written once, then cut).
  out.codes.data.resize_for_overwrite(static_cast<size_t>(2 * total));
  auto* codes = reinterpret_cast<uint8_t*>(out.codes.data.mutable_data());
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(n + 1));
  offsets.push_back(0);
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view s = v.ValueView(i);
    at += static_cast<int64_t>(
        enc.CompressInto(reinterpret_cast<const uint8_t*>(s.data()), s.size(), codes + at));
    offsets.push_back(at);
  }
  out.codes.data.resize_for_overwrite(static_cast<size_t>(at));
  out.codes.offsets = std::move(offsets);
  out.codes.num_values = n;
  return out;
}

Enc WrapFsst(const std::string& table, const Enc& inner) {
  Enc e;
  e.mutable_fsst()->set_symbol_table(table);
  *e.mutable_fsst()->mutable_values() = inner;
  return e;
}

// ConstantLayout (2.2) with the single value inline (fixed width up to 32 bytes, bools as one
// byte) or, for variable width, in page buffer 0 as `u32 2 | u32 offsets size | u32 data size |
// offsets [0, len] (u32, or u64 for the large types) | bytes`.
EncodedPage EncodeConstant(const LeafPage& p, std::string_view value, bool in_buffer) {
  EncodedPage out;
  auto* cl = out.layout.mutable_constant_layout();
  SetLayers(p.layers, cl->mutable_layers());
  if (!in_buffer) {
    cl->set_inline_value(std::string(value));
    return out;
  }
  // Offsets as wide as the Arrow type's (lance 12 refuses 32-bit offsets for large_utf8 /
  // large_binary: "Buffer 0 of LargeUtf8 isn't large enough").
  const bool wide = p.offset_bits == 64;
  std::string buf;
  Put<uint32_t>(&buf, 2);
  Put<uint32_t>(&buf, wide ? 16 : 8);
  Put<uint32_t>(&buf, static_cast<uint32_t>(value.size()));
  if (wide) {
    Put<uint64_t>(&buf, 0);
    Put<uint64_t>(&buf, value.size());
  } else {
    Put<uint32_t>(&buf, 0);
    Put<uint32_t>(&buf, static_cast<uint32_t>(value.size()));
  }
  buf.append(value);
  out.buffers.push_back(std::move(buf));
  return out;
}

// The one value every visible value equals, if so (no levels: all valid).
std::optional<std::string> ConstantValue(const DataBlock& v) {
  if (v.num_values == 0) return std::nullopt;
  switch (v.kind) {
    case DataBlock::Kind::kFixed: {
      if (v.bits_per_value == 1) {
        const auto* bits = reinterpret_cast<const uint8_t*>(v.data.data());
        const bool first = bit_util::GetBit(bits, 0);
        for (int64_t i = 1; i < v.num_values; ++i) {
          if (bit_util::GetBit(bits, i) != first) return std::nullopt;
        }
        return std::string(1, first ? '\1' : '\0');
      }
      const size_t w = static_cast<size_t>(v.bits_per_value / 8);
      if (w > 32) return std::nullopt;
      const char* d = v.data.data();
      for (int64_t i = 1; i < v.num_values; ++i) {
        if (std::memcmp(d, d + static_cast<size_t>(i) * w, w) != 0) return std::nullopt;
      }
      return std::string(d, w);
    }
    case DataBlock::Kind::kVariable: {
      const std::string_view first = v.ValueView(0);
      if (first.size() > (1u << 20)) return std::nullopt;
      for (int64_t i = 1; i < v.num_values; ++i) {
        if (v.ValueView(i) != first) return std::nullopt;
      }
      return std::string(first);
    }
    case DataBlock::Kind::kFixedSizeList:
      return std::nullopt;
  }
  return std::nullopt;
}

// A dictionary of distinct strings when there are few of them; nullopt otherwise.
struct StringDictionary {
  DataBlock items = DataBlock::Variable();
  DataBlock indices = DataBlock::Fixed(32);
};

std::optional<StringDictionary> BuildDictionary(const DataBlock& v) {
  const int64_t n = v.num_values;
  if (n < 64) return std::nullopt;
  // A cheap look at the first values first: most high-cardinality columns stop here.
  {
    std::unordered_map<std::string_view, uint32_t> probe;
    const int64_t m = std::min<int64_t>(n, 1024);
    for (int64_t i = 0; i < m; ++i) probe.emplace(v.ValueView(i), 0);
    if (static_cast<int64_t>(probe.size()) * 4 > m) return std::nullopt;
  }
  StringDictionary d;
  std::unordered_map<std::string_view, uint32_t> index;
  const int64_t limit = std::min<int64_t>(n / 8, 1 << 16);
  std::vector<uint32_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view s = v.ValueView(i);
    auto [it, fresh] = index.emplace(s, static_cast<uint32_t>(index.size()));
    if (fresh) {
      if (static_cast<int64_t>(index.size()) > limit) return std::nullopt;
      d.items.AppendVariable(s);
    }
    idx[static_cast<size_t>(i)] = it->second;
  }
  // Item bytes can repeat the strings' storage only when there are few of them.
  if (d.items.offsets.back() * 2 > v.offsets.back()) return std::nullopt;
  d.indices.AppendFixedBytes(reinterpret_cast<const uint8_t*>(idx.data()), n);
  return d;
}

// Variable block form: offset width in bits | position of the bytes (both u32 with 32-bit
// offsets, u64 with 64-bit ones) | offsets relative to the bytes | bytes.
std::string VariableBlock(const DataBlock& items, int offset_bits) {
  std::string out;
  const int w = offset_bits / 8;
  PutLE(&out, static_cast<uint64_t>(offset_bits), w);
  PutLE(&out, static_cast<uint64_t>(2 * w + (items.num_values + 1) * w), w);
  for (int64_t o : items.offsets) PutLE(&out, static_cast<uint64_t>(o - items.offsets.front()), w);
  out.append(items.data.data() + items.offsets.front(),
             static_cast<size_t>(items.offsets.back() - items.offsets.front()));
  return out;
}

// The dictionary buffer of a mini-block page and its encoding: the items in block form
// (Variable block or plain fixed-width bytes), LZ4-compressed in 2.2 as lance 12 writes them.
Result<std::pair<Enc, std::string>> EncodeDictionaryItems(const DataBlock& items, int offset_bits,
                                                         int minor_version) {
  Enc inner;
  std::string block;
  if (items.kind == DataBlock::Kind::kVariable) {
    inner = VariableEncoding(offset_bits);
    block = VariableBlock(items, offset_bits);
  } else if (items.kind == DataBlock::Kind::kFixed && items.bits_per_value % 8 == 0) {
    inner = FlatEncoding(items.bits_per_value);
    block.assign(items.data.data(), static_cast<size_t>(items.num_values * items.bits_per_value / 8));
  } else {
    return Status::NotSupported("dictionary items of {} bits", items.bits_per_value);
  }
  if (minor_version < 2) return std::make_pair(std::move(inner), std::move(block));
  Enc e;
  auto* g = e.mutable_general();
  g->mutable_compression()->set_scheme(pb21::COMPRESSION_ALGORITHM_LZ4);
  *g->mutable_values() = std::move(inner);
  if (block.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::NotSupported("dictionary of {} bytes", block.size());
  }
  const int bound = LZ4_compressBound(static_cast<int>(block.size()));
  std::string buf(4 + static_cast<size_t>(bound), '\0');
  const auto raw = static_cast<uint32_t>(block.size());
  std::memcpy(buf.data(), &raw, 4);
  const int got = LZ4_compress_default(block.data(), buf.data() + 4, static_cast<int>(block.size()), bound);
  if (got <= 0) return Status::Internal("lz4 compression of a dictionary failed");
  buf.resize(4 + static_cast<size_t>(got));
  return std::make_pair(std::move(e), std::move(buf));
}

Result<EncodedPage> EncodeDictionary(const LeafPage& p, const StringDictionary& d,
                                     const PageEncodeOptions& opt) {
  LANCE_ASSIGN_OR_RAISE(auto dict, EncodeDictionaryItems(d.items, p.offset_bits == 64 ? 64 : 32,
                                                         opt.minor_version));
  const ChunkCodec codec = BitpackCodecT<uint32_t>(d.indices);
  return EncodeMiniBlock(p, codec, opt, &dict.first, &dict.second,
                         static_cast<uint64_t>(d.items.num_values));
}

// A dictionary of the distinct 64-bit values when lance 12 would pick one (file 2.2): at least
// 100 values and (distinct * 8 + values * 4) < 0.8 * values * 8 bytes, i.e. fewer distinct
// values than 30% of them. Indices are u32 in first-occurrence order.
struct FixedDictionary {
  DataBlock items = DataBlock::Fixed(64);
  DataBlock indices = DataBlock::Fixed(32);
};

// 64-bit mixer (the finalizer of MurmurHash3): every input bit reaches the high bits the
// tables below index with, so values that differ only in a few bits (doubles with zero low
// mantissa bits, multiples of a power of two) still spread.
inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Whether a random sample already shows that more than `limit` of the n 64-bit values are
// distinct. With D distinct values among n, two distinct positions drawn at random hold
// equal values with probability sum f(f - 1) / (n (n - 1)) >= (n / D - 1) / (n - 1); for
// D <= limit (< 0.3 n) about s^2 / n repeats are expected among s sampled positions. A sample
// with under an eighth of that cannot come from such a page except with negligible probability
// (a page of nearly all-distinct values, like ids, shows almost none), so the exact count that
// would run to `limit` before giving up is skipped. Positions come from a fixed-seed generator:
// the decision depends on the data only.
bool SampleSaysTooManyDistinct(const char* p, int64_t n, int64_t limit) {
  constexpr int64_t kSample = 8192;
  if (n < 16 * kSample) return false;
  std::vector<int64_t> pos(kSample);
  uint64_t state = 0x853c49e6748fea9bULL;
  for (auto& q : pos) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    q = static_cast<int64_t>((Mix64(state) >> 11) % static_cast<uint64_t>(n));
  }
  std::sort(pos.begin(), pos.end());
  pos.erase(std::unique(pos.begin(), pos.end()), pos.end());
  std::vector<uint64_t> vals(pos.size());
  for (size_t i = 0; i < pos.size(); ++i) vals[i] = LoadT<uint64_t>(p + pos[i] * 8);
  std::sort(vals.begin(), vals.end());
  int64_t repeats = 0;
  for (size_t i = 1; i < vals.size(); ++i) repeats += vals[i] == vals[i - 1] ? 1 : 0;
  const double s = static_cast<double>(vals.size());
  const double nd = static_cast<double>(n);
  const double per_pair = (nd / static_cast<double>(limit) - 1.0) / (nd - 1.0);
  const double expected = s * (s - 1.0) / 2.0 * per_pair;
  return static_cast<double>(repeats) * 8.0 < expected;
}

std::optional<FixedDictionary> BuildFixedDictionary(const DataBlock& v) {
  const int64_t n = v.num_values;
  if (v.kind != DataBlock::Kind::kFixed || v.bits_per_value != 64 || n < 100 || n > UINT32_MAX) {
    return std::nullopt;
  }
  const int64_t limit = (n * 3 - 1) / 10;  // largest count with count * 10 < n * 3
  const char* p = v.data.data();
  if (limit <= 0 || SampleSaysTooManyDistinct(p, n, limit)) return std::nullopt;
  // Open addressing on the mixed value bits, one 16-byte slot per entry (key and index + 1,
  // 0 = empty) so that a probe touches one cache line; the table doubles at half load.
  struct Slot {
    uint64_t key;
    uint64_t index1;
  };
  int shift = 64 - 12;
  std::vector<Slot> table(size_t{1} << 12, Slot{0, 0});
  size_t mask = table.size() - 1;
  FixedDictionary d;
  d.indices.data.resize_for_overwrite(static_cast<size_t>(n) * 4);
  auto* idx = reinterpret_cast<uint32_t*>(d.indices.data.mutable_data());
  std::vector<uint64_t> items;
  auto grow = [&] {
    std::vector<Slot> bigger(table.size() * 2, Slot{0, 0});
    --shift;
    const size_t m = bigger.size() - 1;
    for (const Slot& s : table) {
      if (s.index1 == 0) continue;
      size_t h = static_cast<size_t>(Mix64(s.key) >> shift);
      while (bigger[h].index1 != 0) h = (h + 1) & m;
      bigger[h] = s;
    }
    table.swap(bigger);
    mask = m;
  };
  // Slots are found at random: the one of the value kAhead places on is fetched meanwhile.
  constexpr int64_t kAhead = 16;
  for (int64_t i = 0; i < n; ++i) {
    if (i + kAhead < n) {
      __builtin_prefetch(&table[static_cast<size_t>(Mix64(LoadT<uint64_t>(p + (i + kAhead) * 8)) >> shift)]);
    }
    const uint64_t x = LoadT<uint64_t>(p + i * 8);
    size_t h = static_cast<size_t>(Mix64(x) >> shift);
    while (table[h].index1 != 0 && table[h].key != x) h = (h + 1) & mask;
    if (table[h].index1 != 0) {
      idx[i] = static_cast<uint32_t>(table[h].index1 - 1);
      continue;
    }
    if (static_cast<int64_t>(items.size()) >= limit) return std::nullopt;
    idx[i] = static_cast<uint32_t>(items.size());
    items.push_back(x);
    table[h] = Slot{x, items.size()};
    if (items.size() * 2 > table.size()) grow();
  }
  d.items.AppendFixedBytes(reinterpret_cast<const uint8_t*>(items.data()),
                           static_cast<int64_t>(items.size()));
  d.indices.num_values = n;
  return d;
}

// The smallest of Flat, InlineBitpacking and RLE for fixed-width integers.
ChunkCodec ChooseFixedCodec(const DataBlock& v) {
  const int bits = v.bits_per_value;
  const int64_t n = v.num_values;
  const int64_t flat = n * bits / 8;
  int64_t packed = INT64_MAX;
  switch (bits) {
    case 8: packed = InlineBitpackedSize<uint8_t>(v.data.data(), n); break;
    case 16: packed = InlineBitpackedSize<uint16_t>(v.data.data(), n); break;
    case 32: packed = InlineBitpackedSize<uint32_t>(v.data.data(), n); break;
    case 64: packed = InlineBitpackedSize<uint64_t>(v.data.data(), n); break;
    default: break;
  }
  const int64_t runs = CountRuns(v, 0, n);
  const int64_t rle = runs * (bits / 8 + 1);
  if (rle * 2 <= n * bits / 8 && rle < packed && rle < flat) return RleCodec(v);
  if (packed < flat - flat / 16) return BitpackCodec(v);
  return PlainCodec(v);
}

}  // namespace

namespace {
Result<EncodedPage> EncodePageOnce(const LeafPage& p, const PageEncodeOptions& opt);
}  // namespace

Result<EncodedPage> EncodePage(const LeafPage& p, const PageEncodeOptions& opt) {
  auto out = EncodePageOnce(p, opt);
  if (!out.ok() && out.status().IsNotSupported() && opt.compress && !opt.flat_levels) {
    // Long runs of levels without a value (e.g. many empty lists) do not fit bit-packed
    // level chunks of 1024; plain u16 levels hold up to 32767.
    PageEncodeOptions flat = opt;
    flat.flat_levels = true;
    return EncodePageOnce(p, flat);
  }
  return out;
}

namespace {
Result<EncodedPage> EncodePageOnce(const LeafPage& p, const PageEncodeOptions& opt) {
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
  if (!any_valid) return EncodeAllNull(p);
  if (p.has_dictionary) {
    // An Arrow dictionary column keeps its own indices (their width is the field's index
    // type, which lance 12 reads back) and items.
    const int offset_bits = p.offset_bits == 64 ? 64 : 32;
    LANCE_ASSIGN_OR_RAISE(auto dict, EncodeDictionaryItems(p.dictionary, offset_bits,
                                                           opt.compress ? opt.minor_version : 1));
    if (p.values.kind != DataBlock::Kind::kFixed || p.values.bits_per_value % 8 != 0) {
      return Status::InvalidArgument("page encoder: dictionary indices of {} bits", p.values.bits_per_value);
    }
    return EncodeMiniBlock(p, opt.compress ? ChooseFixedCodec(p.values) : PlainCodec(p.values), opt,
                           &dict.first, &dict.second, static_cast<uint64_t>(p.dictionary.num_values));
  }
  const DataBlock& v = p.values;
  if (WantsFullZip(v)) {
    if (opt.compress && v.kind == DataBlock::Kind::kVariable) {
      if (auto fsst = FsstCompress(v)) return EncodeFullZip(p, opt, &fsst->codes, &fsst->table);
    }
    return EncodeFullZip(p, opt);
  }
  if (opt.compress) {
    if (opt.minor_version >= 2 && p.rep.empty() && p.def.empty()) {
      if (auto value = ConstantValue(v)) {
        return EncodeConstant(p, *value, v.kind == DataBlock::Kind::kVariable);
      }
    }
    if (v.kind == DataBlock::Kind::kFixed &&
        (v.bits_per_value == 8 || v.bits_per_value == 16 || v.bits_per_value == 32 ||
         v.bits_per_value == 64)) {
      // (Pages of lists keep their values: our reader's take of list pages checks the
      // repetition index less strictly with a dictionary.)
      if (opt.minor_version >= 2 && p.rep.empty()) {
        if (auto d = BuildFixedDictionary(v)) {
          LANCE_ASSIGN_OR_RAISE(auto dict, EncodeDictionaryItems(d->items, 32, opt.minor_version));
          return EncodeMiniBlock(p, ChooseFixedCodec(d->indices), opt, &dict.first, &dict.second,
                                 static_cast<uint64_t>(d->items.num_values));
        }
      }
      return EncodeMiniBlock(p, ChooseFixedCodec(v), opt);
    }
    if (v.kind == DataBlock::Kind::kVariable) {
      if (auto dict = BuildDictionary(v)) return EncodeDictionary(p, *dict, opt);
      auto fsst = FsstCompress(v);
      // Escapes can double a value; mini-block chunks must still hold the longest one.
      bool fits = fsst.has_value();
      for (int64_t i = 0; fits && i < fsst->codes.num_values; ++i) {
        fits = fsst->codes.offsets[static_cast<size_t>(i + 1)] - fsst->codes.offsets[static_cast<size_t>(i)] <=
               kMaxMiniBlockValueBytes;
      }
      if (fits) {
        ChunkCodec codec = PlainCodec(fsst->codes, p.offset_bits);
        codec.encoding = WrapFsst(fsst->table, codec.encoding);
        return EncodeMiniBlock(p, codec, opt);
      }
    }
  }
  return EncodeMiniBlock(p, PlainCodec(v, p.offset_bits), opt);
}

}  // namespace

}  // namespace lance::encoding
