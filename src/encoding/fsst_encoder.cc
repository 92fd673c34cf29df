#include "encoding/fsst_encoder.h"

#include <algorithm>
#include <cstring>

namespace lance::encoding {

namespace {

constexpr uint64_t kFsstMagic = 0x46535354;  // "FSST"
constexpr uint8_t kEscape = 255;
constexpr int kMaxSymbols = 255;
constexpr int kRounds = 5;

uint64_t LoadPartial(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  if (n >= 8) {
    std::memcpy(&v, p, 8);  // (a constant size: one load, not a call)
  } else {
    std::memcpy(&v, p, n);
  }
  return v;
}

uint64_t Mask(int len) { return len >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1; }

uint32_t SlotOf(uint32_t key3) { return (key3 * 0x9E3779B1u) >> 22; }  // 10 bits

}  // namespace

void FsstEncoder::BuildIndex() {
  single_.fill(-1);
  short_.assign(65536, -1);
  slots_.assign(kSlots, Slot{});
  std::vector<std::pair<uint32_t, uint8_t>> keyed;  // (first three bytes, code) of 3+ bytes
  for (size_t c = 0; c < symbols_.size(); ++c) {
    if (lengths_[c] == 1) single_[symbols_[c] & 0xff] = static_cast<int16_t>(c);
  }
  // A 1-byte symbol is the answer for every second byte, unless a 2-byte symbol matches.
  for (int b0 = 0; b0 < 256; ++b0) {
    if (single_[static_cast<size_t>(b0)] < 0) continue;
    for (int b1 = 0; b1 < 256; ++b1) short_[static_cast<size_t>(b0 | b1 << 8)] = single_[static_cast<size_t>(b0)];
  }
  for (size_t c = 0; c < symbols_.size(); ++c) {
    if (lengths_[c] == 2) {
      short_[symbols_[c] & 0xffff] = static_cast<int16_t>(c);
    } else if (lengths_[c] >= 3) {
      keyed.emplace_back(static_cast<uint32_t>(symbols_[c] & 0xffffff), static_cast<uint8_t>(c));
    }
  }
  std::sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    if (x.first != y.first) return x.first < y.first;
    return lengths_[x.second] > lengths_[y.second];
  });
  candidates_.clear();
  for (size_t i = 0; i < keyed.size(); ++i) {
    const uint8_t code = keyed[i].second;
    const int len = lengths_[code];
    candidates_.push_back({symbols_[code], Mask(len), static_cast<uint32_t>(len), code});
    if (i > 0 && keyed[i - 1].first == keyed[i].first) {
      continue;  // same run as the one before
    }
    size_t s = SlotOf(keyed[i].first);
    while (slots_[s].key != kEmptyKey) s = (s + 1) & (kSlots - 1);
    size_t end = i;
    while (end < keyed.size() && keyed[end].first == keyed[i].first) ++end;
    slots_[s] = Slot{keyed[i].first, static_cast<uint16_t>(i), static_cast<uint16_t>(end)};
  }
}

int FsstEncoder::Match(const uint8_t* p, size_t n) const {
  if (n >= 3) {
    const uint64_t word = LoadPartial(p, n);
    const uint32_t key = static_cast<uint32_t>(word & 0xffffff);
    for (size_t s = SlotOf(key);; s = (s + 1) & (kSlots - 1)) {
      const Slot& slot = slots_[s];
      if (slot.key == kEmptyKey) break;
      if (slot.key != key) continue;
      const Candidate* c = candidates_.data() + slot.begin;
      const Candidate* const end = candidates_.data() + slot.end;
      // With 8 bytes left every symbol fits, so only the bytes are compared.
      if (n >= 8) {
        for (; c < end; ++c) {
          if (((word ^ c->symbol) & c->mask) == 0) return static_cast<int>(c->code);
        }
      } else {
        for (; c < end; ++c) {
          if (c->length <= n && ((word ^ c->symbol) & c->mask) == 0) return static_cast<int>(c->code);
        }
      }
      break;
    }
    return short_[word & 0xffff];
  }
  if (n == 2) return short_[static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8];
  return single_[p[0]];
}

