#include "lance/columnar/utf8.h"

#include <cstdint>
#include <cstring>

namespace lance {

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    // ASCII fast path, 8 bytes at a time.
    if (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        p += 8;
        continue;
      }
    }
    const uint8_t c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int n;
    uint32_t min;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
      n = 1, min = 0x80, cp = c & 0x1fu;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2, min = 0x800, cp = c & 0x0fu;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3, min = 0x10000, cp = c & 0x07u;
    } else {
      return false;
    }
    if (end - p <= n) return false;
    for (int k = 1; k <= n; ++k) {
      if ((p[k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (p[k] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    p += n + 1;
  }
  return true;
}

}  // namespace lance
