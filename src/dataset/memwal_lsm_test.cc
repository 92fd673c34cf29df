// The streaming write path end to end on a local table: enable, MemWalWriter appends
// (upserts, repeats, tombstones), flush of a generation (deletion vector, _pk_index), LSM reads
// at both consistencies, a writer that dies without flushing and the next one replaying it,
// merging generations into the base (merged_generations in the same commit, readers never
// see a row twice), a second merge doing nothing, and a fenced writer's flush landing nothing.
#include <filesystem>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"
#include "lance/io/fault_injecting_object_store.h"
#include "lance/io/object_store.h"
#include "lance/memwal/enable.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/lsm_read.h"
#include "lance/memwal/memwal_writer.h"
#include "lance/dataset/memwal_merge.h"
#include "dataset/memwal_test_util.h"
#include "lance/query/lsm_scan.h"
#include "lance/table/write.h"

namespace lance::memwal {
namespace {

using namespace lsm_test;  // NOLINT: the MemWAL test helpers

TEST(Lsm, WriteFlushReadRecoverMerge) {
  Table t = MakeTable("e2e", {0, 1, 2, 3, 4});
  Model model;
  Apply(&model, {0, 1, 2, 3, 4}, "base", false);
  const Uuid shard = UnshardedShardId();
  {
    auto w = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    auto& writer = **w;
    for (auto [ids, tag, del] : std::vector<std::tuple<std::vector<int64_t>, std::string, bool>>{
             {{1, 10, 11}, "a", false}, {{10, 12}, "b", false}, {{2, 11}, "x", true},
             {{11}, "c", false}}) {
      auto ack = writer.AppendAndWait(*Batch(ids, tag), del);
      ASSERT_TRUE(ack.ok()) << ack.status().ToString();
      Apply(&model, ids, tag, del);
    }
    auto g = writer.Flush();
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ASSERT_TRUE(g->has_value());
    EXPECT_EQ((*g)->generation, 1u);
    EXPECT_EQ((*g)->physical_rows, 8u);
    const ShardManifest m = writer.manifest();
    EXPECT_EQ(m.current_generation, 2u);
    EXPECT_EQ(m.replay_after_wal_entry_position, 4u);
    ASSERT_EQ(m.flushed_generations.size(), 1u);
    EXPECT_TRUE(fs::exists(t.dir / "t.lance" / "_mem_wal" / shard.ToString() /
                           m.flushed_generations[0].path / "_pk_index" / "page_data.lance"));
    EXPECT_EQ(Read(t, Consistency::kEventual), model);
    // Unflushed rows: visible to strong reads only. The writer then "dies" (no flush).
    ASSERT_TRUE(writer.AppendAndWait(*Batch({3, 20}, "d")).ok());
    ASSERT_TRUE(writer.AppendAndWait(*Batch({0}, "x"), true).ok());
    Model eventual = model;
    Apply(&model, {3, 20}, "d", false);
    Apply(&model, {0}, "x", true);
    EXPECT_EQ(Read(t, Consistency::kEventual), eventual);
    EXPECT_EQ(Read(t, Consistency::kStrong), model);
    ASSERT_TRUE(writer.Close(false).ok());
  }
  {
    auto w = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    EXPECT_EQ((*w)->recovered_rows(), 3);
    EXPECT_EQ(Read(t, Consistency::kStrong), model);
    ASSERT_TRUE((*w)->Close(true).ok());
    EXPECT_EQ((*w)->manifest().flushed_generations.size(), 2u);
  }
  LsmReadStats st;
  EXPECT_EQ(Read(t, Consistency::kEventual, &st), model);
  EXPECT_EQ(st.generations, 2);
  EXPECT_EQ(st.tail_rows, 0);

  auto merged = MergeGenerations(t.store, t.root);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->merged.size(), 2u);
  EXPECT_EQ(merged->merged[0].generation, 1u);
  EXPECT_EQ(merged->merged[1].generation, 2u);
  EXPECT_EQ(Read(t, Consistency::kStrong, &st), model);
  EXPECT_EQ(st.generations, 0);
  EXPECT_EQ(st.skipped_merged, 2);
  // The base alone now holds the model.
  auto base = table::Snapshot::Open(t.store, t.root);
  ASSERT_TRUE(base.ok());
  EXPECT_EQ((*base)->CountRows(), model.size());
  auto details = ReadMemWalDetails(**base);
  ASSERT_TRUE(details.ok());
  EXPECT_EQ(details->MergedGenerationOf(shard), 2u);
  auto again = MergeGenerations(t.store, t.root);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->merged.empty());
  EXPECT_EQ(again->skipped, 2);
  fs::remove_all(t.dir);
}

