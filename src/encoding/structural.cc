#include "encoding/structural.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <optional>

#include "lance/core/bit_util.h"
#include "encoding/compressive.h"
#include "encoding/fsst.h"

namespace lance::encoding {

namespace {

namespace pb21 = ::lance::encodings21;

template <typename T>
T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

uint64_t LoadLE(const char* p, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, static_cast<size_t>(bytes));
  return v;
}

std::vector<LayerKind> Layers(const google::protobuf::RepeatedField<int>& layers) {
  std::vector<LayerKind> out;
  for (int l : layers) out.push_back(static_cast<LayerKind>(l));
  return out;
}

int NumListLayers(const std::vector<LayerKind>& layers) {
  int n = 0;
  for (LayerKind l : layers) n += IsListLayer(l) ? 1 : 0;
  return n;
}

Status CheckLayers(const std::vector<LayerKind>& layers) {
  if (layers.empty()) return Status::Corruption("page layout without repetition/definition layers");
  for (LayerKind l : layers) {
    if (static_cast<int>(l) < 1 || static_cast<int>(l) > 6) {
      return Status::Corruption("unknown repetition/definition layer {}", static_cast<int>(l));
    }
  }
  return Status::OK();
}

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
    out->data.resize_for_overwrite(at + static_cast<size_t>(n) * w);
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
    out->data.resize_for_overwrite(at + static_cast<size_t>(bytes));
    char* dst = out->data.mutable_data();
    size_t pos = at;
    out->offsets.reserve(out->offsets.size() + static_cast<size_t>(n));
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
      out->AppendEmpty(1);
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
  std::vector<std::string_view> values;
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
    parts.values.push_back(bytes);
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
    values->Reserve(num_items, static_cast<int64_t>(data.size()),
                    static_cast<int64_t>(data.size()) * 64 + (1 << 20));
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
    const std::vector<std::string_view>& bufs = parts.values;
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

Status AppendFullZipValue(const pb21::CompressiveEncoding& enc, const FsstDecoder* fsst,
                          std::string_view bytes, DataBlock* out) {
  using Enc = pb21::CompressiveEncoding;
  switch (enc.compression_case()) {
    case Enc::kVariable:
      if (out->kind != DataBlock::Kind::kVariable) break;
      out->AppendVariable(bytes);
      return Status::OK();
    case Enc::kFsst: {
      if (out->kind != DataBlock::Kind::kVariable || fsst == nullptr) break;
      return fsst->AppendValue(bytes, out);
    }
    case Enc::kFlat:
      if (out->kind != DataBlock::Kind::kFixed || out->bits_per_value % 8 != 0 ||
          static_cast<int64_t>(bytes.size()) * 8 != out->bits_per_value) {
        break;
      }
      out->AppendFixedBytes(reinterpret_cast<const uint8_t*>(bytes.data()), 1);
      return Status::OK();
    case Enc::kFixedSizeList: {
      const auto& fsl = enc.fixed_size_list();
      if (out->kind != DataBlock::Kind::kFixedSizeList || fsl.has_validity() ||
          !fsl.values().has_flat() || out->child->kind != DataBlock::Kind::kFixed ||
          out->child->bits_per_value % 8 != 0 ||
          static_cast<int64_t>(bytes.size()) * 8 != out->dimension * out->child->bits_per_value) {
        break;
      }
      out->child->AppendFixedBytes(reinterpret_cast<const uint8_t*>(bytes.data()), out->dimension);
      if (!out->child_validity.empty()) {
        out->child_validity.insert(out->child_validity.end(), static_cast<size_t>(out->dimension), 1);
      }
      ++out->num_values;
      return Status::OK();
    }
    default:
      return Status::NotSupported("full-zip values encoded as {}", DescribeEncoding(enc));
  }
  return Status::Corruption("full-zip value of {} bytes does not fit {}", bytes.size(),
                            DescribeEncoding(enc));
}

Result<DecodedPage> DecodeFullZip(const PageInput& in) {
  const pb21::FullZipLayout& fz = in.layout->full_zip_layout();
  DecodedPage page;
  page.num_rows = in.num_rows;
  page.layers = Layers(fz.layers());
  LANCE_RETURN_NOT_OK(CheckLayers(page.layers));
  if (in.buffers.empty()) return Status::Corruption("full-zip page without buffers");
  if (fz.bits_rep() > 16 || fz.bits_def() > 16) {
    return Status::Corruption("full-zip control word of {} + {} bits", fz.bits_rep(), fz.bits_def());
  }
  const int ctrl_bytes = static_cast<int>((fz.bits_rep() + fz.bits_def() + 7) / 8);
  int offset_bytes = 0;
  int64_t value_bytes = 0;
  if (fz.details_case() == pb21::FullZipLayout::kBitsPerOffset) {
    if (fz.bits_per_offset() != 8 && fz.bits_per_offset() != 16 && fz.bits_per_offset() != 32 &&
        fz.bits_per_offset() != 64) {
      return Status::Corruption("full-zip: {} bits per offset", fz.bits_per_offset());
    }
    offset_bytes = static_cast<int>(fz.bits_per_offset() / 8);
  } else if (fz.details_case() == pb21::FullZipLayout::kBitsPerValue) {
    if (fz.bits_per_value() == 0 || fz.bits_per_value() % 8 != 0) {
      return Status::Corruption("full-zip: {} bits per value", fz.bits_per_value());
    }
    value_bytes = fz.bits_per_value() / 8;
  } else {
    return Status::Corruption("full-zip page with neither bits per value nor bits per offset");
  }
  std::optional<FsstDecoder> fsst;
  if (fz.value_compression().has_fsst()) {
    LANCE_ASSIGN_OR_RAISE(fsst, FsstDecoder::Make(fz.value_compression().fsst().symbol_table()));
  }
  const std::string_view data = in.buffers[0];
  DataBlock local;
  DataBlock* values = in.output;
  if (values == nullptr) {
    local = DataBlock::EmptyLike(in.prototype);
    values = &local;
  }
  const int64_t values_before = values->num_values;
  const uint64_t num_items = fz.num_items();
  const auto& enc = fz.value_compression();

  // Fixed-width values without control words: buffer 0 is the values, back to back, exactly
  // as Arrow lays them out.
  if (ctrl_bytes == 0 && value_bytes > 0 && (enc.has_flat() || enc.has_fixed_size_list()) &&
      !in.full_zip_row_slice) {
    if (num_items > data.size() / static_cast<uint64_t>(value_bytes)) {
      return Status::Corruption("full-zip: {} items of {} bytes past {} bytes", num_items,
                                value_bytes, data.size());
    }
    if (fz.num_visible_items() != num_items) {
      return Status::Corruption("full-zip page without levels has {} items but {} visible",
                                num_items, fz.num_visible_items());
    }
    const int64_t n = static_cast<int64_t>(num_items);
    const size_t bytes = static_cast<size_t>(n * value_bytes);
    DataBlock* target = values;  // the block whose `data` receives the bytes
    int64_t target_values = n;
    if (values->kind == DataBlock::Kind::kFixed && enc.has_flat() &&
        static_cast<int64_t>(enc.flat().bits_per_value()) == value_bytes * 8 &&
        values->bits_per_value == value_bytes * 8) {
    } else if (values->kind == DataBlock::Kind::kFixedSizeList && enc.has_fixed_size_list() &&
               !enc.fixed_size_list().has_validity() && enc.fixed_size_list().values().has_flat() &&
               values->child->kind == DataBlock::Kind::kFixed &&
               values->child->bits_per_value % 8 == 0 &&
               values->dimension * values->child->bits_per_value == value_bytes * 8) {
      target = values->child.get();
      target_values = n * values->dimension;
      if (!values->child_validity.empty()) {
        values->child_validity.insert(values->child_validity.end(), static_cast<size_t>(target_values), 1);
      }
    } else {
      return Status::Corruption("full-zip values of {} bytes do not fit {}", value_bytes,
                                DescribeEncoding(enc));
    }
    if (target->num_values == 0 && target->data.empty() && !in.owners.empty() && in.owners[0] &&
        static_cast<size_t>(in.owners[0]->size()) == data.size()) {
      target->data = Bytes::Adopt(SliceBuffer(in.owners[0], 0, static_cast<int64_t>(bytes)));
    } else {
      target->data.append(data.data(), bytes);
    }
    target->num_values += target_values;
    if (target != values) values->num_values += n;
    page.num_values = n;
    if (values == &local) page.values = std::move(local);
    return page;
  }

  size_t pos = 0;
  const uint64_t def_mask = (uint64_t{1} << fz.bits_def()) - 1;
  const bool has_rep = fz.bits_rep() > 0;
  const bool has_def = fz.bits_def() > 0;
  // Plain variable-width values (the common case for long strings) append straight away.
  const bool plain_variable = offset_bytes > 0 && enc.has_variable() &&
                              values->kind == DataBlock::Kind::kVariable;
  if (offset_bytes > 0 && values->kind == DataBlock::Kind::kVariable) {
    // FSST values expand (about 2-3x for text); a reservation only.
    values->Reserve(static_cast<int64_t>(std::min<uint64_t>(num_items, data.size())),
                    static_cast<int64_t>(data.size()) * (fsst ? 3 : 1));
  }
  if (has_rep) page.rep.reserve(static_cast<size_t>(std::min<uint64_t>(num_items, data.size())));
  if (has_def) page.def.reserve(static_cast<size_t>(std::min<uint64_t>(num_items, data.size())));
  std::vector<bool> visible_def(size_t{1} << std::min<uint32_t>(fz.bits_def(), 16), false);
  for (size_t d = 0; d < visible_def.size(); ++d) {
    auto v = IsVisibleDefinition(page.layers, static_cast<uint16_t>(d));
    visible_def[d] = v.ok() && *v;
  }
  // A slice of whole rows: items until the bytes end; the rows are counted by their starts.
  const bool slice = in.full_zip_row_slice;
  const uint16_t row_start_rep = static_cast<uint16_t>(NumListLayers(page.layers));
  int64_t row_starts = 0;
  for (uint64_t i = 0; slice ? pos < data.size() : i < num_items; ++i) {
    uint64_t ctrl = 0;
    if (ctrl_bytes > 0) {
      if (pos + static_cast<size_t>(ctrl_bytes) > data.size()) {
        return Status::Corruption("full-zip item {} control word past {} bytes", i, data.size());
      }
      ctrl = LoadLE(data.data() + pos, ctrl_bytes);
      pos += static_cast<size_t>(ctrl_bytes);
    }
    // Definition in the low bits, repetition above it.
    const auto def = static_cast<uint16_t>(ctrl & def_mask);
    if (has_rep) {
      const auto rep = static_cast<uint16_t>(ctrl >> fz.bits_def());
      if (slice && i == 0 && rep != row_start_rep) {
        return Status::Corruption("full-zip rows start with repetition level {}, not {}", rep,
                                  row_start_rep);
      }
      row_starts += rep == row_start_rep ? 1 : 0;
      page.rep.push_back(rep);
    } else {
      ++row_starts;
    }
    if (has_def) page.def.push_back(def);
    if (def != 0) {
      if (!visible_def[def]) {
        LANCE_ASSIGN_OR_RAISE(bool visible, IsVisibleDefinition(page.layers, def));
        if (!visible) continue;
      }
      values->AppendEmpty(1);
      // Fixed-width values keep their slot under a null item; variable-width ones do not.
      if (value_bytes > 0) {
        if (static_cast<uint64_t>(value_bytes) > data.size() - pos) {
          return Status::Corruption("full-zip item {} of {} bytes at {} past {} bytes", i,
                                    value_bytes, pos, data.size());
        }
        pos += static_cast<size_t>(value_bytes);
      }
      continue;
    }
    int64_t len = value_bytes;
    if (offset_bytes > 0) {
      if (pos + static_cast<size_t>(offset_bytes) > data.size()) {
        return Status::Corruption("full-zip item {} length past {} bytes", i, data.size());
      }
      len = static_cast<int64_t>(LoadLE(data.data() + pos, offset_bytes));
      pos += static_cast<size_t>(offset_bytes);
    }
    if (len < 0 || static_cast<uint64_t>(len) > data.size() - pos) {
      return Status::Corruption("full-zip item {} of {} bytes at {} past {} bytes", i, len, pos,
                                data.size());
    }
    if (plain_variable) {
      values->AppendVariable(data.substr(pos, static_cast<size_t>(len)));
    } else {
      LANCE_RETURN_NOT_OK(AppendFullZipValue(enc, fsst ? &*fsst : nullptr,
                                             data.substr(pos, static_cast<size_t>(len)), values));
    }
    pos += static_cast<size_t>(len);
  }
  page.num_values = values->num_values - values_before;
  if (slice) {
    if (row_starts != in.num_rows) {
      return Status::Corruption("full-zip slice holds {} rows, the repetition index says {}",
                                row_starts, in.num_rows);
    }
    if (values == &local) page.values = std::move(local);
    return page;
  }
  if (static_cast<uint64_t>(page.num_values) != fz.num_visible_items()) {
    return Status::Corruption("full-zip page decoded {} visible items, layout says {}",
                              page.num_values, fz.num_visible_items());
  }
  if (values == &local) page.values = std::move(local);
  return page;
}

Status AppendConstant(const DataBlock& prototype, std::string_view value, int64_t n,
                      DataBlock* out) {
  switch (prototype.kind) {
    case DataBlock::Kind::kFixed:
      if (prototype.bits_per_value == 1) {
        if (value.size() != 1) break;
        const uint8_t bit = static_cast<uint8_t>(value[0]) & 1;
        for (int64_t i = 0; i < n; ++i) out->AppendBits(&bit, 0, 1);
        return Status::OK();
      }
      if (static_cast<int64_t>(value.size()) * 8 != prototype.bits_per_value) break;
      if (n > 0) {
        const size_t w = value.size();
        const size_t at = out->data.size();
        out->data.resize_for_overwrite(at + static_cast<size_t>(n) * w);
        char* dst = out->data.mutable_data() + at;
        for (int64_t i = 0; i < n; ++i) std::memcpy(dst + static_cast<size_t>(i) * w, value.data(), w);
        out->num_values += n;
      }
      return Status::OK();
    case DataBlock::Kind::kVariable:
      for (int64_t i = 0; i < n; ++i) out->AppendVariable(value);
      return Status::OK();
    case DataBlock::Kind::kFixedSizeList:
      if (prototype.child->kind != DataBlock::Kind::kFixed || prototype.child->bits_per_value % 8 ||
          static_cast<int64_t>(value.size()) * 8 != prototype.dimension * prototype.child->bits_per_value) {
        break;
      }
      for (int64_t i = 0; i < n; ++i) {
        out->child->AppendFixedBytes(reinterpret_cast<const uint8_t*>(value.data()), prototype.dimension);
      }
      out->num_values += n;
      return Status::OK();
  }
  return Status::Corruption("constant value of {} bytes does not fit the column type", value.size());
}

// The single value of a constant page stored in a buffer: u32 buffer count, u32 size of each
// buffer, then the buffers; two buffers = offsets (u32 or u64 pair) + bytes.
Result<std::string_view> ConstantBufferValue(std::string_view bytes) {
  if (bytes.size() < 4) return Status::Corruption("constant value buffer of {} bytes", bytes.size());
  const uint32_t count = Load<uint32_t>(bytes.data());
  if (count != 2 || bytes.size() < 12) {
    return Status::NotSupported("constant value buffer with {} inner buffers", count);
  }
  const uint32_t offsets_size = Load<uint32_t>(bytes.data() + 4);
  const uint32_t data_size = Load<uint32_t>(bytes.data() + 8);
  if ((offsets_size != 8 && offsets_size != 16) ||
      12 + uint64_t{offsets_size} + data_size > bytes.size()) {
    return Status::Corruption("constant value buffer: offsets {} bytes, data {} bytes in {}",
                              offsets_size, data_size, bytes.size());
  }
  const int w = static_cast<int>(offsets_size / 2);
  const uint64_t begin = LoadLE(bytes.data() + 12, w);
  const uint64_t end = LoadLE(bytes.data() + 12 + w, w);
  if (begin > end || end > data_size) {
    return Status::Corruption("constant value buffer: offsets {}..{} past {} bytes", begin, end,
                              data_size);
  }
  return bytes.substr(12 + offsets_size + begin, end - begin);
}

Result<DecodedPage> DecodeConstant(const PageInput& in) {
  const pb21::ConstantLayout& cl = in.layout->constant_layout();
  DecodedPage page;
  page.num_rows = in.num_rows;
  page.layers = Layers(cl.layers());
  LANCE_RETURN_NOT_OK(CheckLayers(page.layers));
  // Level buffers come first: repetition when there are lists, then definition when some
  // layer can be null or empty. Lance 12 does not always set num_rep_values/num_def_values;
  // then raw u16 levels fill their buffer.
  bool has_lists = false, has_def_codes = false;
  for (LayerKind l : page.layers) {
    has_lists |= IsListLayer(l);
    has_def_codes |= l != LayerKind::kAllValidItem && l != LayerKind::kAllValidList;
  }
  // Buffer order. Lance 12 writes the constant's value buffer (when it is neither inline nor
  // absent) first, then the repetition and definition buffers as a pair whenever the page has
  // levels at all (the repetition buffer empty when nothing repeats): [value] [rep def]. So three
  // buffers are value, rep, def; two are rep, def (inline value, or every value null). One buffer
  // is ambiguous and keeps the older reading: a level buffer when the counts or lists say so,
  // else the value.
  const size_t nbuf = in.buffers.size();
  const bool inline_value = cl.has_inline_value();
  constexpr size_t kNone = ~size_t{0};
  size_t value_buffer = kNone, rep_buffer = kNone, def_buffer = kNone;
  if (nbuf == 3 && !inline_value) {
    value_buffer = 0;
    rep_buffer = 1;
    def_buffer = 2;
  } else if (nbuf == 2) {
    rep_buffer = 0;
    def_buffer = 1;
  } else if (nbuf == 1) {
    if (has_lists || cl.num_rep_values() > 0) {
      rep_buffer = 0;
    } else if (has_def_codes && (inline_value || cl.num_def_values() > 0)) {
      def_buffer = 0;
    } else if (!inline_value) {
      value_buffer = 0;
    }
  } else if (nbuf > 3) {
    return Status::Corruption("constant page with {} buffers (at most value, rep, def)", nbuf);
  }
  auto levels = [&](size_t index, const pb21::CompressiveEncoding& enc, bool has_enc,
                    uint64_t count, std::vector<uint16_t>* out) -> Status {
    const std::string_view bytes = in.buffers[index];
    if (count == 0) {
      if (has_enc && !bytes.empty()) {
        return Status::Corruption("constant page: compressed levels without a count");
      }
      count = bytes.size() / 2;
    }
    if (count == 0) return Status::OK();
    if (count > (uint64_t{1} << 32)) return Status::Corruption("constant page: {} levels", count);
    if (has_enc) {
      LANCE_ASSIGN_OR_RAISE(*out, DecodeLevels(enc, bytes, static_cast<int64_t>(count)));
      return Status::OK();
    }
    if (bytes.size() < count * 2) {
      return Status::Corruption("constant page: {} levels in {} bytes", count, bytes.size());
    }
    out->resize(count);
    std::memcpy(out->data(), bytes.data(), count * 2);
    return Status::OK();
  };
  if (rep_buffer != kNone) {
    LANCE_RETURN_NOT_OK(levels(rep_buffer, cl.rep_compression(), cl.has_rep_compression(),
                               cl.num_rep_values(), &page.rep));
  }
  if (def_buffer != kNone) {
    LANCE_RETURN_NOT_OK(levels(def_buffer, cl.def_compression(), cl.has_def_compression(),
                               cl.num_def_values(), &page.def));
  }
  if (!page.rep.empty() && !page.def.empty() && page.rep.size() != page.def.size()) {
    return Status::Corruption("constant page: {} repetition but {} definition levels",
                              page.rep.size(), page.def.size());
  }

  const bool all_null = !inline_value && value_buffer == kNone;
  if (all_null && page.def.empty() && !has_lists) {
    // Every row is null at the innermost nullable layer.
    uint16_t code = 0, next = 1;
    for (LayerKind l : page.layers) {
      if (l == LayerKind::kNullableItem) {
        code = next;
        break;
      }
      if (l != LayerKind::kAllValidItem) ++next;
    }
    if (code != 0) page.def.assign(static_cast<size_t>(in.num_rows), code);
  }
  int64_t visible = in.num_rows;
  if (!page.def.empty()) {
    visible = 0;
    for (uint16_t d : page.def) {
      LANCE_ASSIGN_OR_RAISE(bool v, IsVisibleDefinition(page.layers, d));
      visible += v ? 1 : 0;
    }
  } else if (!page.rep.empty()) {
    visible = static_cast<int64_t>(page.rep.size());
  }
  DataBlock* values = in.output;
  if (values == nullptr) {
    page.values = DataBlock::EmptyLike(in.prototype);
    values = &page.values;
  }
  const int64_t before = values->num_values;
  if (cl.has_inline_value()) {
    if (cl.inline_value().size() > 32) {
      return Status::Corruption("constant page: inline value of {} bytes", cl.inline_value().size());
    }
    LANCE_RETURN_NOT_OK(AppendConstant(in.prototype, cl.inline_value(), visible, values));
  } else if (!all_null) {
    LANCE_ASSIGN_OR_RAISE(std::string_view value, ConstantBufferValue(in.buffers[value_buffer]));
    LANCE_RETURN_NOT_OK(AppendConstant(in.prototype, value, visible, values));
  } else {
    values->AppendEmpty(visible);
  }
  page.num_values = values->num_values - before;
  return page;
}

}  // namespace

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
    LANCE_RETURN_NOT_OK(DecodeMiniBlockValuesAt(enc, parts.values, chunk_values, positions, &indices));
    return indices;
  }
  LANCE_ASSIGN_OR_RAISE(DataBlock all, DecodeMiniBlockValues(enc, parts.values, chunk_values));
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
  for (int64_t i = 0; i < n; ++i) {
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

}  // namespace

