// Mini-block pages: the chunk metadata and chunk grammar, the repetition index that says
// which rows start in each chunk, dictionaries (items in block form, indices in the chunks),
// and the decoders of whole pages, runs of chunks and single values of a chunk.
#include "encoding/structural.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <numeric>
#include <optional>

#include "encoding/compressive.h"
#include "encoding/fsst.h"
#include "encoding/layout_decoders.h"
#include "lance/core/bit_util.h"
#include "lance/core/reserve.h"

namespace lance::encoding {

using layout::CheckLayers;
using layout::Layers;
using layout::NumListLayers;

namespace {

namespace pb21 = ::lance::encodings21;

// Appends the dictionary items that `indices` name to `out` (shaped like the items).
template <typename I>
Status GatherDictionaryTyped(const DataBlock& items, const I* idx, int64_t n, DataBlock* out) {
  const auto count = static_cast<uint64_t>(items.num_values);
  for (int64_t i = 0; i < n; ++i) {
    if (static_cast<uint64_t>(idx[i]) > count) {
      return Status::Corruption("dictionary index {} but the dictionary has {} items",
                                static_cast<uint64_t>(idx[i]), items.num_values);
    }
  }
  // Index == count is the null entry the writer counts but does not store.
  if (items.kind == DataBlock::Kind::kFixed && items.bits_per_value % 8 == 0 &&
      out->kind == DataBlock::Kind::kFixed && out->bits_per_value == items.bits_per_value) {
    const size_t w = static_cast<size_t>(items.bits_per_value / 8);
    const size_t at = out->data.size();
    LANCE_RETURN_NOT_OK(out->data.ResizeForOverwrite(at + static_cast<size_t>(n) * w));
    char* dst = out->data.mutable_data() + at;
    const char* src = items.data.data();
    for (int64_t i = 0; i < n; ++i, dst += w) {
      const auto k = static_cast<uint64_t>(idx[i]);
      if (k < count) {
        std::memcpy(dst, src + k * w, w);
      } else {
        std::memset(dst, 0, w);
      }
    }
    out->num_values += n;
    return Status::OK();
  }
  if (items.kind == DataBlock::Kind::kVariable && out->kind == DataBlock::Kind::kVariable) {
    int64_t bytes = 0;
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<uint64_t>(idx[i]);
      if (k < count) bytes += items.offsets[k + 1] - items.offsets[k];
    }
    const size_t at = out->data.size();
    LANCE_RETURN_NOT_OK(out->data.ResizeForOverwrite(at + static_cast<size_t>(bytes)));
    char* dst = out->data.mutable_data();
    size_t pos = at;
    ReserveMore(out->offsets, static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<uint64_t>(idx[i]);
      if (k < count) {
        const int64_t b = items.offsets[k], e = items.offsets[k + 1];
        std::memcpy(dst + pos, items.data.data() + b, static_cast<size_t>(e - b));
        pos += static_cast<size_t>(e - b);
      }
      out->offsets.push_back(static_cast<int64_t>(pos));
    }
    out->num_values += n;
    return Status::OK();
  }
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<uint64_t>(idx[i]);
    if (k < count) {
      LANCE_RETURN_NOT_OK(out->AppendRange(items, static_cast<int64_t>(k), 1));
    } else {
      LANCE_RETURN_NOT_OK(out->AppendEmpty(1));
    }
  }
  return Status::OK();
}

