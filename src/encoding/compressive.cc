#include "encoding/compressive.h"

#include <lz4.h>
#include <zstd.h>

#include <cstring>

#include "lance/core/bit_util.h"
#include "encoding/fastlanes.h"
#include "encoding/fsst.h"
#include "encoding/little_endian.h"
#include "encoding/variable_offsets.h"

namespace lance::encoding {

namespace {

using Enc = pb21::CompressiveEncoding;


Status CheckFixedWidth(uint64_t bits, const char* what) {
  if (bits == 0 || (bits != 1 && bits % 8 != 0) || bits > 4096 * 64) {
    return Status::Corruption("{}: unsupported bits per value {}", what, bits);
  }
  return Status::OK();
}

Status DecodeFlatInto(const pb21::Flat& flat, std::string_view bytes, int64_t n, DataBlock* out) {
  LANCE_RETURN_NOT_OK(CheckFixedWidth(flat.bits_per_value(), "flat"));
  if (flat.has_data()) {
    return Status::NotSupported("flat: buffer compression {} is not supported",
                                static_cast<int>(flat.data().scheme()));
  }
  const int bits = static_cast<int>(flat.bits_per_value());
  const int64_t need = bit_util::BytesForBits(n * bits);
  if (n < 0 || static_cast<int64_t>(bytes.size()) < need) {
    return Status::Corruption("flat({}): {} values need {} bytes, buffer has {}", bits, n, need,
                              bytes.size());
  }
  if (out->kind != DataBlock::Kind::kFixed || out->bits_per_value != bits) {
    return Status::Corruption("flat({}) values decoded into {} bit values", bits,
                              out->bits_per_value);
  }
  if (bits == 1) {
    LANCE_RETURN_NOT_OK(out->AppendBits(reinterpret_cast<const uint8_t*>(bytes.data()), 0, n));
  } else {
    LANCE_RETURN_NOT_OK(out->AppendFixedBytes(reinterpret_cast<const uint8_t*>(bytes.data()), n));
  }
  return Status::OK();
}

Result<DataBlock> DecodeFlat(const pb21::Flat& flat, std::string_view bytes, int64_t n) {
  DataBlock block = DataBlock::Fixed(static_cast<int>(flat.bits_per_value()));
  LANCE_RETURN_NOT_OK(DecodeFlatInto(flat, bytes, n, &block));
  return block;
}

template <typename T>
Status UnpackBlocks(std::string_view bytes, int64_t n, int fixed_width, DataBlock* out) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  const bool inline_width = fixed_width < 0;
  alignas(64) T tmp[kFastLanesBlockValues];
  size_t pos = 0;
  int64_t packed_values = n;
  if (!inline_width) {
    // Out-of-line: when padding the last block would waste space the writer stores the tail
    // values raw (one T each) after the full blocks; the buffer length tells which.
    const int64_t full = n / kFastLanesBlockValues;
    const int64_t tail = n % kFastLanesBlockValues;
    const int64_t block_bytes = FastLanesPackedBytes(kBits, fixed_width);
    if (tail > 0 && static_cast<int64_t>(bytes.size()) ==
                        full * block_bytes + tail * static_cast<int64_t>(sizeof(T))) {
      packed_values = full * kFastLanesBlockValues;
    }
  }
  for (int64_t done = 0; done < packed_values;) {
    int width = fixed_width;
    if (inline_width) {
      if (pos + sizeof(T) > bytes.size()) {
        return Status::Corruption("bitpacking: block header at byte {} past the {} byte buffer",
                                  pos, bytes.size());
      }
      const uint64_t w = Load<T>(bytes.data() + pos);
      if (w > kBits) return Status::Corruption("bitpacking: bit width {} > {}", w, kBits);
      width = static_cast<int>(w);
      pos += sizeof(T);
    }
    const auto packed = static_cast<size_t>(FastLanesPackedBytes(kBits, width));
    if (pos + packed > bytes.size()) {
      return Status::Corruption("bitpacking: block of width {} at byte {} past the {} byte buffer",
                                width, pos, bytes.size());
    }
    const int64_t take = std::min<int64_t>(packed_values - done, kFastLanesBlockValues);
    const size_t at = out->data.size();
    if (take == kFastLanesBlockValues && at % alignof(T) == 0) {
      // A whole block: unpack straight into the output.
      LANCE_RETURN_NOT_OK(out->data.ResizeForOverwrite(at + kFastLanesBlockValues * sizeof(T)));
      UnpackFastLanesBlock<T>(reinterpret_cast<const uint8_t*>(bytes.data() + pos), width,
                              reinterpret_cast<T*>(out->data.mutable_data() + at));
      out->num_values += take;
    } else {
      UnpackFastLanesBlock<T>(reinterpret_cast<const uint8_t*>(bytes.data() + pos), width, tmp);
      LANCE_RETURN_NOT_OK(out->AppendFixedBytes(reinterpret_cast<const uint8_t*>(tmp), take));
    }
    pos += packed;
    done += take;
  }
  if (packed_values < n) {
    const int64_t tail = n - packed_values;
    if (pos + static_cast<size_t>(tail) * sizeof(T) > bytes.size()) {
      return Status::Corruption("bitpacking: raw tail of {} values past the {} byte buffer", tail,
                                bytes.size());
    }
    LANCE_RETURN_NOT_OK(out->AppendFixedBytes(reinterpret_cast<const uint8_t*>(bytes.data() + pos), tail));
  }
  return Status::OK();
}

Status DecodeBitpackedInto(uint64_t type_bits, int fixed_width, std::string_view bytes, int64_t n,
                          DataBlock* out) {
  if (out->kind != DataBlock::Kind::kFixed || out->bits_per_value != static_cast<int>(type_bits)) {
    return Status::Corruption("bitpacking: {} bit values decoded into {} bit values", type_bits,
                              out->bits_per_value);
  }
  switch (type_bits) {
    case 8:
      return UnpackBlocks<uint8_t>(bytes, n, fixed_width, out);
    case 16:
      return UnpackBlocks<uint16_t>(bytes, n, fixed_width, out);
    case 32:
      return UnpackBlocks<uint32_t>(bytes, n, fixed_width, out);
    case 64:
      return UnpackBlocks<uint64_t>(bytes, n, fixed_width, out);
    default:
      return Status::Corruption("bitpacking: unsupported value width {}", type_bits);
  }
}

Result<DataBlock> DecodeBitpacked(uint64_t type_bits, int fixed_width, std::string_view bytes,
                                  int64_t n) {
  if (type_bits != 8 && type_bits != 16 && type_bits != 32 && type_bits != 64) {
    return Status::Corruption("bitpacking: unsupported value width {}", type_bits);
  }
  DataBlock block = DataBlock::Fixed(static_cast<int>(type_bits));
  LANCE_RETURN_NOT_OK(DecodeBitpackedInto(type_bits, fixed_width, bytes, n, &block));
  return block;
}

}  // namespace

