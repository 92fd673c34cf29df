// MemWAL state written by lance 12 (tests/golden/memwal, see gen.mjs there): we decode every
// shard manifest and WAL entry it wrote, re-encode them byte for byte, find its shards, epochs,
// sentinels and unflushed tails where the protocol puts them, and read the rows it was given.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lance/columnar/json.h"
#include "lance/io/local_object_store.h"
#include "lance/memwal/index_details.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/memwal/shard_writer.h"
#include "lance/memwal/wal.h"
#include "lance/table/snapshot.h"

namespace lance::memwal {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(__FILE__).parent_path() / "../../tests/golden/memwal";

struct Golden {
  std::shared_ptr<io::ObjectStore> store;
  std::string root = "memwal.lance";
  nlohmann::json expected;
};

Golden Load() {
  Golden g;
  g.store = *io::LocalObjectStore::Make(fs::canonical(kDir).string());
  std::ifstream in(kDir / "expected.json");
  g.expected = nlohmann::json::parse(in);
  return g;
}

std::string File(const Golden& g, const std::string& path) {
  auto b = g.store->Get(path);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? std::string((*b)->view()) : std::string();
}

nlohmann::json Rows(const RecordBatch& b) {
  std::string text;
  EXPECT_TRUE(AppendJsonLines(b, &text).ok());
  nlohmann::json rows = nlohmann::json::array();
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    rows.push_back(nlohmann::json::parse(text.substr(start, nl - start)));
    start = nl + 1;
  }
  return rows;
}

Uuid Shard(int bucket) { return BucketShardId(bucket); }

TEST(MemWalGolden, ShardsAreLancedbsBucketIds) {
  Golden g = Load();
  auto shards = ListShards(*g.store, g.root);
  ASSERT_TRUE(shards.ok()) << shards.status().ToString();
  std::set<std::string> want;
  for (auto it = g.expected["shards"].begin(); it != g.expected["shards"].end(); ++it) {
    want.insert(it.key());
    EXPECT_EQ(it.key(), BucketShardId(it.value()["bucket"].get<int>()).ToString());
  }
  std::set<std::string> got;
  for (const Uuid& u : *shards) got.insert(u.ToString());
  EXPECT_EQ(got, want);
}

// The base manifest's __lance_mem_wal entry: details decode to bucket(id, 4) and our encoding
// of that spec is the reference's bytes exactly.
TEST(MemWalGolden, IndexDetails) {
  Golden g = Load();
  auto snap = table::Snapshot::Open(g.store, g.root);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  const table::IndexInfo* idx = nullptr;
  for (const auto& i : (*snap)->manifest().indices) {
    if (i.name == kMemWalIndexName) idx = &i;
  }
  ASSERT_NE(idx, nullptr);
  EXPECT_EQ(idx->details_type_url, kMemWalDetailsTypeUrl);
  EXPECT_TRUE(idx->fields.empty());
  EXPECT_TRUE(idx->files.empty());
  auto d = DecodeMemWalIndexDetails(idx->details, "golden");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->num_shards, 4u);
  ASSERT_EQ(d->sharding_specs.size(), 1u);
  const int32_t id_field = (*snap)->schema()->GetFieldByName("id")->id();
  auto want_spec = BucketSpec(id_field, *int64(), 4);
  EXPECT_EQ(d->sharding_specs[0], *want_spec);
  EXPECT_TRUE(d->maintained_indexes.empty());
  EXPECT_TRUE(d->merged_generations.empty());
  EXPECT_EQ(EncodeMemWalIndexDetails(*d), idx->details);
  EXPECT_EQ(EncodeMemWalIndexDetails(DetailsForSpec(*want_spec, {}, {})), idx->details);
  // The shard ids of routing with that spec are the directories lance 12 made.
  auto router = ShardRouter::Make(d->sharding_specs[0], *(*snap)->schema());
  ASSERT_TRUE(router.ok()) << router.status().ToString();
}

