#include "encoding/legacy.h"

#include <cstring>

#include "lance/core/bit_util.h"
#include "encoding/compressive.h"
#include "encoding/data_block.h"

namespace lance::encoding {

namespace {

namespace pb20 = ::lance::encodings;
using AE = pb20::ArrayEncoding;

struct Decoded {
  DataBlock values;
  std::vector<uint8_t> validity;  // empty = all valid
};

Result<std::string_view> PageBuffer(const LegacyPage& page, const pb20::Buffer& buffer) {
  if (buffer.buffer_type() != pb20::Buffer::page) {
    return Status::NotSupported("2.0 buffers outside the page are not supported");
  }
  if (buffer.buffer_index() >= page.buffers.size()) {
    return Status::Corruption("2.0 page: buffer {} of {}", buffer.buffer_index(), page.buffers.size());
  }
  return page.buffers[buffer.buffer_index()];
}

Result<Decoded> Decode(const AE& enc, const LegacyPage& page, int64_t n, const DataBlock& prototype);

// A 2.0 flat buffer with `compression.scheme` "zstd" (or "lz4") holds a u64 uncompressed
// size and the compressed bytes; `*bytes` is repointed at the decompressed copy in `*storage`.
Status DecompressLegacyFlat(const pb20::Flat& flat, std::string_view* bytes, std::string* storage) {
  if (!flat.has_compression() || flat.compression().scheme().empty()) return Status::OK();
  const std::string& scheme = flat.compression().scheme();
  pb21::CompressionScheme s21;
  if (scheme == "zstd") {
    s21 = pb21::COMPRESSION_ALGORITHM_ZSTD;
  } else if (scheme == "lz4") {
    s21 = pb21::COMPRESSION_ALGORITHM_LZ4;
  } else {
    return Status::NotSupported("2.0 flat compression '{}'", scheme);
  }
  LANCE_ASSIGN_OR_RAISE(*storage, DecompressGeneral(s21, *bytes, 4));
  *bytes = *storage;
  return Status::OK();
}

Result<std::vector<uint64_t>> DecodeU64(const AE& enc, const LegacyPage& page, int64_t n) {
  LANCE_ASSIGN_OR_RAISE(Decoded d, Decode(enc, page, n, DataBlock::Fixed(64)));
  if (d.values.kind != DataBlock::Kind::kFixed || d.values.num_values != n ||
      (d.values.bits_per_value != 8 && d.values.bits_per_value != 16 &&
       d.values.bits_per_value != 32 && d.values.bits_per_value != 64)) {
    return Status::Corruption("2.0 offsets/indices: not {} integers", n);
  }
  std::vector<uint64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = FixedValueAt(d.values, i);
  return out;
}

Result<Decoded> Decode(const AE& enc, const LegacyPage& page, int64_t n, const DataBlock& prototype) {
  Decoded out;
  switch (enc.array_encoding_case()) {
    case AE::kNullable: {
      const auto& nb = enc.nullable();
      switch (nb.nullability_case()) {
        case pb20::Nullable::kNoNulls:
          return Decode(nb.no_nulls().values(), page, n, prototype);
        case pb20::Nullable::kSomeNulls: {
          LANCE_ASSIGN_OR_RAISE(Decoded valid, Decode(nb.some_nulls().validity(), page, n, DataBlock::Fixed(1)));
          if (valid.values.kind != DataBlock::Kind::kFixed || valid.values.bits_per_value != 1) {
            return Status::Corruption("2.0 validity is not a bitmap");
          }
          LANCE_ASSIGN_OR_RAISE(out, Decode(nb.some_nulls().values(), page, n, prototype));
          out.validity.resize(static_cast<size_t>(n));
          const auto* bits = reinterpret_cast<const uint8_t*>(valid.values.data.data());
          for (int64_t i = 0; i < n; ++i) {
            out.validity[static_cast<size_t>(i)] =
                bit_util::GetBit(bits, i) ? 1 : 0;
          }
          return out;
        }
        case pb20::Nullable::kAllNulls:
          out.values = DataBlock::EmptyLike(prototype);
          LANCE_RETURN_NOT_OK(out.values.AppendEmpty(n));
          out.validity.assign(static_cast<size_t>(n), 0);
          return out;
        default:
          return Status::Corruption("2.0 nullable encoding without a case");
      }
    }
    case AE::kFlat: {
      const auto& flat = enc.flat();
      LANCE_ASSIGN_OR_RAISE(std::string_view buf, PageBuffer(page, flat.buffer()));
      std::string decompressed;
      LANCE_RETURN_NOT_OK(DecompressLegacyFlat(flat, &buf, &decompressed));
      pb21::CompressiveEncoding flat21;
      flat21.mutable_flat()->set_bits_per_value(flat.bits_per_value());
      LANCE_ASSIGN_OR_RAISE(out.values, DecodeBlockValues(flat21, buf, n));
      return out;
    }
    case AE::kFixedSizeList: {
      const auto& fsl = enc.fixed_size_list();
      if (prototype.kind != DataBlock::Kind::kFixedSizeList || fsl.dimension() != prototype.dimension) {
        return Status::Corruption("2.0 fixed size list of {} for a different column type", fsl.dimension());
      }
      LANCE_ASSIGN_OR_RAISE(Decoded items, Decode(fsl.items(), page, n * fsl.dimension(), *prototype.child));
      out.values = DataBlock::FixedSizeList(fsl.dimension(), std::move(items.values));
      out.values.child_validity = std::move(items.validity);
      out.values.num_values = n;
      return out;
    }
    case AE::kBinary: {
      const auto& bin = enc.binary();
      LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ends, DecodeU64(bin.indices(), page, n));
      if (!bin.bytes().has_flat() || bin.bytes().flat().bits_per_value() != 8) {
        return Status::NotSupported("2.0 binary bytes encoded as {}", DescribeLegacyEncoding(bin.bytes()));
      }
      LANCE_ASSIGN_OR_RAISE(std::string_view bytes, PageBuffer(page, bin.bytes().flat().buffer()));
      std::string decompressed;
      LANCE_RETURN_NOT_OK(DecompressLegacyFlat(bin.bytes().flat(), &bytes, &decompressed));
      const uint64_t adjust = bin.null_adjustment();
      out.values = DataBlock::Variable();
      uint64_t start = 0;
      for (int64_t i = 0; i < n; ++i) {
        uint64_t end = ends[static_cast<size_t>(i)];
        const bool is_null = adjust > 0 && end >= adjust;
        if (is_null) {
          end -= adjust;
          out.validity.resize(static_cast<size_t>(i), 1);
        }
        if (end < start || end > bytes.size()) {
          return Status::Corruption("2.0 binary: value {} ends at {} (start {}, {} bytes)", i, end,
                                    start, bytes.size());
        }
        LANCE_RETURN_NOT_OK(out.values.AppendVariable(is_null ? std::string_view() : bytes.substr(start, end - start)));
        if (is_null || !out.validity.empty()) out.validity.push_back(is_null ? 0 : 1);
        start = end;
      }
      return out;
    }
    case AE::kDictionary: {
      const auto& dict = enc.dictionary();
      LANCE_ASSIGN_OR_RAISE(Decoded items, Decode(dict.items(), page, dict.num_dictionary_items(), prototype));
      LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> indices, DecodeU64(dict.indices(), page, n));
      out.values = DataBlock::EmptyLike(items.values);
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t index = indices[static_cast<size_t>(i)];
        if (index == 0) {
          out.validity.resize(static_cast<size_t>(i), 1);
          LANCE_RETURN_NOT_OK(out.values.AppendEmpty(1));
          out.validity.push_back(0);
          continue;
        }
        if (index > static_cast<uint64_t>(items.values.num_values)) {
          return Status::Corruption("2.0 dictionary index {} of {} items", index, items.values.num_values);
        }
        LANCE_RETURN_NOT_OK(out.values.AppendRange(items.values, static_cast<int64_t>(index - 1), 1));
        if (!out.validity.empty()) out.validity.push_back(1);
      }
      return out;
    }
    default:
      return Status::NotSupported("2.0 encoding {}", DescribeLegacyEncoding(enc));
  }
}