Status GatherDictionary(const DataBlock& items, const DataBlock& indices, DataBlock* out) {
  if (indices.kind != DataBlock::Kind::kFixed) {
    return Status::Corruption("dictionary indices are not 8/16/32/64-bit integers");
  }
  const char* p = indices.data.data();
  const int64_t n = indices.num_values;
  switch (indices.bits_per_value) {
    case 8:
      return GatherDictionaryTyped(items, reinterpret_cast<const uint8_t*>(p), n, out);
    case 16:
      if (reinterpret_cast<uintptr_t>(p) % 2 == 0) {
        return GatherDictionaryTyped(items, reinterpret_cast<const uint16_t*>(p), n, out);
      }
      break;
    case 32:
      if (reinterpret_cast<uintptr_t>(p) % 4 == 0) {
        return GatherDictionaryTyped(items, reinterpret_cast<const uint32_t*>(p), n, out);
      }
      break;
    case 64:
      if (reinterpret_cast<uintptr_t>(p) % 8 == 0) {
        return GatherDictionaryTyped(items, reinterpret_cast<const uint64_t*>(p), n, out);
      }
      break;
    default:
      return Status::Corruption("dictionary indices are not 8/16/32/64-bit integers");
  }
  // Unaligned indices (not produced by this reader's allocations): widen first.
  std::vector<uint64_t> wide(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) wide[static_cast<size_t>(i)] = FixedValueAt(indices, i);
  return GatherDictionaryTyped(items, wide.data(), n, out);
}

Result<DataBlock> DecodeDictionaryItems(const pb21::CompressiveEncoding& encoding,
                                        std::string_view bytes, int64_t count) {
  auto items = DecodeBlockValues(encoding, bytes, count);
  if (!items.ok() && count > 0) {
    // Lance counts a null entry in num_dictionary_items without always storing it.
    auto fewer = DecodeBlockValues(encoding, bytes, count - 1);
    if (fewer.ok()) return fewer;
  }
  return items;
}

// The parts of one mini-block chunk: level count, level bytes and value buffers.
struct ChunkParts {
  uint64_t num_levels = 0;
  std::string_view rep, def;
  std::string_view value_buffers[16];  // ParseChunk allows at most 16
  size_t num_value_buffers = 0;
  ValueBuffers values() const { return {value_buffers, num_value_buffers}; }
};

Result<ChunkParts> ParseChunk(const pb21::MiniBlockLayout& mb, std::string_view chunk, size_t c) {
  const bool large = mb.has_large_chunk();
  const uint64_t num_buffers = mb.num_buffers();
  if (num_buffers == 0 || num_buffers > 16) {
    return Status::Corruption("mini-block page with {} value buffers per chunk", num_buffers);
  }
  size_t pos = 0;
  auto read = [&](int bytes) -> Result<uint64_t> {
    if (pos + static_cast<size_t>(bytes) > chunk.size()) {
      return Status::Corruption("chunk {} header past its {} bytes", c, chunk.size());
    }
    const uint64_t v = LoadLE(chunk.data() + pos, bytes);
    pos += static_cast<size_t>(bytes);
    return v;
  };
  ChunkParts parts;
  LANCE_ASSIGN_OR_RAISE(parts.num_levels, read(2));
  uint64_t rep_size = 0, def_size = 0;
  if (mb.has_rep_compression()) {
    LANCE_ASSIGN_OR_RAISE(rep_size, read(2));
  }
  if (mb.has_def_compression()) {
    LANCE_ASSIGN_OR_RAISE(def_size, read(2));
  }
  uint64_t sizes[16];
  for (uint64_t b = 0; b < num_buffers; ++b) {
    LANCE_ASSIGN_OR_RAISE(sizes[b], read(large ? 4 : 2));
  }
  auto take = [&](uint64_t size, const char* what) -> Result<std::string_view> {
    pos = static_cast<size_t>(bit_util::RoundUpToMultipleOf8(static_cast<int64_t>(pos)));
    if (size > chunk.size() || pos + size > chunk.size()) {
      return Status::Corruption("chunk {}: {} of {} bytes at {} past its {} bytes", c, what, size,
                                pos, chunk.size());
    }
    std::string_view out = chunk.substr(pos, size);
    pos += size;
    return out;
  };
  if (mb.has_rep_compression()) {
    LANCE_ASSIGN_OR_RAISE(parts.rep, take(rep_size, "repetition levels"));
  }
  if (mb.has_def_compression()) {
    LANCE_ASSIGN_OR_RAISE(parts.def, take(def_size, "definition levels"));
  }
  for (uint64_t b = 0; b < num_buffers; ++b) {
    LANCE_ASSIGN_OR_RAISE(auto bytes, take(sizes[b], "value buffer"));
    parts.value_buffers[parts.num_value_buffers++] = bytes;
  }
  return parts;
}

