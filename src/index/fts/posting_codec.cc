#include "index/fts/posting_codec.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

#include "lance/core/status.h"

namespace lance::index::fts {

namespace {

uint32_t LoadU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

void StoreU32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v >> 16);
  p[3] = static_cast<uint8_t>(v >> 24);
}

}  // namespace

namespace {

// Unpack4x for a width known at compile time: the shifts and word indexes become constants
// and the four lanes of each value one 128-bit vector operation (the decode of every posting
// block). Word w of the four lanes is the 16 bytes at 16 w: one vector load.
#if (defined(__GNUC__) || defined(__clang__)) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef uint32_t V4u __attribute__((vector_size(16)));

inline V4u LoadV4(const uint8_t* p) {
  V4u v;
  std::memcpy(&v, p, 16);
  return v;
}

template <int kBits>
void Unpack4xFixed(const uint8_t* in, uint32_t* out) {
  constexpr uint32_t kMask = kBits == 32 ? 0xffffffffu : ((1u << kBits) - 1);
  for (int k = 0; k < 32; ++k) {
    const int bit = k * kBits;
    const int w = bit / 32, off = bit % 32;
    V4u v = LoadV4(in + 16 * w) >> off;
    if (off + kBits > 32) v |= LoadV4(in + 16 * (w + 1)) << (32 - off);
    v &= kMask;
    std::memcpy(out + 4 * k, &v, 16);
  }
}
#else
template <int kBits>
void Unpack4xFixed(const uint8_t* in, uint32_t* out) {
  constexpr uint64_t kMask = kBits == 32 ? 0xffffffffull : ((1ull << kBits) - 1);
  for (int k = 0; k < 32; ++k) {
    const int bit = k * kBits;
    const int w = bit / 32, off = bit % 32;
    for (int lane = 0; lane < 4; ++lane) {
      uint64_t v = LoadU32(in + 4 * (4 * w + lane)) >> off;
      if (off + kBits > 32) v |= static_cast<uint64_t>(LoadU32(in + 4 * (4 * (w + 1) + lane))) << (32 - off);
      out[4 * k + lane] = static_cast<uint32_t>(v & kMask);
    }
  }
}
#endif

template <int... kB>
bool Unpack4xDispatch(const uint8_t* in, int bits, uint32_t* out, std::integer_sequence<int, kB...>) {
  return ((bits == kB + 1 ? (Unpack4xFixed<kB + 1>(in, out), true) : false) || ...);
}

}  // namespace

void Unpack4x(const uint8_t* in, int bits, uint32_t* out) {
  if (bits == 0) {
    std::memset(out, 0, kPackedBlock * sizeof(uint32_t));
    return;
  }
  if (bits <= 32 && Unpack4xDispatch(in, bits, out, std::make_integer_sequence<int, 32>{})) return;
  const uint64_t mask = bits == 32 ? 0xffffffffull : ((1ull << bits) - 1);
  for (int lane = 0; lane < 4; ++lane) {
    // lane values are a little-endian bit stream over words 4w + lane
    for (int k = 0; k < 32; ++k) {
      const int bit = k * bits;
      const int w = bit / 32, off = bit % 32;
      uint64_t v = LoadU32(in + 4 * (4 * w + lane)) >> off;
      if (off + bits > 32) v |= static_cast<uint64_t>(LoadU32(in + 4 * (4 * (w + 1) + lane))) << (32 - off);
      out[4 * k + lane] = static_cast<uint32_t>(v & mask);
    }
  }
}

void Pack4x(const uint32_t* in, int bits, uint8_t* out) {
  if (bits == 0) return;
  for (int lane = 0; lane < 4; ++lane) {
    for (int k = 0; k < 32; ++k) {
      const uint64_t v = in[4 * k + lane];
      const int bit = k * bits;
      const int w = bit / 32, off = bit % 32;
      uint8_t* p = out + 4 * (4 * w + lane);
      StoreU32(p, LoadU32(p) | static_cast<uint32_t>(v << off));
      if (off + bits > 32) {
        uint8_t* q = out + 4 * (4 * (w + 1) + lane);
        StoreU32(q, LoadU32(q) | static_cast<uint32_t>(v >> (32 - off)));
      }
    }
  }
}

