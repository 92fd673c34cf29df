// The streaming write path end to end on a local table: enable, MemWalWriter appends
// (upserts, repeats, tombstones), flush of a generation (deletion vector, _pk_index), LSM reads
// at both consistencies, a writer that dies without flushing and the next one replaying it,
// merging generations into the base (merged_generations in the same commit, readers never
// see a row twice), a second merge doing nothing, and a fenced writer's flush landing nothing.
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"
#include "lance/io/fault_injecting_object_store.h"
#include "lance/index/index_store.h"
#include "lance/io/object_store.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/sharding.h"
#include "lance/memwal/wal.h"
#include "lance/memwal/enable.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/lsm_read.h"
#include "lance/memwal/memwal_writer.h"
#include "lance/dataset/dataset.h"
#include "lance/dataset/memwal_merge.h"
#include "dataset/memwal_test_util.h"
#include "lance/index/scalar/create.h"
#include "lance/memwal/generation.h"
#include "lance/table/commit.h"
#include "lance/query/lsm_scan.h"
#include "lance/table/write.h"

namespace lance::memwal {
namespace {

using namespace lsm_test;  // NOLINT: the MemWAL test helpers

// (a int64, b utf8 or null, s utf8) rows of a composite-key (a, b) table of schema `rows`.
using CompositeRow = std::tuple<int64_t, std::optional<std::string>, std::string>;
RecordBatchPtr CompositeBatch(const SchemaPtr& rows, const std::vector<CompositeRow>& v) {
  Int64Builder a(int64());
  StringBuilder b(utf8()), c(utf8());
  for (const auto& [x, y, z] : v) {
    EXPECT_TRUE(a.Append(x).ok());
    EXPECT_TRUE((y ? b.Append(*y) : b.AppendNull()).ok());
    EXPECT_TRUE(c.Append(z).ok());
  }
  return std::make_shared<RecordBatch>(rows, static_cast<int64_t>(v.size()),
                                       std::vector<ArrayPtr>{*a.Finish(), *b.Finish(), *c.Finish()});
}

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

// A store whose WAL entry writes wait at a gate: appends made while the gate is shut queue up
// behind the first and land as one WAL entry of several batches.
class GatedWalStore final : public io::FaultInjectingObjectStore {
 public:
  using io::FaultInjectingObjectStore::FaultInjectingObjectStore;
  Status PutIfNotExists(std::string_view path, std::string_view bytes) override {
    if (path.find("/wal/") != std::string_view::npos) {
      std::unique_lock<std::mutex> lock(mu_);
      ++waiting_;
      cv_.notify_all();
      cv_.wait(lock, [&] { return open_; });
    }
    return io::FaultInjectingObjectStore::PutIfNotExists(path, bytes);
  }
  // Returns once a WAL write waits at the gate.
  void WaitForAWrite() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return waiting_ > 0; });
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int waiting_ = 0;
};

