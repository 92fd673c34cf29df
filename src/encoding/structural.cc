#include "lance/encoding/structural.h"

#include <cstring>
#include <optional>

#include "lance/core/bit_util.h"
#include "lance/encoding/compressive.h"
#include "lance/encoding/fsst.h"

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

Status CheckLayers(const std::vector<LayerKind>& layers) {
  if (layers.empty()) return Status::Corruption("page layout without repetition/definition layers");
  for (LayerKind l : layers) {
    if (static_cast<int>(l) < 1 || static_cast<int>(l) > 6) {
      return Status::Corruption("unknown repetition/definition layer {}", static_cast<int>(l));
    }
  }
  return Status::OK();
}

// Gathers dictionary items by index into a block shaped like the items.
Result<DataBlock> GatherDictionary(const DataBlock& items, const DataBlock& indices) {
  if (indices.kind != DataBlock::Kind::kFixed ||
      (indices.bits_per_value != 8 && indices.bits_per_value != 16 &&
       indices.bits_per_value != 32 && indices.bits_per_value != 64)) {
    return Status::Corruption("dictionary indices are not 8/16/32/64-bit integers");
  }
  DataBlock out = DataBlock::EmptyLike(items);
  for (int64_t i = 0; i < indices.num_values; ++i) {
    const uint64_t index = FixedValueAt(indices, i);
    if (index < static_cast<uint64_t>(items.num_values)) {
      LANCE_RETURN_NOT_OK(out.AppendRange(items, static_cast<int64_t>(index), 1));
    } else if (index == static_cast<uint64_t>(items.num_values)) {
      out.AppendEmpty(1);  // the null entry the writer counts but does not store
    } else {
      return Status::Corruption("dictionary index {} but the dictionary has {} items", index,
                                items.num_values);
    }
  }
  return out;
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

Result<DecodedPage> DecodeMiniBlock(const PageInput& in) {
  const pb21::MiniBlockLayout& mb = in.layout->mini_block_layout();
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
  const size_t needed = 2 + (mb.has_dictionary() ? 1 : 0) + (mb.repetition_index_depth() > 0 ? 1 : 0);
  if (in.buffers.size() < needed) {
    return Status::Corruption("mini-block page has {} buffers, needs {}", in.buffers.size(), needed);
  }
  const std::string_view meta = in.buffers[0];
  const std::string_view data = in.buffers[1];
  const int word = large ? 4 : 2;
  if (meta.size() % static_cast<size_t>(word) != 0) {
    return Status::Corruption("chunk metadata of {} bytes is not a multiple of {}", meta.size(), word);
  }
  const uint64_t num_buffers = mb.num_buffers();
  if (num_buffers == 0 || num_buffers > 16) {
    return Status::Corruption("mini-block page with {} value buffers per chunk", num_buffers);
  }
  const int64_t num_items = static_cast<int64_t>(mb.num_items());
  const size_t num_chunks = meta.size() / static_cast<size_t>(word);

  DataBlock values;
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
    size_t pos = 0;
    auto read = [&](int bytes) -> Result<uint64_t> {
      if (pos + static_cast<size_t>(bytes) > chunk.size()) {
        return Status::Corruption("chunk {} header past its {} bytes", c, chunk.size());
      }
      const uint64_t v = LoadLE(chunk.data() + pos, bytes);
      pos += static_cast<size_t>(bytes);
      return v;
    };
    LANCE_ASSIGN_OR_RAISE(uint64_t num_levels, read(2));
    uint64_t rep_size = 0, def_size = 0;
    if (has_rep) {
      LANCE_ASSIGN_OR_RAISE(rep_size, read(2));
    }
    if (has_def) {
      LANCE_ASSIGN_OR_RAISE(def_size, read(2));
    }
    std::vector<uint64_t> sizes(num_buffers);
    for (auto& s : sizes) {
      LANCE_ASSIGN_OR_RAISE(s, read(large ? 4 : 2));
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
    if (has_rep) {
      LANCE_ASSIGN_OR_RAISE(auto bytes, take(rep_size, "repetition levels"));
      LANCE_ASSIGN_OR_RAISE(auto levels, DecodeLevels(mb.rep_compression(), bytes,
                                                      static_cast<int64_t>(num_levels)));
      page.rep.insert(page.rep.end(), levels.begin(), levels.end());
    }
    if (has_def) {
      LANCE_ASSIGN_OR_RAISE(auto bytes, take(def_size, "definition levels"));
      LANCE_ASSIGN_OR_RAISE(auto levels, DecodeLevels(mb.def_compression(), bytes,
                                                      static_cast<int64_t>(num_levels)));
      page.def.insert(page.def.end(), levels.begin(), levels.end());
    }
    std::vector<std::string_view> bufs;
    for (uint64_t s : sizes) {
      LANCE_ASSIGN_OR_RAISE(auto bytes, take(s, "value buffer"));
      bufs.push_back(bytes);
    }
    LANCE_ASSIGN_OR_RAISE(DataBlock chunk_block,
                          DecodeMiniBlockValues(mb.value_compression(), bufs, chunk_values));
    if (chunk_block.num_values != chunk_values) {
      return Status::Corruption("chunk {} decoded {} values, expected {}", c,
                                chunk_block.num_values, chunk_values);
    }
    if (first) {
      values = std::move(chunk_block);
      first = false;
    } else {
      LANCE_RETURN_NOT_OK(values.AppendRange(chunk_block, 0, chunk_block.num_values));
    }
    items_done += chunk_values;
    chunk_start += chunk_bytes;
  }
  if (items_done != num_items) {
    return Status::Corruption("chunks hold {} values, the page has {}", items_done, num_items);
  }
  if (first) values = DataBlock::EmptyLike(in.prototype);
  if (mb.has_dictionary()) {
    LANCE_ASSIGN_OR_RAISE(DataBlock items,
                          DecodeDictionaryItems(mb.dictionary(), in.buffers[2],
                                                static_cast<int64_t>(mb.num_dictionary_items())));
    LANCE_ASSIGN_OR_RAISE(values, GatherDictionary(items, values));
  }
  page.values = std::move(values);
  return page;
}

Status AppendFullZipValue(const pb21::CompressiveEncoding& enc, const FsstSymbolTable* fsst,
                          std::string_view bytes, DataBlock* out) {
  using Enc = pb21::CompressiveEncoding;
  switch (enc.compression_case()) {
    case Enc::kVariable:
      if (out->kind != DataBlock::Kind::kVariable) break;
      out->AppendVariable(bytes);
      return Status::OK();
    case Enc::kFsst: {
      if (out->kind != DataBlock::Kind::kVariable || fsst == nullptr) break;
      std::string value;
      LANCE_RETURN_NOT_OK(fsst->Decode(bytes, &value));
      out->AppendVariable(value);
      return Status::OK();
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
  std::optional<FsstSymbolTable> fsst;
  if (fz.value_compression().has_fsst()) {
    LANCE_ASSIGN_OR_RAISE(fsst, FsstSymbolTable::Parse(fz.value_compression().fsst().symbol_table()));
  }
  const std::string_view data = in.buffers[0];
  DataBlock values = DataBlock::EmptyLike(in.prototype);
  size_t pos = 0;
  const uint64_t def_mask = (uint64_t{1} << fz.bits_def()) - 1;
  for (uint32_t i = 0; i < fz.num_items(); ++i) {
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
    if (fz.bits_rep() > 0) page.rep.push_back(static_cast<uint16_t>(ctrl >> fz.bits_def()));
    if (fz.bits_def() > 0) page.def.push_back(def);
    if (def != 0) {
      LANCE_ASSIGN_OR_RAISE(bool visible, IsVisibleDefinition(page.layers, def));
      if (visible) {
        values.AppendEmpty(1);
        // Fixed-width values keep their slot under a null item; variable-width ones do not.
        if (value_bytes > 0) {
          if (static_cast<uint64_t>(value_bytes) > data.size() - pos) {
            return Status::Corruption("full-zip item {} of {} bytes at {} past {} bytes", i,
                                      value_bytes, pos, data.size());
          }
          pos += static_cast<size_t>(value_bytes);
        }
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
    LANCE_RETURN_NOT_OK(AppendFullZipValue(fz.value_compression(), fsst ? &*fsst : nullptr,
                                           data.substr(pos, static_cast<size_t>(len)), &values));
    pos += static_cast<size_t>(len);
  }
  if (values.num_values != fz.num_visible_items()) {
    return Status::Corruption("full-zip page decoded {} visible items, layout says {}",
                              values.num_values, fz.num_visible_items());
  }
  page.values = std::move(values);
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
      for (int64_t i = 0; i < n; ++i) out->AppendFixedBytes(reinterpret_cast<const uint8_t*>(value.data()), 1);
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
  size_t next_buffer = 0;
  auto levels = [&](const pb21::CompressiveEncoding& enc, bool has_enc, uint64_t count,
                    std::vector<uint16_t>* out) -> Status {
    const std::string_view bytes = in.buffers[next_buffer++];
    if (count == 0) {
      if (has_enc) return Status::Corruption("constant page: compressed levels without a count");
      count = bytes.size() / 2;
    }
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
  const size_t nbuf = in.buffers.size();
  if ((has_lists || cl.num_rep_values() > 0) && next_buffer < nbuf) {
    LANCE_RETURN_NOT_OK(levels(cl.rep_compression(), cl.has_rep_compression(), cl.num_rep_values(), &page.rep));
  }
  if (has_def_codes && next_buffer < nbuf &&
      (cl.has_inline_value() || has_lists || cl.num_def_values() > 0 || nbuf - next_buffer >= 2)) {
    LANCE_RETURN_NOT_OK(levels(cl.def_compression(), cl.has_def_compression(), cl.num_def_values(), &page.def));
  }
  if (!page.rep.empty() && !page.def.empty() && page.rep.size() != page.def.size()) {
    return Status::Corruption("constant page: {} repetition but {} definition levels",
                              page.rep.size(), page.def.size());
  }

  const bool all_null = !cl.has_inline_value() && next_buffer >= in.buffers.size();
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
  page.values = DataBlock::EmptyLike(in.prototype);
  if (cl.has_inline_value()) {
    if (cl.inline_value().size() > 32) {
      return Status::Corruption("constant page: inline value of {} bytes", cl.inline_value().size());
    }
    LANCE_RETURN_NOT_OK(AppendConstant(in.prototype, cl.inline_value(), visible, &page.values));
  } else if (!all_null) {
    LANCE_ASSIGN_OR_RAISE(std::string_view value, ConstantBufferValue(in.buffers[next_buffer]));
    LANCE_RETURN_NOT_OK(AppendConstant(in.prototype, value, visible, &page.values));
  } else {
    page.values.AppendEmpty(visible);
  }
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
