// Damaged index files end in a Status, never a crash: the fuzz target's body
// (index_files_fuzz.cc) runs over the seed corpus (lance 12's index files -- its NGRAM postings
// after its optimize() of ours among them -- and the zone map and
// bloom filter we write, which lance 12 reads) with every
// truncation at 61 points and single-byte corruptions at 400 positions of each file, and
// opening such files reports Corruption / IOError naming the file. (`make fuzz` runs the
// same body under libFuzzer with sanitizers.)
#include <gtest/gtest.h>


#include "index/scalar/index_files_fuzz.cc"
#include "table_fixtures/fuzz_seed_test_util.h"

namespace {


void FeedScalar(const std::string& bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(CorruptIndexFiles, TruncatedAndDamagedFilesNeverCrash) {
  const auto seeds = lance::test::FuzzSeeds("index_files_fuzz");
  ASSERT_EQ(seeds.size(), 12u);
  for (const std::string& seed : seeds) {
    lance::test::FeedDamaged(seed, 1, 60, 400, FeedScalar);
    std::string as_rowset = seed;
    as_rowset[0] = 3;
    FeedScalar(as_rowset);
    as_rowset[0] = 7;  // as NGRAM posting list bytes
    FeedScalar(as_rowset);
  }
}

TEST(CorruptIndexFiles, ErrorsNameTheFile) {
  auto mem = lance::io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "t.lance/_indices/x");
  ASSERT_TRUE(mem->Put(store->PathOf(kBitmapFile), "not a lance file at all").ok());
  auto r = OpenBitmapIndex(store);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("t.lance/_indices/x/bitmap_page_lookup.lance"), std::string::npos)
      << r.status().ToString();
  auto b = OpenBTreeIndex(store);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().ToString().find("page_lookup.lance"), std::string::npos) << b.status().ToString();
  auto rs = RowSet::Deserialize(std::string("\x05\x00\x00\x00", 4), "x.bitmaps row 3");
  ASSERT_FALSE(rs.ok());
  EXPECT_NE(rs.status().ToString().find("x.bitmaps row 3"), std::string::npos);
}

}  // namespace