FsstEncoder FsstEncoder::Train(const std::vector<std::string_view>& sample) {
  FsstEncoder enc;
  enc.BuildIndex();
  // Codes 0..254 are symbols, 256 + b the literal byte b.
  constexpr int kCodes = 512;
  // Pair counts are dense (one increment each) but only the pairs seen are visited and
  // cleared: a round costs the sample's length, not 512 * 512.
  std::vector<uint32_t> count1(kCodes), count2(static_cast<size_t>(kCodes) * kCodes);
  std::vector<uint32_t> seen;  // indices of count2 that are non-zero
  auto text_of = [&](int code, uint64_t* sym, int* len) {
    if (code >= 256) {
      *sym = static_cast<uint64_t>(code - 256);
      *len = 1;
    } else {
      *sym = enc.symbols_[static_cast<size_t>(code)];
      *len = enc.lengths_[static_cast<size_t>(code)];
    }
  };
  struct Gain {
    uint64_t sym;
    uint64_t gain;
    int len;
  };
  std::vector<Gain> gains;
  std::vector<int32_t> table;  // slots into gains, -1 empty
  for (int round = 0; round < kRounds; ++round) {
    std::fill(count1.begin(), count1.end(), 0);
    for (std::string_view s : sample) {
      const auto* p = reinterpret_cast<const uint8_t*>(s.data());
      size_t pos = 0;
      int prev = -1;
      while (pos < s.size()) {
        const int m = enc.Match(p + pos, s.size() - pos);
        const int code = m >= 0 ? m : 256 + p[pos];
        pos += m >= 0 ? enc.lengths_[static_cast<size_t>(m)] : 1;
        ++count1[static_cast<size_t>(code)];
        if (prev >= 0) {
          const uint32_t at = static_cast<uint32_t>(prev) * kCodes + static_cast<uint32_t>(code);
          if (count2[at]++ == 0) seen.push_back(at);
        }
        prev = code;
      }
    }
    // Candidates (a symbol's text is its little-endian u64 and length) by gain = count * length,
    // summed over the ways a candidate arises.
    gains.clear();
    for (int c = 0; c < kCodes; ++c) {
      if (count1[static_cast<size_t>(c)] == 0) continue;
      uint64_t sym;
      int len;
      text_of(c, &sym, &len);
      gains.push_back({sym, uint64_t{count1[static_cast<size_t>(c)]} * static_cast<uint64_t>(len), len});
    }
    for (const uint32_t at : seen) {
      const uint32_t count = count2[at];
      count2[at] = 0;
      uint64_t sa, sb;
      int la, lb;
      text_of(static_cast<int>(at / kCodes), &sa, &la);
      if (la >= 8) continue;
      text_of(static_cast<int>(at % kCodes), &sb, &lb);
      const int len = std::min(8, la + lb);
      gains.push_back({(sa | (sb << (8 * la))) & Mask(len), uint64_t{count} * static_cast<uint64_t>(len), len});
    }
    seen.clear();
    // Equal candidates summed through an open-addressing table (no sort of every pair).
    size_t cap = 1024;
    while (cap < 2 * gains.size()) cap *= 2;
    table.assign(cap, -1);
    size_t unique = 0;
    for (size_t i = 0; i < gains.size(); ++i) {
      const Gain g = gains[i];
      size_t h = static_cast<size_t>(((g.sym ^ static_cast<uint64_t>(g.len) << 61) * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
      while (true) {
        const int32_t at = table[h];
        if (at < 0) {
          table[h] = static_cast<int32_t>(unique);
          gains[unique++] = g;
          break;
        }
        Gain& u = gains[static_cast<size_t>(at)];
        if (u.sym == g.sym && u.len == g.len) {
          u.gain += g.gain;
          break;
        }
        h = (h + 1) & (cap - 1);
      }
    }
    gains.resize(unique);
    const auto better = [](const Gain& x, const Gain& y) {
      if (x.gain != y.gain) return x.gain > y.gain;
      if (x.len != y.len) return x.len > y.len;
      return x.sym < y.sym;
    };
    const size_t keep = std::min<size_t>(gains.size(), kMaxSymbols);
    if (keep < gains.size()) {
      std::nth_element(gains.begin(), gains.begin() + static_cast<std::ptrdiff_t>(keep), gains.end(), better);
    }
    std::sort(gains.begin(), gains.begin() + static_cast<std::ptrdiff_t>(keep), better);
    enc.symbols_.clear();
    enc.lengths_.clear();
    for (size_t i = 0; i < keep; ++i) {
      enc.symbols_.push_back(gains[i].sym);
      enc.lengths_.push_back(static_cast<uint8_t>(gains[i].len));
    }
    enc.BuildIndex();
  }
  return enc;
}

std::string FsstEncoder::SymbolTable() const {
  std::string out(kFsstSymbolTableBytes, '\0');
  const uint64_t n = symbols_.size();
  const uint64_t header = kFsstMagic << 32 | uint64_t{1} << 24 | (n & 0xff) << 16 | n;
  std::memcpy(out.data(), &header, 8);
  std::memcpy(out.data() + 8, symbols_.data(), 8 * n);
  std::memcpy(out.data() + 8 + 8 * n, lengths_.data(), n);
  return out;
}

void FsstEncoder::Compress(std::string_view in, std::string* out) const {
  const size_t start = out->size();
  out->resize(start + 2 * in.size());
  const size_t wrote = CompressInto(reinterpret_cast<const uint8_t*>(in.data()), in.size(),
                                    reinterpret_cast<uint8_t*>(out->data() + start));
  out->resize(start + wrote);
}

size_t FsstEncoder::CompressInto(const uint8_t* p, size_t n, uint8_t* out) const {
  uint8_t* o = out;
  size_t pos = 0;
  // With 8 bytes left, Match's steps inline: one load, the 3-byte slot, then the 2-byte table.
  const Slot* const slots = slots_.data();
  const Candidate* const candidates = candidates_.data();
  const int16_t* const shorts = short_.data();
  const uint8_t* const lengths = lengths_.data();
  while (pos + 8 <= n) {
    uint64_t word;
    std::memcpy(&word, p + pos, 8);
    const uint32_t key = static_cast<uint32_t>(word & 0xffffff);
    int code = -1;
    for (size_t s = SlotOf(key);; s = (s + 1) & (kSlots - 1)) {
      const Slot& slot = slots[s];
      if (slot.key == key) {
        for (const Candidate* c = candidates + slot.begin, *end = candidates + slot.end; c < end; ++c) {
          if (((word ^ c->symbol) & c->mask) == 0) {
            code = static_cast<int>(c->code);
            break;
          }
        }
        break;
      }
      if (slot.key == kEmptyKey) break;
    }
    if (code < 0) code = shorts[word & 0xffff];
    if (code >= 0) {
      *o++ = static_cast<uint8_t>(code);
      pos += lengths[code];
    } else {
      *o++ = kEscape;
      *o++ = static_cast<uint8_t>(word);
      ++pos;
    }
  }
  while (pos < n) {
    const int m = Match(p + pos, n - pos);
    if (m >= 0) {
      *o++ = static_cast<uint8_t>(m);
      pos += lengths_[static_cast<size_t>(m)];
    } else {
      *o++ = kEscape;
      *o++ = p[pos];
      ++pos;
    }
  }
  return static_cast<size_t>(o - out);
}

}  // namespace lance::encoding
