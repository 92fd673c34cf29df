// Code-point level rules of the tokenizers: UTF-8 decoding, the alphanumeric test of the
// simple tokenizer, and the per-code-point maps of the lower-case and ASCII-folding filters.
// The tables behind them (unicode_tables.inc) were generated from the reference's behaviour
// on every code point (tests/interop/tools/gen_fts_tables.mjs); they follow the Unicode
// version of the reference's build (16.0), not the machine's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lance::index::fts {

struct CodePointRange {
  uint32_t lo;
  uint32_t hi;  // inclusive
};
struct CodePointMapping {
  uint32_t code_point;
  const char* utf8;
};

// Decodes the code point at text[pos] into *cp and returns its length in bytes, or 0 if the
// bytes there are not well-formed UTF-8 (overlong forms, surrogates and values past U+10FFFF
// included).
inline int DecodeUtf8(std::string_view text, size_t pos, uint32_t* cp) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data()) + pos;
  size_t left = text.size() - pos;
  unsigned char b0 = p[0];
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  auto cont = [&](size_t i) { return i < left && (p[i] & 0xC0) == 0x80; };
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    if (!cont(1)) return 0;
    *cp = (uint32_t{b0} & 0x1F) << 6 | (p[1] & 0x3F);
    return 2;
  }
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    uint32_t c = (uint32_t{b0} & 0x0F) << 12 | uint32_t(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
    if (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    *cp = c;
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    uint32_t c = (uint32_t{b0} & 0x07) << 18 | uint32_t(p[1] & 0x3F) << 12 |
                 uint32_t(p[2] & 0x3F) << 6 | (p[3] & 0x3F);
    if (c < 0x10000 || c > 0x10FFFF) return 0;
    *cp = c;
    return 4;
  }
  return 0;
}

// Offset of the first byte of `text` that is not well-formed UTF-8, or npos.
size_t FindInvalidUtf8(std::string_view text);

void AppendUtf8(uint32_t cp, std::string* out);

// Unicode Alphabetic or Numeric (N*): what the simple tokenizer keeps together.
bool IsAlphanumeric(uint32_t cp);

// Lower case of one code point (full mapping: U+0130 becomes two code points), appended.
void AppendLowerCase(uint32_t cp, std::string* out);

// The ASCII replacement of a non-ASCII code point, or nullptr when the folding filter keeps it.
const char* AsciiFolding(uint32_t cp);

}  // namespace lance::index::fts
