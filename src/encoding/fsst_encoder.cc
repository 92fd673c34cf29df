#include "encoding/fsst_encoder.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

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

}  // namespace

void FsstEncoder::BuildIndex() {
  single_.fill(-1);
  bucket_.assign(65537, 0);
  std::vector<std::pair<uint32_t, uint8_t>> keyed;  // (key, code)
  for (size_t c = 0; c < symbols_.size(); ++c) {
    if (lengths_[c] == 1) {
      single_[symbols_[c] & 0xff] = static_cast<int16_t>(c);
    } else {
      keyed.emplace_back(static_cast<uint32_t>(symbols_[c] & 0xffff), static_cast<uint8_t>(c));
    }
  }
  std::sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return lengths_[a.second] > lengths_[b.second];
  });
  candidates_.clear();
  for (const auto& [key, code] : keyed) {
    const int len = lengths_[code];
    candidates_.push_back({symbols_[code], Mask(len), static_cast<uint32_t>(len), code});
    ++bucket_[key + 1];
  }
  for (size_t k = 1; k < bucket_.size(); ++k) bucket_[k] = static_cast<uint16_t>(bucket_[k] + bucket_[k - 1]);
}

int FsstEncoder::Match(const uint8_t* p, size_t n) const {
  if (n >= 2) {
    const uint32_t key = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8;
    const uint64_t word = LoadPartial(p, n);
    // The candidates in one array (no code -> length -> symbol lookups); with 8 bytes left
    // every symbol fits, so only the bytes are compared.
    const Candidate* c = candidates_.data() + bucket_[key];
    const Candidate* const end = candidates_.data() + bucket_[key + 1];
    if (n >= 8) {
      for (; c < end; ++c) {
        if (((word ^ c->symbol) & c->mask) == 0) return static_cast<int>(c->code);
      }
    } else {
      for (; c < end; ++c) {
        if (c->length <= n && ((word ^ c->symbol) & c->mask) == 0) return static_cast<int>(c->code);
      }
    }
  }
  return single_[p[0]];
}

FsstEncoder FsstEncoder::Train(const std::vector<std::string_view>& sample) {
  FsstEncoder enc;
  enc.BuildIndex();
  // Codes 0..254 are symbols, 256 + b the literal byte b.
  constexpr int kCodes = 512;
  std::vector<uint32_t> count1(kCodes), count2(static_cast<size_t>(kCodes) * kCodes);
  auto text_of = [&](int code, uint64_t* sym, int* len) {
    if (code >= 256) {
      *sym = static_cast<uint64_t>(code - 256);
      *len = 1;
    } else {
      *sym = enc.symbols_[static_cast<size_t>(code)];
      *len = enc.lengths_[static_cast<size_t>(code)];
    }
  };
  for (int round = 0; round < kRounds; ++round) {
    std::fill(count1.begin(), count1.end(), 0);
    std::fill(count2.begin(), count2.end(), 0);
    for (std::string_view s : sample) {
      const auto* p = reinterpret_cast<const uint8_t*>(s.data());
      size_t pos = 0;
      int prev = -1;
      while (pos < s.size()) {
        const int m = enc.Match(p + pos, s.size() - pos);
        const int code = m >= 0 ? m : 256 + p[pos];
        pos += m >= 0 ? enc.lengths_[static_cast<size_t>(m)] : 1;
        ++count1[static_cast<size_t>(code)];
        if (prev >= 0) ++count2[static_cast<size_t>(prev) * kCodes + static_cast<size_t>(code)];
        prev = code;
      }
    }
    // Candidates (a symbol's text is its little-endian u64 and length) by gain = count * length.
    std::array<std::unordered_map<uint64_t, uint64_t>, 9> gains;
    auto add = [&](uint64_t sym, int len, uint64_t count) {
      gains[static_cast<size_t>(len)][sym] += count * static_cast<uint64_t>(len);
    };
    for (int c = 0; c < kCodes; ++c) {
      if (count1[static_cast<size_t>(c)] == 0) continue;
      uint64_t sym;
      int len;
      text_of(c, &sym, &len);
      add(sym, len, count1[static_cast<size_t>(c)]);
    }
    for (int a = 0; a < kCodes; ++a) {
      if (count1[static_cast<size_t>(a)] == 0) continue;
      uint64_t sa;
      int la;
      text_of(a, &sa, &la);
      if (la >= 8) continue;
      const uint32_t* row = count2.data() + static_cast<size_t>(a) * kCodes;
      for (int b = 0; b < kCodes; ++b) {
        if (row[b] == 0) continue;
        uint64_t sb;
        int lb;
        text_of(b, &sb, &lb);
        const int len = std::min(8, la + lb);
        add((sa | (sb << (8 * la))) & Mask(len), len, row[b]);
      }
    }
    struct Candidate {
      uint64_t gain;
      int len;
      uint64_t sym;
    };
    std::vector<Candidate> ranked;
    for (int len = 1; len <= 8; ++len) {
      for (const auto& [sym, gain] : gains[static_cast<size_t>(len)]) ranked.push_back({gain, len, sym});
    }
    const size_t keep = std::min<size_t>(ranked.size(), kMaxSymbols);
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(),
                      [](const Candidate& x, const Candidate& y) {
                        if (x.gain != y.gain) return x.gain > y.gain;
                        if (x.len != y.len) return x.len > y.len;
                        return x.sym < y.sym;
                      });
    enc.symbols_.clear();
    enc.lengths_.clear();
    for (size_t i = 0; i < keep; ++i) {
      enc.symbols_.push_back(ranked[i].sym);
      enc.lengths_.push_back(static_cast<uint8_t>(ranked[i].len));
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