Status DecodeMiniBlockChunkAt(const pb21::MiniBlockLayout& mb, std::string_view chunk,
                              int64_t chunk_values, const DataBlock* dictionary,
                              const std::vector<int64_t>& positions, DataBlock* out) {
  if (mb.has_rep_compression() || mb.has_def_compression()) {
    return Status::InvalidArgument("mini-block chunk with levels: decode the whole page");
  }
  LANCE_ASSIGN_OR_RAISE(ChunkParts parts, ParseChunk(mb, chunk, 0));
  if (dictionary == nullptr) {
    return DecodeMiniBlockValuesAt(mb.value_compression(), parts.values, chunk_values, positions, out);
  }
  // Indices of the wanted values, then the items they name.
  LANCE_ASSIGN_OR_RAISE(DataBlock indices, ChunkIndicesAt(mb, parts, chunk_values, positions));
  return GatherDictionary(*dictionary, indices, out);
}

Status DecodeMiniBlockChunkIndicesAt(const pb21::MiniBlockLayout& mb, std::string_view chunk,
                                     int64_t chunk_values, int64_t dictionary_size,
                                     const std::vector<int64_t>& positions, int32_t base,
                                     std::vector<int32_t>* out) {
  if (mb.has_rep_compression() || mb.has_def_compression()) {
    return Status::InvalidArgument("mini-block chunk with levels: decode the whole page");
  }
  if (!mb.has_dictionary()) return Status::InvalidArgument("mini-block page without a dictionary");
  if (dictionary_size < 0 || base < 0) {
    return Status::InvalidArgument("dictionary of {} items at {}", dictionary_size, base);
  }
  LANCE_ASSIGN_OR_RAISE(ChunkParts parts, ParseChunk(mb, chunk, 0));
  LANCE_ASSIGN_OR_RAISE(DataBlock indices, ChunkIndicesAt(mb, parts, chunk_values, positions));
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
    case 32:
    case 64: {
      if (indices.bits_per_value == 32 && reinterpret_cast<uintptr_t>(p) % 4 == 0) {
        return AppendIndices(reinterpret_cast<const uint32_t*>(p), n, dictionary_size, base, out);
      }
      std::vector<uint64_t> wide(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) wide[static_cast<size_t>(i)] = FixedValueAt(indices, i);
      return AppendIndices(wide.data(), n, dictionary_size, base, out);
    }
    default:
      return Status::Corruption("dictionary indices are not 8/16/32/64-bit integers");
  }
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

