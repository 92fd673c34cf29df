// WAL entry codec (schema metadata, sentinels, refusals of malformed entries) and the read side
// (tail discovery from hints, listings and removed entries; scans).
#include "lance/memwal/wal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/columnar/builder.h"
#include "lance/io/memory_object_store.h"
#include "lance/ipc/writer.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/sharding.h"

namespace lance::memwal {
namespace {

using ::testing::HasSubstr;

SchemaPtr Table() { return schema({field("id", int64(), false), field("s", utf8())}); }

RecordBatchPtr WalRows(std::string_view json) {
  auto b = RecordBatchFromJSON(Table(), json);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

TEST(WalCodec, EntryRoundTrip) {
  auto pk = WithPrimaryKey(Table(), {"id"});
  ASSERT_TRUE(pk.ok());
  auto ws = WalSchema(*pk);
  ASSERT_TRUE(ws.ok());
  EXPECT_EQ((*ws)->num_fields(), 3);
  EXPECT_FALSE((*ws)->field(2)->nullable());
  auto b1 = MakeWalBatch(*ws, *WalRows(R"([{"id":1,"s":"a"},{"id":2,"s":null}])"), false);
  auto b2 = MakeWalBatch(*ws, *WalRows(R"([{"id":3,"s":"c"}])"), true);
  ASSERT_TRUE(b1.ok() && b2.ok());
  auto bytes = EncodeWalEntry(*ws, {*b1, *b2}, 42);
  ASSERT_TRUE(bytes.ok());
  auto e = DecodeWalEntry(*bytes, 7, "e");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->position, 7u);
  EXPECT_EQ(e->writer_epoch, 42u);
  EXPECT_FALSE(e->fence_sentinel);
  EXPECT_TRUE(e->schema->Equals(**ws, /*check_metadata=*/true));
  ASSERT_EQ(e->batches.size(), 2u);
  EXPECT_TRUE(e->batches[0]->Equals(**b1));
  EXPECT_TRUE(e->batches[1]->Equals(**b2));
  EXPECT_EQ(e->num_rows(), 3);
  EXPECT_TRUE(EncodeWalEntry(*ws, {}, 1).status().IsInvalidArgument());
  EXPECT_TRUE(WalSchema(*ws).status().IsInvalidArgument());  // already has _tombstone
  EXPECT_TRUE(WithPrimaryKey(Table(), {"nope"}).status().IsInvalidArgument());
  EXPECT_TRUE(WithPrimaryKey(Table(), {"id", "id"}).status().IsInvalidArgument());
  auto two = WithPrimaryKey(Table(), {"s", "id"});
  EXPECT_EQ((*two)->field(0)->metadata()->Get(kPrimaryKeyPositionKey), "2");
  EXPECT_EQ((*two)->field(1)->metadata()->Get(kPrimaryKeyPositionKey), "1");
}

// A tombstone keeps its key columns only (the other nullable columns become nulls); an upsert
// keeps every value; a table without a primary key keeps its tombstones' values.
TEST(WalCodec, TombstonesCarryTheirKeyAlone) {
  auto pk = WithPrimaryKey(Table(), {"id"});
  ASSERT_TRUE(pk.ok());
  auto ws = WalSchema(*pk);
  ASSERT_TRUE(ws.ok());
  auto rows = WalRows(R"([{"id":1,"s":"a"},{"id":2,"s":null},{"id":3,"s":"c"}])");
  auto del = MakeWalBatch(*ws, *rows, true);
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  auto want = RecordBatchFromJSON(*ws, R"([{"id":1,"s":null,"_tombstone":true},{"id":2,"s":null,"_tombstone":true},{"id":3,"s":null,"_tombstone":true}])");
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  EXPECT_TRUE((*del)->Equals(**want));
  auto up = MakeWalBatch(*ws, *rows, false);
  ASSERT_TRUE(up.ok());
  auto want_up = RecordBatchFromJSON(*ws, R"([{"id":1,"s":"a","_tombstone":false},{"id":2,"s":null,"_tombstone":false},{"id":3,"s":"c","_tombstone":false}])");
  ASSERT_TRUE(want_up.ok());
  EXPECT_TRUE((*up)->Equals(**want_up));
  auto plain = WalSchema(Table());
  ASSERT_TRUE(plain.ok());
  auto kept = MakeWalBatch(*plain, *rows, true);
  ASSERT_TRUE(kept.ok());
  auto want_kept = RecordBatchFromJSON(*plain, R"([{"id":1,"s":"a","_tombstone":true},{"id":2,"s":null,"_tombstone":true},{"id":3,"s":"c","_tombstone":true}])");
  ASSERT_TRUE(want_kept.ok());
  EXPECT_TRUE((*kept)->Equals(**want_kept));
}

TEST(WalCodec, Sentinel) {
  auto bytes = EncodeFenceSentinel(3);
  ASSERT_TRUE(bytes.ok());
  auto e = DecodeWalEntry(*bytes, 4, "s");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->fence_sentinel);
  EXPECT_EQ(e->writer_epoch, 3u);
  EXPECT_EQ(e->schema->num_fields(), 0);
  EXPECT_TRUE(e->batches.empty());
}

Result<BufferPtr> StreamWithMetadata(std::vector<std::pair<std::string, std::string>> md,
                                     SchemaPtr s = nullptr, std::vector<RecordBatchPtr> b = {}) {
  if (!s) s = schema({});
  return ipc::WriteStream(s->WithMetadata(std::make_shared<KeyValueMetadata>(std::move(md))), b);
}

TEST(WalCodec, MalformedEntriesAreCorruption) {
  EXPECT_TRUE(DecodeWalEntry(BufferFromString("garbage"), 1, "g").status().IsCorruption());
  auto no_epoch = StreamWithMetadata({{"x", "1"}});
  EXPECT_THAT(DecodeWalEntry(*no_epoch, 1, "n").status().message(), HasSubstr("no writer_epoch"));
  auto bad_epoch = StreamWithMetadata({{"writer_epoch", "12a"}});
  EXPECT_THAT(DecodeWalEntry(*bad_epoch, 1, "b").status().message(), HasSubstr("'12a'"));
  auto neg = StreamWithMetadata({{"writer_epoch", "-1"}});
  EXPECT_TRUE(DecodeWalEntry(*neg, 1, "b").status().IsCorruption());
  auto fat_sentinel = StreamWithMetadata({{"writer_epoch", "1"}, {"fence_sentinel", "true"}},
                                         Table(), {WalRows(R"([{"id":1,"s":"a"}])")});
  EXPECT_THAT(DecodeWalEntry(*fat_sentinel, 1, "f").status().message(),
              HasSubstr("no fields and no batches"));
  auto file = ipc::WriteFile(Table(), {WalRows(R"([{"id":1,"s":"a"}])")});
  EXPECT_THAT(DecodeWalEntry(*file, 1, "file").status().message(), HasSubstr("IPC file format"));
}

TEST(WalReader, TailAndScan) {
  auto mem = io::MemoryObjectStore::Make();
  const Uuid shard = BucketShardId(2);
  WalReader r(mem, "t", shard);
  EXPECT_EQ(*r.FindTail(0), 1u);
  EXPECT_EQ(*r.FindTail(7), 8u);  // a removed hint still bounds the tip
  auto sentinel = *EncodeFenceSentinel(1);
  for (uint64_t p = 1; p <= 5; ++p) {
    ASSERT_TRUE(mem->PutIfNotExists(WalEntryPath("t", shard, p), sentinel->view()).ok());
  }
  EXPECT_EQ(*r.FindTail(0), 6u);
  EXPECT_EQ(*r.FindTail(3), 6u);
  EXPECT_EQ(*r.FindTail(5), 6u);
  // Entries 1..3 garbage collected: the listing (and the hint) still find the tip.
  for (uint64_t p = 1; p <= 3; ++p) ASSERT_TRUE(mem->Delete(WalEntryPath("t", shard, p)).ok());
  EXPECT_EQ(*r.FindTail(2), 6u);
  EXPECT_EQ(*r.FindTail(0), 6u);
  EXPECT_EQ(*r.ListPositions(), (std::vector<uint64_t>{4, 5}));
  std::vector<uint64_t> seen;
  ASSERT_TRUE(r.Scan(4, 0, [&](WalEntry&& e) {
    seen.push_back(e.position);
    return Status::OK();
  }).ok());
  EXPECT_EQ(seen, (std::vector<uint64_t>{4, 5}));
  // A hole below a known tip is corruption.
  EXPECT_TRUE(r.Scan(3, 6, [](WalEntry&&) { return Status::OK(); }).IsCorruption());
  EXPECT_FALSE(r.Read(9)->has_value());
  ASSERT_TRUE(mem->Put(WalEntryPath("t", shard, 6), "junk").ok());
  EXPECT_THAT(r.Read(6).status().message(), HasSubstr("/wal/"));
}

}  // namespace
}  // namespace lance::memwal