Result<int> OffsetWidth(const pb21::Variable& variable) {
  if (variable.has_values()) {
    return Status::NotSupported("variable: value buffer compression is not supported");
  }
  if (!variable.offsets().has_flat()) {
    return Status::NotSupported("variable: offsets encoded as {} are not supported",
                                DescribeEncoding(variable.offsets()));
  }
  const uint64_t bits = variable.offsets().flat().bits_per_value();
  if (bits != 32 && bits != 64) return Status::Corruption("variable: offset width {}", bits);
  return static_cast<int>(bits);
}

Status ReadVariable(std::string_view offsets_bytes, int width, int64_t n, int64_t base,
                    std::string_view data, DataBlock* out) {
  const int64_t w = width / 8;
  if (n < 0 || static_cast<int64_t>(offsets_bytes.size()) < (n + 1) * w) {
    return Status::Corruption("variable: {} offsets of {} bytes do not fit in {} bytes", n + 1, w,
                              offsets_bytes.size());
  }
  auto at = [&](int64_t i) -> int64_t {
    return w == 4 ? int64_t{Load<uint32_t>(offsets_bytes.data() + i * 4)}
                  : static_cast<int64_t>(Load<uint64_t>(offsets_bytes.data() + i * 8));
  };
  if (out->kind != DataBlock::Kind::kVariable) {
    return Status::Corruption("variable-width values decoded into fixed-width values");
  }
  const int64_t first = at(0) - base;
  if (first < 0) return Status::Corruption("variable: first offset {} before {}", at(0), base);
  // Check every offset, then copy the bytes they cover at once.
  const size_t old_count = out->offsets.size();
  out->offsets.resize(old_count + static_cast<size_t>(n));
  int64_t* dst = out->offsets.data() + old_count;
  const int64_t shift = static_cast<int64_t>(out->data.size()) - first;
  int64_t prev = first;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t next = at(i + 1) - base;
    if (next < prev || next > static_cast<int64_t>(data.size())) {
      out->offsets.resize(old_count);
      return Status::Corruption("variable: offset {} = {} out of order or past {} bytes", i + 1,
                                next, data.size());
    }
    dst[i] = next + shift;
    prev = next;
  }
  LANCE_RETURN_NOT_OK(out->data.Append(data.data() + first, static_cast<size_t>(prev - first)));
  out->num_values += n;
  return Status::OK();
}

