// General (LZ4/zstd) block decompression refuses uncompressed sizes the compressed bytes could
// not expand to, before allocating (a fuzzed file claimed ~2 GiB behind a few bytes). Variable
// blocks in both headers: lance 12's and the older one of lance 0.33.0's dictionary items.
#include "encoding/compressive.h"

#include <gtest/gtest.h>
#include <lz4.h>

#include <cstring>
#include <string>
#include <vector>

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

// Little-endian `v` in `width` bytes.
std::string Le(uint64_t v, int width) {
  std::string out(static_cast<size_t>(width), '\0');
  for (int i = 0; i < width; ++i) out[static_cast<size_t>(i)] = static_cast<char>(v >> (8 * i));
  return out;
}

// A Variable block of `values` with offsets of `bits`: lance 12's header (width | data start,
// each in the offset width) or the older one (u8 width | value count | data start).
std::string VariableBlockBytes(const std::vector<std::string>& values, int bits, bool old_header) {
  const int w = bits / 8;
  const size_t header = old_header ? 1 + 2 * static_cast<size_t>(w) : 2 * static_cast<size_t>(w);
  const uint64_t data_start = header + (values.size() + 1) * static_cast<size_t>(w);
  std::string out = old_header ? Le(static_cast<uint64_t>(bits), 1) + Le(values.size(), w)
                               : Le(static_cast<uint64_t>(bits), w);
  out += Le(data_start, w);
  uint64_t at = 0;
  out += Le(0, w);
  for (const auto& v : values) out += Le(at += v.size(), w);
  for (const auto& v : values) out += v;
  return out;
}

pb21::CompressiveEncoding VariableOf(int bits) {
  pb21::CompressiveEncoding enc;
  enc.mutable_variable()->mutable_offsets()->mutable_flat()->set_bits_per_value(
      static_cast<uint64_t>(bits));
  return enc;
}

TEST(VariableBlock, BothHeadersAndBothOffsetWidths) {
  const std::vector<std::string> values = {"lance", "arrow", "", "vector", "table"};
  for (int bits : {32, 64}) {
    for (bool old_header : {false, true}) {
      auto block = DecodeBlockValues(VariableOf(bits), VariableBlockBytes(values, bits, old_header),
                                     static_cast<int64_t>(values.size()));
      ASSERT_TRUE(block.ok()) << bits << " " << old_header << ": " << block.status().ToString();
      ASSERT_EQ(block->num_values, static_cast<int64_t>(values.size()));
      for (size_t i = 0; i < values.size(); ++i) {
        EXPECT_EQ(block->ValueView(static_cast<int64_t>(i)), values[i]) << bits << " " << old_header;
      }
    }
  }
}

TEST(VariableBlock, OldHeaderWithAnotherValueCountIsCorrupt) {
  const std::vector<std::string> values = {"a", "bc", "def"};
  auto block = DecodeBlockValues(VariableOf(32), VariableBlockBytes(values, 32, true), 4);
  ASSERT_FALSE(block.ok());
  EXPECT_TRUE(block.status().IsCorruption()) << block.status().ToString();
  EXPECT_NE(block.status().ToString().find("3 values in the header, 4 expected"), std::string::npos)
      << block.status().ToString();
  // A width the encoding does not say.
  std::string bytes = VariableBlockBytes(values, 32, true);
  bytes[0] = 16;
  block = DecodeBlockValues(VariableOf(32), bytes, 3);
  ASSERT_FALSE(block.ok());
  EXPECT_TRUE(block.status().IsCorruption()) << block.status().ToString();
}

}  // namespace
}  // namespace lance::encoding
