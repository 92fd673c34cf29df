#include "index/fts/unicode.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <vector>

namespace lance::index::fts {
namespace {

#include "index/fts/unicode_tables.inc"

// One bit per code point, built once from the ranges (136 KiB).
struct AlphanumericBits {
  std::vector<uint64_t> words = std::vector<uint64_t>(0x110000 / 64, 0);
  AlphanumericBits() {
    for (const auto& r : kAlphanumericRanges) {
      for (uint32_t c = r.lo; c <= r.hi; ++c) words[c >> 6] |= uint64_t{1} << (c & 63);
    }
  }
};

const AlphanumericBits& Bits() {
  static const AlphanumericBits bits;
  return bits;
}

// Basic Multilingual Plane lookups in O(1): index + 1 into the table, 0 = unchanged.
template <size_t N>
struct BmpIndex {
  std::vector<uint16_t> slot = std::vector<uint16_t>(0x10000, 0);
  explicit BmpIndex(const CodePointMapping (&table)[N]) {
    static_assert(N < 0xFFFF);
    for (size_t i = 0; i < N; ++i) {
      if (table[i].code_point < 0x10000) slot[table[i].code_point] = static_cast<uint16_t>(i + 1);
    }
  }
};

template <size_t N>
const char* Lookup(const CodePointMapping (&table)[N], const BmpIndex<N>& bmp, uint32_t cp) {
  if (cp < 0x10000) {
    uint16_t s = bmp.slot[cp];
    return s ? table[s - 1].utf8 : nullptr;
  }
  auto it = std::lower_bound(std::begin(table), std::end(table), cp,
                             [](const CodePointMapping& m, uint32_t c) { return m.code_point < c; });
  return it != std::end(table) && it->code_point == cp ? it->utf8 : nullptr;
}

const BmpIndex<std::size(kLowerCase)>& LowerIndex() {
  static const BmpIndex<std::size(kLowerCase)> index(kLowerCase);
  return index;
}
const BmpIndex<std::size(kAsciiFolding)>& FoldIndex() {
  static const BmpIndex<std::size(kAsciiFolding)> index(kAsciiFolding);
  return index;
}

}  // namespace

size_t FindInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    uint32_t cp;
    int n = DecodeUtf8(text, i, &cp);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool IsAlphanumeric(uint32_t cp) {
  if (cp < 0x80) {
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  }
  if (cp >= 0x110000) return false;
  return (Bits().words[cp >> 6] >> (cp & 63)) & 1;
}

void AppendLowerCase(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
    return;
  }
  if (const char* lower = Lookup(kLowerCase, LowerIndex(), cp)) {
    out->append(lower);
  } else {
    AppendUtf8(cp, out);
  }
}

const char* AsciiFolding(uint32_t cp) {
  if (cp < 0x80) return nullptr;
  return Lookup(kAsciiFolding, FoldIndex(), cp);
}

}  // namespace lance::index::fts