namespace {

// Decompresses the FSST codes of every value of `codes` and appends the values to `out`.
Status FsstDecodeInto(const pb21::Fsst& fsst, const DataBlock& codes, DataBlock* out) {
  if (codes.kind != DataBlock::Kind::kVariable || out->kind != DataBlock::Kind::kVariable) {
    return Status::Corruption("fsst: values are not variable width");
  }
  LANCE_ASSIGN_OR_RAISE(FsstDecoder decoder, FsstDecoder::Make(fsst.symbol_table()));
  // AppendValue makes room for 8 bytes per code of the value before it decodes it: reserved
  // here for the chunk's expected output (~3 bytes per code) plus its longest value's worst
  // case, so that the values of a chunk never grow (and copy) the block one by one.
  int64_t longest = 0;
  for (int64_t i = 0; i < codes.num_values; ++i) {
    longest = std::max<int64_t>(longest, codes.offsets[static_cast<size_t>(i) + 1] - codes.offsets[static_cast<size_t>(i)]);
  }
  LANCE_RETURN_NOT_OK(out->Reserve(codes.num_values, static_cast<int64_t>(codes.data.size()) * 3 + longest * 8 + 8));
  return decoder.AppendValues(codes, out);
}

Result<DataBlock> FsstDecode(const pb21::Fsst& fsst, const DataBlock& codes) {
  DataBlock out = DataBlock::Variable();
  LANCE_RETURN_NOT_OK(FsstDecodeInto(fsst, codes, &out));
  return out;
}

Result<DataBlock> ExpandRuns(const DataBlock& values, std::string_view run_lengths, int64_t n) {
  if (static_cast<int64_t>(run_lengths.size()) != values.num_values) {
    return Status::Corruption("rle: {} run values but {} run lengths", values.num_values,
                              run_lengths.size());
  }
  DataBlock out = DataBlock::EmptyLike(values);
  for (int64_t r = 0; r < values.num_values; ++r) {
    const int64_t len = static_cast<uint8_t>(run_lengths[static_cast<size_t>(r)]);
    if (out.num_values + len > n) {
      return Status::Corruption("rle: runs cover more than the {} expected values", n);
    }
    for (int64_t k = 0; k < len; ++k) LANCE_RETURN_NOT_OK(out.AppendRange(values, r, 1));
  }
  if (out.num_values != n) {
    return Status::Corruption("rle: runs cover {} values, expected {}", out.num_values, n);
  }
  return out;
}

Result<DataBlock> RepeatConstant(const pb21::Constant& constant, int64_t n) {
  const std::string& v = constant.value();
  if (v.empty()) return Status::NotSupported("constant: empty value");
  DataBlock out = DataBlock::Fixed(static_cast<int>(v.size() * 8));
  for (int64_t i = 0; i < n; ++i) {
    LANCE_RETURN_NOT_OK(out.AppendFixedBytes(reinterpret_cast<const uint8_t*>(v.data()), 1));
  }
  return out;
}

}  // namespace

Result<FsstDecoder> FsstDecoder::Make(std::string_view bytes) {
  LANCE_RETURN_NOT_OK(FsstSymbolTable::Check(bytes));  // size, magic and lengths
  FsstDecoder d;
  const uint64_t header = Load<uint64_t>(bytes.data());
  d.compressed_ = ((header >> 24) & 0xff) != 0;
  d.num_symbols_ = static_cast<uint32_t>(header & 0xff);
  std::memcpy(d.symbols_, bytes.data() + 8, 8 * d.num_symbols_);
  std::memcpy(d.lengths_, bytes.data() + 8 + 8 * d.num_symbols_, d.num_symbols_);
  return d;
}

Status FsstDecoder::AppendValue(std::string_view codes, DataBlock* out) const {
  const size_t at = out->data.size();
  if (!compressed_) {
    LANCE_RETURN_NOT_OK(out->data.Append(codes));
  } else {
    // Every code writes 8 bytes and advances by its symbol's length (at most 8).
    LANCE_RETURN_NOT_OK(out->data.ResizeForOverwrite(at + codes.size() * 8 + 8));
    char* const begin = out->data.mutable_data() + at;
    char* d = begin;
    const auto* p = reinterpret_cast<const uint8_t*>(codes.data());
    const uint8_t* const end = p + codes.size();
    while (p < end) {
      const uint8_t c = *p++;
      if (c < num_symbols_) {
        std::memcpy(d, &symbols_[c], 8);
        d += lengths_[c];
      } else if (c == 255 && p < end) {
        *d++ = static_cast<char>(*p++);
      } else {
        out->data.Truncate(at);
        return c == 255 ? Status::Corruption("FSST: escape code at the end of a value")
                        : Status::Corruption("FSST: code {} but the table has {} symbols", c,
                                             num_symbols_);
      }
    }
    out->data.Truncate(at + static_cast<size_t>(d - begin));
  }
  out->offsets.push_back(static_cast<int64_t>(out->data.size()));
  ++out->num_values;
  return Status::OK();
}