Result<uint32_t> ReadVarint(std::string_view data, size_t* pos, std::string_view what) {
  uint64_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (*pos >= data.size()) return Status::Corruption("{}: varint runs past the end ({} bytes)", what, data.size());
    const uint8_t b = static_cast<uint8_t>(data[(*pos)++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      if (v > 0xffffffffull) return Status::Corruption("{}: varint over 32 bits", what);
      return static_cast<uint32_t>(v);
    }
  }
  return Status::Corruption("{}: varint longer than 5 bytes", what);
}

namespace {

Status UnpackGroup(std::string_view data, size_t* pos, uint32_t* out, std::string_view what) {
  if (*pos >= data.size()) return Status::Corruption("{}: packed group width past the end", what);
  const int bits = static_cast<uint8_t>(data[(*pos)++]);
  if (bits > 32) return Status::Corruption("{}: packed group of {} bits (at most 32)", what, bits);
  const size_t bytes = 16 * static_cast<size_t>(bits);
  if (data.size() - *pos < bytes) {
    return Status::Corruption("{}: packed group of {} bytes, {} left", what, bytes, data.size() - *pos);
  }
  Unpack4x(reinterpret_cast<const uint8_t*>(data.data()) + *pos, bits, out);
  *pos += bytes;
  return Status::OK();
}

}  // namespace

Status DecodePostingBlockTo(std::string_view block, size_t n, size_t block_size, uint32_t* docs, uint32_t* freqs,
                            float* max_score, std::string_view what) {
  if (block.size() < 4) return Status::Corruption("{}: posting block of {} bytes", what, block.size());
  std::memcpy(max_score, block.data(), 4);
  size_t pos = 4;
  if (n == block_size && block_size == kPackedBlock) {
    if (block.size() < 8) return Status::Corruption("{}: full posting block of {} bytes", what, block.size());
    const uint32_t first = LoadU32(reinterpret_cast<const uint8_t*>(block.data()) + 4);
    pos = 8;
    // unpacked straight into the outputs and checked in fixed-length loops (vectorized): the
    // 64-bit total of the deltas (no id passes 32 bits when the last does not), a delta of 0
    // after the first (ids not ascending), a frequency of 0
    LANCE_RETURN_NOT_OK(UnpackGroup(block, &pos, docs, what));
    const uint32_t d0 = docs[0];
    docs[0] = 1;
    uint64_t total = static_cast<uint64_t>(first) + d0 - 1;
    uint32_t zero = 0;
    for (size_t i = 0; i < kPackedBlock; ++i) {
      total += docs[i];
      zero |= docs[i] == 0 ? 1u : 0u;
    }
    if (total > 0xffffffffull) return Status::Corruption("{}: doc id over 32 bits", what);
    if (zero != 0) return Status::Corruption("{}: docs not ascending", what);
    docs[0] = d0;
    uint32_t cur = first;
    for (size_t i = 0; i < kPackedBlock; ++i) docs[i] = cur += docs[i];
    LANCE_RETURN_NOT_OK(UnpackGroup(block, &pos, freqs, what));
    zero = 0;
    for (size_t i = 0; i < kPackedBlock; ++i) zero |= freqs[i] == 0 ? 1u : 0u;
    if (zero != 0) return Status::Corruption("{}: frequency 0", what);
  } else if (n < block_size) {
    uint64_t cur = 0;
    for (size_t i = 0; i < n; ++i) {
      LANCE_ASSIGN_OR_RAISE(uint32_t d, ReadVarint(block, &pos, what));
      if (i > 0 && d == 0) return Status::Corruption("{}: docs not ascending", what);
      cur = i == 0 ? d : cur + d;
      if (cur > 0xffffffffull) return Status::Corruption("{}: doc id over 32 bits", what);
      docs[i] = static_cast<uint32_t>(cur);
    }
    for (size_t i = 0; i < n; ++i) {
      LANCE_ASSIGN_OR_RAISE(freqs[i], ReadVarint(block, &pos, what));
      if (freqs[i] == 0) return Status::Corruption("{}: frequency 0", what);
    }
  } else {
    return Status::NotSupported("{}: posting blocks of {} documents (128 are read)", what, block_size);
  }
  if (pos != block.size()) {
    return Status::Corruption("{}: posting block of {} bytes holds {} bytes of postings", what, block.size(), pos);
  }
  return Status::OK();
}

