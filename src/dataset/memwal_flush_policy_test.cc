// The MemTable's flush triggers (mem_wal.md "MemTable"): with auto_flush, a background flush
// starts when the MemTable reaches max_rows, max_bytes or max_age_ms, so no MemTable ever holds
// much more than its bound; every row reaches a generation once, and the merged read equals
// the model.

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "dataset/memwal_test_util.h"
#include "lance/memwal/generation.h"

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

}  // namespace
}  // namespace lance::memwal::lsm_test