Status FsstDecoder::AppendValues(const DataBlock& codes, DataBlock* out) const {
  const int64_t n = codes.num_values;
  const size_t start = out->data.size();
  const size_t start_offsets = out->offsets.size();
  const int64_t start_values = out->num_values;
  auto fail = [&](Status st) {
    out->data.Truncate(start);
    out->offsets.resize(start_offsets);
    out->num_values = start_values;
    return st;
  };
  if (!compressed_) {
    for (int64_t i = 0; i < n; ++i) {
      const Status st = AppendValue(codes.ValueView(i), out);
      if (!st.ok()) return fail(st);
    }
    return Status::OK();
  }
  // The table in locals: the 8-byte stores through `d` could otherwise be writes to it, as
  // far as the compiler knows, and reload it every code.
  const uint32_t num_symbols = num_symbols_;
  const uint64_t* const symbols = symbols_;
  const uint8_t* const lengths = lengths_;
  const char* const data = codes.data.data();
  const int64_t* const offsets = codes.offsets.data();
  size_t at = start;  // end of the values decoded so far
  for (int64_t i = 0; i < n; ++i) {
    const auto* p = reinterpret_cast<const uint8_t*>(data + offsets[i]);
    const auto* const end = reinterpret_cast<const uint8_t*>(data + offsets[i + 1]);
    // Every code writes 8 bytes and advances by its symbol's length (at most 8).
    const Status room = out->data.ResizeForOverwrite(at + static_cast<size_t>(end - p) * 8 + 8);
    if (!room.ok()) return fail(room);
    char* const begin = out->data.mutable_data() + at;
    char* d = begin;
    while (p < end) {
      const uint8_t c = *p++;
      if (c < num_symbols) {
        std::memcpy(d, symbols + c, 8);
        d += lengths[c];
      } else if (c == 255 && p < end) {
        *d++ = static_cast<char>(*p++);
      } else {
        return fail(c == 255 ? Status::Corruption("FSST: escape code at the end of a value")
                             : Status::Corruption("FSST: code {} but the table has {} symbols", c,
                                                  num_symbols));
      }
    }
    at += static_cast<size_t>(d - begin);
    out->offsets.push_back(static_cast<int64_t>(at));
  }
  out->data.Truncate(at);
  out->num_values += n;
  return Status::OK();
}

uint64_t FixedValueAt(const DataBlock& block, int64_t i) {
  const char* p = block.data.data();
  switch (block.bits_per_value) {
    case 8:
      return static_cast<uint8_t>(p[i]);
    case 16:
      return Load<uint16_t>(p + i * 2);
    case 32:
      return Load<uint32_t>(p + i * 4);
    default:
      return Load<uint64_t>(p + i * 8);
  }
}