// A dictionary page of an Arrow dictionary field: the indices are the Arrow ones (0-based,
// nulls in their own validity), unlike the 1-based indices of dictionaries the writer picks
// for plain string columns.
Result<Decoded> DecodeArrowDictionary(const pb20::Dictionary& dict, const LegacyPage& page,
                                      int64_t n, const DataBlock& prototype) {
  LANCE_ASSIGN_OR_RAISE(Decoded items, Decode(dict.items(), page, dict.num_dictionary_items(), prototype));
  LANCE_ASSIGN_OR_RAISE(Decoded indices, Decode(dict.indices(), page, n, DataBlock::Fixed(64)));
  const DataBlock& idx = indices.values;
  if (idx.kind != DataBlock::Kind::kFixed || idx.num_values != n ||
      (idx.bits_per_value != 8 && idx.bits_per_value != 16 && idx.bits_per_value != 32 &&
       idx.bits_per_value != 64)) {
    return Status::Corruption("2.0 dictionary indices: not {} integers", n);
  }
  Decoded out;
  out.values = DataBlock::EmptyLike(items.values);
  out.validity = std::move(indices.validity);
  for (int64_t i = 0; i < n; ++i) {
    if (!out.validity.empty() && !out.validity[static_cast<size_t>(i)]) {
      LANCE_RETURN_NOT_OK(out.values.AppendEmpty(1));
      continue;
    }
    const uint64_t index = FixedValueAt(idx, i);
    if (index >= static_cast<uint64_t>(items.values.num_values)) {
      return Status::Corruption("2.0 dictionary index {} of {} items", index, items.values.num_values);
    }
    LANCE_RETURN_NOT_OK(out.values.AppendRange(items.values, static_cast<int64_t>(index), 1));
    // The writer stores nulls as an index to a null item it appends to the dictionary.
    if (!items.validity.empty() && !items.validity[index]) {
      out.validity.resize(static_cast<size_t>(n), 1);
      out.validity[static_cast<size_t>(i)] = 0;
    }
  }
  return out;
}

}  // namespace