Result<int64_t> AppendSelectedRows(const DecodedPage& run, int64_t first_row, bool has_preamble,
                                   const int64_t* rows, size_t num_rows, DecodedPage* out,
                                   DataBlock* values) {
  const bool has_rep = !run.rep.empty();
  const bool has_def = !run.def.empty();
  if (has_rep && has_def && run.rep.size() != run.def.size()) {
    return Status::Corruption("{} repetition but {} definition levels", run.rep.size(),
                              run.def.size());
  }
  const size_t num_levels = has_rep ? run.rep.size() : has_def ? run.def.size()
                                                              : static_cast<size_t>(run.num_values);
  if (!has_rep && !has_def && run.values.num_values != run.num_values) {
    return Status::Corruption("{} values decoded, {} counted", run.values.num_values,
                              run.num_values);
  }
  if (!has_rep && has_preamble) {
    return Status::Corruption("a chunk without repetition cannot continue a row");
  }
  // Which definition codes carry a value.
  std::vector<uint8_t> visible;
  if (has_def) {
    uint16_t max_def = 0;
    for (uint16_t d : run.def) max_def = std::max(max_def, d);
    visible.resize(static_cast<size_t>(max_def) + 1);
    for (size_t d = 0; d < visible.size(); ++d) {
      LANCE_ASSIGN_OR_RAISE(bool v, IsVisibleDefinition(run.layers, static_cast<uint16_t>(d)));
      visible[d] = v ? 1 : 0;
    }
  }
  const auto start_rep = static_cast<uint16_t>(NumListLayers(run.layers));
  if (has_rep && num_levels > 0 && (run.rep[0] == start_rep) == has_preamble) {
    return Status::Corruption("the repetition index says the levels {} a row, they {}",
                              has_preamble ? "continue" : "start",
                              has_preamble ? "start one" : "do not");
  }
  const int64_t values_before = values->num_values;
  int64_t row = first_row - 1;  // the row of the current level
  int64_t starts = 0;
  int64_t v = 0;                // the current level's value, when visible
  int64_t copy_from = -1, copy_len = 0;  // a run of values to copy
  size_t next = 0;
  while (next < num_rows && rows[next] < first_row) ++next;
  auto flush = [&]() -> Status {
    if (copy_len > 0) LANCE_RETURN_NOT_OK(values->AppendRange(run.values, copy_from, copy_len));
    copy_len = 0;
    return Status::OK();
  };
  bool taking = false;
  for (size_t i = 0; i < num_levels; ++i) {
    const bool starts_row = has_rep ? run.rep[i] == start_rep : true;
    if (starts_row) {
      ++row;
      ++starts;
      while (next < num_rows && rows[next] < row) ++next;
      taking = next < num_rows && rows[next] == row;
      if (taking) ++next;
    }
    const bool has_value = !has_def || visible[run.def[i]] != 0;
    if (taking) {
      if (has_rep) out->rep.push_back(run.rep[i]);
      if (has_def) out->def.push_back(run.def[i]);
      if (has_value) {
        if (copy_len > 0 && copy_from + copy_len == v) {
          ++copy_len;
        } else {
          LANCE_RETURN_NOT_OK(flush());
          copy_from = v;
          copy_len = 1;
        }
      }
    }
    if (has_value) ++v;
  }
  LANCE_RETURN_NOT_OK(flush());
  if (v > run.values.num_values) {
    return Status::Corruption("levels name {} values, {} were decoded", v, run.values.num_values);
  }
  out->num_values += values->num_values - values_before;
  return starts;
}