// Decodes the chunks whose metadata words are `meta` and bytes `data` (a whole page, or a run
// of consecutive chunks holding `num_items` values). `dictionary`: the page's decoded
// dictionary items, or null to decode them from `dictionary_bytes` when the page has one.
Result<DecodedPage> DecodeMiniBlockChunks(const pb21::MiniBlockLayout& mb, std::string_view meta,
                                          std::string_view data, int64_t num_items,
                                          const DataBlock* dictionary,
                                          std::string_view dictionary_bytes,
                                          const PageInput& in) {
  DecodedPage page;
  page.num_rows = in.num_rows;
  page.layers = Layers(mb.layers());
  LANCE_RETURN_NOT_OK(CheckLayers(page.layers));
  const bool has_rep = mb.has_rep_compression();
  const bool has_def = mb.has_def_compression();
  const bool large = mb.has_large_chunk();
  if (in.minor_version >= 2 && !large) {
    return Status::Corruption("a 2.{} mini-block page without the u32 chunk grammar",
                              in.minor_version);
  }
  const int word = large ? 4 : 2;
  if (meta.size() % static_cast<size_t>(word) != 0) {
    return Status::Corruption("chunk metadata of {} bytes is not a multiple of {}", meta.size(), word);
  }
  const uint64_t num_buffers = mb.num_buffers();
  if (num_buffers == 0 || num_buffers > 16) {
    return Status::Corruption("mini-block page with {} value buffers per chunk", num_buffers);
  }
  const size_t num_chunks = meta.size() / static_cast<size_t>(word);

  DataBlock local;
  DataBlock* values = in.output;
  if (values == nullptr) {
    local = DataBlock::EmptyLike(in.prototype);
    values = &local;
  }
  const int64_t values_before = values->num_values;
  const bool has_dict = mb.has_dictionary();
  if (!has_dict) {
    // A reservation only: the counts are the file's claims, so cap them by what the chunk
    // bytes could plausibly expand to.
    LANCE_RETURN_NOT_OK(values->Reserve(num_items, static_cast<int64_t>(data.size()),
                                        static_cast<int64_t>(data.size()) * 64 + (1 << 20)));
  }
  DataBlock indices;  // dictionary pages: the chunks hold indices
  bool first = true;
  size_t chunk_start = 0;
  int64_t items_done = 0;
  for (size_t c = 0; c < num_chunks; ++c) {
    const uint64_t w = large ? Load<uint32_t>(meta.data() + c * 4) : Load<uint16_t>(meta.data() + c * 2);
    const size_t chunk_bytes = static_cast<size_t>(((w >> 4) + 1) * 8);
    const bool last = c + 1 == num_chunks;
    const int64_t chunk_values = last ? num_items - items_done : int64_t{1} << (w & 0xf);
    if (chunk_values < 0 || items_done + chunk_values > num_items) {
      return Status::Corruption("chunk {} holds values past the page's {} items", c, num_items);
    }
    if (chunk_start + chunk_bytes > data.size()) {
      return Status::Corruption("chunk {} ({} bytes at {}) past the {} byte chunk buffer", c,
                                chunk_bytes, chunk_start, data.size());
    }
    const std::string_view chunk = data.substr(chunk_start, chunk_bytes);
    LANCE_ASSIGN_OR_RAISE(ChunkParts parts, ParseChunk(mb, chunk, c));
    if (has_rep) {
      LANCE_ASSIGN_OR_RAISE(auto levels, DecodeLevels(mb.rep_compression(), parts.rep,
                                                      static_cast<int64_t>(parts.num_levels)));
      page.rep.insert(page.rep.end(), levels.begin(), levels.end());
    }
    if (has_def) {
      LANCE_ASSIGN_OR_RAISE(auto levels, DecodeLevels(mb.def_compression(), parts.def,
                                                      static_cast<int64_t>(parts.num_levels)));
      page.def.insert(page.def.end(), levels.begin(), levels.end());
    }
    const ValueBuffers bufs = parts.values();
    if (has_dict) {
      LANCE_ASSIGN_OR_RAISE(DataBlock chunk_block,
                            DecodeMiniBlockValues(mb.value_compression(), bufs, chunk_values));
      if (chunk_block.num_values != chunk_values) {
        return Status::Corruption("chunk {} decoded {} values, expected {}", c,
                                  chunk_block.num_values, chunk_values);
      }
      if (first) {
        indices = std::move(chunk_block);
        first = false;
      } else {
        LANCE_RETURN_NOT_OK(indices.AppendRange(chunk_block, 0, chunk_block.num_values));
      }
    } else {
      const int64_t before = values->num_values;
      LANCE_RETURN_NOT_OK(
          DecodeMiniBlockValuesInto(mb.value_compression(), bufs, chunk_values, values));
      if (values->num_values - before != chunk_values) {
        return Status::Corruption("chunk {} decoded {} values, expected {}", c,
                                  values->num_values - before, chunk_values);
      }
    }
    items_done += chunk_values;
    chunk_start += chunk_bytes;
  }
  if (items_done != num_items) {
    return Status::Corruption("chunks hold {} values, the page has {}", items_done, num_items);
  }
  if (has_dict && !first) {
    if (dictionary != nullptr) {
      LANCE_RETURN_NOT_OK(GatherDictionary(*dictionary, indices, values));
    } else {
      LANCE_ASSIGN_OR_RAISE(DataBlock items,
                            DecodeDictionaryItems(mb.dictionary(), dictionary_bytes,
                                                  static_cast<int64_t>(mb.num_dictionary_items())));
      LANCE_RETURN_NOT_OK(GatherDictionary(items, indices, values));
    }
  }
  page.num_values = values->num_values - values_before;
  if (values == &local) page.values = std::move(local);
  return page;
}

}  // namespace

