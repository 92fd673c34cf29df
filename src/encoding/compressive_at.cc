// Decoding only the values at given positions of a mini-block chunk: single values of
// FastLanes blocks without unpacking them, the wanted values of Variable / FSST buffers, runs
// of positions as one range; other encodings decode the chunk and pick.
#include "encoding/compressive.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "encoding/fastlanes.h"
#include "encoding/fsst.h"
#include "encoding/little_endian.h"
#include "encoding/variable_offsets.h"
#include "lance/core/bit_util.h"

namespace lance::encoding {

namespace {

using Enc = pb21::CompressiveEncoding;


// Value `index` of a FastLanes block (see fastlanes.h), without unpacking the block: the
// inverse of the output permutation gives its lane and row, then one or two words hold it.
template <typename T>
T FastLanesValueAt(const uint8_t* packed, int width, int index) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  constexpr int kLanes = kFastLanesBlockValues / kBits;
  constexpr int kOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};  // its own inverse
  if (width == 0) return 0;
  const int m = index % 128;
  const int lane = m % kLanes;
  const int order = (m / kLanes) * (kLanes / 16);
  const int row = kOrder[order] * 8 + index / 128;
  const int bit = row * width;
  const int word = bit / kBits;
  const int shift = bit % kBits;
  auto load = [&](int w) {
    T v;
    std::memcpy(&v, packed + (static_cast<int64_t>(w) * kLanes + lane) * static_cast<int64_t>(sizeof(T)),
                sizeof(T));
    return v;
  };
  T value = static_cast<T>(load(word) >> shift);
  if (shift + width > kBits) value = static_cast<T>(value | static_cast<T>(load(word + 1) << (kBits - shift)));
  const T mask = width == kBits ? static_cast<T>(~T{0}) : static_cast<T>((T{1} << width) - 1);
  return static_cast<T>(value & mask);
}

// Bit-packed values at `positions` (ascending): each is read from its block in place.
template <typename T>
Status UnpackBlocksAt(std::string_view bytes, int64_t n, int fixed_width,
                      const std::vector<int64_t>& positions, DataBlock* out) {
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  const bool inline_width = fixed_width < 0;
  int64_t packed_values = n;
  int64_t fixed_block_bytes = 0;
  if (!inline_width) {
    const int64_t full = n / kFastLanesBlockValues;
    const int64_t tail = n % kFastLanesBlockValues;
    fixed_block_bytes = FastLanesPackedBytes(kBits, fixed_width);
    if (tail > 0 && static_cast<int64_t>(bytes.size()) ==
                        full * fixed_block_bytes + tail * static_cast<int64_t>(sizeof(T))) {
      packed_values = full * kFastLanesBlockValues;
    }
  }
  int64_t unpacked_block = -1;  // the block whose start and width are known
  size_t block_start = 0;
  int block_width = 0;
  int64_t walked_block = 0;  // inline widths: the block whose header is at `pos`
  size_t pos = 0;
  // The values go straight into `out` (sized once); a block holding many of the wanted
  // positions is unpacked whole into `block` (a dense take: one SIMD unpack instead of a
  // bit extraction per value).
  constexpr size_t kMinWantedToUnpack = 128;
  const size_t first_byte = out->data.size();
  LANCE_RETURN_NOT_OK(out->data.ResizeForOverwrite(first_byte + positions.size() * sizeof(T)));
  char* dst = out->data.mutable_data() + first_byte;
  T block[kFastLanesBlockValues];
  int64_t block_unpacked = -1;  // the block whose values are in `block`
  for (size_t k = 0; k < positions.size(); ++k) {
    const int64_t p = positions[k];
    if (p < 0 || p >= n) {
      out->data.Truncate(first_byte);
      return Status::Corruption("bitpacking: value {} of {}", p, n);
    }
    T v;
    if (p >= packed_values) {
      const size_t at = static_cast<size_t>(fixed_width >= 0 ? packed_values / kFastLanesBlockValues *
                                                                   fixed_block_bytes
                                                             : 0) +
                        static_cast<size_t>(p - packed_values) * sizeof(T);
      if (at + sizeof(T) > bytes.size()) {
        out->data.Truncate(first_byte);
        return Status::Corruption("bitpacking: raw tail value past the {} byte buffer", bytes.size());
      }
      v = Load<T>(bytes.data() + at);
    } else {
      const int64_t block_index = p / kFastLanesBlockValues;
      if (block_index != unpacked_block) {
        int width = fixed_width;
        size_t start = 0;
        if (inline_width) {
          // Walk the block headers up to `block_index`.
          for (;; ++walked_block) {
            if (pos + sizeof(T) > bytes.size()) {
              out->data.Truncate(first_byte);
              return Status::Corruption("bitpacking: block header at byte {} past the {} byte buffer",
                                        pos, bytes.size());
            }
            const uint64_t w = Load<T>(bytes.data() + pos);
            if (w > kBits) {
              out->data.Truncate(first_byte);
              return Status::Corruption("bitpacking: bit width {} > {}", w, kBits);
            }
            if (walked_block == block_index) {
              width = static_cast<int>(w);
              start = pos + sizeof(T);
              break;
            }
            pos += sizeof(T) + static_cast<size_t>(FastLanesPackedBytes(kBits, static_cast<int>(w)));
          }
        } else {
          start = static_cast<size_t>(block_index * fixed_block_bytes);
        }
        const auto packed = static_cast<size_t>(FastLanesPackedBytes(kBits, width));
        if (start + packed > bytes.size()) {
          out->data.Truncate(first_byte);
          return Status::Corruption("bitpacking: block of width {} at byte {} past the {} byte buffer",
                                    width, start, bytes.size());
        }
        block_start = start;
        block_width = width;
        unpacked_block = block_index;
        // Unpack the block whole when enough of the wanted positions fall in it.
        const int64_t block_end = (block_index + 1) * kFastLanesBlockValues;
        if (k + kMinWantedToUnpack <= positions.size() &&
            positions[k + kMinWantedToUnpack - 1] < block_end) {
          UnpackFastLanesBlock<T>(reinterpret_cast<const uint8_t*>(bytes.data() + block_start),
                                  block_width, block);
          block_unpacked = block_index;
        }
      }
      v = block_unpacked == block_index
              ? block[p % kFastLanesBlockValues]
              : FastLanesValueAt<T>(reinterpret_cast<const uint8_t*>(bytes.data() + block_start),
                                    block_width, static_cast<int>(p % kFastLanesBlockValues));
    }
    std::memcpy(dst + k * sizeof(T), &v, sizeof(T));
  }
  out->num_values += static_cast<int64_t>(positions.size());
  return Status::OK();
}

