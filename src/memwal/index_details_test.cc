// MemWalIndexDetails: the bytes lance 12 commits for lancedb's specs, a full round trip, and
// the lookups the merger and planner need.
#include "lance/memwal/index_details.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace lance::memwal {
namespace {

// Any.value of the details lance 12 committed for setLsmWriteSpec (decoded from the manifests
// of a table with columns id int64 (field 0) and b bool (field 1)).
const std::string kBucketBool8 =
    std::string("\x10\x08:0\x08\x01\x12,\n\x06" "bucket" "\x12\x01\x01\x1a\x06" "bucket"
                "*\x05" "int32" "2\x10\n\x0b" "num_buckets" "\x12\x01" "8",
                52);

TEST(MemWalIndexDetails, ReferenceBytes) {
  auto spec = BucketSpec(1, *boolean(), 8);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(EncodeMemWalIndexDetails(DetailsForSpec(*spec, {}, {})), kBucketBool8);
  auto d = DecodeMemWalIndexDetails(kBucketBool8, "ref");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->num_shards, 8u);
  EXPECT_EQ(d->sharding_specs[0], *spec);
  // identity(utf8 column 1) and unsharded, as lance 12 wrote them.
  const std::string ident = std::string(
      ":\x1f\x08\x01\x12\x1b\n\x06" "bucket" "\x12\x01\x01\x1a\x08" "identity" "*\x04" "utf8", 33);
  EXPECT_EQ(EncodeMemWalIndexDetails(DetailsForSpec(*IdentitySpec(1, *utf8()), {}, {})), ident);
  const std::string uns = std::string(
      "\x10\x01:\x1e\x08\x01\x12\x1a\n\x06" "bucket" "\x1a\tunsharded*\x05" "int32", 34);
  EXPECT_EQ(EncodeMemWalIndexDetails(DetailsForSpec(UnshardedSpec(), {}, {})), uns);
  EXPECT_TRUE(DecodeMemWalIndexDetails(std::string("\xff\xff", 2), "bad").status().IsCorruption());
}

TEST(MemWalIndexDetails, RoundTrip) {
  MemWalIndexDetails d = DetailsForSpec(*BucketSpec(0, *int64(), 16), {"id_idx", "vec_idx"},
                                        {{"durable_write", "true"}, {"a", "b"}});
  const Uuid s1 = BucketShardId(1), s2 = BucketShardId(2);
  d.snapshot_ts_millis = 1700000000000;
  d.inline_snapshots = std::string("LANC", 4);
  d.merged_generations = {{s1, 4}, {s2, 7}};
  d.index_catchup = {{"id_idx", {{s1, 3}}}};
  std::string bytes = EncodeMemWalIndexDetails(d);
  bytes += std::string("\xa0\x06\x01", 3);  // field 100 from a newer writer
  auto back = DecodeMemWalIndexDetails(bytes, "x");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(EncodeMemWalIndexDetails(*back), bytes);
  MemWalIndexDetails cmp = *back;
  cmp.unknown_fields.clear();
  EXPECT_EQ(cmp, d);
  EXPECT_EQ(back->MergedGenerationOf(s2), 7u);
  EXPECT_EQ(back->MergedGenerationOf(BucketShardId(5)), 0u);
  EXPECT_EQ(back->CaughtUpGenerationOf("id_idx", s1), 3u);
  EXPECT_FALSE(back->CaughtUpGenerationOf("id_idx", s2));
  EXPECT_FALSE(back->CaughtUpGenerationOf("vec_idx", s1));
  EXPECT_NE(back->FindSpec(1), nullptr);
  EXPECT_EQ(back->FindSpec(2), nullptr);
  EXPECT_THAT(MemWalIndexDetailsToJson(d), ::testing::HasSubstr("\"num_buckets\":\"16\""));
  // Deterministic: map order does not depend on insertion.
  MemWalIndexDetails e = d;
  e.writer_config_defaults = {{"a", "b"}, {"durable_write", "true"}};
  EXPECT_EQ(EncodeMemWalIndexDetails(e), EncodeMemWalIndexDetails(d));
}

// index_catchup as merges and index rebuilds move it: a merge that writes rows leaves each
// caught-up maintained index at the shard's previous merged generation (absent = caught up),
// a lagging one where it was; a deletes-only merge keeps a caught-up one caught up; a rebuild
// over a version catches the index up to what that version had merged, per shard.
TEST(MemWalIndexDetails, IndexCatchupFollowsMergesAndRebuilds) {
  MemWalIndexDetails d = DetailsForSpec(*BucketSpec(0, *int64(), 4), {"id_idx", "s_idx"}, {});
  const Uuid s1 = BucketShardId(1), s2 = BucketShardId(2);
  auto merge = [&](const Uuid& shard, uint64_t g, bool rows) {
    d.RecordMerge(shard, g, rows);
    d.merged_generations.erase(std::remove_if(d.merged_generations.begin(), d.merged_generations.end(),
                                              [&](const auto& m) { return m.shard_id == shard; }),
                               d.merged_generations.end());
    d.merged_generations.push_back({shard, g});
  };
  merge(s1, 1, false);  // deletes only: nothing lags
  EXPECT_TRUE(d.index_catchup.empty());
  merge(s1, 2, true);
  EXPECT_EQ(d.CaughtUpGenerationOf("id_idx", s1), 1u);
  EXPECT_EQ(d.CaughtUpGenerationOf("s_idx", s1), 1u);
  EXPECT_EQ(d.CaughtUpGenerationOf("id_idx", s2), std::nullopt);
  merge(s1, 3, true);  // lagging already: stays at 1
  merge(s2, 1, true);
  EXPECT_EQ(d.CaughtUpGenerationOf("id_idx", s1), 1u);
  EXPECT_EQ(d.CaughtUpGenerationOf("s_idx", s2), 0u);
  // s_idx rebuilt on a version that had merged s1 up to 3 and s2 up to 0.
  d.RecordIndexRebuilt("s_idx", {{s1, 3}});
  EXPECT_EQ(d.CaughtUpGenerationOf("s_idx", s1), std::nullopt);
  EXPECT_EQ(d.CaughtUpGenerationOf("s_idx", s2), 0u);
  d.RecordIndexRebuilt("s_idx", {{s1, 3}, {s2, 1}});
  EXPECT_EQ(d.CaughtUpGenerationOf("s_idx", s2), std::nullopt);
  EXPECT_EQ(d.index_catchup.size(), 1u);  // s_idx's entry gone, id_idx's left
  // A deletes-only merge of a caught-up-but-recorded index moves it along.
  d.index_catchup = {{"id_idx", {{s1, 3}}}};
  merge(s1, 4, false);
  EXPECT_EQ(d.CaughtUpGenerationOf("id_idx", s1), 4u);
  // Not a maintained index: untouched.
  d.RecordIndexRebuilt("other_idx", {});
  EXPECT_EQ(d.index_catchup.size(), 1u);
  EXPECT_EQ(DecodeMemWalIndexDetails(EncodeMemWalIndexDetails(d), "rt").ValueOrDie(), d);
}

}  // namespace
}  // namespace lance::memwal