namespace layout {

Result<DecodedPage> DecodeMiniBlock(const PageInput& in) {
  const pb21::MiniBlockLayout& mb = in.layout->mini_block_layout();
  const size_t needed = 2 + (mb.has_dictionary() ? 1 : 0) + (mb.repetition_index_depth() > 0 ? 1 : 0);
  if (in.buffers.size() < needed) {
    return Status::Corruption("mini-block page has {} buffers, needs {}", in.buffers.size(), needed);
  }
  return DecodeMiniBlockChunks(mb, in.buffers[0], in.buffers[1],
                               static_cast<int64_t>(mb.num_items()), nullptr,
                               mb.has_dictionary() ? in.buffers[2] : std::string_view(), in);
}

}  // namespace layout

Result<std::vector<MiniBlockChunk>> ParseMiniBlockChunks(const pb21::MiniBlockLayout& mb,
                                                         std::string_view meta,
                                                         int minor_version) {
  const bool large = mb.has_large_chunk();
  if (minor_version >= 2 && !large) {
    return Status::Corruption("a 2.{} mini-block page without the u32 chunk grammar", minor_version);
  }
  const size_t word = large ? 4 : 2;
  if (meta.size() % word != 0) {
    return Status::Corruption("chunk metadata of {} bytes is not a multiple of {}", meta.size(), word);
  }
  const int64_t num_items = static_cast<int64_t>(mb.num_items());
  const size_t n = meta.size() / word;
  std::vector<MiniBlockChunk> chunks;
  chunks.reserve(n);
  uint64_t offset = 0;
  int64_t done = 0;
  for (size_t c = 0; c < n; ++c) {
    const uint64_t w = large ? Load<uint32_t>(meta.data() + c * 4) : Load<uint16_t>(meta.data() + c * 2);
    MiniBlockChunk chunk;
    chunk.offset = offset;
    chunk.size = ((w >> 4) + 1) * 8;
    chunk.num_values = c + 1 == n ? num_items - done : int64_t{1} << (w & 0xf);
    if (chunk.num_values < 0 || done + chunk.num_values > num_items) {
      return Status::Corruption("chunk {} holds values past the page's {} items", c, num_items);
    }
    done += chunk.num_values;
    offset += chunk.size;
    chunks.push_back(chunk);
  }
  if (done != num_items) {
    return Status::Corruption("chunks hold {} values, the page has {}", done, num_items);
  }
  return chunks;
}

