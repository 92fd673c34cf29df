// The primary-key bloom filters of lance 12's golden MemWAL generations, rebuilt from the
// generations' rows (read through the query layer's scan) byte for byte.
#include <filesystem>

#include <gtest/gtest.h>

#include "lance/io/local_object_store.h"
#include "lance/memwal/bloom_filter.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/query/scanner.h"

namespace lance::query {
namespace {

using namespace memwal;  // NOLINT
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
      ScanOptions o;
      o.use_index = false;
      auto scanner = Scanner::Make(*snap, o);
      ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
      auto reader = scanner->ToReader();
      ASSERT_TRUE(reader.ok());
      auto rows = (*reader)->ReadAll();
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
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

}  // namespace
}  // namespace lance::query
