// Uuid (text form, raw bytes, version 5 against RFC 9562's example and SHA-1's FIPS vectors)
// and the bit-reversed names of the MemWAL layout (the spec's example).
#include <gtest/gtest.h>

#include "lance/memwal/layout.h"
#include "lance/memwal/uuid.h"
#include "memwal/sha1.h"

namespace lance::memwal {
namespace {

std::string Hex(const std::array<uint8_t, 20>& d) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : d) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

TEST(Sha1, FipsVectors) {
  EXPECT_EQ(Hex(internal::Sha1("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Hex(internal::Sha1("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Hex(internal::Sha1("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(Hex(internal::Sha1(std::string(1000000, 'a'))),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(Uuid, TextAndBytes) {
  auto u = Uuid::Parse("4A388480-a25b-59a8-b058-24217f980256");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->ToString(), "4a388480-a25b-59a8-b058-24217f980256");
  EXPECT_EQ(u->bytes[0], 0x4a);
  EXPECT_EQ(u->bytes[15], 0x56);
  auto back = Uuid::FromBytes(u->ToBytes());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, *u);
  EXPECT_TRUE(Uuid::FromBytes("short").status().IsCorruption());
  for (const char* bad : {"", "4a388480a25b59a8b05824217f980256", "4a388480-a25b-59a8-b058-24217f98025g",
                          "4a388480-a25b-59a8-b058_24217f980256"}) {
    EXPECT_TRUE(Uuid::Parse(bad).status().IsInvalidArgument()) << bad;
  }
  EXPECT_TRUE(Uuid{}.IsNil());
}

TEST(Uuid, Version5AndRandom) {
  // RFC 9562 appendix A.4: v5 of "www.example.com" in the DNS namespace.
  auto dns = Uuid::Parse("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
  EXPECT_EQ(Uuid::V5(*dns, "www.example.com").ToString(), "2ed6657d-e927-568b-95e1-2665a8aea6a2");
  Uuid a = Uuid::RandomV4(), b = Uuid::RandomV4();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.bytes[6] >> 4, 4);
  EXPECT_EQ(a.bytes[8] >> 6, 2);
}

TEST(Layout, BitReversedNames) {
  // The spec's example: position 5.
  EXPECT_EQ(BitReversedName(5), "1010000000000000000000000000000000000000000000000000000000000000");
  EXPECT_EQ(BitReversedName(1), "1" + std::string(63, '0'));
  EXPECT_EQ(BitReversedName(2), "01" + std::string(62, '0'));
  EXPECT_EQ(BitReversedName(0), std::string(64, '0'));
  EXPECT_EQ(BitReversedName(~uint64_t{0}), std::string(64, '1'));
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{5}, uint64_t{1234567890123}, ~uint64_t{0}}) {
    EXPECT_EQ(ParseBitReversedName(BitReversedName(n)), n);
  }
  EXPECT_FALSE(ParseBitReversedName(std::string(63, '0')));
  EXPECT_FALSE(ParseBitReversedName(std::string(63, '0') + "2"));
  Uuid shard = *Uuid::Parse("4a388480-a25b-59a8-b058-24217f980256");
  EXPECT_EQ(WalEntryPath("t.lance", shard, 5),
            "t.lance/_mem_wal/4a388480-a25b-59a8-b058-24217f980256/wal/"
            "1010000000000000000000000000000000000000000000000000000000000000.arrow");
  EXPECT_EQ(ShardManifestPath("", shard, 1),
            "_mem_wal/4a388480-a25b-59a8-b058-24217f980256/manifest/1" + std::string(63, '0') +
                ".binpb");
  EXPECT_EQ(VersionHintPath("r", shard),
            "r/_mem_wal/4a388480-a25b-59a8-b058-24217f980256/manifest/version_hint.json");
  EXPECT_EQ(ParseWalFileName("x/" + BitReversedName(9) + ".arrow"), 9u);
  EXPECT_FALSE(ParseWalFileName(BitReversedName(9) + ".binpb"));
  EXPECT_EQ(ParseManifestFileName(BitReversedName(3) + ".binpb"), 3u);
  EXPECT_FALSE(ParseManifestFileName("version_hint.json"));
}

}  // namespace
}  // namespace lance::memwal
