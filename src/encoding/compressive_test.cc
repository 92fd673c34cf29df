// General (LZ4/zstd) block decompression refuses uncompressed sizes the compressed bytes could
// not expand to, before allocating (a fuzzed file claimed ~2 GiB behind a few bytes).
#include "encoding/compressive.h"

#include <gtest/gtest.h>
#include <lz4.h>

#include <cstring>
#include <string>

namespace lance::encoding {
namespace {

std::string Lz4Block(const std::string& raw, uint32_t claimed) {
  std::string out(4 + static_cast<size_t>(LZ4_compressBound(static_cast<int>(raw.size()))), '\0');
  std::memcpy(out.data(), &claimed, 4);
  const int n = LZ4_compress_default(raw.data(), out.data() + 4, static_cast<int>(raw.size()),
                                     static_cast<int>(out.size() - 4));
  out.resize(4 + static_cast<size_t>(n));
  return out;
}

TEST(DecompressGeneral, Lz4RoundTripAndImpossibleSizes) {
  const std::string raw(10000, 'x');
  auto ok = DecompressGeneral(pb21::COMPRESSION_ALGORITHM_LZ4, Lz4Block(raw, 10000), 4);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok, raw);
  // More than 255x the compressed bytes: refused as corrupt, not allocated.
  auto huge = DecompressGeneral(pb21::COMPRESSION_ALGORITHM_LZ4, Lz4Block(raw, 1u << 30), 4);
  ASSERT_FALSE(huge.ok());
  EXPECT_TRUE(huge.status().IsCorruption()) << huge.status().ToString();
  EXPECT_NE(huge.status().ToString().find("compressed bytes"), std::string::npos)
      << huge.status().ToString();
}

TEST(DecompressGeneral, ZstdImpossibleSize) {
  // u64 size | zstd frame magic | garbage: the claim exceeds what 12 bytes can hold.
  std::string bytes(8, '\0');
  const uint64_t claimed = uint64_t{1} << 30;
  std::memcpy(bytes.data(), &claimed, 8);
  bytes += std::string("\x28\xb5\x2f\xfd", 4) + std::string(8, '\0');
  auto r = DecompressGeneral(pb21::COMPRESSION_ALGORITHM_ZSTD, bytes, 8);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().ToString().find("compressed bytes"), std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace lance::encoding
