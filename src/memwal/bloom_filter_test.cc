// bloom_filter.bin: membership without false negatives, and refusal of malformed bytes (the
// byte-for-byte check against lance 12's golden generations reads their rows through the
// query layer: src/query/memwal_bloom_golden_test.cc).
#include "lance/memwal/bloom_filter.h"

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"
#include "lance/io/local_object_store.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/shard_manifest.h"

namespace lance::memwal {
namespace {

TEST(BloomFilter, NoFalseNegativesAndSizing) {
  Int64Builder b(int64());
  for (int64_t i = 0; i < 20000; ++i) ASSERT_TRUE(b.Append(i * 7919).ok());
  ArrayPtr keys = *b.Finish();
  PrimaryKeyBloomFilter f(keys->length);
  EXPECT_EQ(f.num_blocks(), 4096);
  for (int64_t r = 0; r < keys->length; ++r) ASSERT_TRUE(f.Insert({keys}, r).ok());
  for (int64_t r = 0; r < keys->length; ++r) EXPECT_TRUE(*f.MightContain({keys}, r));
  EXPECT_EQ(PrimaryKeyBloomFilter(1).num_blocks(), 1024);
  EXPECT_TRUE(PrimaryKeyBloomFilter::Deserialize("", "x").status().IsCorruption());
  EXPECT_TRUE(PrimaryKeyBloomFilter::Deserialize(std::string(33, '\0'), "x").status().IsCorruption());
}

}  // namespace
}  // namespace lance::memwal