TEST(Lsm, FencedWriterFlushLandsNothing) {
  Table t = MakeTable("fenced", {0});
  const Uuid shard = UnshardedShardId();
  auto a = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->AppendAndWait(*Batch({5}, "a")).ok());
  auto b = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->recovered_rows(), 1);
  auto g = (*a)->Flush();
  EXPECT_TRUE(g.status().IsFenced()) << g.status().ToString();
  EXPECT_TRUE((*b)->manifest().flushed_generations.empty());
  ASSERT_TRUE((*b)->Close(true).ok());
  Model want{{0, "base-0"}, {5, "a-5"}};
  EXPECT_EQ(Read(t, Consistency::kEventual), want);
  fs::remove_all(t.dir);
}

// A flush that fails (here: writing the generation's bloom filter) keeps its MemTable; the next
// Flush retries that generation into a new directory before the newer rows, so replay_after
// never covers rows that are in no published generation.
TEST(Lsm, FailedFlushRetriesItsGeneration) {
  Table t = MakeTable("failflush", {0});
  auto faulty = std::make_shared<io::FaultInjectingObjectStore>(t.store);
  io::FaultRule rule;
  rule.ops = io::OpBit(io::ObjectOp::kPut);
  rule.path_glob = "*bloom_filter.bin";
  faulty->AddRule(rule);
  const Uuid shard = UnshardedShardId();
  auto w = MemWalWriter::Open(faulty, t.root, shard, WriterOptions(t));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({1, 2}, "a")).ok());
  auto failed = (*w)->Flush();
  EXPECT_FALSE(failed.ok());
  EXPECT_TRUE((*w)->manifest().flushed_generations.empty());
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({2, 3}, "b")).ok());
  auto g1 = (*w)->Flush();
  ASSERT_TRUE(g1.ok()) << g1.status().ToString();
  ASSERT_TRUE(g1->has_value());
  EXPECT_EQ((*g1)->generation, 1u);
  EXPECT_EQ((*g1)->physical_rows, 2u);
  EXPECT_EQ((*w)->manifest().replay_after_wal_entry_position, 1u);
  Model want{{0, "base-0"}, {1, "a-1"}, {2, "a-2"}};
  EXPECT_EQ(Read(t, Consistency::kEventual), want);
  want[2] = "b-2";
  want[3] = "b-3";
  EXPECT_EQ(Read(t, Consistency::kStrong), want);
  auto g2 = (*w)->Flush();
  ASSERT_TRUE(g2.ok() && g2->has_value());
  EXPECT_EQ((*g2)->generation, 2u);
  EXPECT_EQ((*w)->manifest().replay_after_wal_entry_position, 2u);
  EXPECT_EQ(Read(t, Consistency::kEventual), want);
  ASSERT_TRUE((*w)->Close(false).ok());
  fs::remove_all(t.dir);
}

// Randomized: upserts and deletes over a small key space with flushes and merges at random
// points; every read (both consistencies at the right moments) equals the model.
TEST(Lsm, RandomizedAgainstModel) {
  Table t = MakeTable("random", {0, 1, 2});
  Model model{{0, "base-0"}, {1, "base-1"}, {2, "base-2"}};
  const Uuid shard = UnshardedShardId();
  std::mt19937 rng(12);
  auto w = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
  ASSERT_TRUE(w.ok());
  for (int step = 0; step < 60; ++step) {
    std::vector<int64_t> ids;
    const int n = 1 + static_cast<int>(rng() % 5);
    for (int i = 0; i < n; ++i) ids.push_back(static_cast<int64_t>(rng() % 30));
    const bool del = rng() % 4 == 0;
    const std::string tag = "s" + std::to_string(step);
    ASSERT_TRUE((*w)->AppendAndWait(*Batch(ids, tag), del).ok());
    Apply(&model, ids, tag, del);
    if (rng() % 7 == 0) {
      ASSERT_TRUE((*w)->Flush().ok());
    }
    if (rng() % 11 == 0) {
      ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
    }
    if (step % 10 == 9) {
      ASSERT_EQ(Read(t, Consistency::kStrong), model) << "step " << step;
    }
  }
  ASSERT_TRUE((*w)->Close(true).ok());
  EXPECT_EQ(Read(t, Consistency::kEventual), model);
  ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
  EXPECT_EQ(Read(t, Consistency::kEventual), model);
  fs::remove_all(t.dir);
}

}  // namespace
}  // namespace lance::memwal