// Every manifest file re-encodes to the same bytes, and the shard of bucket 0 went through
// the life cycle of FORMAT-NOTES 10.3: claim, flush, re-claim, sentinel, flush.
TEST(MemWalGolden, ShardManifests) {
  Golden g = Load();
  for (int bucket : {0, 1, 2}) {
    ShardManifestStore store(g.store, g.root, Shard(bucket));
    auto versions = store.ListVersions();
    ASSERT_TRUE(versions.ok());
    for (uint64_t v : *versions) {
      const std::string path = ShardManifestPath(g.root, Shard(bucket), v);
      const std::string bytes = File(g, path);
      auto m = DecodeShardManifest(bytes, path);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      EXPECT_EQ(m->version, v);
      EXPECT_EQ(m->shard_id, Shard(bucket));
      EXPECT_EQ(m->shard_spec_id, 1u);
      EXPECT_TRUE(m->shard_field_entries.empty());  // lance 12 does not write them
      EXPECT_EQ(m->status, ShardStatus::kActive);
      EXPECT_TRUE(m->unknown_fields.empty());
      EXPECT_EQ(EncodeShardManifest(*m), bytes) << path;
    }
    auto latest = store.LatestVersion();
    ASSERT_TRUE(latest.ok());
    EXPECT_EQ(*latest, versions->back());
  }
  ShardManifestStore s0(g.store, g.root, Shard(0));
  struct Row {
    uint64_t epoch, replay_after, last_seen, current_generation;
    size_t generations;
  };
  const std::vector<Row> want = {{1, 0, 0, 1, 0}, {1, 3, 3, 2, 1}, {2, 3, 3, 2, 1},
                                 {2, 3, 4, 2, 1}, {2, 5, 5, 3, 2}};
  ASSERT_EQ(*s0.LatestVersion(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    auto m = s0.Read(i + 1);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->writer_epoch, want[i].epoch) << "v" << i + 1;
    EXPECT_EQ(m->replay_after_wal_entry_position, want[i].replay_after) << "v" << i + 1;
    EXPECT_EQ(m->wal_entry_position_last_seen, want[i].last_seen) << "v" << i + 1;
    EXPECT_EQ(m->current_generation, want[i].current_generation) << "v" << i + 1;
    ASSERT_EQ(m->flushed_generations.size(), want[i].generations) << "v" << i + 1;
    for (size_t k = 0; k < m->flushed_generations.size(); ++k) {
      const FlushedGeneration& gen = m->flushed_generations[k];
      EXPECT_EQ(gen.generation, k + 1);
      EXPECT_THAT(gen.path, ::testing::EndsWith("_gen_" + std::to_string(k + 1)));
      EXPECT_EQ(gen.path.size(), 8 + 5 + std::to_string(k + 1).size());
      EXPECT_TRUE(fs::is_directory(kDir / g.root / "_mem_wal" / Shard(0).ToString() / gen.path));
      EXPECT_TRUE(gen.in_memory_bytes.has_value());
      EXPECT_TRUE(gen.physical_rows.has_value());
      EXPECT_EQ(gen.primary_key_bytes, *gen.physical_rows * 8);  // int64 key
    }
  }
  // Generation 1 holds WAL entries 1..3 (5 rows incl. the duplicate key), generation 2 entry 5.
  EXPECT_EQ(s0.Read(5)->flushed_generations[0].physical_rows, 5u);
  EXPECT_EQ(s0.Read(5)->flushed_generations[1].physical_rows, 2u);
  // The shard a re-claimed writer left: claim, re-claim, sentinel recorded.
  ShardManifestStore s2(g.store, g.root, Shard(2));
  ASSERT_EQ(*s2.LatestVersion(), 3u);
  EXPECT_EQ(s2.Read(2)->writer_epoch, 2u);
  EXPECT_EQ(s2.Read(3)->wal_entry_position_last_seen, 2u);
}