Result<std::string> DecompressGeneral(pb21::CompressionScheme scheme, std::string_view bytes,
                                      int size_prefix_bytes) {
  constexpr uint64_t kMaxDecompressed = uint64_t{1} << 31;
  if (size_prefix_bytes != 4 && size_prefix_bytes != 8) {
    return Status::InvalidArgument("general compression: size prefix of {} bytes", size_prefix_bytes);
  }
  auto prefix = [&](int n) -> uint64_t {
    return n == 4 ? uint64_t{Load<uint32_t>(bytes.data())} : Load<uint64_t>(bytes.data());
  };
  if (scheme == pb21::COMPRESSION_ALGORITHM_LZ4) {
    if (bytes.size() < static_cast<size_t>(size_prefix_bytes)) {
      return Status::Corruption("lz4 block: {} bytes, no size", bytes.size());
    }
    const uint64_t size = prefix(size_prefix_bytes);
    const size_t in_size = bytes.size() - static_cast<size_t>(size_prefix_bytes);
    // An LZ4 block expands at most 255x: a larger claim is corrupt (and must not allocate).
    if (size >= kMaxDecompressed || in_size > INT32_MAX || size > uint64_t{in_size} * 255 + 16) {
      return Status::Corruption("lz4 block: size {} from {} compressed bytes", size, in_size);
    }
    std::string out(size, '\0');
    const int got = LZ4_decompress_safe(bytes.data() + size_prefix_bytes, out.data(),
                                        static_cast<int>(in_size), static_cast<int>(size));
    if (got < 0 || static_cast<uint64_t>(got) != size) {
      return Status::Corruption("lz4 block: decompressed {} bytes, expected {}", got, size);
    }
    return out;
  }
  if (scheme == pb21::COMPRESSION_ALGORITHM_ZSTD) {
    // A zstd frame, optionally after a u32 or u64 uncompressed size.
    auto is_frame_at = [&](size_t at) {
      return bytes.size() >= at + 4 && Load<uint32_t>(bytes.data() + at) == 0xFD2FB528u;
    };
    size_t start = 0;
    uint64_t size = 0;
    bool have_size = false;
    if (is_frame_at(0)) {
      start = 0;
    } else if (is_frame_at(8)) {
      start = 8;
      size = prefix(8);
      have_size = true;
    } else if (is_frame_at(4)) {
      start = 4;
      size = prefix(4);
      have_size = true;
    } else {
      return Status::Corruption("zstd block: no zstd frame");
    }
    const std::string_view frame = bytes.substr(start);
    if (!have_size) {
      const unsigned long long s = ZSTD_getFrameContentSize(frame.data(), frame.size());
      if (s == ZSTD_CONTENTSIZE_ERROR || s == ZSTD_CONTENTSIZE_UNKNOWN) {
        return Status::Corruption("zstd block: no uncompressed size");
      }
      size = s;
    }
    // A zstd block of at most 128 KiB takes at least 4 bytes (an RLE block): a claim beyond
    // that ratio is corrupt (and must not allocate).
    const uint64_t bound = uint64_t{frame.size()} * 32768 + (128 << 10);
    if (size >= kMaxDecompressed || size > bound) {
      return Status::Corruption("zstd block: size {} from {} compressed bytes", size, frame.size());
    }
    std::string out(size, '\0');
    const size_t got = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
    if (ZSTD_isError(got) || got != size) {
      return Status::Corruption("zstd block: decompression failed or gave {} bytes, expected {}",
                                ZSTD_isError(got) ? 0 : got, size);
    }
    return out;
  }
  return Status::NotSupported("general compression scheme {}", static_cast<int>(scheme));
}