Result<ArrayPtr> LegacyReader::ReadField(const DataTypePtr& type, int* column, int64_t num_rows) const {
  if (*column < 0 || static_cast<size_t>(*column) >= columns.size()) {
    return Status::Corruption("2.0 file: column {} missing", *column);
  }
  const auto& pages = columns[static_cast<size_t>(*column)];
  ++*column;
  int64_t rows = 0;
  for (const auto& p : pages) rows += p.num_rows;
  if (rows != num_rows) {
    return Status::Corruption("2.0 column {}: pages hold {} rows, expected {}", *column - 1, rows, num_rows);
  }
  const TypeId id = type->id();
  if (id == TypeId::kStruct) {
    for (const auto& p : pages) {
      if (!p.encoding->has_struct_()) return Status::Corruption("2.0 struct column without struct pages");
    }
    std::vector<ArrayPtr> children;
    for (const auto& f : type->fields()) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr child, ReadField(f->type(), column, num_rows));
      children.push_back(std::move(child));
    }
    return Array::Make(type, num_rows, {nullptr}, std::move(children));
  }
  if (id == TypeId::kList || id == TypeId::kLargeList) {
    std::vector<int64_t> offsets{0};
    std::vector<uint8_t> validity;
    for (const auto& p : pages) {
      if (!p.encoding->has_list()) return Status::Corruption("2.0 list column without list pages");
      const auto& list = p.encoding->list();
      LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ends, DecodeU64(list.offsets(), p, p.num_rows));
      const int64_t base = offsets.back();
      const uint64_t adjust = list.null_offset_adjustment();
      for (size_t i = 0; i < ends.size(); ++i) {
        uint64_t end = ends[i];
        const bool is_null = adjust > 0 && end >= adjust;
        if (is_null) {
          end -= adjust;
          validity.resize(offsets.size() - 1, 1);
        }
        if (end > list.num_items() || static_cast<int64_t>(end) + base < offsets.back()) {
          return Status::Corruption("2.0 list offset {} out of order (items {})", end, list.num_items());
        }
        offsets.push_back(base + static_cast<int64_t>(end));
        if (is_null || !validity.empty()) validity.push_back(is_null ? 0 : 1);
      }
    }
    LANCE_ASSIGN_OR_RAISE(ArrayPtr child, ReadField(type->value_type(), column, offsets.back()));
    BufferBuilder off;
    for (int64_t o : offsets) {
      if (id == TypeId::kLargeList) {
        LANCE_RETURN_NOT_OK(off.AppendValue<int64_t>(o));
      } else {
        LANCE_RETURN_NOT_OK(off.AppendValue<int32_t>(static_cast<int32_t>(o)));
      }
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr off_buf, off.Finish());
    LANCE_ASSIGN_OR_RAISE(BufferPtr valid, ValidityFromBytes(validity, num_rows));
    return Array::Make(type, num_rows, {valid, off_buf}, {child});
  }
  if (id == TypeId::kNull) {
    for (const auto& p : pages) {
      if (!p.encoding->has_nullable() || !p.encoding->nullable().has_all_nulls()) {
        return Status::Corruption("2.0 null column {} with data", *column - 1);
      }
    }
    return MakeArrayOfNulls(type, num_rows);
  }
  LANCE_ASSIGN_OR_RAISE(DataBlock prototype, DataBlockPrototype(*type));
  Decoded all;
  all.values = DataBlock::EmptyLike(prototype);
  for (const auto& p : pages) {
    Decoded d;
    if (arrow_dictionary && p.encoding->has_dictionary()) {
      LANCE_ASSIGN_OR_RAISE(d, DecodeArrowDictionary(p.encoding->dictionary(), p, p.num_rows, prototype));
    } else {
      LANCE_ASSIGN_OR_RAISE(d, Decode(*p.encoding, p, p.num_rows, prototype));
    }
    if (d.values.num_values != p.num_rows) {
      return Status::Corruption("2.0 page decoded {} values for {} rows", d.values.num_values, p.num_rows);
    }
    if (!d.validity.empty() || !all.validity.empty()) {
      all.validity.resize(static_cast<size_t>(all.values.num_values), 1);
      if (d.validity.empty()) {
        all.validity.insert(all.validity.end(), static_cast<size_t>(p.num_rows), 1);
      } else {
        all.validity.insert(all.validity.end(), d.validity.begin(), d.validity.end());
      }
    }
    LANCE_RETURN_NOT_OK(all.values.AppendRange(d.values, 0, d.values.num_values));
  }
  return DataBlockToArray(type, std::move(all.values), all.validity);
}

