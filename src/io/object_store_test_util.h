// Test support for the io layer: scratch directories and self-checking payloads.
//
// A payload made by MakePayload(seed, size) carries its seed and size in its first 16 bytes
// and a seed-derived byte stream after them, so CheckPayload can tell a complete object from
// a truncated, torn or mixed one without knowing which writer produced it.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

namespace lance::io::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "lance-io-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// REQUIRES: size >= 16.
inline std::string MakePayload(uint64_t seed, size_t size) {
  std::string out(size, '\0');
  uint64_t size64 = size;
  std::memcpy(out.data(), &seed, 8);
  std::memcpy(out.data() + 8, &size64, 8);
  uint64_t state = seed;
  for (size_t i = 16; i < size; i += 8) {
    uint64_t v = SplitMix64(state);
    std::memcpy(out.data() + i, &v, std::min<size_t>(8, size - i));
  }
  return out;
}

// The seed of a complete, untorn payload, or -1.
inline int64_t CheckPayload(std::string_view bytes) {
  if (bytes.size() < 16) return -1;
  uint64_t seed, size;
  std::memcpy(&seed, bytes.data(), 8);
  std::memcpy(&size, bytes.data() + 8, 8);
  if (size != bytes.size() || seed > (1ull << 62)) return -1;
  if (MakePayload(seed, size) != bytes) return -1;
  return static_cast<int64_t>(seed);
}

}  // namespace lance::io::testing