// The flusher thread waits for the rest of a WAL entry before it freezes the MemTable, even
// when Close() stops it while it waits: entry 2 holds batches A and B; the MemTable reaches
// max_rows at A (the flusher wakes and waits), Close() is called, and only then B arrives. The
// generation must hold A and B (its replay_after covers entry 2), so that a restart after this
// Close(false) loses no acknowledged row. Before the fix, the flusher froze {X, A}, published
// replay_after 2, and B was gone.
TEST(Lsm, ClosingFlushWaitsForTheRestOfItsWalEntry) {
  Table t = MakeTable("entryclose", {0});
  auto gated = std::make_shared<GatedWalStore>(t.store);
  MemWalWriterOptions o = WriterOptions(t);
  o.auto_flush = true;
  o.max_rows = 2;
  const Uuid shard = UnshardedShardId();
  auto w = MemWalWriter::Open(gated, t.root, shard, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  MemWalWriter& writer = **w;
  std::promise<void> a_entered, a_release, b_done;
  std::shared_future<void> release = a_release.get_future().share();
  std::atomic<int> acked{0};
  auto ack = [&](const Result<WalAck>& r) {
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    ++acked;
  };
  ASSERT_TRUE(writer.Append(*Batch({1}, "x"), false, ack).ok());  // entry 1, held at the gate
  gated->WaitForAWrite();
  ASSERT_TRUE(writer.Append(*Batch({2}, "a"), false, [&](const Result<WalAck>& r) {
    ack(r);
    EXPECT_EQ(r.ok() ? r->entry_batches : 0, 2);
    a_entered.set_value();
    release.wait();  // B's insert waits behind A's acknowledgement
  }).ok());
  ASSERT_TRUE(writer.Append(*Batch({3}, "b"), false, [&](const Result<WalAck>& r) {
    ack(r);
    b_done.set_value();
  }).ok());
  gated->Open();
  a_entered.get_future().wait();  // X and A are in the MemTable: 2 rows, the flusher wakes
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::thread closer([&] { EXPECT_TRUE(writer.Close(false).ok()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // Close() has stopped the flusher
  a_release.set_value();
  b_done.get_future().wait();
  closer.join();
  EXPECT_EQ(acked.load(), 3);
  const ShardManifest m = writer.manifest();
  ASSERT_EQ(m.flushed_generations.size(), 1u);
  EXPECT_EQ(m.flushed_generations[0].physical_rows.value_or(0), 3u);
  EXPECT_EQ(m.replay_after_wal_entry_position, 2u);
  Model want{{0, "base-0"}, {1, "x-1"}, {2, "a-2"}, {3, "b-3"}};
  EXPECT_EQ(Read(t, Consistency::kEventual), want);
  auto next = MemWalWriter::Open(t.store, t.root, shard, WriterOptions(t));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ((*next)->recovered_rows(), 0);
  EXPECT_EQ(Read(t, Consistency::kStrong), want);
  ASSERT_TRUE((*next)->Close(false).ok());
  fs::remove_all(t.dir);
}

// Point lookups read only what can hold the key: generations whose bloom filter rules it out
// are skipped unread, the newest generation holding it answers (its _pk_index gives the row),
// keys no generation holds go to the base, a tombstone hides the base row.
TEST(Lsm, PointLookupsSkipGenerationsByBloomFilter) {
  Table t = MakeTable("lookup", {0, 1, 2, 3});
  auto w = MemWalWriter::Open(t.store, t.root, UnshardedShardId(), WriterOptions(t));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({10, 11, 12, 1}, "g1")).ok());
  ASSERT_TRUE((*w)->Flush().ok());
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({20, 21, 22}, "g2")).ok());
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({2}, "x"), true).ok());
  ASSERT_TRUE((*w)->Flush().ok());
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({30, 31, 10}, "g3")).ok());
  ASSERT_TRUE((*w)->Flush().ok());
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({11}, "tail")).ok());

  query::LsmLookupStats st;
  EXPECT_EQ(Lookup(t, {21}, Consistency::kEventual, &st), (Model{{21, "g2-21"}}));
  EXPECT_EQ(st.keys_from_generations, 1);
  EXPECT_EQ(st.generations_probed, 1);       // only g2's _pk_index searched
  EXPECT_EQ(st.generations_skipped, 1);      // g3 ruled out by its bloom filter; g1 not reached
  EXPECT_EQ(st.generation_rows_taken, 1);
  EXPECT_EQ(st.keys_from_base, 0);

  EXPECT_EQ(Lookup(t, {10}, Consistency::kEventual, &st), (Model{{10, "g3-10"}}));
  EXPECT_EQ(st.generations_probed, 1);       // the newest generation answers
  EXPECT_EQ(Lookup(t, {3, 2, 99}, Consistency::kEventual, &st), (Model{{3, "base-3"}}));
  EXPECT_EQ(st.keys_from_generations, 1);    // 2: g2's tombstone
  EXPECT_EQ(st.keys_from_base, 2);           // 3 and 99
  EXPECT_EQ(st.found, 1);
  EXPECT_EQ(Lookup(t, {11}, Consistency::kEventual), (Model{{11, "g1-11"}}));
  EXPECT_EQ(Lookup(t, {11, 1}, Consistency::kStrong, &st), (Model{{11, "tail-11"}, {1, "g1-1"}}));
  EXPECT_EQ(st.keys_from_tail, 1);
  ASSERT_TRUE((*w)->Close(true).ok());
  ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
  EXPECT_EQ(Lookup(t, {11, 2, 21, 0}, Consistency::kEventual, &st),
            (Model{{11, "tail-11"}, {21, "g2-21"}, {0, "base-0"}}));
  EXPECT_EQ(st.generations_probed, 0);  // everything merged: the base answers
  EXPECT_EQ(st.keys_from_base, 4);
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
      // Point lookups of every key (and absent ones, repeated, out of order) agree.
      std::vector<int64_t> keys;
      for (int64_t k = 34; k >= 0; --k) keys.push_back(k);
      keys.push_back(3);
      ASSERT_EQ(Lookup(t, keys, Consistency::kStrong), model) << "step " << step;
      ASSERT_EQ(Lookup(t, keys, Consistency::kEventual), Read(t, Consistency::kEventual)) << "step " << step;
      // A filter applies to each key's newest row: a base row replaced by a newer one that
      // fails it stays hidden.
      Model filtered;
      for (const auto& [id, v] : model) {
        if (v.rfind("base", 0) == 0 || id % 4 == 1) filtered[id] = v;
      }
      ASSERT_EQ(Read(t, Consistency::kStrong, nullptr, "s LIKE 'base%' OR id % 4 = 1"), filtered)
          << "step " << step;
      // A filter that pins the key is answered by point lookups, with the same rows: the
      // rest of the filter applied to each pinned key's newest row.
      for (const Consistency c : {Consistency::kStrong, Consistency::kEventual}) {
        Model want;
        for (const auto& [id, v] : Read(t, c)) {
          if ((id == 1 || id == 2 || id == 7 || id == 33) && v.rfind("base", 0) != 0) want[id] = v;
        }
        LsmReadStats st;
        ASSERT_EQ(Read(t, c, &st, "id IN (33, 7, 2, 1, 7) AND NOT s LIKE 'base%'"), want)
            << "step " << step;
        EXPECT_EQ(st.point_keys, 4);
        ASSERT_EQ(Read(t, c, &st, "5 = id"), Read(t, c, nullptr, "id + 0 = 5")) << "step " << step;
        EXPECT_EQ(st.point_keys, 1);
        EXPECT_EQ(st.base_rows, 0);  // the base answers through the key lookup, not a scan
      }
    }
  }
  ASSERT_TRUE((*w)->Close(true).ok());
  EXPECT_EQ(Read(t, Consistency::kEventual), model);
  ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
  EXPECT_EQ(Read(t, Consistency::kEventual), model);
  fs::remove_all(t.dir);
}

