// Strong reads of a live writer in this process (LsmReadOptions::live_writers): the writer's
// MemTables are read instead of the WAL tail on storage, a filter on a maintained BTREE's
// column answered by the MemTable's in-memory index. On random upserts and deletes (with
// flushes between) every such read equals, row for row and in order, the same read through
// the WAL tail, the same read without indexes, and a model; point lookups too. Explain names
// the MemTable source and the in-memory index.
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "dataset/memwal_test_util.h"
#include "lance/dataset/dataset.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/index_details.h"
#include "lance/query/lsm_plan.h"
#include "lance/table/commit.h"

namespace lance::memwal {
namespace {

using namespace lsm_test;  // NOLINT: the MemWAL test helpers

using MtRows = std::vector<std::pair<int64_t, std::string>>;

MtRows MtScan(const Table& t, LsmReadOptions o, LsmReadStats* st = nullptr) {
  auto r = query::LsmScan(t.store, t.root, o, st);
  EXPECT_TRUE(r.ok()) << o.filter << ": " << r.status().ToString();
  MtRows out;
  if (!r.ok()) return out;
  for (const auto& b : *r) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.emplace_back(b->column(0)->Values<int64_t>()[i], std::string(b->column(1)->GetView(i)));
    }
  }
  return out;
}

struct MtCase {
  std::string filter;
  std::function<bool(int64_t, const std::string&)> pass;
  bool indexed;  // a conjunct the in-memory index answers
};

