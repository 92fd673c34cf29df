// Sharding: the Appendix 3 test vectors for every source type, the spec checks, lancedb's
// shard ids (values observed in lance 12's _mem_wal/ directories) and batch routing.
#include "lance/memwal/sharding.h"

#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/columnar/builder.h"

namespace lance::memwal {
namespace {

using ::testing::HasSubstr;

ArrayPtr FromJson(DataTypePtr type, std::string_view json) {
  auto a = ArrayFromJSON(std::move(type), json);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return *a;
}

std::vector<int32_t> Buckets(DataTypePtr type, std::string_view json, int32_t n = 8) {
  auto b = ComputeBuckets(*FromJson(std::move(type), json), n);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : std::vector<int32_t>{};
}

// Every vector of Appendix 3 (num_buckets = 8).
TEST(BucketHash, SpecVectors) {
  EXPECT_EQ(Buckets(int32(), "[1, 2, null, 3]"), (std::vector<int32_t>{2, 7, 0, 1}));
  EXPECT_EQ(Buckets(date32(), "[1, 2, null, 3]"), (std::vector<int32_t>{2, 7, 0, 1}));
  EXPECT_EQ(Buckets(utf8(), R"(["a", "b", null])"), (std::vector<int32_t>{1, 5, 0}));
  EXPECT_EQ(Buckets(boolean(), "[true]"), (std::vector<int32_t>{2}));
  EXPECT_EQ(Buckets(float32(), "[1.25]"), (std::vector<int32_t>{0}));
  EXPECT_EQ(Buckets(float64(), "[1.25]"), (std::vector<int32_t>{0}));
  // The same through the scalar functions.
  EXPECT_EQ(BucketOfHash(BucketHashInt32(1), 8), 2);
  EXPECT_EQ(BucketOfHash(BucketHashInt32(2), 8), 7);
  EXPECT_EQ(BucketOfHash(BucketHashInt32(3), 8), 1);
  EXPECT_EQ(BucketOfHash(BucketHashBytes("a"), 8), 1);
  EXPECT_EQ(BucketOfHash(BucketHashBytes("b"), 8), 5);
  EXPECT_EQ(BucketOfHash(BucketHashFloat32(1.25f), 8), 0);
  EXPECT_EQ(BucketOfHash(BucketHashFloat64(1.25), 8), 0);
}

// The normalisations of Appendix 3: narrow and unsigned integers hash as int32, 64-bit and
// temporal values as int64, large_utf8 as utf8, bool as 0/1; every type maps null to 0.
TEST(BucketHash, EverySourceTypeNormalises) {
  const std::string ints = "[0, 1, 2, 3, 7, 100, 127, null]";
  const auto want32 = Buckets(int32(), ints, 1024);
  for (const auto& t : {int8(), int16(), uint8(), uint16(), uint32(), date32(),
                        time32(TimeUnit::kMilli), time32(TimeUnit::kSecond)}) {
    EXPECT_EQ(Buckets(t, ints, 1024), want32) << t->ToString();
  }
  const auto want64 = Buckets(int64(), ints, 1024);
  EXPECT_NE(want32, want64);
  for (const auto& t : {uint64(), time64(TimeUnit::kMicro), time64(TimeUnit::kNano),
                        timestamp(TimeUnit::kMilli), timestamp(TimeUnit::kNano, "UTC")}) {
    EXPECT_EQ(Buckets(t, ints, 1024), want64) << t->ToString();
  }
  // Two's-complement wrapping: uint32 max is int32 -1, uint64 max is int64 -1.
  EXPECT_EQ(Buckets(uint32(), "[4294967295]", 1024), Buckets(int32(), "[-1]", 1024));
  EXPECT_EQ(Buckets(uint64(), "[18446744073709551615]", 1024), Buckets(int64(), "[-1]", 1024));
  EXPECT_EQ(Buckets(int8(), "[-5]", 1024), Buckets(int32(), "[-5]", 1024));
  EXPECT_EQ(Buckets(boolean(), "[false, true, null]", 1024), Buckets(int32(), "[0, 1, null]", 1024));
  EXPECT_EQ(Buckets(large_utf8(), R"(["a", "b", "", "hello world", null])", 1024),
            Buckets(utf8(), R"(["a", "b", "", "hello world", null])", 1024));
  // Nulls are bucket 0 whatever the type.
  for (const auto& t : {boolean(), int8(), uint64(), float32(), float64(), date32(),
                        timestamp(TimeUnit::kMicro), utf8(), large_utf8()}) {
    EXPECT_EQ(Buckets(t, "[null, null]", 97), (std::vector<int32_t>{0, 0})) << t->ToString();
  }
}

TEST(BucketHash, FloatNormalisation) {
  EXPECT_EQ(BucketHashFloat32(-0.0f), BucketHashFloat32(0.0f));
  EXPECT_EQ(BucketHashFloat32(0.0f), BucketHashInt32(0));
  EXPECT_EQ(BucketHashFloat64(-0.0), BucketHashInt64(0));
  const float nan1 = std::numeric_limits<float>::quiet_NaN();
  const float nan2 = -std::numeric_limits<float>::signaling_NaN();
  EXPECT_EQ(BucketHashFloat32(nan1), BucketHashInt32(0x7fc00000));
  EXPECT_EQ(BucketHashFloat32(nan2), BucketHashInt32(0x7fc00000));
  EXPECT_EQ(BucketHashFloat64(-std::numeric_limits<double>::quiet_NaN()),
            BucketHashInt64(0x7ff8000000000000LL));
  // Other values hash their IEEE bits.
  EXPECT_EQ(BucketHashFloat32(1.25f), BucketHashInt32(0x3fa00000));
  EXPECT_EQ(BucketHashFloat64(1.25), BucketHashInt64(0x3ff4000000000000LL));
}

// The tail of hash_bytes sign-extends each remaining byte (not the usual murmur3 tail): values
// computed by hand from the Appendix 3 definitions.
TEST(BucketHash, BytesTailAndChunks) {
  // One chunk vs. the same four bytes as an int32 differ only by the fmix length (4 both).
  EXPECT_EQ(BucketHashBytes(std::string("\x01\x00\x00\x00", 4)), BucketHashInt32(1));
  // A single byte 0xff is mixed as -1 (sign extended), length 1.
  const uint32_t k = BucketHashBytes("\xff");
  EXPECT_NE(k, BucketHashBytes("\x7f"));
  EXPECT_EQ(BucketHashBytes(""), 0u);  // fmix(0, 0) = 0
}

TEST(BucketHash, RefusedSourceTypesAndBucketCounts) {
  auto bin = FromJson(binary(), R"(["AA=="])");
  EXPECT_TRUE(ComputeBuckets(*bin, 8).status().IsNotSupported());
  EXPECT_TRUE(ComputeBuckets(*FromJson(date64(), "[1]"), 8).status().IsNotSupported());
  EXPECT_TRUE(ComputeBuckets(*FromJson(int32(), "[1]"), 0).status().IsInvalidArgument());
  EXPECT_TRUE(ComputeBuckets(*FromJson(int32(), "[1]"), 1025).status().IsInvalidArgument());
  auto one = ComputeBuckets(*FromJson(int32(), "[1, 2, 3]"), 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, (std::vector<int32_t>{0, 0, 0}));
}

SchemaPtr ShardedTableSchema() {
  return schema({field("id", int64(), false)->WithId(0), field("s", utf8())->WithId(1),
                 field("f", float64())->WithId(2), field("b", binary())->WithId(3),
                 field("flag", boolean())->WithId(4)});
}

TEST(ShardingSpec, RefusedTransformsSayWhy) {
  for (const char* name : {"year", "month", "day", "hour", "multi_bucket", "truncate"}) {
    ShardingSpec spec{1, {ShardingField{"x", {0}, std::string(name), std::nullopt, "int32", {}}}};
    Status st = ValidateShardingSpec(spec, *ShardedTableSchema());
    EXPECT_TRUE(st.IsInvalidArgument()) << name;
    EXPECT_THAT(st.message(), HasSubstr(std::string("'") + name + "' is not a MemWAL sharding"));
    EXPECT_TRUE(ShardRouter::Make(spec, *ShardedTableSchema()).status().IsInvalidArgument());
  }
}

TEST(ShardingSpec, Validation) {
  const auto s = ShardedTableSchema();
  auto bucket = [](std::map<std::string, std::string> params, std::vector<int32_t> src = {0},
                   std::string rt = "int32") {
    return ShardingSpec{1, {ShardingField{"bucket", std::move(src), "bucket", std::nullopt,
                                          std::move(rt), std::move(params)}}};
  };
  EXPECT_TRUE(ValidateShardingSpec(bucket({{"num_buckets", "4"}}), *s).ok());
  EXPECT_TRUE(ValidateShardingSpec(bucket({{"num_buckets", "1024"}}), *s).ok());
  EXPECT_TRUE(ValidateShardingSpec(bucket({{"num_buckets", "2"}}, {2}), *s).ok());  // float64
  for (const char* bad : {"0", "1025", "-1", "4x", ""}) {
    Status st = ValidateShardingSpec(bucket({{"num_buckets", bad}}), *s);
    EXPECT_TRUE(st.IsInvalidArgument()) << bad;
    EXPECT_THAT(st.message(), HasSubstr("num_buckets"));
  }
  EXPECT_THAT(ValidateShardingSpec(bucket({}), *s).message(), HasSubstr("needs the parameter"));
  EXPECT_TRUE(ValidateShardingSpec(bucket({{"num_buckets", "4"}}, {3}), *s).IsNotSupported());
  EXPECT_THAT(ValidateShardingSpec(bucket({{"num_buckets", "4"}}, {9}), *s).message(),
              HasSubstr("source field id 9"));
  EXPECT_THAT(ValidateShardingSpec(bucket({{"num_buckets", "4"}}, {0, 1}), *s).message(),
              HasSubstr("exactly one source"));
  EXPECT_THAT(ValidateShardingSpec(bucket({{"num_buckets", "4"}}, {0}, "int64"), *s).message(),
              HasSubstr("bucket yields int32"));
  EXPECT_TRUE(ValidateShardingSpec(ShardingSpec{0, bucket({{"num_buckets", "4"}}).fields}, *s)
                  .IsInvalidArgument());
  EXPECT_TRUE(ValidateShardingSpec(ShardingSpec{1, {}}, *s).IsInvalidArgument());
  // identity: the result type must name the source type; floats are refused.
  ShardingSpec ident{1, {ShardingField{"bucket", {1}, "identity", std::nullopt, "utf8", {}}}};
  EXPECT_TRUE(ValidateShardingSpec(ident, *s).ok());
  ident.fields[0].result_type = "int32";
  EXPECT_THAT(ValidateShardingSpec(ident, *s).message(), HasSubstr("yields 'utf8'"));
  ident.fields[0].source_ids = {2};
  EXPECT_TRUE(ValidateShardingSpec(ident, *s).IsNotSupported());
  // unsharded takes nothing.
  EXPECT_TRUE(ValidateShardingSpec(UnshardedSpec(), *s).ok());
  ShardingSpec uns = UnshardedSpec();
  uns.fields[0].source_ids = {0};
  EXPECT_TRUE(ValidateShardingSpec(uns, *s).IsInvalidArgument());
  // expressions are reserved; both set is an error.
  ShardingSpec expr{1, {ShardingField{"e", {0}, std::nullopt, std::string("id % 4"), "int32", {}}}};
  EXPECT_TRUE(ValidateShardingSpec(expr, *s).IsNotSupported());
  expr.fields[0].transform = "bucket";
  EXPECT_THAT(ValidateShardingSpec(expr, *s).message(), HasSubstr("mutually exclusive"));
  ShardingSpec unknown{1, {ShardingField{"u", {0}, std::string("hash"), std::nullopt, "int32", {}}}};
  EXPECT_THAT(ValidateShardingSpec(unknown, *s).message(), HasSubstr("unknown transform 'hash'"));
  // duplicate field ids
  ShardingSpec dup = UnshardedSpec();
  dup.fields.push_back(dup.fields[0]);
  EXPECT_THAT(ValidateShardingSpec(dup, *s).message(), HasSubstr("appears twice"));
  EXPECT_TRUE(ShardRouter::Make(dup, *s).status().IsInvalidArgument());
}

// The specs lancedb installs, as lance 12 stores them (field_id "bucket" for every transform).
TEST(ShardingSpec, LancedbSpecs) {
  auto b = BucketSpec(0, *int64(), 4);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->spec_id, 1u);
  EXPECT_EQ(b->fields[0].field_id, "bucket");
  EXPECT_EQ(b->fields[0].result_type, "int32");
  EXPECT_EQ(b->fields[0].parameters.at("num_buckets"), "4");
  auto i = IdentitySpec(1, *utf8());
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->fields[0].transform, "identity");
  EXPECT_EQ(i->fields[0].result_type, "utf8");
  EXPECT_TRUE(IdentitySpec(2, *float64()).status().IsNotSupported());
  EXPECT_TRUE(BucketSpec(3, *binary(), 4).status().IsNotSupported());
  EXPECT_EQ(*ShardResultTypeName(*boolean()), "boolean");
  EXPECT_EQ(*ShardResultTypeName(*uint16()), "uint16");
  EXPECT_EQ(*ShardResultTypeName(*large_utf8()), "large_utf8");
}