// An append-only MemWAL table (no primary key): generations hold every row as written, reads
// concatenate base + generations without dedup, and merging appends each generation's rows
// to the base (merged_generations moved in the same commit), once.
TEST(Lsm, AppendOnlyTableMergesByConcatenation) {
  Table t;
  t.dir = fs::temp_directory_path() / ("lance_lsm_test_appendonly_" + std::to_string(::getpid()));
  fs::remove_all(t.dir);
  fs::create_directories(t.dir);
  const std::string uri = (t.dir / "t.lance").string();
  ASSERT_TRUE(table::WriteDataset(uri, Rows(), {Batch({0, 1}, "base")}).ok());
  auto where = io::ObjectStore::FromUri(uri);
  ASSERT_TRUE(where.ok());
  t.store = where->store;
  t.root = where->path;
  EnableOptions eo;
  eo.spec = UnshardedSpec();
  ASSERT_TRUE(EnableMemWal(t.store, t.root, eo).ok());
  MemWalWriterOptions o;
  o.shard.table_schema = Rows();
  o.shard.shard_spec_id = 1;
  o.auto_flush = false;
  const Uuid shard = UnshardedShardId();
  auto w = MemWalWriter::Open(t.store, t.root, shard, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({1, 5, 5}, "a")).ok());
  ASSERT_TRUE((*w)->Flush().ok());
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({0, 7}, "b")).ok());
  ASSERT_TRUE((*w)->Close(true).ok());
  // Every (id, s) pair as written, in no particular order.
  auto read_all = [&]() {
    std::multiset<std::pair<int64_t, std::string>> rows;
    LsmReadOptions ro;
    ro.consistency = Consistency::kStrong;
    auto r = LsmScan(t.store, t.root, ro);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return rows;
    for (const auto& b : *r) {
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        rows.emplace(b->column(0)->Values<int64_t>()[i], std::string(b->column(1)->GetView(i)));
      }
    }
    return rows;
  };
  const std::multiset<std::pair<int64_t, std::string>> want{
      {0, "base-0"}, {1, "base-1"}, {1, "a-1"}, {5, "a-5"}, {5, "a-5"}, {0, "b-0"}, {7, "b-7"}};
  EXPECT_EQ(read_all(), want);
  auto merged = MergeGenerations(t.store, t.root);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->merged.size(), 2u);
  EXPECT_EQ(merged->merged[0].rows_upserted, 3);
  EXPECT_EQ(merged->merged[0].rows_deleted, 0);
  EXPECT_EQ(read_all(), want);
  auto base = table::Snapshot::Open(t.store, t.root);
  ASSERT_TRUE(base.ok());
  EXPECT_EQ((*base)->CountRows(), want.size());
  auto details = ReadMemWalDetails(**base);
  ASSERT_TRUE(details.ok());
  EXPECT_EQ(details->MergedGenerationOf(shard), 2u);
  auto again = MergeGenerations(t.store, t.root);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->merged.empty());
  EXPECT_EQ(read_all(), want);
  fs::remove_all(t.dir);
}