Result<DataBlock> DecodeMiniBlockDictionary(const pb21::MiniBlockLayout& mb, std::string_view bytes) {
  return DecodeDictionaryItems(mb.dictionary(), bytes, static_cast<int64_t>(mb.num_dictionary_items()));
}

namespace {

// The dictionary indices of the values at `positions` of a chunk (its parsed parts).
Result<DataBlock> ChunkIndicesAt(const pb21::MiniBlockLayout& mb, const ChunkParts& parts,
                                 int64_t chunk_values, const std::vector<int64_t>& positions) {
  const auto& enc = mb.value_compression();
  uint64_t bits = 0;
  if (enc.has_flat()) bits = enc.flat().bits_per_value();
  if (enc.has_inline_bitpacking()) bits = enc.inline_bitpacking().uncompressed_bits_per_value();
  if (enc.has_out_of_line_bitpacking()) bits = enc.out_of_line_bitpacking().uncompressed_bits_per_value();
  DataBlock indices;
  if (bits == 8 || bits == 16 || bits == 32 || bits == 64) {
    indices = DataBlock::Fixed(static_cast<int>(bits));
    LANCE_RETURN_NOT_OK(DecodeMiniBlockValuesAt(enc, parts.values(), chunk_values, positions, &indices));
    return indices;
  }
  LANCE_ASSIGN_OR_RAISE(DataBlock all, DecodeMiniBlockValues(enc, parts.values(), chunk_values));
  indices = DataBlock::EmptyLike(all);
  for (int64_t p : positions) {
    if (p < 0 || p >= all.num_values) {
      return Status::Corruption("mini-block value {} of {}", p, all.num_values);
    }
    LANCE_RETURN_NOT_OK(indices.AppendRange(all, p, 1));
  }
  return indices;
}

template <typename I>
Status AppendIndices(const I* idx, int64_t n, int64_t dictionary_size, int32_t base,
                     std::vector<int32_t>* out) {
  const size_t at = out->size();
  out->resize(at + static_cast<size_t>(n));
  int32_t* dst = out->data() + at;
  const auto limit = static_cast<uint64_t>(dictionary_size);
  uint64_t worst = 0;
  int64_t i = 0;
#if defined(__SSE2__)
  if constexpr (sizeof(I) == 4) {
    // 4 indices a step: add the base, and flag any above the largest allowed one (the
    // dictionary's size, and no sum past INT32_MAX) by a signed compare of top-bit-flipped
    // values; the exact worst index is found below only when one is out of range.
    const uint64_t allowed = std::min<uint64_t>(limit, static_cast<uint64_t>(INT32_MAX - static_cast<int64_t>(base)));
    const __m128i flip = _mm_set1_epi32(static_cast<int32_t>(0x80000000u));
    const __m128i top = _mm_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(std::min<uint64_t>(allowed, 0xffffffffu)) ^ 0x80000000u));
    const __m128i add = _mm_set1_epi32(base);
    __m128i over = _mm_setzero_si128();
    for (; i + 4 <= n; i += 4) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(idx + i));
      over = _mm_or_si128(over, _mm_cmpgt_epi32(_mm_xor_si128(v, flip), top));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_add_epi32(v, add));
    }
    if (_mm_movemask_epi8(over) != 0) {
      for (int64_t j = 0; j < i; ++j) worst = std::max(worst, static_cast<uint64_t>(idx[j]));
    }
  }