Result<DataBlock> DecodeMiniBlockValues(const Enc& encoding,
                                        ValueBuffers buffers,
                                        int64_t num_values) {
  auto need_buffers = [&](size_t k) -> Status {
    if (buffers.size() < k) {
      return Status::Corruption("{}: needs {} value buffers, chunk has {}",
                                DescribeEncoding(encoding), k, buffers.size());
    }
    return Status::OK();
  };
  switch (encoding.compression_case()) {
    case Enc::kFlat:
      LANCE_RETURN_NOT_OK(need_buffers(1));
      return DecodeFlat(encoding.flat(), buffers[0], num_values);
    case Enc::kInlineBitpacking:
      LANCE_RETURN_NOT_OK(need_buffers(1));
      if (encoding.inline_bitpacking().has_values()) {
        return Status::NotSupported("inline bitpacking with buffer compression");
      }
      return DecodeBitpacked(encoding.inline_bitpacking().uncompressed_bits_per_value(), -1,
                             buffers[0], num_values);
    case Enc::kOutOfLineBitpacking: {
      LANCE_RETURN_NOT_OK(need_buffers(1));
      const auto& oob = encoding.out_of_line_bitpacking();
      if (!oob.values().has_flat()) {
        return Status::NotSupported("out-of-line bitpacking over {}",
                                    DescribeEncoding(oob.values()));
      }
      const uint64_t width = oob.values().flat().bits_per_value();
      if (width > oob.uncompressed_bits_per_value()) {
        return Status::Corruption("out-of-line bitpacking: width {} > {}", width,
                                  oob.uncompressed_bits_per_value());
      }
      return DecodeBitpacked(oob.uncompressed_bits_per_value(), static_cast<int>(width),
                             buffers[0], num_values);
    }
    case Enc::kVariable: {
      LANCE_RETURN_NOT_OK(need_buffers(1));
      LANCE_ASSIGN_OR_RAISE(int width, OffsetWidth(encoding.variable()));
      DataBlock out = DataBlock::Variable();
      LANCE_RETURN_NOT_OK(ReadVariable(buffers[0], width, num_values, 0, buffers[0], &out));
      return out;
    }
    case Enc::kFsst: {
      LANCE_ASSIGN_OR_RAISE(DataBlock codes,
                            DecodeMiniBlockValues(encoding.fsst().values(), buffers, num_values));
      if (codes.kind != DataBlock::Kind::kVariable) {
        return Status::Corruption("fsst: inner encoding is not variable width");
      }
      return FsstDecode(encoding.fsst(), codes);
    }
    case Enc::kRle: {
      LANCE_RETURN_NOT_OK(need_buffers(2));
      const auto& rle = encoding.rle();
      if (!rle.run_lengths().has_flat() || rle.run_lengths().flat().bits_per_value() != 8) {
        return Status::NotSupported("rle: run lengths encoded as {}",
                                    DescribeEncoding(rle.run_lengths()));
      }
      const auto runs = static_cast<int64_t>(buffers[1].size());
      LANCE_ASSIGN_OR_RAISE(DataBlock values, DecodeMiniBlockValues(rle.values(), buffers.first(1), runs));
      return ExpandRuns(values, buffers[1], num_values);
    }
    case Enc::kFixedSizeList: {
      const auto& fsl = encoding.fixed_size_list();
      const auto dim = static_cast<int64_t>(fsl.items_per_value());
      if (dim <= 0 || dim > (int64_t{1} << 24)) {
        return Status::Corruption("fixed size list: dimension {}", dim);
      }
      std::vector<std::string_view> inner(buffers.begin(), buffers.end());
      std::vector<uint8_t> validity;
      if (fsl.has_validity()) {
        LANCE_RETURN_NOT_OK(need_buffers(2));
        const int64_t items = num_values * dim;
        if (static_cast<int64_t>(buffers[0].size()) < bit_util::BytesForBits(items)) {
          return Status::Corruption("fixed size list: validity of {} items in {} bytes", items,
                                    buffers[0].size());
        }
        validity.resize(static_cast<size_t>(items));
        for (int64_t i = 0; i < items; ++i) {
          validity[static_cast<size_t>(i)] =
              bit_util::GetBit(reinterpret_cast<const uint8_t*>(buffers[0].data()), i);
        }
        inner.erase(inner.begin());
      }
      LANCE_ASSIGN_OR_RAISE(DataBlock child,
                            DecodeMiniBlockValues(fsl.values(), inner, num_values * dim));
      DataBlock out = DataBlock::FixedSizeList(dim, std::move(child));
      out.child_validity = std::move(validity);
      out.num_values = num_values;
      return out;
    }
    case Enc::kConstant:
      return RepeatConstant(encoding.constant(), num_values);
    case Enc::kByteStreamSplit: {
      // Byte k of value i is at k * n + i: one stream per byte position.
      LANCE_ASSIGN_OR_RAISE(DataBlock split,
                            DecodeMiniBlockValues(encoding.byte_stream_split().values(), buffers, num_values));
      if (split.kind != DataBlock::Kind::kFixed || split.bits_per_value % 8 != 0 ||
          split.bits_per_value == 0) {
        return Status::Corruption("byte stream split over {} bit values", split.bits_per_value);
      }
      const int64_t w = split.bits_per_value / 8;
      DataBlock out = DataBlock::Fixed(split.bits_per_value);
      LANCE_RETURN_NOT_OK(out.data.Resize(split.data.size()));
      char* dst = out.data.mutable_data();
      for (int64_t i = 0; i < num_values; ++i) {
        for (int64_t k = 0; k < w; ++k) {
          dst[i * w + k] = split.data[static_cast<size_t>(k * num_values + i)];
        }
      }
      out.num_values = num_values;
      return out;
    }
    case Enc::kGeneral: {
      LANCE_RETURN_NOT_OK(need_buffers(1));
      LANCE_ASSIGN_OR_RAISE(std::string raw, DecompressGeneral(encoding.general().compression().scheme(),
                                                               buffers[0], 4));
      std::vector<std::string_view> inner(buffers.begin(), buffers.end());
      inner[0] = raw;
      return DecodeMiniBlockValues(encoding.general().values(), inner, num_values);
    }
    default:
      return Status::NotSupported("mini-block values encoded as {}", DescribeEncoding(encoding));
  }
}