Status DecodePostingBlock(std::string_view block, size_t n, size_t block_size, std::vector<uint32_t>* docs,
                          std::vector<uint32_t>* freqs, float* max_score, std::string_view what) {
  if (n > block_size) return Status::NotSupported("{}: posting blocks of {} documents (128 are read)", what, block_size);
  const size_t d0 = docs->size(), f0 = freqs->size();
  docs->resize(d0 + n);
  freqs->resize(f0 + n);
  const Status st = DecodePostingBlockTo(block, n, block_size, docs->data() + d0, freqs->data() + f0, max_score, what);
  if (!st.ok()) {
    docs->resize(d0);
    freqs->resize(f0);
  }
  return st;
}

Status DecodePositionRun(std::string_view data, size_t* pos, size_t count, std::vector<uint32_t>* out,
                         std::string_view what) {
  uint32_t buf[kPackedBlock];
  size_t left = count;
  while (left >= kPackedBlock) {
    LANCE_RETURN_NOT_OK(UnpackGroup(data, pos, buf, what));
    out->insert(out->end(), buf, buf + kPackedBlock);
    left -= kPackedBlock;
  }
  for (; left > 0; --left) {
    LANCE_ASSIGN_OR_RAISE(uint32_t v, ReadVarint(data, pos, what));
    out->push_back(v);
  }
  return Status::OK();
}