#endif
  for (; i < n; ++i) {
    const auto k = static_cast<uint64_t>(idx[i]);
    worst = std::max(worst, k);
    dst[i] = static_cast<int32_t>(static_cast<int64_t>(base) + static_cast<int64_t>(k));
  }
  if (n > 0 && (worst > limit || static_cast<int64_t>(base) + static_cast<int64_t>(worst) > INT32_MAX)) {
    out->resize(at);
    return Status::Corruption("dictionary index {} but the dictionary has {} items", worst,
                              dictionary_size);
  }
  return Status::OK();
}

// AppendIndices over n little-endian indices of type I at `p`: read in place when aligned,
// else copied out first (one memcpy, not a value-by-value load).
template <typename I>
Status AppendTypedIndices(const char* p, int64_t n, int64_t dictionary_size, int32_t base,
                          std::vector<int32_t>* out) {
  if (reinterpret_cast<uintptr_t>(p) % alignof(I) == 0) {
    return AppendIndices(reinterpret_cast<const I*>(p), n, dictionary_size, base, out);
  }
  std::vector<I> aligned(static_cast<size_t>(n));
  std::memcpy(aligned.data(), p, static_cast<size_t>(n) * sizeof(I));
  return AppendIndices(aligned.data(), n, dictionary_size, base, out);
}

}  // namespace

Status DecodeMiniBlockChunkAt(const pb21::MiniBlockLayout& mb, std::string_view chunk,
                              int64_t chunk_values, const DataBlock* dictionary,
                              const std::vector<int64_t>& positions, DataBlock* out) {
  if (mb.has_rep_compression() || mb.has_def_compression()) {
    return Status::InvalidArgument("mini-block chunk with levels: decode the whole page");
  }
  LANCE_ASSIGN_OR_RAISE(ChunkParts parts, ParseChunk(mb, chunk, 0));
  if (dictionary == nullptr) {
    return DecodeMiniBlockValuesAt(mb.value_compression(), parts.values(), chunk_values, positions, out);
  }
  // Indices of the wanted values, then the items they name.
  LANCE_ASSIGN_OR_RAISE(DataBlock indices, ChunkIndicesAt(mb, parts, chunk_values, positions));
  return GatherDictionary(*dictionary, indices, out);
}

namespace {

// Appends `indices` (a chunk's decoded dictionary indices) plus `base` to `out`.
Status AppendChunkIndices(const DataBlock& indices, int64_t dictionary_size, int32_t base,
                          std::vector<int32_t>* out) {
  if (indices.kind != DataBlock::Kind::kFixed) {
    return Status::Corruption("dictionary indices are not 8/16/32/64-bit integers");
  }
  const char* p = indices.data.data();
  const int64_t n = indices.num_values;
  if (static_cast<int64_t>(indices.data.size()) * 8 < n * indices.bits_per_value) {
    return Status::Corruption("{} dictionary indices in {} bytes", n, indices.data.size());
  }
  switch (indices.bits_per_value) {
    case 8:
      return AppendIndices(reinterpret_cast<const uint8_t*>(p), n, dictionary_size, base, out);
    case 16:
      return AppendTypedIndices<uint16_t>(p, n, dictionary_size, base, out);
    case 32:
      return AppendTypedIndices<uint32_t>(p, n, dictionary_size, base, out);
    case 64:
      return AppendTypedIndices<uint64_t>(p, n, dictionary_size, base, out);
    default:
      return Status::Corruption("dictionary indices are not 8/16/32/64-bit integers");
  }
}

Status CheckIndexedChunk(const pb21::MiniBlockLayout& mb, int64_t dictionary_size, int32_t base) {
  if (mb.has_rep_compression() || mb.has_def_compression()) {
    return Status::InvalidArgument("mini-block chunk with levels: decode the whole page");
  }
  if (!mb.has_dictionary()) return Status::InvalidArgument("mini-block page without a dictionary");
  if (dictionary_size < 0 || base < 0) {
    return Status::InvalidArgument("dictionary of {} items at {}", dictionary_size, base);
  }
  return Status::OK();
}

}  // namespace