// Shard directories lance 12 (driven by lancedb) created for these keys.
TEST(ShardIds, EqualLancedbs) {
  EXPECT_EQ(BucketShardId(0).ToString(), "4a388480-a25b-59a8-b058-24217f980256");
  EXPECT_EQ(BucketShardId(1).ToString(), "8e131bde-8368-54ff-89d9-c2e1cc781b29");
  EXPECT_EQ(UnshardedShardId().ToString(), "aa48498d-ac91-59e2-8452-69f46010ace2");
  int64_t three = 3;
  EXPECT_EQ(IdentityShardId(std::string(reinterpret_cast<const char*>(&three), 8)).ToString(),
            "307a2834-14cb-5768-8787-841ea697d137");  // identity(id int64) of 3
  int32_t one = 1;
  EXPECT_EQ(IdentityShardId(std::string(reinterpret_cast<const char*>(&one), 4)).ToString(),
            "e1fa757c-88e8-561a-a112-c7e11cba683b");  // identity(g int32) of 1
  EXPECT_EQ(IdentityShardId("x0").ToString(), "1ba8c514-e2ec-54d3-8c60-d6aa429ddc1c");
}

RecordBatchPtr ShardBatch(std::string_view rows) {
  auto s = schema({field("id", int64(), false), field("s", utf8()), field("f", float64()),
                   field("b", binary()), field("flag", boolean())});
  auto b = RecordBatchFromJSON(s, rows);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

TEST(ShardRouter, BucketSplitKeepsInputOrderPerShard) {
  auto spec = BucketSpec(0, *int64(), 4);
  auto router = ShardRouter::Make(*spec, *ShardedTableSchema());
  ASSERT_TRUE(router.ok()) << router.status().ToString();
  std::string rows = "[";
  for (int i = 0; i < 40; ++i) rows += (i ? "," : "") + std::string("{\"id\":") + std::to_string(i * 7) + "}";
  rows += "]";
  auto batch = ShardBatch(rows);
  auto slices = router->Split(batch);
  ASSERT_TRUE(slices.ok()) << slices.status().ToString();
  int64_t total = 0;
  for (const ShardSlice& sl : *slices) {
    ASSERT_EQ(sl.shard.field_values.size(), 1u);
    int32_t bucket;
    std::memcpy(&bucket, sl.shard.field_values[0].value.data(), 4);
    EXPECT_EQ(sl.shard.field_values[0].field_id, "bucket");
    EXPECT_EQ(sl.shard.shard_id, BucketShardId(bucket));
    EXPECT_EQ(sl.shard.spec_id, 1u);
    const auto* ids = sl.batch->column(0)->Values<int64_t>();
    for (int64_t r = 0; r < sl.batch->num_rows(); ++r) {
      EXPECT_EQ(BucketOfHash(BucketHashInt64(ids[r]), 4), bucket);
      EXPECT_EQ(ids[r], sl.rows[static_cast<size_t>(r)] * 7);
      if (r > 0) {
        EXPECT_LT(sl.rows[static_cast<size_t>(r - 1)], sl.rows[static_cast<size_t>(r)]);
      }
    }
    total += sl.batch->num_rows();
  }
  EXPECT_EQ(total, 40);
  EXPECT_EQ(slices->size(), 4u);
  // AllShards (lsm write --claim-all): each bucket's target exactly as routing names it.
  auto all = router->AllShards();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 4u);
  for (const ShardSlice& sl : *slices) {
    int32_t bucket;
    std::memcpy(&bucket, sl.shard.field_values[0].value.data(), 4);
    EXPECT_EQ((*all)[static_cast<size_t>(bucket)], sl.shard) << "bucket " << bucket;
  }
}

