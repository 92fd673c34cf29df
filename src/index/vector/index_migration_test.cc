// lance 12's commit-time migration of older vector index entries (index_migration.h) on the
// golden datasets of older writers: each entry is compared with what lance 12 recorded for it
// after a delete on a copy of the same dataset (its index section, decoded by protoc).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "index/vector/legacy_ivf_pq.h"
#include "lance/index/vector/index_migration.h"
#include "lance/io/memory_object_store.h"
#include "lance/table/versions.h"
#include "table/proto/index_details.pb.h"

namespace lance::index::vector {
namespace {

namespace fs = std::filesystem;
const fs::path kGoldenLegacyDir = fs::path(__FILE__).parent_path() / "../../../tests/golden/legacy";

struct Migrated {
  table::Manifest before, after;
};

Migrated MigrateLatest(const std::string& rel) {
  Migrated out;
  auto loc = table::TableLocation::FromUri((kGoldenLegacyDir / rel).string());
  EXPECT_TRUE(loc.ok()) << loc.status().ToString();
  auto v = table::LoadLatestVersion(*loc);
  EXPECT_TRUE(v.ok() && v->has_value()) << rel;
  if (!v.ok() || !v->has_value()) return out;
  out.before = (*v)->manifest;
  out.after = out.before;
  Status st = MigrateVectorIndexEntries(*loc, &out.before, &out.after);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

// {metric, num_bits, num_sub_vectors} of a recorded VectorIndexDetails.
std::tuple<int, uint32_t, uint32_t> PqDetails(const table::IndexInfo& x) {
  EXPECT_EQ(x.details_type_url, "/lance.index.pb.VectorIndexDetails") << x.name;
  ::lance::index::pb::VectorIndexDetails d;
  EXPECT_TRUE(d.ParseFromString(x.details)) << x.name;
  EXPECT_TRUE(d.has_pq()) << x.name;
  return {static_cast<int>(d.metric_type()), d.pq().num_bits(), d.pq().num_sub_vectors()};
}

using Ids = std::vector<uint32_t>;

TEST(VectorIndexMigration, OldWriterBitmapRecomputedFromTheLegacyIndexRowIds) {
  // lance 0.8.14 stored fragments 1..10; the index's row ids also name fragment 0.
  Migrated m = MigrateLatest("upstream/v0.8.14/corrupt_index.lance");
  ASSERT_EQ(m.after.indices.size(), 1u);
  EXPECT_EQ(m.before.indices[0].fragment_ids, (Ids{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(m.after.indices[0].fragment_ids, (Ids{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(PqDetails(m.after.indices[0]), std::make_tuple(0, 8u, 16u));
}

TEST(VectorIndexMigration, OverlappingDeltaBitmapsRecomputed) {
  Migrated m = MigrateLatest("upstream/v0.21.0/bad_index_fragment_bitmap.lance");
  ASSERT_EQ(m.after.indices.size(), 2u);
  EXPECT_EQ(m.before.indices[1].fragment_ids, (Ids{0, 1}));
  EXPECT_EQ(m.after.indices[0].fragment_ids, (Ids{0}));
  EXPECT_EQ(m.after.indices[1].fragment_ids, (Ids{1}));
  EXPECT_EQ(PqDetails(m.after.indices[0]), std::make_tuple(0, 8u, 1u));
  EXPECT_EQ(PqDetails(m.after.indices[1]), std::make_tuple(0, 8u, 1u));
}

TEST(VectorIndexMigration, DetailsFilledFromV3AndLegacyFiles) {
  {
    // v3 layout, the codebook inline in storage_metadata (lance 0.27).
    Migrated m = MigrateLatest("upstream/v0.27.1/pq_in_schema.lance");
    ASSERT_EQ(m.after.indices.size(), 1u);
    EXPECT_EQ(m.before.indices[0].details_type_url, "/lance.table.VectorIndexDetails");
    EXPECT_EQ(PqDetails(m.after.indices[0]), std::make_tuple(0, 8u, 4u));
    EXPECT_EQ(m.after.indices[0].fragment_ids, m.before.indices[0].fragment_ids);
  }
  {
    // vectordb 0.4.20: no details at all; the BTree beside it keeps none.
    Migrated m = MigrateLatest("v0_4_20/vectors.lance");
    ASSERT_EQ(m.after.indices.size(), 2u);
    EXPECT_EQ(PqDetails(m.after.indices[0]), std::make_tuple(0, 8u, 2u));
    EXPECT_EQ(m.after.indices[0].fragment_ids, (Ids{3}));
    EXPECT_TRUE(m.after.indices[1].details_type_url.empty());
    EXPECT_TRUE(m.after.indices[1].details.empty());
  }
  {
    // Current entries are left as they are.
    Migrated m = MigrateLatest("upstream/0.36.0/btree_in_index_pkg.lance");
    ASSERT_EQ(m.after.indices.size(), 1u);
    EXPECT_EQ(m.after.indices[0].details, m.before.indices[0].details);
    EXPECT_EQ(m.after.indices[0].details_type_url, m.before.indices[0].details_type_url);
  }
}

TEST(VectorIndexMigration, DamagedLegacyIndexFilesAreCorruption) {
  const fs::path src = kGoldenLegacyDir / "v0_4_20/vectors.lance/_indices/050b7a69-c696-4551-94ce-adaebe241303/index.idx";
  std::ifstream in(src, std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(good.size(), 0x900u);
  auto mem = io::MemoryObjectStore::Make();
  auto read = [&](const std::string& b) {
    EXPECT_TRUE(mem->Put("i/index.idx", b).ok());
    return ReadLegacyIvfPq(*mem, "i/index.idx");
  };
  auto ok = read(good);
  ASSERT_TRUE(ok.ok() && ok->has_value()) << ok.status().ToString();
  EXPECT_EQ((*ok)->lengths, (std::vector<uint32_t>{108, 100}));
  auto ids = ReadLegacyIvfPqRowIds(*mem, "i/index.idx", **ok);
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->size(), 208u);
  // Metadata position past the end, a message that does not decode, a truncated file.
  std::string bad = good;
  bad[bad.size() - 16] = '\xff';
  bad[bad.size() - 15] = '\xff';
  EXPECT_TRUE(read(bad).status().IsCorruption());
  bad = good;
  for (size_t i = 0x820 + 4; i < 0x820 + 24; ++i) bad[i] = '\xff';
  EXPECT_TRUE(read(bad).status().IsCorruption()) << read(bad).status().ToString();
  EXPECT_TRUE(read(good.substr(0, 2000) + good.substr(good.size() - 16)).status().IsCorruption());
  // Not a legacy footer: not this reader's file.
  bad = good;
  bad[bad.size() - 6] = 3;
  auto other = read(bad);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
}

}  // namespace
}  // namespace lance::index::vector