std::string DescribeLegacyEncoding(const AE& e) {
  switch (e.array_encoding_case()) {
    case AE::kFlat:
      return "flat(" + std::to_string(e.flat().bits_per_value()) + ")";
    case AE::kNullable:
      switch (e.nullable().nullability_case()) {
        case pb20::Nullable::kNoNulls:
          return "nullable(no_nulls, " + DescribeLegacyEncoding(e.nullable().no_nulls().values()) + ")";
        case pb20::Nullable::kSomeNulls:
          return "nullable(some_nulls, " + DescribeLegacyEncoding(e.nullable().some_nulls().values()) + ")";
        default:
          return "nullable(all_nulls)";
      }
    case AE::kFixedSizeList:
      return "fixed_size_list(" + std::to_string(e.fixed_size_list().dimension()) + ", " +
             DescribeLegacyEncoding(e.fixed_size_list().items()) + ")";
    case AE::kList:
      return "list(" + DescribeLegacyEncoding(e.list().offsets()) + ")";
    case AE::kStruct:
      return "struct";
    case AE::kBinary:
      return "binary(" + DescribeLegacyEncoding(e.binary().indices()) + ")";
    case AE::kDictionary:
      return "dictionary(" + DescribeLegacyEncoding(e.dictionary().items()) + ")";
    case AE::kFsst:
      return "fsst";
    case AE::kBitpacked:
      return "bitpacked";
    case AE::kBitpackedForNonNeg:
      return "bitpacked_for_non_neg";
    case AE::kConstant:
      return "constant";
    case AE::kFixedSizeBinary:
      return "fixed_size_binary";
    default:
      return "unknown";
  }
}

}  // namespace lance::encoding