// WAL entries: rows equal what went in, one entry per upsert, sentinels at the re-claims; our
// encoding of each entry decodes to the same entry.
TEST(MemWalGolden, WalEntries) {
  Golden g = Load();
  const std::map<int, std::set<uint64_t>> sentinels = {{0, {4}}, {1, {}}, {2, {2}}};
  const std::map<int, std::vector<uint64_t>> epochs = {
      {0, {1, 1, 1, 2, 2}}, {1, {1, 1}}, {2, {1, 2, 2}}};
  for (auto it = g.expected["shards"].begin(); it != g.expected["shards"].end(); ++it) {
    const int bucket = it.value()["bucket"].get<int>();
    WalReader reader(g.store, g.root, Shard(bucket));
    auto positions = reader.ListPositions();
    ASSERT_TRUE(positions.ok());
    ASSERT_EQ(*reader.FindTail(0), positions->size() + 1);
    ASSERT_EQ(*reader.FindTail(1), positions->size() + 1);
    nlohmann::json batches = nlohmann::json::array();
    std::vector<uint64_t> seen_epochs;
    std::set<uint64_t> seen_sentinels;
    Status st = reader.Scan(1, 0, [&](WalEntry&& e) -> Status {
      seen_epochs.push_back(e.writer_epoch);
      const std::string path = WalEntryPath(g.root, Shard(bucket), e.position);
      const std::string bytes = File(g, path);
      if (e.fence_sentinel) {
        seen_sentinels.insert(e.position);
        EXPECT_EQ(e.schema->num_fields(), 0);
        EXPECT_TRUE(e.batches.empty());
        auto ours = EncodeFenceSentinel(e.writer_epoch);
        EXPECT_TRUE(ours.ok());
        auto back = DecodeWalEntry(*ours, e.position, "ours");
        EXPECT_TRUE(back.ok() && back->fence_sentinel && back->writer_epoch == e.writer_epoch);
        return Status::OK();
      }
      EXPECT_EQ(e.batches.size(), 1u) << path;  // one entry per mergeInsert
      const SchemaPtr& s = e.schema;
      EXPECT_EQ(s->num_fields(), 3);
      EXPECT_EQ(s->field(0)->name(), "id");
      EXPECT_FALSE(s->field(0)->nullable());
      EXPECT_EQ(s->field(0)->metadata()->Get(kPrimaryKeyPositionKey), "1");
      EXPECT_EQ(s->field(2)->name(), kTombstoneColumn);
      EXPECT_FALSE(s->field(2)->nullable());
      for (const auto& b : e.batches) batches.push_back(Rows(*b));
      // Our encoding of the same entry is not byte-identical (flatbuffer layout, arrow-rs
      // writes all-valid validity buffers) but decodes to the same schema, epoch and rows.
      auto ours = EncodeWalEntry(e.schema, e.batches, e.writer_epoch);
      EXPECT_TRUE(ours.ok());
      auto back = DecodeWalEntry(*ours, e.position, "ours");
      EXPECT_TRUE(back.ok());
      if (back.ok()) {
        EXPECT_EQ(back->writer_epoch, e.writer_epoch);
        EXPECT_TRUE(back->schema->Equals(*e.schema, /*check_metadata=*/true));
        EXPECT_EQ(Rows(*back->batches[0]), Rows(*e.batches[0]));
      }
      return Status::OK();
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(batches, it.value()["batches"]) << "bucket " << bucket;
    EXPECT_EQ(seen_sentinels, sentinels.at(bucket)) << "bucket " << bucket;
    EXPECT_EQ(seen_epochs, epochs.at(bucket)) << "bucket " << bucket;
  }
}

// What a strongly consistent reader in another process must add: the WAL entries no flushed
// generation covers (bucket 0: none; bucket 1: both; bucket 2: entries 1 and 3).
TEST(MemWalGolden, UnflushedTails) {
  Golden g = Load();
  const std::map<int, std::vector<uint64_t>> want = {{0, {}}, {1, {1, 2}}, {2, {1, 3}}};
  for (const auto& [bucket, positions] : want) {
    ShardManifestStore store(g.store, g.root, Shard(bucket));
    auto latest = store.Latest();
    ASSERT_TRUE(latest.ok());
    auto tail = ReadUnflushedTail(g.store, g.root, Shard(bucket), *latest);
    ASSERT_TRUE(tail.ok()) << tail.status().ToString();
    std::vector<uint64_t> got;
    for (const WalEntry& e : *tail) got.push_back(e.position);
    EXPECT_EQ(got, positions) << "bucket " << bucket;
  }
}

}  // namespace
}  // namespace lance::memwal
