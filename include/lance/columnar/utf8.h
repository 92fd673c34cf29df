// UTF-8 validation for utf8/large_utf8 arrays (ValidateFull) and text input. Pure functions.
#pragma once

#include <string_view>

namespace lance {

// True when `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF).
bool IsValidUtf8(std::string_view s);

}  // namespace lance