TEST(MemTableIndexRead, LiveWriterReadsEqualTheWalTailReadAndTheModel) {
  std::vector<int64_t> base_ids;
  for (int64_t i = 0; i < 40; ++i) base_ids.push_back(i);
  Table t = MakeTable("mt_index", base_ids);
  {
    auto ds = dataset::Dataset::Open(t.store, t.root);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    ASSERT_TRUE((*ds)->CreateScalarIndex("s").ok());
    ASSERT_TRUE((*ds)->CreateScalarIndex("id").ok());
  }
  SetMaintainedIndexes(t, {"s_idx", "id_idx"});
  auto base = table::Snapshot::Open(t.store, t.root);
  ASSERT_TRUE(base.ok());
  auto maintained = MaintainedIndexesOf(**base);
  ASSERT_TRUE(maintained.ok());
  ASSERT_EQ(maintained->built.size(), 2u);
  MemWalWriterOptions wo = WriterOptions(t);
  wo.generation.maintained_indexes = maintained->built;
  auto w = MemWalWriter::Open(t.store, t.root, UnshardedShardId(), wo);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ((*w)->MemTables().back()->indexes().size(), 2u);

  Model model;
  for (int64_t i : base_ids) model[i] = "base-" + std::to_string(i);
  const std::vector<MtCase> cases = {
      {"s >= 'b' AND s < 'c'", [](int64_t, const std::string& s) { return s >= "b" && s < "c"; }, true},
      {"s = 'a-5'", [](int64_t, const std::string& s) { return s == "a-5"; }, true},
      {"'c' < s", [](int64_t, const std::string& s) { return s > "c"; }, true},
      {"s IN ('a-3', 'b-7', 'c-11', 'base-2')",
       [](int64_t, const std::string& s) { return s == "a-3" || s == "b-7" || s == "c-11" || s == "base-2"; }, true},
      {"id > 20 AND id <= 55", [](int64_t id, const std::string&) { return id > 20 && id <= 55; }, true},
      {"id BETWEEN 10 AND 30 AND s < 'b'",
       [](int64_t id, const std::string& s) { return id >= 10 && id <= 30 && s < "b"; }, true},
      {"s LIKE 'b%' OR id < 5",
       [](int64_t id, const std::string& s) { return s.rfind("b", 0) == 0 || id < 5; }, false},
  };
  std::mt19937 rng(7);
  const char* tags[] = {"a", "b", "c"};
  for (int round = 0; round < 36; ++round) {
    std::vector<int64_t> ids;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) ids.push_back(static_cast<int64_t>(rng() % 70));
    const bool del = rng() % 5 == 0;
    const std::string tag = tags[rng() % 3];
    ASSERT_TRUE((*w)->AppendAndWait(*Batch(ids, tag), del).ok());
    Apply(&model, ids, tag, del);
    if (round % 11 == 10) {
      ASSERT_TRUE((*w)->Flush().ok());
    }
    if (round % 3 != 2) continue;
    for (const MtCase& c : cases) {
      LsmReadOptions tail;
      tail.filter = c.filter;
      LsmReadStats tail_st;
      const MtRows want = MtScan(t, tail, &tail_st);
      LsmReadOptions live = tail;
      live.live_writers = {w->get()};
      LsmReadStats st;
      const MtRows got = MtScan(t, live, &st);
      EXPECT_EQ(got, want) << c.filter << " round " << round;
      EXPECT_EQ(st.tail_entries, 0) << c.filter;  // storage's WAL tail not read
      const int64_t in_memory = (*w)->MemTables().back()->num_rows();
      if (in_memory > 0) {
        EXPECT_GE(st.memtables, 1) << c.filter;
        EXPECT_EQ(st.memtables_indexed, c.indexed ? st.memtables : 0) << c.filter;
        if (c.indexed) {
          EXPECT_LE(st.memtable_candidates, in_memory) << c.filter;
        }
      }
      live.use_index = false;
      LsmReadStats unindexed;
      EXPECT_EQ(MtScan(t, live, &unindexed), want) << c.filter << " without indexes";
      EXPECT_EQ(unindexed.memtables_indexed, 0);
      // The model: each key's newest value passing the filter (a set: the order is the read's).
      Model m;
      for (const auto& [id, s] : model) {
        if (c.pass(id, s)) m[id] = s;
      }
      Model read;
      for (const auto& [id, s] : got) {
        EXPECT_EQ(read.count(id), 0u) << "key " << id << " twice for " << c.filter;
        read[id] = s;
      }
      EXPECT_EQ(read, m) << c.filter << " round " << round;
    }
    // Every row, no filter; and point lookups (the filter pins the key) from the MemTables.
    LsmReadOptions all;
    all.live_writers = {w->get()};
    EXPECT_EQ(MtScan(t, all), MtScan(t, LsmReadOptions{})) << "round " << round;
    std::vector<int64_t> keys = {static_cast<int64_t>(rng() % 70), static_cast<int64_t>(rng() % 70), 99, 3};
    LsmReadOptions lo;
    lo.live_writers = {w->get()};
    query::LsmLookupStats ls;
    auto r = query::LsmLookup(t.store, t.root, *Batch(keys, "key"), lo, &ls);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    Model found;
    for (int64_t i = 0; i < (*r)->num_rows(); ++i) {
      found[(*r)->column(0)->Values<int64_t>()[i]] = std::string((*r)->column(1)->GetView(i));
    }
    EXPECT_EQ(found, Restrict(model, keys)) << "round " << round;
    EXPECT_EQ(ls.tail_entries, 0);
    EXPECT_GE(ls.memtables, 1);
    LsmReadOptions pinned;
    pinned.live_writers = {w->get()};
    pinned.filter = "id IN (" + std::to_string(keys[0]) + ", " + std::to_string(keys[1]) + ", 99)";
    LsmReadOptions pinned_tail = pinned;
    pinned_tail.live_writers.clear();
    EXPECT_EQ(MtScan(t, pinned), MtScan(t, pinned_tail)) << pinned.filter;
  }

  // Explain: the MemTable source, through s_idx's in-memory mirror.
  LsmReadOptions o;
  o.filter = "s >= 'b' AND s < 'c'";
  o.live_writers = {w->get()};
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({1, 2}, "b")).ok());
  auto plan = query::PlanLsmScan(t.store, t.root, o);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const std::string text = plan->Explain();
  EXPECT_NE(text.find("LsmSource: MemTable of shard " + UnshardedShardId().ToString()), std::string::npos) << text;
  EXPECT_NE(text.find("in-memory index s_idx on s for s >= 'b'"), std::string::npos) << text;
  EXPECT_EQ(text.find("WAL tail"), std::string::npos) << text;

  // A fenced writer's MemTables are not used: a newer writer took the shard (and replayed the
  // WAL into its own); the read of the old one's shard goes to storage.
  auto w2 = MemWalWriter::Open(t.store, t.root, UnshardedShardId(), wo);
  ASSERT_TRUE(w2.ok()) << w2.status().ToString();
  LsmReadStats fenced;
  EXPECT_EQ(MtScan(t, o, &fenced), MtScan(t, LsmReadOptions{o.consistency, {}, o.filter}));
  EXPECT_EQ(fenced.memtables, 0);
  EXPECT_TRUE((*w2)->Close(false).ok());
  (void)(*w)->Close(false);
  fs::remove_all(t.dir);
}

}  // namespace
}  // namespace lance::memwal