Status DecodeMiniBlockValuesInto(const Enc& encoding, ValueBuffers buffers,
                                 int64_t num_values, DataBlock* out) {
  const bool one = !buffers.empty();
  switch (encoding.compression_case()) {
    case Enc::kFlat:
      if (one && out->kind == DataBlock::Kind::kFixed &&
          static_cast<uint64_t>(out->bits_per_value) == encoding.flat().bits_per_value()) {
        return DecodeFlatInto(encoding.flat(), buffers[0], num_values, out);
      }
      break;
    case Enc::kInlineBitpacking:
      if (one && out->kind == DataBlock::Kind::kFixed && !encoding.inline_bitpacking().has_values() &&
          static_cast<uint64_t>(out->bits_per_value) ==
              encoding.inline_bitpacking().uncompressed_bits_per_value()) {
        return DecodeBitpackedInto(encoding.inline_bitpacking().uncompressed_bits_per_value(), -1,
                                   buffers[0], num_values, out);
      }
      break;
    case Enc::kOutOfLineBitpacking: {
      const auto& oob = encoding.out_of_line_bitpacking();
      if (one && out->kind == DataBlock::Kind::kFixed && oob.values().has_flat() &&
          oob.values().flat().bits_per_value() <= oob.uncompressed_bits_per_value() &&
          static_cast<uint64_t>(out->bits_per_value) == oob.uncompressed_bits_per_value()) {
        return DecodeBitpackedInto(oob.uncompressed_bits_per_value(),
                                   static_cast<int>(oob.values().flat().bits_per_value()),
                                   buffers[0], num_values, out);
      }
      break;
    }
    case Enc::kVariable:
      if (one && out->kind == DataBlock::Kind::kVariable) {
        LANCE_ASSIGN_OR_RAISE(int width, OffsetWidth(encoding.variable()));
        return ReadVariable(buffers[0], width, num_values, 0, buffers[0], out);
      }
      break;
    case Enc::kFsst:
      if (out->kind == DataBlock::Kind::kVariable) {
        LANCE_ASSIGN_OR_RAISE(DataBlock codes,
                              DecodeMiniBlockValues(encoding.fsst().values(), buffers, num_values));
        return FsstDecodeInto(encoding.fsst(), codes, out);
      }
      break;
    default:
      break;
  }
  LANCE_ASSIGN_OR_RAISE(DataBlock block, DecodeMiniBlockValues(encoding, buffers, num_values));
  return out->AppendRange(block, 0, block.num_values);
}

Result<DataBlock> DecodeBlockValues(const Enc& encoding, std::string_view bytes,
                                    int64_t num_values) {
  switch (encoding.compression_case()) {
    case Enc::kFlat:
    case Enc::kInlineBitpacking:
    case Enc::kOutOfLineBitpacking:
    case Enc::kFixedSizeList:
    case Enc::kConstant: {
      const std::string_view one[1] = {bytes};
      return DecodeMiniBlockValues(encoding, one, num_values);
    }
    case Enc::kVariable: {
      // Header: the offset width in bits, then where the data starts, each stored in the
      // offset width itself (two u32 for 32-bit offsets, two u64 for 64-bit ones).
      // Writers before lance 12 (e.g. lance 0.33.0) wrote an older header instead: the width
      // as one byte, then the value count and the data start in the offset width (9 or 17
      // bytes). The width is at most 64, so the three bytes after it are zero in the current
      // header and hold the low bytes of the value count in the old one (lance 12 tells them
      // apart the same way; a page of 2^24 dictionary items would not be told apart).
      LANCE_ASSIGN_OR_RAISE(int width, OffsetWidth(encoding.variable()));
      const size_t w = static_cast<size_t>(width / 8);
      const bool old_header = bytes.size() >= 4 && (bytes[1] != 0 || bytes[2] != 0 || bytes[3] != 0);
      const size_t header = old_header ? 1 + 2 * w : 2 * w;
      if (bytes.size() < header) {
        return Status::Corruption("variable block: {} bytes (header of {})", bytes.size(), header);
      }
      auto word = [&](size_t at) -> uint64_t {
        return width == 64 ? Load<uint64_t>(bytes.data() + at) : Load<uint32_t>(bytes.data() + at);
      };
      const uint64_t stored_width =
          old_header ? static_cast<uint8_t>(bytes[0]) : word(0);
      const uint64_t data_start = old_header ? word(1 + w) : word(w);
      if (stored_width != static_cast<uint64_t>(width) || data_start < header ||
          data_start > bytes.size()) {
        return Status::Corruption("variable block: offset width {} (expected {}), data at {} of {}",
                                  stored_width, width, data_start, bytes.size());
      }
      if (old_header && word(1) != static_cast<uint64_t>(num_values)) {
        return Status::Corruption("variable block: {} values in the header, {} expected", word(1),
                                  num_values);
      }
      DataBlock out = DataBlock::Variable();
      LANCE_RETURN_NOT_OK(ReadVariable(bytes.substr(header, data_start - header), width,
                                       num_values, 0, bytes.substr(data_start), &out));
      return out;
    }
    case Enc::kRle: {
      const auto& rle = encoding.rle();
      if (bytes.size() < 8) return Status::Corruption("rle block: {} bytes", bytes.size());
      const uint64_t values_len = Load<uint64_t>(bytes.data());
      if (values_len > bytes.size() - 8) {
        return Status::Corruption("rle block: {} value bytes in a {} byte buffer", values_len,
                                  bytes.size());
      }
      const std::string_view runs = bytes.substr(8 + values_len);
      LANCE_ASSIGN_OR_RAISE(DataBlock values,
                            DecodeBlockValues(rle.values(), bytes.substr(8, values_len),
                                              static_cast<int64_t>(runs.size())));
      return ExpandRuns(values, runs, num_values);
    }
    case Enc::kGeneral: {
      LANCE_ASSIGN_OR_RAISE(std::string raw,
                            DecompressGeneral(encoding.general().compression().scheme(), bytes, 4));
      LANCE_ASSIGN_OR_RAISE(DataBlock out,
                            DecodeBlockValues(encoding.general().values(), raw, num_values));
      return out;
    }
    case Enc::kFsst: {
      LANCE_ASSIGN_OR_RAISE(DataBlock codes,
                            DecodeBlockValues(encoding.fsst().values(), bytes, num_values));
      return FsstDecode(encoding.fsst(), codes);
    }
    default:
      return Status::NotSupported("block values encoded as {}", DescribeEncoding(encoding));
  }
}

