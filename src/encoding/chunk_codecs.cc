// The mini-block chunk codecs and the choice among them (chunk_codecs.h).
#include "encoding/chunk_codecs.h"

#include <algorithm>
#include <cstring>

#include "encoding/fastlanes.h"
#include "lance/core/bit_util.h"

namespace lance::encoding::encoder {

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


namespace {

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

}  // namespace

int BitsFor(uint64_t max_value) {
  int b = 0;
  while (max_value > 0) {
    ++b;
    max_value >>= 1;
  }
  return b;
}


ChunkCodec PlainCodec(const DataBlock& v, int offset_bits) {
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

namespace {

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

}  // namespace

ChunkCodec BitpackCodec(const DataBlock& v) {
  switch (v.bits_per_value) {
    case 8: return BitpackCodecT<uint8_t>(v);
    case 16: return BitpackCodecT<uint16_t>(v);
    case 32: return BitpackCodecT<uint32_t>(v);
    default: return BitpackCodecT<uint64_t>(v);
  }
}

namespace {

// Runs of equal values in [start, start + n), split at 255.
// Runs of equal values (at most 255 long) among values [start, start + n) of a fixed-width
// block; typed compares for the common widths (a memcmp of a runtime width is a call per value).
template <typename T>
int64_t CountRunsOf(const char* p, int64_t n) {
  int64_t runs = n > 0 ? 1 : 0, len = 1;
  T prev{};
  if (n > 0) std::memcpy(&prev, p, sizeof(T));
  for (int64_t i = 1; i < n; ++i) {
    T x;
    std::memcpy(&x, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    if (x == prev && len < 255) {
      ++len;
    } else {
      ++runs;
      len = 1;
    }
    prev = x;
  }
  return runs;
}

int64_t CountRuns(const DataBlock& v, int64_t start, int64_t n) {
  const int64_t w = v.bits_per_value / 8;
  const char* p = v.data.data() + start * w;
  switch (w) {
    case 1: return CountRunsOf<uint8_t>(p, n);
    case 2: return CountRunsOf<uint16_t>(p, n);
    case 4: return CountRunsOf<uint32_t>(p, n);
    case 8: return CountRunsOf<uint64_t>(p, n);
    default: break;
  }
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

}  // namespace

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


}  // namespace lance::encoding::encoder