// A composite primary key (a int64, b utf8): the flush writes a Binary `_pk_index` over the
// spec's order-preserving tuple encoding (sorted, one entry per physical row, forward row
// positions as ids), last write wins per (a, b) in reads, and the merge replaces base rows by
// the whole tuple.
TEST(Lsm, CompositeKeyFlushWritesATupleEncodedPkIndex) {
  const SchemaPtr rows = schema({field("a", int64(), false), field("b", utf8()), field("s", utf8())});
  auto make = [&](const std::vector<CompositeRow>& v) { return CompositeBatch(rows, v); };
  const fs::path dir = fs::temp_directory_path() / ("lance_lsm_test_composite_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string uri = (dir / "t.lance").string();
  ASSERT_TRUE(table::WriteDataset(uri, rows, {make({{1, "x", "base"}, {1, "y", "base"}, {2, "x", "base"}})}).ok());
  auto where = io::ObjectStore::FromUri(uri);
  ASSERT_TRUE(where.ok());
  EnableOptions eo;
  eo.primary_key = {"a", "b"};
  eo.spec = UnshardedSpec();
  auto en = EnableMemWal(where->store, where->path, eo);
  ASSERT_TRUE(en.ok()) << en.status().ToString();
  MemWalWriterOptions o;
  o.shard.table_schema = *WithPrimaryKey(rows, {"a", "b"});
  o.shard.shard_spec_id = 1;
  o.primary_key = {"a", "b"};
  o.auto_flush = false;
  auto w = MemWalWriter::Open(where->store, where->path, UnshardedShardId(), o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // (1, "y") replaced twice (the second write wins), (2, null) and a string holding 0x00 new.
  const std::string zero("a\0b", 3);
  ASSERT_TRUE((*w)->AppendAndWait(*make({{1, "y", "g1"}, {2, std::nullopt, "g1"}, {-3, zero, "g1"}})).ok());
  ASSERT_TRUE((*w)->AppendAndWait(*make({{1, "y", "g1b"}})).ok());
  auto g = (*w)->Flush();
  ASSERT_TRUE(g.ok() && g->has_value()) << g.status().ToString();
  ASSERT_TRUE((*w)->Close(false).ok());

  // The sidecar: every physical row's tuple key, sorted by bytes, ids = row positions.
  auto enc = PrimaryKeyEncoder::Make(*rows, {"a", "b"});
  ASSERT_TRUE(enc.ok());
  std::vector<std::pair<std::string, uint64_t>> want_index;
  uint64_t pos = 0;
  for (const auto& b : {make({{1, "y", "g1"}, {2, std::nullopt, "g1"}, {-3, zero, "g1"}}), make({{1, "y", "g1b"}})}) {
    auto k = enc->EncodeAll(*b);
    ASSERT_TRUE(k.ok());
    for (auto& x : *k) want_index.emplace_back(std::move(x), pos++);
  }
  std::sort(want_index.begin(), want_index.end());
  // The tuple encoding as the spec writes it: 0x01 + big-endian int64 with the sign bit flipped,
  // then 0x01 + the string with 0x00 escaped as 0x00 0xff + 0x00 0x00; 0x00 for a null.
  const std::string k_minus3 = std::string("\x01\x7f\xff\xff\xff\xff\xff\xff\xfd", 9) +
                               std::string("\x01" "a\x00\xff" "b\x00\x00", 7);
  EXPECT_EQ(want_index[0].first, k_minus3);
  EXPECT_EQ(want_index.back().first, std::string("\x01\x80\0\0\0\0\0\0\x02\x00", 10));
  auto pk_store = index::IndexStore::Make(
      where->store, where->path + "/_mem_wal/" + UnshardedShardId().ToString() + "/" + (*g)->path + "/_pk_index");
  auto reader = pk_store->OpenFile("page_data.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto data = (*reader)->ReadAll();
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  const Array& values = *(*data)->GetColumnByName("values");
  const Array& ids = *(*data)->GetColumnByName("ids");
  EXPECT_EQ(values.type->id(), TypeId::kBinary);
  ASSERT_EQ(values.length, static_cast<int64_t>(want_index.size()));
  for (int64_t i = 0; i < values.length; ++i) {
    EXPECT_EQ(std::string(values.GetView(i)), want_index[static_cast<size_t>(i)].first) << i;
    EXPECT_EQ(ids.Values<uint64_t>()[i], want_index[static_cast<size_t>(i)].second) << i;
  }

  // Reads and the merge: last write wins per whole tuple.
  auto read = [&]() {
    std::map<std::pair<int64_t, std::string>, std::string> m;
    LsmReadOptions ro;
    auto r = LsmScan(where->store, where->path, ro);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return m;
    for (const auto& b : *r) {
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        const std::string key_b = b->column(1)->IsNull(i) ? "<null>" : std::string(b->column(1)->GetView(i));
        m[{b->column(0)->Values<int64_t>()[i], key_b}] = std::string(b->column(2)->GetView(i));
      }
    }
    return m;
  };
  const std::map<std::pair<int64_t, std::string>, std::string> want{
      {{1, "x"}, "base"}, {{1, "y"}, "g1b"}, {{2, "x"}, "base"}, {{2, "<null>"}, "g1"}, {{-3, zero}, "g1"}};
  EXPECT_EQ(read(), want);
  auto merged = MergeGenerations(where->store, where->path);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->merged.size(), 1u);
  EXPECT_EQ(merged->merged[0].rows_deleted, 1);  // the base's (1, "y")
  EXPECT_EQ(read(), want);
  auto base = table::Snapshot::Open(where->store, where->path);
  ASSERT_TRUE(base.ok());
  EXPECT_EQ((*base)->CountRows(), want.size());
  fs::remove_all(dir);
}

// Maintained indexes: a flush builds the base's BTREE `s_idx` over the generation (every row,
// the hidden duplicate included, under the same name), filtered LSM reads are unchanged, the
// merge records that the base index lags (index_catchup 0) and rebuilding it catches it up.
// A name the base has no index of is not built (and said so).
TEST(Lsm, MaintainedIndexesFlushMergeAndCatchUp) {
  Table t = MakeTable("maintained", {0, 1, 2});
  auto ds = dataset::Dataset::Open(t.store, t.root);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_TRUE((*ds)->CreateScalarIndex("s").ok());
  index::scalar::CreateScalarIndexOptions bitmap;
  bitmap.type = index::scalar::ScalarIndexType::kBitmap;
  ASSERT_TRUE((*ds)->CreateScalarIndex("id", bitmap).ok());
  auto set_maintained = [&](const std::vector<std::string>& names) { SetMaintainedIndexes(t, names); };
  auto maintained = [&]() {
    auto base = table::Snapshot::Open(t.store, t.root);
    EXPECT_TRUE(base.ok());
    return MaintainedIndexesOf(**base);
  };
  // A BITMAP index is built too, as a BITMAP (memwal_maintained_test.cc: every scalar type);
  // a name the base has no index of: not built, and said so.
  set_maintained({"id_idx", "s_idx"});
  {
    auto both = maintained();
    ASSERT_TRUE(both.ok()) << both.status().ToString();
    ASSERT_EQ(both->built.size(), 2u);
    EXPECT_EQ(both->built[0].name, "id_idx");
    EXPECT_EQ(both->built[0].options.type, index::scalar::ScalarIndexType::kBitmap);
    EXPECT_EQ(both->built[1].options.type, index::scalar::ScalarIndexType::kBTree);
  }
  set_maintained({"nope_idx", "s_idx"});
  auto m = maintained();
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->built.size(), 1u);
  EXPECT_EQ(m->built[0].name, "s_idx");
  EXPECT_EQ(m->built[0].column, "s");
  ASSERT_EQ(m->not_built.size(), 1u);
  EXPECT_NE(m->not_built[0].find("nope_idx: version"), std::string::npos) << m->not_built[0];

  Model model;
  Apply(&model, {0, 1, 2}, "base", false);
  const Uuid shard = UnshardedShardId();
  MemWalWriterOptions o = WriterOptions(t);
  o.generation.maintained_indexes = m->built;
  auto w = MemWalWriter::Open(t.store, t.root, shard, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({1, 10, 10, 11}, "a")).ok());
  Apply(&model, {1, 10, 10, 11}, "a", false);
  auto g = (*w)->Flush();
  ASSERT_TRUE(g.ok() && g->has_value()) << g.status().ToString();
  auto gen = OpenGeneration(t.store, t.root, shard, **g);
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  const table::IndexInfo* s_idx = nullptr;
  for (const auto& idx : (*gen)->manifest().indices) {
    if (idx.name == "s_idx") s_idx = &idx;
  }
  ASSERT_NE(s_idx, nullptr);
  EXPECT_EQ(table::IndexTypeName(*s_idx), "BTREE");
  EXPECT_EQ(s_idx->fragment_ids, std::vector<uint32_t>{0});
  auto page_data = (*gen)->location().store()->Get(
      (*gen)->root() + "/_indices/" + s_idx->uuid + "/page_data.lance");
  ASSERT_TRUE(page_data.ok()) << page_data.status().ToString();
  Model want_a10{{10, "a-10"}};
  EXPECT_EQ(Read(t, Consistency::kEventual, nullptr, "s = 'a-10'"), want_a10);
  EXPECT_EQ(Read(t, Consistency::kEventual), model);
  ASSERT_TRUE((*w)->Close(false).ok());

  ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
  auto details = [&]() {
    auto base = table::Snapshot::Open(t.store, t.root);
    EXPECT_TRUE(base.ok());
    return *ReadMemWalDetails(**base);
  };
  EXPECT_EQ(details().MergedGenerationOf(shard), 1u);
  EXPECT_EQ(details().CaughtUpGenerationOf("s_idx", shard), 0u);
  EXPECT_EQ(details().CaughtUpGenerationOf("nope_idx", shard), 0u);
  EXPECT_EQ(Read(t, Consistency::kEventual, nullptr, "s = 'a-10'"), want_a10);
  auto reopened = dataset::Dataset::Open(t.store, t.root);
  ASSERT_TRUE(reopened.ok());
  index::scalar::CreateScalarIndexOptions replace;
  replace.replace = true;
  ASSERT_TRUE((*reopened)->CreateScalarIndex("s", replace).ok());
  EXPECT_EQ(details().CaughtUpGenerationOf("s_idx", shard), std::nullopt);
  EXPECT_EQ(details().CaughtUpGenerationOf("nope_idx", shard), 0u);  // not rebuilt: still lagging
  EXPECT_EQ(Read(t, Consistency::kEventual), model);
  fs::remove_all(t.dir);
}