TEST(ShardRouter, IdentityAndUnsharded) {
  auto ident = ShardRouter::Make(*IdentitySpec(1, *utf8()), *ShardedTableSchema());
  ASSERT_TRUE(ident.ok());
  auto r = ident->Route(*ShardBatch(R"([{"id":1,"s":"x"},{"id":2,"s":"y"},{"id":3,"s":"x"}])"));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->shards.size(), 2u);
  EXPECT_EQ(r->row_shard, (std::vector<uint32_t>{0, 1, 0}));
  EXPECT_EQ(r->shards[0].shard_id, IdentityShardId("x"));
  EXPECT_EQ(r->shards[0].field_values[0].value, "x");
  // nulls cannot be identity shard values
  auto nulls = ident->Route(*ShardBatch(R"([{"id":1,"s":null}])"));
  EXPECT_TRUE(nulls.status().IsInvalidArgument());
  EXPECT_THAT(nulls.status().message(), HasSubstr("null shard value"));
  // bool identity: one byte
  auto flag = ShardRouter::Make(*IdentitySpec(4, *boolean()), *ShardedTableSchema());
  auto fr = flag->Route(*ShardBatch(R"([{"id":1,"flag":true},{"id":2,"flag":false}])"));
  ASSERT_TRUE(fr.ok());
  EXPECT_EQ(fr->shards[0].field_values[0].value, std::string("\x01", 1));
  EXPECT_EQ(fr->shards[1].field_values[0].value, std::string("\x00", 1));
  auto uns = ShardRouter::Make(UnshardedSpec(), *ShardedTableSchema());
  auto ur = uns->Route(*ShardBatch(R"([{"id":1},{"id":2}])"));
  ASSERT_TRUE(ur.ok());
  ASSERT_EQ(ur->shards.size(), 1u);
  EXPECT_EQ(ur->shards[0].shard_id, UnshardedShardId());
  EXPECT_EQ(ur->shards[0].field_values[0].value, std::string(4, '\0'));
  EXPECT_EQ(ur->row_shard, (std::vector<uint32_t>{0, 0}));
  auto uns_all = uns->AllShards();
  ASSERT_TRUE(uns_all.ok());
  EXPECT_EQ(*uns_all, (std::vector<ShardTarget>{ur->shards[0]}));
  // Identity shards are the values written: not known in advance.
  EXPECT_TRUE(ident->AllShards().status().IsNotSupported());
}

TEST(ShardRouter, BatchMismatchesAreErrors) {
  auto router = ShardRouter::Make(*BucketSpec(0, *int64(), 4), *ShardedTableSchema());
  auto other = schema({field("s", utf8())});
  auto no_id = RecordBatchFromJSON(other, R"([{"s":"a"}])");
  EXPECT_THAT(router->Route(**no_id).status().message(), HasSubstr("no column 'id'"));
  auto wrong = RecordBatchFromJSON(schema({field("id", int32())}), R"([{"id":1}])");
  EXPECT_THAT(router->Route(**wrong).status().message(), HasSubstr("is int32 in the batch"));
  // multi-field specs have no shard-id convention
  ShardingSpec two = *BucketSpec(0, *int64(), 4);
  ShardingField second = two.fields[0];
  second.field_id = "b2";
  two.fields.push_back(second);
  EXPECT_TRUE(ValidateShardingSpec(two, *ShardedTableSchema()).ok());
  EXPECT_TRUE(ShardRouter::Make(two, *ShardedTableSchema()).status().IsNotSupported());
}

}  // namespace
}  // namespace lance::memwal