void AppendVarint(std::string* out, uint32_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

namespace {

void AppendPackedGroup(const uint32_t* vals, std::string* out) {
  uint32_t widest = 0;
  for (size_t i = 0; i < kPackedBlock; ++i) widest = std::max(widest, vals[i]);
  const int bits = BitWidth(widest);
  out->push_back(static_cast<char>(bits));
  const size_t at = out->size();
  out->resize(at + 16 * static_cast<size_t>(bits), '\0');
  Pack4x(vals, bits, reinterpret_cast<uint8_t*>(out->data() + at));
}

}  // namespace

std::string EncodePostingBlock(const uint32_t* docs, const uint32_t* freqs, size_t n, float max_score) {
  std::string out(4, '\0');
  std::memcpy(out.data(), &max_score, 4);
  if (n == kPackedBlock) {
    uint8_t first[4];
    StoreU32(first, docs[0]);
    out.append(reinterpret_cast<const char*>(first), 4);
    uint32_t deltas[kPackedBlock];
    deltas[0] = 0;
    for (size_t i = 1; i < kPackedBlock; ++i) deltas[i] = docs[i] - docs[i - 1];
    AppendPackedGroup(deltas, &out);
    AppendPackedGroup(freqs, &out);
    return out;
  }
  for (size_t i = 0; i < n; ++i) AppendVarint(&out, i == 0 ? docs[0] : docs[i] - docs[i - 1]);
  for (size_t i = 0; i < n; ++i) AppendVarint(&out, freqs[i]);
  return out;
}

void EncodePositionRun(const uint32_t* deltas, size_t count, std::string* out) {
  size_t i = 0;
  for (; i + kPackedBlock <= count; i += kPackedBlock) AppendPackedGroup(deltas + i, out);
  for (; i < count; ++i) AppendVarint(out, deltas[i]);
}

uint32_t MinLengthOfCode(uint32_t code) {
  if (code < 16) return code;  // exact: below 8 the length itself, 8..15 shift 0
  const uint32_t shift = (code >> 3) - 1;
  if (shift > 28) return UINT32_MAX;
  return (8u | (code & 7u)) << shift;
}

std::vector<std::pair<uint32_t, uint32_t>> ParetoImpacts(const uint32_t* freqs, const uint32_t* codes, size_t n) {
  // Kept: for each frequency, descending, its shortest length, when shorter than that of every
  // higher frequency; returned frequency ascending. Frequencies are small: the shortest
  // length per frequency goes into a table indexed by frequency (no sort; the sort was 13 % of
  // an index build), and only frequencies above it into a sorted spill.
  constexpr uint32_t kDense = 64;
  uint32_t shortest[kDense + 1];
  std::fill(std::begin(shortest), std::end(shortest), UINT32_MAX);
  std::vector<std::pair<uint32_t, uint32_t>> spill;
  uint32_t top = 0;
  for (size_t i = 0; i < n; ++i) {
    if (freqs[i] <= kDense) {
      shortest[freqs[i]] = std::min(shortest[freqs[i]], codes[i]);
      top = std::max(top, freqs[i]);
    } else {
      spill.emplace_back(freqs[i], codes[i]);
    }
  }
  std::sort(spill.begin(), spill.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::pair<uint32_t, uint32_t>> out;
  const auto offer = [&](uint32_t freq, uint32_t code) {
    if (out.empty() || code < out.back().second) {
      if (!out.empty() && out.back().first == freq) return;
      out.emplace_back(freq, code);
    }
  };
  for (const auto& [f, c] : spill) offer(f, c);
  for (uint32_t f = top; f >= 1; --f) {
    if (shortest[f] != UINT32_MAX) offer(f, shortest[f]);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::string EncodeImpacts(uint32_t last_doc, const std::vector<std::pair<uint32_t, uint32_t>>& pareto) {
  std::string out;
  AppendVarint(&out, last_doc);
  AppendVarint(&out, static_cast<uint32_t>(pareto.size()));
  uint32_t f = 0, l = 0;
  for (const auto& [freq, len] : pareto) {
    const uint32_t df = freq - f, dl = len - l;
    const bool with_len = dl != 1;
    AppendVarint(&out, ((df - 1) << 1) | (with_len ? 1u : 0u));
    if (with_len) AppendVarint(&out, dl);
    f = freq;
    l = len;
  }
  return out;
}

Status DecodeImpacts(std::string_view value, uint32_t* last_doc, std::vector<std::pair<uint32_t, uint32_t>>* pareto,
                     std::string_view what) {
  size_t pos = 0;
  LANCE_ASSIGN_OR_RAISE(*last_doc, ReadVarint(value, &pos, what));
  LANCE_ASSIGN_OR_RAISE(const uint32_t count, ReadVarint(value, &pos, what));
  if (count == 0) return Status::Corruption("{}: an impacts value without pairs", what);
  // each pair takes at least one byte: a count past the bytes left is damage, not a reserve
  if (count > value.size() - pos) {
    return Status::Corruption("{}: {} impact pairs in {} bytes", what, count, value.size() - pos);
  }
  uint64_t f = 0, l = 0;
  for (uint32_t i = 0; i < count; ++i) {
    LANCE_ASSIGN_OR_RAISE(const uint32_t v, ReadVarint(value, &pos, what));
    f += static_cast<uint64_t>(v >> 1) + 1;
    if (v & 1u) {
      LANCE_ASSIGN_OR_RAISE(const uint32_t dl, ReadVarint(value, &pos, what));
      l += dl;
    } else {
      l += 1;
    }
    if (f > 0xffffffffull || l > 0xffffffffull) return Status::Corruption("{}: impact pair over 32 bits", what);
    pareto->emplace_back(static_cast<uint32_t>(f), static_cast<uint32_t>(l));
  }
  if (pos != value.size()) {
    return Status::Corruption("{}: impacts value of {} bytes holds {} bytes of pairs", what, value.size(), pos);
  }
  return Status::OK();
}

}  // namespace lance::index::fts
