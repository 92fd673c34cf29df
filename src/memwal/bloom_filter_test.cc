// bloom_filter.bin: ours equals lance 12's byte for byte for every generation of the golden
// table (keys read back from the generation), membership without false negatives, and refusal of malformed bytes.
#include "lance/memwal/bloom_filter.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"
#include "lance/io/local_object_store.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/shard_manifest.h"

namespace lance::memwal {
namespace {

namespace fs = std::filesystem;
const fs::path kDir = fs::path(__FILE__).parent_path() / "../../tests/golden/memwal";

TEST(BloomFilter, GoldenGenerationsByteForByte) {
  auto store = *io::LocalObjectStore::Make(fs::canonical(kDir).string());
  const std::string root = "memwal.lance";
  auto shards = ListShards(*store, root);
  ASSERT_TRUE(shards.ok());
  int checked = 0;
  for (const Uuid& s : *shards) {
    ShardManifestStore ms(store, root, s);
    auto m = ms.Latest();
    ASSERT_TRUE(m.ok() && m->has_value());
    for (const FlushedGeneration& g : (*m)->flushed_generations) {
      auto snap = OpenGeneration(store, root, s, g);
      ASSERT_TRUE(snap.ok()) << snap.status().ToString();
      auto rows = (*snap)->Scan();
      ASSERT_TRUE(rows.ok());
      PrimaryKeyBloomFilter f(8);
      for (const auto& b : *rows) {
        for (int64_t r = 0; r < b->num_rows(); ++r) {
          ASSERT_TRUE(f.Insert({b->GetColumnByName("id")}, r).ok());
        }
      }
      auto want = store->Get(ShardDirectory(root, s) + "/" + g.path + "/bloom_filter.bin");
      ASSERT_TRUE(want.ok());
      EXPECT_EQ(f.Serialize(), std::string((*want)->view())) << g.path;
      auto back = PrimaryKeyBloomFilter::Deserialize((*want)->view(), g.path);
      ASSERT_TRUE(back.ok());
      for (const auto& b : *rows) {
        for (int64_t r = 0; r < b->num_rows(); ++r) {
          EXPECT_TRUE(*back->MightContain({b->GetColumnByName("id")}, r));
        }
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2);  // the golden publishes generations 1 and 2 of bucket 0
}

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
