// SHA-1 (FIPS 180-4), only for name-based UUIDs (version 5). Not for security.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace lance::memwal::internal {

std::array<uint8_t, 20> Sha1(std::string_view data);

}  // namespace lance::memwal::internal