Result<std::vector<uint16_t>> DecodeLevels(const Enc& encoding, std::string_view bytes,
                                           int64_t num_levels) {
  LANCE_ASSIGN_OR_RAISE(DataBlock block, DecodeBlockValues(encoding, bytes, num_levels));
  if (block.kind != DataBlock::Kind::kFixed || block.num_values != num_levels ||
      (block.bits_per_value != 8 && block.bits_per_value != 16)) {
    return Status::Corruption("levels: decoded {} values of {} bits, expected {} u16 levels",
                              block.num_values, block.bits_per_value, num_levels);
  }
  if (block.data.size() < static_cast<size_t>(num_levels) * static_cast<size_t>(block.bits_per_value / 8)) {
    return Status::Corruption("levels: {} bytes decoded for {} levels of {} bits", block.data.size(), num_levels,
                              block.bits_per_value);
  }
  std::vector<uint16_t> levels(static_cast<size_t>(num_levels));
  const char* p = block.data.data();
  if (block.bits_per_value == 16) {
    std::memcpy(levels.data(), p, static_cast<size_t>(num_levels) * sizeof(uint16_t));
  } else {
    for (size_t i = 0; i < levels.size(); ++i) levels[i] = static_cast<uint8_t>(p[i]);
  }
  return levels;
}

std::string DescribeEncoding(const Enc& e) {
  switch (e.compression_case()) {
    case Enc::kFlat:
      return "flat(" + std::to_string(e.flat().bits_per_value()) + ")";
    case Enc::kVariable:
      return "variable(" + DescribeEncoding(e.variable().offsets()) + ")";
    case Enc::kConstant:
      return "constant";
    case Enc::kOutOfLineBitpacking:
      return "out_of_line_bitpacking(" +
             std::to_string(e.out_of_line_bitpacking().uncompressed_bits_per_value()) + ", " +
             DescribeEncoding(e.out_of_line_bitpacking().values()) + ")";
    case Enc::kInlineBitpacking:
      return "inline_bitpacking(" +
             std::to_string(e.inline_bitpacking().uncompressed_bits_per_value()) + ")";
    case Enc::kFsst:
      return "fsst(" + DescribeEncoding(e.fsst().values()) + ")";
    case Enc::kDictionary:
      return "dictionary";
    case Enc::kRle:
      return "rle(" + DescribeEncoding(e.rle().values()) + ", " +
             DescribeEncoding(e.rle().run_lengths()) + ")";
    case Enc::kByteStreamSplit:
      return "byte_stream_split";
    case Enc::kGeneral:
      return std::string("general(") +
             (e.general().compression().scheme() == pb21::COMPRESSION_ALGORITHM_LZ4 ? "lz4"
                                                                                     : "zstd") +
             ", " + DescribeEncoding(e.general().values()) + ")";
    case Enc::kFixedSizeList:
      return "fixed_size_list(" + std::to_string(e.fixed_size_list().items_per_value()) +
             (e.fixed_size_list().has_validity() ? ", validity, " : ", ") +
             DescribeEncoding(e.fixed_size_list().values()) + ")";
    case Enc::kPackedStruct:
      return "packed_struct";
    case Enc::kRange:
      return "range";
    case Enc::kDelta:
      return "delta";
    case Enc::COMPRESSION_NOT_SET:
      return "none";
  }
  return "unknown";
}

}  // namespace lance::encoding