Status BitpackedAt(uint64_t type_bits, int fixed_width, std::string_view bytes, int64_t n,
                   const std::vector<int64_t>& positions, DataBlock* out) {
  switch (type_bits) {
    case 8:
      return UnpackBlocksAt<uint8_t>(bytes, n, fixed_width, positions, out);
    case 16:
      return UnpackBlocksAt<uint16_t>(bytes, n, fixed_width, positions, out);
    case 32:
      return UnpackBlocksAt<uint32_t>(bytes, n, fixed_width, positions, out);
    case 64:
      return UnpackBlocksAt<uint64_t>(bytes, n, fixed_width, positions, out);
    default:
      return Status::Corruption("bitpacking: unsupported value width {}", type_bits);
  }
}

// Calls emit(value) for the values at `positions` of a variable-width buffer (n + 1 offsets
// of `width` bits, then the bytes they index into, as ReadVariable reads it), without
// copying the others. Each value's two offsets are checked against the buffer.
template <typename Emit>
Status ForVariableValuesAt(std::string_view bytes, int width, int64_t n,
                           const std::vector<int64_t>& positions, Emit emit) {
  const int64_t w = width / 8;
  if (n < 0 || static_cast<int64_t>(bytes.size()) < (n + 1) * w) {
    return Status::Corruption("variable: {} offsets of {} bytes do not fit in {} bytes", n + 1, w,
                              bytes.size());
  }
  auto at = [&](int64_t i) -> uint64_t {
    return w == 4 ? uint64_t{Load<uint32_t>(bytes.data() + i * 4)} : Load<uint64_t>(bytes.data() + i * 8);
  };
  for (int64_t p : positions) {
    if (p < 0 || p >= n) return Status::Corruption("variable: value {} of {}", p, n);
    const uint64_t begin = at(p), end = at(p + 1);
    if (begin > end || end > bytes.size()) {
      return Status::Corruption("variable: value {} at bytes [{}, {}) of {}", p, begin, end,
                                bytes.size());
    }
    LANCE_RETURN_NOT_OK(emit(bytes.substr(static_cast<size_t>(begin), static_cast<size_t>(end - begin))));
  }
  return Status::OK();
}

// Whether `positions` (ascending) are the consecutive values [front, back].
bool IsRun(const std::vector<int64_t>& positions) {
  return !positions.empty() &&
         positions.back() - positions.front() + 1 == static_cast<int64_t>(positions.size());
}

}  // namespace

