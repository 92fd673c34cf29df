// Constant pages: one value (inline in the layout or in page buffer 0) repeated for every
// visible item, or every item null, with optional raw repetition / definition levels.
#include "encoding/structural.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <optional>

#include "encoding/compressive.h"
#include "encoding/fsst.h"
#include "encoding/layout_decoders.h"
#include "lance/core/bit_util.h"

namespace lance::encoding {

using layout::CheckLayers;
using layout::Layers;
using layout::NumListLayers;

namespace {

namespace pb21 = ::lance::encodings21;

Status AppendConstant(const DataBlock& prototype, std::string_view value, int64_t n,
                      DataBlock* out) {
  switch (prototype.kind) {
    case DataBlock::Kind::kFixed:
      if (prototype.bits_per_value == 1) {
        if (value.size() != 1) break;
        const uint8_t bit = static_cast<uint8_t>(value[0]) & 1;
        for (int64_t i = 0; i < n; ++i) LANCE_RETURN_NOT_OK(out->AppendBits(&bit, 0, 1));
        return Status::OK();
      }
      if (static_cast<int64_t>(value.size()) * 8 != prototype.bits_per_value) break;
      if (n > 0) {
        const size_t w = value.size();
        const size_t at = out->data.size();
        LANCE_RETURN_NOT_OK(out->data.ResizeForOverwrite(at + static_cast<size_t>(n) * w));
        char* dst = out->data.mutable_data() + at;
        for (int64_t i = 0; i < n; ++i) std::memcpy(dst + static_cast<size_t>(i) * w, value.data(), w);
        out->num_values += n;
      }
      return Status::OK();
    case DataBlock::Kind::kVariable:
      for (int64_t i = 0; i < n; ++i) LANCE_RETURN_NOT_OK(out->AppendVariable(value));
      return Status::OK();
    case DataBlock::Kind::kFixedSizeList:
      if (prototype.child->kind != DataBlock::Kind::kFixed || prototype.child->bits_per_value % 8 ||
          static_cast<int64_t>(value.size()) * 8 != prototype.dimension * prototype.child->bits_per_value) {
        break;
      }
      for (int64_t i = 0; i < n; ++i) {
        LANCE_RETURN_NOT_OK(out->child->AppendFixedBytes(reinterpret_cast<const uint8_t*>(value.data()), prototype.dimension));
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

}  // namespace

namespace layout {

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
    LANCE_RETURN_NOT_OK(values->AppendEmpty(visible));
  }
  page.num_values = values->num_values - before;
  return page;
}


}  // namespace layout

}  // namespace lance::encoding