// A composite primary key (a, b) with bucket(a, 4) sharding: a filter that pins both key
// columns (`=` or IN on each, any order, other conjuncts too) is answered by point lookups of
// every combination, the shards none routes to pruned; its rows equal the unpinned scan's
// (the same filter with the pinning spelled so that PinnedKeys cannot see it). A filter pinning
// only the sharding column is scanned, but only in the shards its values route to.
TEST(Lsm, CompositeKeyFilterPinningEveryKeyColumnPrunesShards) {
  const SchemaPtr rows = schema({field("a", int64(), false), field("b", utf8(), false), field("s", utf8())});
  auto make = [&](const std::vector<CompositeRow>& v) { return CompositeBatch(rows, v); };
  const fs::path dir = fs::temp_directory_path() / ("lance_lsm_test_cprune_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string uri = (dir / "t.lance").string();
  std::vector<CompositeRow> base_rows;
  for (int64_t a = 0; a < 16; ++a) {
    for (const char* b : {"x", "y"}) base_rows.emplace_back(a, b, "base");
  }
  ASSERT_TRUE(table::WriteDataset(uri, rows, {make(base_rows)}).ok());
  auto where = io::ObjectStore::FromUri(uri);
  ASSERT_TRUE(where.ok());
  EnableOptions eo;
  eo.primary_key = {"a", "b"};
  eo.spec = *BucketSpec(0, *int64(), 4);
  ASSERT_TRUE(EnableMemWal(where->store, where->path, eo).ok());
  auto base = table::Snapshot::Open(where->store, where->path);
  ASSERT_TRUE(base.ok());
  auto router = ShardRouter::Make(eo.spec, *(*base)->schema());
  ASSERT_TRUE(router.ok()) << router.status().ToString();
  // Newer rows in every shard: (a, "y") updated for even a, (a, "z") new for every a, and a
  // tombstone for (3, "x").
  std::vector<CompositeRow> upserts;
  for (int64_t a = 0; a < 16; ++a) {
    if (a % 2 == 0) upserts.emplace_back(a, "y", "g1");
    upserts.emplace_back(a, "z", "g1");
  }
  auto slices = router->Split(make(upserts));
  ASSERT_TRUE(slices.ok());
  ASSERT_EQ(slices->size(), 4u);
  for (const auto& slice : *slices) {
    MemWalWriterOptions o;
    o.shard.table_schema = *WithPrimaryKey(rows, {"a", "b"});
    o.shard.shard_spec_id = eo.spec.spec_id;
    o.primary_key = {"a", "b"};
    o.auto_flush = false;
    auto w = MemWalWriter::Open(where->store, where->path, slice.shard.shard_id, o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->AppendAndWait(*slice.batch).ok());
    if (slice.shard.shard_id == (*router->Split(make({{3, "x", ""}})))[0].shard.shard_id) {
      ASSERT_TRUE((*w)->AppendAndWait(*make({{3, "x", ""}}), true).ok());
    }
    ASSERT_TRUE((*w)->Flush().ok());
    ASSERT_TRUE((*w)->Close(false).ok());
  }
  auto read = [&](const std::string& filter, LsmReadStats* st) {
    std::map<std::pair<int64_t, std::string>, std::string> m;
    LsmReadOptions ro;
    ro.filter = filter;
    auto r = LsmScan(where->store, where->path, ro, st);
    EXPECT_TRUE(r.ok()) << filter << ": " << r.status().ToString();
    if (!r.ok()) return m;
    for (const auto& b : *r) {
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        auto [it, fresh] = m.emplace(std::make_pair(b->column(0)->Values<int64_t>()[i], std::string(b->column(1)->GetView(i))),
                                     std::string(b->column(2)->GetView(i)));
        EXPECT_TRUE(fresh) << filter << ": a key twice";
      }
    }
    return m;
  };
  struct Case {
    std::string pinned, unpinned;
    int64_t keys;
  };
  for (const Case& c : std::vector<Case>{
           {"a = 2 AND b = 'y'", "a + 0 = 2 AND b = 'y'", 1},
           {"b = 'x' AND a = 3", "b = 'x' AND a + 0 = 3", 1},
           {"a IN (2, 5) AND b IN ('x', 'y', 'z') AND s != 'nope'", "a + 0 IN (2, 5) AND b IN ('x', 'y', 'z') AND s != 'nope'", 6},
           {"a = 7 AND b = 'q'", "a + 0 = 7 AND b = 'q'", 1}}) {
    LsmReadStats pinned_st, scan_st;
    const auto want = read(c.unpinned, &scan_st);
    EXPECT_EQ(scan_st.point_keys, 0) << c.unpinned;
    EXPECT_EQ(read(c.pinned, &pinned_st), want) << c.pinned;
    EXPECT_EQ(pinned_st.point_keys, c.keys) << c.pinned;
    EXPECT_GE(pinned_st.shards_pruned, 4 - c.keys) << c.pinned;
    EXPECT_GT(pinned_st.shards_pruned, 0) << c.pinned;
  }
  // Pinning only a (the sharding column, part of the key): the scan path, reading only the
  // shards a's values route to; the same rows as a scan of every shard.
  for (const auto& [pinned, unpinned] : std::vector<std::pair<std::string, std::string>>{
           {"a = 2", "a + 0 = 2"}, {"a IN (2, 3) AND s = 'g1'", "a + 0 IN (2, 3) AND s = 'g1'"}}) {
    LsmReadStats st, all;
    const auto want = read(unpinned, &all);
    EXPECT_EQ(all.shards_pruned, 0) << unpinned;
    EXPECT_EQ(read(pinned, &st), want) << pinned;
    EXPECT_EQ(st.point_keys, 0) << pinned;
    auto routed = router->Split(make({{2, "", ""}, {3, "", ""}}));
    const int64_t reached = pinned == "a = 2" ? 1 : static_cast<int64_t>(routed->size());
    EXPECT_EQ(st.shards_pruned, 4 - reached) << pinned;
    EXPECT_LT(st.generations, all.generations) << pinned;
  }
  EXPECT_FALSE(read("a = 2", nullptr).empty());
  const auto two_y = read("a = 2 AND b = 'y'", nullptr);
  EXPECT_EQ(two_y, (std::map<std::pair<int64_t, std::string>, std::string>{{{2, "y"}, "g1"}}));
  EXPECT_TRUE(read("a = 3 AND b = 'x'", nullptr).empty());  // the tombstone
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lance::memwal