Status DecodeMiniBlockValuesAt(const Enc& encoding, ValueBuffers buffers,
                               int64_t num_values, const std::vector<int64_t>& positions,
                               DataBlock* out) {
  const bool fixed_out = out->kind == DataBlock::Kind::kFixed;
  // A run of consecutive values (a ranged read) decodes whole: the chunk's own values when
  // it is all of them, else the chunk into a scratch block when the run is a good part of it.
  if (IsRun(positions)) {
    const int64_t first = positions.front();
    const auto count = static_cast<int64_t>(positions.size());
    if (first < 0 || first + count > num_values) {
      return Status::Corruption("mini-block values [{}, {}) of {}", first, first + count, num_values);
    }
    if (first == 0 && count == num_values) {
      return DecodeMiniBlockValuesInto(encoding, buffers, num_values, out);
    }
    if (count * 4 >= num_values) {
      DataBlock scratch = DataBlock::EmptyLike(*out);
      LANCE_RETURN_NOT_OK(DecodeMiniBlockValuesInto(encoding, buffers, num_values, &scratch));
      if (scratch.num_values != num_values) {
        return Status::Corruption("mini-block chunk decoded {} values, expected {}",
                                  scratch.num_values, num_values);
      }
      return out->AppendRange(scratch, first, count);
    }
  }
  switch (encoding.compression_case()) {
    case Enc::kFlat: {
      const uint64_t bits = encoding.flat().bits_per_value();
      if (buffers.empty() || !fixed_out || static_cast<uint64_t>(out->bits_per_value) != bits ||
          bits % 8 != 0 || bits == 0 || encoding.flat().has_data()) {
        break;
      }
      const int64_t w = static_cast<int64_t>(bits / 8);
      if (num_values < 0 || static_cast<int64_t>(buffers[0].size()) / w < num_values) {
        return Status::Corruption("flat({}): {} values in {} bytes", bits, num_values,
                                  buffers[0].size());
      }
      for (int64_t p : positions) {
        if (p < 0 || p >= num_values) return Status::Corruption("flat: value {} of {}", p, num_values);
        LANCE_RETURN_NOT_OK(out->AppendFixedBytes(reinterpret_cast<const uint8_t*>(buffers[0].data()) + p * w, 1));
      }
      return Status::OK();
    }
    case Enc::kInlineBitpacking: {
      const uint64_t bits = encoding.inline_bitpacking().uncompressed_bits_per_value();
      if (buffers.empty() || !fixed_out || static_cast<uint64_t>(out->bits_per_value) != bits ||
          encoding.inline_bitpacking().has_values()) {
        break;
      }
      return BitpackedAt(bits, -1, buffers[0], num_values, positions, out);
    }
    case Enc::kOutOfLineBitpacking: {
      const auto& oob = encoding.out_of_line_bitpacking();
      const uint64_t bits = oob.uncompressed_bits_per_value();
      if (buffers.empty() || !fixed_out || static_cast<uint64_t>(out->bits_per_value) != bits ||
          !oob.values().has_flat() || oob.values().flat().bits_per_value() > bits) {
        break;
      }
      return BitpackedAt(bits, static_cast<int>(oob.values().flat().bits_per_value()), buffers[0],
                         num_values, positions, out);
    }
    case Enc::kVariable: {
      if (buffers.empty() || out->kind != DataBlock::Kind::kVariable) break;
      LANCE_ASSIGN_OR_RAISE(int width, OffsetWidth(encoding.variable()));
      return ForVariableValuesAt(buffers[0], width, num_values, positions,
                                 [&](std::string_view v) {
                                   LANCE_RETURN_NOT_OK(out->AppendVariable(v));
                                   return Status::OK();
                                 });
    }
    case Enc::kFsst: {
      // Only the wanted values are decompressed (a take of one row of a chunk of hundreds).
      const Enc& inner = encoding.fsst().values();
      if (buffers.empty() || out->kind != DataBlock::Kind::kVariable || !inner.has_variable()) break;
      LANCE_ASSIGN_OR_RAISE(int width, OffsetWidth(inner.variable()));
      // A take visits many chunks of one page, all with the page's table: the decoder of the
      // last table this thread used is kept (equal bytes, so never a stale one) instead of
      // checking and copying the 2312 bytes per chunk.
      thread_local std::string last_table;
      thread_local std::optional<FsstDecoder> last_decoder;
      const std::string& table = encoding.fsst().symbol_table();
      if (!last_decoder || last_table != table) {
        last_decoder.reset();
        LANCE_ASSIGN_OR_RAISE(FsstDecoder made, FsstDecoder::Make(table));
        last_decoder.emplace(made);
        last_table = table;
      }
      const FsstDecoder& decoder = *last_decoder;
      return ForVariableValuesAt(buffers[0], width, num_values, positions,
                                 [&](std::string_view codes) { return decoder.AppendValue(codes, out); });
    }
    default:
      break;
  }
  LANCE_ASSIGN_OR_RAISE(DataBlock all, DecodeMiniBlockValues(encoding, buffers, num_values));
  for (int64_t p : positions) {
    if (p < 0 || p >= all.num_values) {
      return Status::Corruption("mini-block value {} of {}", p, all.num_values);
    }
    LANCE_RETURN_NOT_OK(out->AppendRange(all, p, 1));
  }
  return Status::OK();
}

}  // namespace lance::encoding