Status DecodeMiniBlockChunkIndicesAt(const pb21::MiniBlockLayout& mb, std::string_view chunk,
                                     int64_t chunk_values, int64_t dictionary_size,
                                     const std::vector<int64_t>& positions, int32_t base,
                                     std::vector<int32_t>* out) {
  LANCE_RETURN_NOT_OK(CheckIndexedChunk(mb, dictionary_size, base));
  LANCE_ASSIGN_OR_RAISE(ChunkParts parts, ParseChunk(mb, chunk, 0));
  LANCE_ASSIGN_OR_RAISE(DataBlock indices, ChunkIndicesAt(mb, parts, chunk_values, positions));
  return AppendChunkIndices(indices, dictionary_size, base, out);
}

Status DecodeMiniBlockChunkRange(const pb21::MiniBlockLayout& mb, std::string_view chunk,
                                 int64_t chunk_values, const DataBlock* dictionary, int64_t first,
                                 int64_t count, DataBlock* out) {
  if (first < 0 || count < 0 || first + count > chunk_values) {
    return Status::Corruption("mini-block values [{}, {}) of {}", first, first + count, chunk_values);
  }
  if (first == 0 && count == chunk_values) {
    if (mb.has_rep_compression() || mb.has_def_compression()) {
      return Status::InvalidArgument("mini-block chunk with levels: decode the whole page");
    }
    LANCE_ASSIGN_OR_RAISE(ChunkParts parts, ParseChunk(mb, chunk, 0));
    if (dictionary == nullptr) {
      return DecodeMiniBlockValuesInto(mb.value_compression(), parts.values(), chunk_values, out);
    }
    LANCE_ASSIGN_OR_RAISE(DataBlock indices,
                          DecodeMiniBlockValues(mb.value_compression(), parts.values(), chunk_values));
    return GatherDictionary(*dictionary, indices, out);
  }
  if (dictionary == nullptr && out->kind == DataBlock::Kind::kFixed && count >= chunk_values / 4 &&
      count > 0 && !mb.has_rep_compression() && !mb.has_def_compression()) {
    // A good part of a fixed-width chunk (a scan's span ending inside it): the chunk decoded
    // whole, then its range copied -- the positions path cost ~8 instructions a value, this
    // ~3. (A few values of a chunk still go by their positions.)
    LANCE_ASSIGN_OR_RAISE(ChunkParts parts, ParseChunk(mb, chunk, 0));
    DataBlock all = DataBlock::EmptyLike(*out);
    LANCE_RETURN_NOT_OK(DecodeMiniBlockValuesInto(mb.value_compression(), parts.values(), chunk_values, &all));
    if (all.num_values != chunk_values) {
      return Status::Corruption("mini-block chunk decoded {} values for {}", all.num_values, chunk_values);
    }
    return out->AppendRange(all, first, count);
  }
  std::vector<int64_t> positions(static_cast<size_t>(count));
  std::iota(positions.begin(), positions.end(), first);
  return DecodeMiniBlockChunkAt(mb, chunk, chunk_values, dictionary, positions, out);
}