Result<int> FullZipRepIndexWidth(uint64_t rep_index_size, int64_t num_rows) {
  const auto entries = static_cast<uint64_t>(num_rows) + 1;
  if (num_rows >= 0) {
    for (int w : {1, 2, 4, 8}) {
      if (rep_index_size == entries * static_cast<uint64_t>(w)) return w;
    }
  }
  return Status::Corruption("full-zip repetition index of {} bytes for {} rows", rep_index_size,
                            num_rows);
}

Result<ByteRange> FullZipFixedRowRange(const pb21::FullZipLayout& fz, int64_t first,
                                       int64_t count, uint64_t data_size) {
  if (fz.details_case() != pb21::FullZipLayout::kBitsPerValue || fz.bits_per_value() == 0 ||
      fz.bits_per_value() % 8 != 0 || fz.bits_rep() > 0 || fz.bits_def() > 16) {
    return Status::Corruption("full-zip page is not fixed width without repetition");
  }
  const uint64_t stride = (fz.bits_def() + 7) / 8 + fz.bits_per_value() / 8;
  if (first < 0 || count < 0 || static_cast<uint64_t>(first + count) > fz.num_items() ||
      fz.num_items() > data_size / stride) {
    return Status::Corruption("full-zip rows [{}, +{}) of {} items of {} bytes in {} bytes", first,
                              count, fz.num_items(), stride, data_size);
  }
  return ByteRange{static_cast<uint64_t>(first) * stride, static_cast<uint64_t>(count) * stride};
}

