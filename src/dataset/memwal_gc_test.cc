// MemWAL garbage collection (memwal_gc.h): merged generation directories and WAL entries
// covered by a flushed generation go, nothing a reader or the next writer needs does; the
// horizon keeps what is younger than older_than; a failed flush's leftover goes; a stalled
// writer whose next WAL entry lands in a collected position is fenced instead of acknowledged
// (and, with the re-check switched off, the hazard the spec warns of is real: an acknowledged
// row no reader ever sees).
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "dataset/memwal_test_util.h"
#include "lance/dataset/memwal_gc.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/shard_manifest.h"

namespace lance::memwal {
namespace {

using namespace lsm_test;  // NOLINT: the MemWAL test helpers

std::set<std::string> GenerationDirs(const Table& t, const Uuid& shard) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(t.dir / "t.lance" / kMemWalDir / shard.ToString())) {
    const std::string name = e.path().filename().string();
    if (name.find("_gen_") != std::string::npos) out.insert(name);
  }
  return out;
}

std::set<uint64_t> WalPositions(const Table& t, const Uuid& shard) {
  std::set<uint64_t> out;
  const fs::path wal = t.dir / "t.lance" / kMemWalDir / shard.ToString() / kWalDir;
  for (const auto& e : fs::directory_iterator(wal)) {
    if (auto p = ParseWalFileName(e.path().filename().string())) out.insert(*p);
  }
  return out;
}

dataset::MemWalGcOptions Now(bool dry_run = false) {
  dataset::MemWalGcOptions o;
  o.older_than_seconds = 0;
  o.dry_run = dry_run;
  return o;
}

TEST(MemWalGc, RemovesMergedGenerationsAndFlushedWalOnly) {
  Table t = MakeTable("gc", {0, 1, 2});
  Model model;
  Apply(&model, {0, 1, 2}, "base", false);
  const Uuid shard = UnshardedShardId();
  auto w = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (int g = 0; g < 2; ++g) {
    const std::string tag = "g" + std::to_string(g);
    ASSERT_TRUE((*w)->AppendAndWait(*Batch({1, 10 + g}, tag)).ok());
    Apply(&model, {1, 10 + g}, tag, false);
    ASSERT_TRUE((*w)->Flush().ok());
  }
  auto merged = MergeGenerations(t.store, t.root);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->merged.size(), 2u);
  // A third generation, not merged, and an unflushed tail.
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({2, 20}, "g2")).ok());
  Apply(&model, {2, 20}, "g2", false);
  ASSERT_TRUE((*w)->Flush().ok());
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({0, 30}, "tail")).ok());
  Apply(&model, {0, 30}, "tail", false);
  const ShardManifest m = (*w)->manifest();
  ASSERT_EQ(m.flushed_generations.size(), 3u);
  const std::set<std::string> dirs_before = GenerationDirs(t, shard);
  ASSERT_EQ(dirs_before.size(), 3u);
  const std::set<uint64_t> wal_before = WalPositions(t, shard);
  ASSERT_EQ(*wal_before.rbegin(), m.replay_after_wal_entry_position + 1);

  // Dry run: the same report, nothing removed.
  auto dry = dataset::CollectMemWalGarbage(t.store, t.root, Now(true));
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  EXPECT_EQ(dry->generation_dirs_removed, 2);
  EXPECT_EQ(GenerationDirs(t, shard), dirs_before);
  EXPECT_EQ(WalPositions(t, shard), wal_before);

  // A horizon older than every version removes nothing.
  dataset::MemWalGcOptions hour;
  hour.older_than_seconds = 3600;
  auto kept = dataset::CollectMemWalGarbage(t.store, t.root, hour);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(kept->generation_dirs_removed, 0);
  EXPECT_EQ(kept->wal_files_removed, 0);
  EXPECT_EQ(GenerationDirs(t, shard), dirs_before);

  auto r = dataset::CollectMemWalGarbage(t.store, t.root, Now());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->shards.size(), 1u);
  EXPECT_EQ(r->shards[0].merged_generation, 2u);
  EXPECT_EQ(r->shards[0].replay_after, m.replay_after_wal_entry_position);
  EXPECT_EQ(r->generation_dirs_removed, 2);
  EXPECT_GT(r->bytes_removed, 0);
  const std::set<std::string> left = GenerationDirs(t, shard);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(*left.begin(), m.flushed_generations[2].path);
  // Exactly the WAL entries at or below replay_after went; the tail stays.
  std::set<uint64_t> want_wal;
  for (uint64_t p : wal_before) {
    if (p > m.replay_after_wal_entry_position) want_wal.insert(p);
  }
  EXPECT_EQ(WalPositions(t, shard), want_wal);
  EXPECT_EQ(r->wal_files_removed, static_cast<int64_t>(wal_before.size() - want_wal.size()));
  EXPECT_EQ(Read(t, Consistency::kStrong), model);
  // A second collection finds nothing.
  auto again = dataset::CollectMemWalGarbage(t.store, t.root, Now());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->generation_dirs_removed, 0);
  EXPECT_EQ(again->wal_files_removed, 0);
  ASSERT_TRUE((*w)->Close(false).ok());
  // The next writer replays the tail, flushes and merges: everything still adds up.
  auto next = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ((*next)->recovered_rows(), 2);
  ASSERT_TRUE((*next)->Close(true).ok());
  ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
  ASSERT_TRUE(dataset::CollectMemWalGarbage(t.store, t.root, Now()).ok());
  EXPECT_TRUE(GenerationDirs(t, shard).empty());
  EXPECT_EQ(Read(t, Consistency::kStrong), model);
  auto base = table::Snapshot::Open(t.store, t.root);
  ASSERT_TRUE(base.ok());
  EXPECT_EQ((*base)->CountRows(), model.size());
  fs::remove_all(t.dir);
}

