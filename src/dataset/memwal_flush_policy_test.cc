// The MemTable's flush triggers (mem_wal.md "MemTable"): with auto_flush, a background flush
// starts when the MemTable reaches max_rows, max_bytes or max_age_ms, so no MemTable ever holds
// much more than its bound; every row reaches a generation once, and the merged read equals
// the model.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "dataset/memwal_test_util.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/memtable_budget.h"

namespace lance::memwal::lsm_test {
namespace {

// Appends `batches` batches of 5 rows (keys 5i..5i+4) through a writer with `o`'s triggers,
// then closes it without a final flush; returns the flushed generations' row counts.
std::vector<uint64_t> Ingest(const Table& t, MemWalWriterOptions o, int batches, Model* model, int sleep_ms = 0) {
  o.auto_flush = true;
  auto w = MemWalWriter::Open(t.store, t.root, UnshardedShardId(), o);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return {};
  for (int b = 0; b < batches; ++b) {
    std::vector<int64_t> ids;
    for (int i = 0; i < 5; ++i) ids.push_back(5 * b + i);
    EXPECT_TRUE((*w)->AppendAndWait(*Batch(ids, "t" + std::to_string(b))).ok());
    Apply(model, ids, "t" + std::to_string(b), false);
    if (sleep_ms) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
  }
  // Let a flush the last append triggered finish, then stop without flushing the rest.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE((*w)->Close(false).ok());
  std::vector<uint64_t> rows;
  for (const auto& g : (*w)->manifest().flushed_generations) rows.push_back(g.physical_rows.value_or(0));
  return rows;
}

TEST(LsmFlushPolicy, RowsBytesAndAgeTriggerFlushes) {
  {
    Table t = MakeTable("policy_rows", {0});
    Model model{{0, "base-0"}};
    MemWalWriterOptions o = WriterOptions(t);
    o.max_rows = 20;
    o.max_bytes = 0;
    const auto rows = Ingest(t, o, 12, &model);  // 60 rows
    // Flushes at 20 rows (an append may land while one runs: at most a batch more).
    ASSERT_GE(rows.size(), 2u);
    uint64_t total = 0;
    for (uint64_t r : rows) {
      EXPECT_GE(r, 20u);
      EXPECT_LE(r, 25u);
      total += r;
    }
    EXPECT_LE(total, 60u);
    EXPECT_EQ(Read(t, Consistency::kStrong), model);  // the unflushed rest from the WAL
    ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
    EXPECT_EQ(Read(t, Consistency::kStrong), model);
    fs::remove_all(t.dir);
  }
  {
    Table t = MakeTable("policy_bytes", {0});
    Model model{{0, "base-0"}};
    MemWalWriterOptions o = WriterOptions(t);
    o.max_rows = 0;
    o.max_bytes = 400;  // a few batches of 5 rows
    const auto rows = Ingest(t, o, 20, &model);
    ASSERT_GE(rows.size(), 2u);
    for (uint64_t r : rows) EXPECT_LE(r, 60u);
    EXPECT_EQ(Read(t, Consistency::kStrong), model);
    fs::remove_all(t.dir);
  }
  {
    Table t = MakeTable("policy_age", {0});
    Model model{{0, "base-0"}};
    MemWalWriterOptions o = WriterOptions(t);
    o.max_rows = 0;
    o.max_bytes = 0;
    o.max_age_ms = 100;
    const auto rows = Ingest(t, o, 6, &model, /*sleep_ms=*/60);
    ASSERT_GE(rows.size(), 1u);  // 360 ms of appends: at least one age flush
    for (uint64_t r : rows) EXPECT_LT(r, 30u);
    EXPECT_EQ(Read(t, Consistency::kStrong), model);
    fs::remove_all(t.dir);
  }
  {
    // No trigger: nothing flushes by itself.
    Table t = MakeTable("policy_none", {0});
    Model model{{0, "base-0"}};
    MemWalWriterOptions o = WriterOptions(t);
    o.max_rows = 0;
    o.max_bytes = 0;
    EXPECT_TRUE(Ingest(t, o, 8, &model).empty());
    EXPECT_EQ(Read(t, Consistency::kStrong), model);
    EXPECT_EQ(Read(t, Consistency::kEventual), (Model{{0, "base-0"}}));
    fs::remove_all(t.dir);
  }
}

// Options of a writer flushing by a budget of `batches` five-row batches alone (`*one_batch`:
// what one such batch holds in a MemTable, its key index included).
MemWalWriterOptions BudgetOptions(const Table& t, int64_t batches, int64_t* one_batch) {
  MemWalWriterOptions o = WriterOptions(t);
  o.auto_flush = true;
  o.max_rows = 0;
  o.max_bytes = 0;
  *one_batch = InMemoryBytes(*Batch({0, 1, 2, 3, 4}, "t0")) + 5 * 80;
  o.budget = std::make_shared<MemTableBudget>(batches * *one_batch);
  return o;
}

// Many appends in flight at once (lance lsm write keeps 64): each is reserved in the budget when
// it is admitted, so the MemTables never hold more than the bound however many are queued.
TEST(LsmFlushPolicy, BudgetCountsAppendsInFlight) {
  Table t = MakeTable("policy_in_flight", {0});
  Model model{{0, "base-0"}};
  int64_t one_batch = 0;
  MemWalWriterOptions o = BudgetOptions(t, 8, &one_batch);
  const int64_t bound = o.budget->max_bytes();
  auto w = MemWalWriter::Open(t.store, t.root, UnshardedShardId(), o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::mutex mu;
  std::condition_variable cv;
  int acked = 0, failed = 0;
  constexpr int kBatches = 80;
  for (int b = 0; b < kBatches; ++b) {
    std::vector<int64_t> ids;
    for (int k = 0; k < 5; ++k) ids.push_back(5 * b + k + 1);
    Apply(&model, ids, "t" + std::to_string(b), false);
    ASSERT_TRUE((*w)->Append(*Batch(ids, "t" + std::to_string(b)), false, [&](const Result<WalAck>& r) {
      std::lock_guard<std::mutex> lock(mu);
      ++(r.ok() ? acked : failed);
      cv.notify_all();
    }).ok());
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return acked + failed == kBatches; });
  }
  EXPECT_EQ(failed, 0);
  EXPECT_LE(o.budget->peak_bytes(), bound + one_batch);
  EXPECT_GT(o.budget->peak_bytes(), bound / 2);
  EXPECT_EQ(o.budget->pending_bytes(), 0);
  ASSERT_TRUE((*w)->Close(false).ok());
  EXPECT_GE((*w)->manifest().flushed_generations.size(), 2u);
  EXPECT_EQ(Read(t, Consistency::kStrong), model);
  fs::remove_all(t.dir);
}

// --max-bytes of a process: one MemTableBudget shared by two shard writers bounds their
// MemTables together (active and frozen), however the rows split between them; the writer
// with the largest active MemTable flushes when the active MemTables together hold half the bound.
TEST(LsmFlushPolicy, BudgetBoundsAllWritersTogether) {
  Table t = MakeTable("policy_budget", {0});
  Model model{{0, "base-0"}};
  int64_t one_batch = 0;
  MemWalWriterOptions o = BudgetOptions(t, 12, &one_batch);
  const int64_t bound = o.budget->max_bytes();
  const Uuid shards[2] = {UnshardedShardId(), *Uuid::Parse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")};
  std::unique_ptr<MemWalWriter> w[2];
  for (int i = 0; i < 2; ++i) {
    auto opened = MemWalWriter::Open(t.store, t.root, shards[i], o);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    w[i] = std::move(*opened);
  }
  int64_t max_seen = 0;
  for (int b = 0; b < 60; ++b) {
    // Two thirds of the batches to the first shard, one third to the second.
    const int i = b % 3 == 2 ? 1 : 0;
    std::vector<int64_t> ids;
    for (int k = 0; k < 5; ++k) ids.push_back(1000 * i + 5 * b + k + 1);
    ASSERT_TRUE(w[i]->AppendAndWait(*Batch(ids, "t" + std::to_string(b))).ok());
    Apply(&model, ids, "t" + std::to_string(b), false);
    max_seen = std::max(max_seen, o.budget->active_bytes() + o.budget->frozen_bytes());
  }
  // One append per writer may land after the trigger (it was already past the wait).
  EXPECT_LE(o.budget->peak_bytes(), bound + 2 * one_batch);
  EXPECT_LE(max_seen, o.budget->peak_bytes());
  EXPECT_GT(o.budget->peak_bytes(), bound / 2);  // it did fill up to the trigger
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int64_t flushed_rows = 0;
  size_t flushes[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(w[i]->Close(false).ok());
    flushes[i] = w[i]->manifest().flushed_generations.size();
    const auto gens = w[i]->manifest().flushed_generations;
    EXPECT_GE(gens.size(), 1u) << "writer " << i;
    for (const auto& g : gens) {
      // No generation holds more than the bound's worth of rows.
      EXPECT_LE(static_cast<int64_t>(g.physical_rows.value_or(0)), 5 * (bound / one_batch + 2));
      flushed_rows += static_cast<int64_t>(g.physical_rows.value_or(0));
    }
  }
  // The trigger freezes the largest active MemTable: the first writer's (it takes two thirds
  // of the rows) more often than the second's (every writer froze at each trigger before).
  EXPECT_GT(flushes[0], flushes[1]);
  EXPECT_GE(flushed_rows, 5 * 6 * 2);  // several flushes' worth, far below the 300 rows written
  EXPECT_LE(flushed_rows, 300);
  // Closed writers hold nothing of the budget.
  EXPECT_EQ(o.budget->active_bytes(), 0);
  EXPECT_EQ(o.budget->frozen_bytes(), 0);
  EXPECT_EQ(Read(t, Consistency::kStrong), model);
  fs::remove_all(t.dir);
}

}  // namespace
}  // namespace lance::memwal::lsm_test