Status DecodeMiniBlockChunkIndicesRange(const pb21::MiniBlockLayout& mb, std::string_view chunk,
                                        int64_t chunk_values, int64_t dictionary_size,
                                        int64_t first, int64_t count, int32_t base,
                                        std::vector<int32_t>* out) {
  if (first < 0 || count < 0 || first + count > chunk_values) {
    return Status::Corruption("mini-block values [{}, {}) of {}", first, first + count, chunk_values);
  }
  if (first == 0 && count == chunk_values) {
    LANCE_RETURN_NOT_OK(CheckIndexedChunk(mb, dictionary_size, base));
    LANCE_ASSIGN_OR_RAISE(ChunkParts parts, ParseChunk(mb, chunk, 0));
    LANCE_ASSIGN_OR_RAISE(DataBlock indices,
                          DecodeMiniBlockValues(mb.value_compression(), parts.values(), chunk_values));
    return AppendChunkIndices(indices, dictionary_size, base, out);
  }
  std::vector<int64_t> positions(static_cast<size_t>(count));
  std::iota(positions.begin(), positions.end(), first);
  return DecodeMiniBlockChunkIndicesAt(mb, chunk, chunk_values, dictionary_size, positions, base,
                                       out);
}

Result<std::vector<MiniBlockChunkRows>> ParseMiniBlockRowIndex(
    const pb21::MiniBlockLayout& mb, std::string_view rep_index,
    const std::vector<MiniBlockChunk>& chunks, int64_t num_rows) {
  std::vector<MiniBlockChunkRows> out(chunks.size());
  int64_t row = 0;
  if (mb.repetition_index_depth() == 0) {
    if (mb.has_rep_compression()) {
      return Status::NotSupported("mini-block page with repetition but no repetition index");
    }
    for (size_t c = 0; c < chunks.size(); ++c) {
      out[c].first_row = row;
      out[c].num_starts = chunks[c].num_values;
      row += chunks[c].num_values;
    }
  } else {
    const uint64_t depth = mb.repetition_index_depth();
    if (depth > 16) return Status::Corruption("repetition index depth {}", depth);
    const size_t stride = static_cast<size_t>(depth + 1) * 8;
    if (rep_index.size() != chunks.size() * stride) {
      return Status::Corruption("repetition index of {} bytes for {} chunks of depth {}",
                                rep_index.size(), chunks.size(), depth);
    }
    bool preamble = false;  // the previous chunk left a row open
    for (size_t c = 0; c < chunks.size(); ++c) {
      const uint64_t ends = Load<uint64_t>(rep_index.data() + c * stride);
      const uint64_t partial = Load<uint64_t>(rep_index.data() + c * stride + 8);
      const bool trailer = partial > 0;
      // Rows ending here, plus the one left open at the end, minus the one begun earlier.
      if (ends > static_cast<uint64_t>(num_rows) || (ends == 0 && preamble && !trailer) ||
          (ends == 0 && !preamble && !trailer && chunks[c].num_values > 0)) {
        return Status::Corruption("repetition index: chunk {} ends {} rows ({} items open)", c,
                                  ends, partial);
      }
      if (trailer && c + 1 == chunks.size()) {
        return Status::Corruption("repetition index: the last chunk leaves a row open");
      }
      const auto starts = static_cast<int64_t>(ends) + (trailer ? 1 : 0) - (preamble ? 1 : 0);
      out[c] = {row, starts, preamble, trailer};
      row += starts;
      if (row > num_rows) {
        return Status::Corruption("repetition index: {} rows by chunk {}, the page has {}", row,
                                  c, num_rows);
      }
      preamble = trailer;
    }
  }
  if (row != num_rows) {
    return Status::Corruption("repetition index: chunks hold {} rows, the page has {}", row,
                              num_rows);
  }
  return out;
}

Result<DecodedPage> DecodeMiniBlockRun(const PageInput& in, std::string_view meta,
                                       std::string_view data, int64_t num_items,
                                       const DataBlock* dictionary) {
  if (in.layout == nullptr || !in.layout->has_mini_block_layout()) {
    return Status::InvalidArgument("DecodeMiniBlockRun: not a mini-block page");
  }
  const auto& mb = in.layout->mini_block_layout();
  if (mb.has_dictionary() && dictionary == nullptr) {
    return Status::InvalidArgument("DecodeMiniBlockRun: the page's dictionary is needed");
  }
  return DecodeMiniBlockChunks(mb, meta, data, num_items, dictionary, {}, in);
}

}  // namespace lance::encoding