TEST(MemWalGc, HorizonInTheFutureCollectsWhatIsOldEnough) {
  Table t = MakeTable("gc_horizon", {0});
  const Uuid shard = UnshardedShardId();
  auto w = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({1}, "a")).ok());
  ASSERT_TRUE((*w)->Close(true).ok());
  ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
  dataset::MemWalGcOptions o;
  o.older_than_seconds = 3600;
  o.now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 (std::chrono::system_clock::now() + std::chrono::hours(2)).time_since_epoch())
                 .count();
  auto r = dataset::CollectMemWalGarbage(t.store, t.root, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->generation_dirs_removed, 1);
  EXPECT_TRUE(GenerationDirs(t, shard).empty());
  o.older_than_seconds = -1;
  EXPECT_TRUE(dataset::CollectMemWalGarbage(t.store, t.root, o).status().IsInvalidArgument());
  fs::remove_all(t.dir);
}

TEST(MemWalGc, FailedFlushLeftoverGoesRecordedAndFutureStay) {
  Table t = MakeTable("gc_orphan", {0});
  const Uuid shard = UnshardedShardId();
  auto w = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({1}, "a")).ok());
  ASSERT_TRUE((*w)->Flush().ok());
  const std::string dir = ShardDirectory(t.root, shard);
  // A retried flush's first directory of generation 1, and a flush of generation 2 in flight.
  ASSERT_TRUE(t.store->Put(dir + "/deadbeef_gen_1/_versions/1.manifest", "x").ok());
  ASSERT_TRUE(t.store->Put(dir + "/cafef00d_gen_2/_versions/1.manifest", "y").ok());
  auto r = dataset::CollectMemWalGarbage(t.store, t.root, Now());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->shards.size(), 1u);
  EXPECT_EQ(r->shards[0].generation_dirs, std::vector<std::string>{"deadbeef_gen_1"});
  const std::set<std::string> left = GenerationDirs(t, shard);
  EXPECT_EQ(left, (std::set<std::string>{(*w)->manifest().flushed_generations[0].path,
                                         "cafef00d_gen_2"}));
  ASSERT_TRUE((*w)->Close(false).ok());
  fs::remove_all(t.dir);
}

// Writer A stalls; B claims, writes and flushes; collection removes the WAL entries B's flush
// covers, including the position A writes next. A's entry lands without a collision.
void StalledWriterAfterGc(bool recheck) {
  Table t = MakeTable(recheck ? "gc_fence" : "gc_nofence", {0});
  const Uuid shard = UnshardedShardId();
  MemWalWriterOptions ao = WriterOptions(t);
  ao.shard.recheck_epoch_after_write = recheck;
  auto a = MemWalWriter::Open(t.store, t.root, shard, ao);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->AppendAndWait(*Batch({1}, "a")).ok());
  auto b = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
  ASSERT_TRUE(b.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*b)->AppendAndWait(*Batch({10 + i}, "b")).ok());
  ASSERT_TRUE((*b)->Close(true).ok());
  ASSERT_TRUE(dataset::CollectMemWalGarbage(t.store, t.root, Now()).ok());
  auto late = (*a)->AppendAndWait(*Batch({99}, "late"));
  Model visible = Read(t, Consistency::kStrong);
  if (recheck) {
    EXPECT_TRUE(late.status().IsFenced()) << late.status().ToString();
  } else {
    // The hazard: acknowledged, yet no reader (and no next writer) will ever see it.
    ASSERT_TRUE(late.ok()) << late.status().ToString();
    EXPECT_LE(late->position, (*b)->manifest().replay_after_wal_entry_position);
  }
  EXPECT_EQ(visible.count(99), 0u);
  EXPECT_EQ(visible.count(1), 1u);  // A's acknowledged row, replayed by B
  (void)(*a)->Close(false);
  fs::remove_all(t.dir);
}

TEST(MemWalGc, StalledWriterLandingInACollectedPositionIsFenced) { StalledWriterAfterGc(true); }
TEST(MemWalGc, WithoutTheRecheckTheStalledWriteIsAcknowledgedAndLost) {
  StalledWriterAfterGc(false);
}

}  // namespace
}  // namespace lance::memwal
