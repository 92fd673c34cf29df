// Full-zip pages: values zipped with their control words (levels) and lengths, decoded whole
// or for a slice of rows, and the byte ranges of rows found at their stride or through the
// repetition index.
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

Status AppendFullZipValue(const pb21::CompressiveEncoding& enc, const FsstDecoder* fsst,
                          std::string_view bytes, DataBlock* out) {
  using Enc = pb21::CompressiveEncoding;
  switch (enc.compression_case()) {
    case Enc::kVariable:
      if (out->kind != DataBlock::Kind::kVariable) break;
      LANCE_RETURN_NOT_OK(out->AppendVariable(bytes));
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
      LANCE_RETURN_NOT_OK(out->AppendFixedBytes(reinterpret_cast<const uint8_t*>(bytes.data()), 1));
      return Status::OK();
    case Enc::kFixedSizeList: {
      // One list per value: with item validity, its bitmap (ceil(dimension / 8) bytes, LSB
      // first) comes before the items.
      const auto& fsl = enc.fixed_size_list();
      const int64_t validity_bytes = fsl.has_validity() ? (out->dimension + 7) / 8 : 0;
      if (out->kind != DataBlock::Kind::kFixedSizeList || !fsl.values().has_flat() ||
          out->child->kind != DataBlock::Kind::kFixed || out->child->bits_per_value % 8 != 0 ||
          (static_cast<int64_t>(bytes.size()) - validity_bytes) * 8 !=
              out->dimension * out->child->bits_per_value) {
        break;
      }
      const auto* raw = reinterpret_cast<const uint8_t*>(bytes.data());
      LANCE_RETURN_NOT_OK(out->child->AppendFixedBytes(raw + validity_bytes, out->dimension));
      const size_t dim = static_cast<size_t>(out->dimension);
      if (fsl.has_validity()) {
        if (out->child_validity.empty()) {
          out->child_validity.assign(static_cast<size_t>(out->num_values) * dim, 1);
        }
        for (size_t i = 0; i < dim; ++i) out->child_validity.push_back((raw[i / 8] >> (i % 8)) & 1);
      } else if (!out->child_validity.empty()) {
        out->child_validity.insert(out->child_validity.end(), dim, 1);
      }
      ++out->num_values;
      return Status::OK();
    }
    case Enc::kGeneral: {
      // Per-value block compression (lance 12 picks it for values over 32 KiB): each value is
      // compressed on its own -- zstd: u64 uncompressed size + frame; lz4: u32 size + block --
      // and the inner encoding describes the value once decompressed.
      const auto& general = enc.general();
      if (!general.has_values() || general.values().has_general()) break;
      const int prefix = general.compression().scheme() == pb21::COMPRESSION_ALGORITHM_LZ4 ? 4 : 8;
      LANCE_ASSIGN_OR_RAISE(std::string raw,
                            DecompressGeneral(general.compression().scheme(), bytes, prefix));
      return AppendFullZipValue(general.values(), fsst, raw, out);
    }
    default:
      return Status::NotSupported("full-zip values encoded as {}", DescribeEncoding(enc));
  }
  return Status::Corruption("full-zip value of {} bytes does not fit {}", bytes.size(),
                            DescribeEncoding(enc));
}

}  // namespace

namespace layout {

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
      LANCE_RETURN_NOT_OK(target->data.Append(data.data(), bytes));
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
    LANCE_RETURN_NOT_OK(values->Reserve(static_cast<int64_t>(std::min<uint64_t>(num_items, data.size())),
                                        static_cast<int64_t>(data.size()) * (fsst ? 3 : 1)));
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
      LANCE_RETURN_NOT_OK(values->AppendEmpty(1));
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
      LANCE_RETURN_NOT_OK(values->AppendVariable(data.substr(pos, static_cast<size_t>(len))));
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

}  // namespace layout

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

}  // namespace lance::encoding