Result<ByteRange> FullZipIndexedRowRange(std::string_view entries, int width, int64_t count,
                                         uint64_t data_size) {
  if (count < 0 || entries.size() < static_cast<size_t>(count + 1) * static_cast<size_t>(width)) {
    return Status::Corruption("full-zip repetition index: {} bytes for {} entries", entries.size(),
                              count + 1);
  }
  const uint64_t begin = LoadLE(entries.data(), width);
  const uint64_t end = LoadLE(entries.data() + static_cast<size_t>(count) * width, width);
  if (begin > end || end > data_size) {
    return Status::Corruption("full-zip repetition index: rows at bytes [{}, {}) of {}", begin, end,
                              data_size);
  }
  return ByteRange{begin, end - begin};
}

Result<DecodedPage> DecodePage(const PageInput& input) {
  if (input.layout == nullptr) return Status::InvalidArgument("DecodePage: no layout");
  switch (input.layout->layout_case()) {
    case pb21::PageLayout::kMiniBlockLayout:
      return DecodeMiniBlock(input);
    case pb21::PageLayout::kFullZipLayout:
      return DecodeFullZip(input);
    case pb21::PageLayout::kConstantLayout:
      return DecodeConstant(input);
    case pb21::PageLayout::kBlobLayout:
      return Status::NotSupported("blob page layout");
    default:
      return Status::NotSupported("page layout {}", static_cast<int>(input.layout->layout_case()));
  }
}

std::string DescribePageLayout(const pb21::PageLayout& layout) {
  switch (layout.layout_case()) {
    case pb21::PageLayout::kMiniBlockLayout: {
      const auto& mb = layout.mini_block_layout();
      std::string s = "mini_block(values=" + DescribeEncoding(mb.value_compression());
      if (mb.has_dictionary()) s += ", dictionary=" + DescribeEncoding(mb.dictionary());
      if (mb.has_rep_compression()) s += ", rep=" + DescribeEncoding(mb.rep_compression());
      if (mb.has_def_compression()) s += ", def=" + DescribeEncoding(mb.def_compression());
      return s + ")";
    }
    case pb21::PageLayout::kFullZipLayout:
      return "full_zip(values=" + DescribeEncoding(layout.full_zip_layout().value_compression()) + ")";
    case pb21::PageLayout::kConstantLayout:
      return layout.constant_layout().has_inline_value() ? "constant(inline)" : "constant";
    case pb21::PageLayout::kBlobLayout:
      return "blob";
    default:
      return "unknown";
  }
}

}  // namespace lance::encoding
