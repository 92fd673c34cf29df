// Uuid text form, raw bytes, version 5 (name-based, SHA-1) and version 4 (random).
#include "lance/memwal/uuid.h"

#include <random>

#include "memwal/sha1.h"

namespace lance::memwal {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string Uuid::ToString() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 15]);
  }
  return out;
}

std::string Uuid::ToBytes() const {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

bool Uuid::IsNil() const {
  for (uint8_t b : bytes) {
    if (b != 0) return false;
  }
  return true;
}

Result<Uuid> Uuid::Parse(std::string_view text) {
  Uuid out;
  if (text.size() != 36) {
    return Status::InvalidArgument("'{}' is not a UUID (expected 36 characters "
                                   "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
                                   text);
  }
  size_t b = 0;
  for (size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') {
        return Status::InvalidArgument("'{}' is not a UUID (expected '-' at offset {})", text, i);
      }
      ++i;
      continue;
    }
    const int hi = HexValue(text[i]);
    const int lo = HexValue(text[i + 1]);
    if (hi < 0 || lo < 0) {
      return Status::InvalidArgument("'{}' is not a UUID (non-hex digit at offset {})", text, i);
    }
    out.bytes[b++] = static_cast<uint8_t>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

Result<Uuid> Uuid::FromBytes(std::string_view raw, std::string_view what) {
  if (raw.size() != 16) {
    return Status::Corruption("{}: a UUID is 16 bytes, found {}", what, raw.size());
  }
  Uuid out;
  for (size_t i = 0; i < 16; ++i) out.bytes[i] = static_cast<uint8_t>(raw[i]);
  return out;
}

Uuid Uuid::V5(const Uuid& name_space, std::string_view name) {
  std::string input = name_space.ToBytes();
  input.append(name);
  const auto digest = internal::Sha1(input);
  Uuid out;
  for (size_t i = 0; i < 16; ++i) out.bytes[i] = digest[i];
  out.bytes[6] = static_cast<uint8_t>((out.bytes[6] & 0x0f) | 0x50);
  out.bytes[8] = static_cast<uint8_t>((out.bytes[8] & 0x3f) | 0x80);
  return out;
}

Uuid Uuid::RandomV4() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  Uuid out;
  for (size_t i = 0; i < 16; i += 8) {
    const uint64_t r = rng();
    for (size_t j = 0; j < 8; ++j) out.bytes[i + j] = static_cast<uint8_t>(r >> (8 * j));
  }
  out.bytes[6] = static_cast<uint8_t>((out.bytes[6] & 0x0f) | 0x40);
  out.bytes[8] = static_cast<uint8_t>((out.bytes[8] & 0x3f) | 0x80);
  return out;
}

}  // namespace lance::memwal
