// The merged read as a plan (lance/query/lsm_plan.h): Explain names every source (WAL tail,
// generations newest first, the base), the indexes each source's plan uses and the shards the
// filter prunes; offset / limit over the merged rows; a filter over a generation answered by
// the generation's maintained BTREE, equal to the same read without indexes and to a model.
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "dataset/memwal_test_util.h"
#include "lance/columnar/builder.h"
#include "lance/dataset/dataset.h"
#include "lance/dataset/memwal_gc.h"
#include "lance/index/scalar/create.h"
#include "lance/memwal/enable.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/index_details.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/memwal_writer.h"
#include "lance/memwal/sharding.h"
#include "lance/query/lsm_plan.h"
#include "lance/query/lsm_scan.h"
#include "lance/table/commit.h"
#include "lance/table/write.h"

namespace lance::memwal {
namespace {

using namespace lsm_test;  // NOLINT: the MemWAL test helpers

using LsmRows = std::vector<std::pair<int64_t, std::string>>;

// The merged read's rows in the order it returns them (id, s).
LsmRows PlanRows(const Table& t, LsmReadOptions o, LsmReadStats* st = nullptr) {
  auto r = query::LsmScan(t.store, t.root, o, st);
  EXPECT_TRUE(r.ok()) << o.filter << ": " << r.status().ToString();
  LsmRows out;
  if (!r.ok()) return out;
  for (const auto& b : *r) {
    EXPECT_GT(b->num_rows(), 0);
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.emplace_back(b->column(0)->Values<int64_t>()[i], std::string(b->column(1)->GetView(i)));
    }
  }
  return out;
}

std::string PlanText(const Table& t, const LsmReadOptions& o) {
  auto p = query::PlanLsmScan(t.store, t.root, o);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? p->Explain() : std::string();
}

std::vector<std::string> PlanLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// The lines of the subtree of line `at` (it and every line indented deeper).
std::string Subtree(const std::vector<std::string>& lines, size_t at) {
  auto indent = [](const std::string& l) { return l.find_first_not_of(' '); };
  std::string out = lines[at] + "\n";
  for (size_t i = at + 1; i < lines.size() && indent(lines[i]) > indent(lines[at]); ++i) out += lines[i] + "\n";
  return out;
}

// Base ids 0..19 ("base-i", a BTREE s_idx on s, maintained by the MemWAL); generation 1:
// 1, 10, 11 ("a"); generation 2: 10, 12 ("b") and a tombstone of 11; unflushed WAL tail: 2, 13
// ("a"). Returns the model of the strong read.
Model MakeIndexedLsmTable(Table* t) {
  std::vector<int64_t> base_ids;
  for (int64_t i = 0; i < 20; ++i) base_ids.push_back(i);
  *t = MakeTable("plan_idx", base_ids);
  auto ds = dataset::Dataset::Open(t->store, t->root);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_TRUE((*ds)->CreateScalarIndex("s").ok());
  SetMaintainedIndexes(*t, {"s_idx"});
  auto base = table::Snapshot::Open(t->store, t->root);
  EXPECT_TRUE(base.ok());
  auto maintained = MaintainedIndexesOf(**base);
  EXPECT_TRUE(maintained.ok() && maintained->built.size() == 1u);
  MemWalWriterOptions o = WriterOptions(*t);
  o.generation.maintained_indexes = maintained->built;
  auto w = MemWalWriter::Open(t->store, t->root, UnshardedShardId(), o);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_TRUE((*w)->AppendAndWait(*Batch({1, 10, 11}, "a")).ok());
  EXPECT_TRUE((*w)->Flush().ok());
  EXPECT_TRUE((*w)->AppendAndWait(*Batch({10, 12}, "b")).ok());
  EXPECT_TRUE((*w)->AppendAndWait(*Batch({11}, "x"), true).ok());
  EXPECT_TRUE((*w)->Flush().ok());
  EXPECT_TRUE((*w)->AppendAndWait(*Batch({2, 13}, "a")).ok());
  EXPECT_TRUE((*w)->Close(false).ok());
  Model m;
  for (int64_t i : base_ids) m[i] = "base-" + std::to_string(i);
  m[1] = "a-1";
  m[10] = "b-10";
  m.erase(11);
  m[12] = "b-12";
  m[2] = "a-2";
  m[13] = "a-13";
  return m;
}

TEST(LsmPlan, ExplainNamesEverySourceAndTheIndexesEachUses) {
  Table t;
  MakeIndexedLsmTable(&t);
  const std::string shard = UnshardedShardId().ToString();
  LsmReadOptions o;
  o.filter = "s >= 'a' AND s < 'c'";
  const auto lines = PlanLines(PlanText(t, o));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("LsmMerge: ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("primary key [id], last write wins"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("filter \"s >= 'a' AND s < 'c'\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("shards: 1 listed, 0 pruned"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("strong consistency"), std::string::npos) << lines[0];
  std::vector<size_t> sources;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("  LsmSource: ", 0) == 0) sources.push_back(i);
  }
  ASSERT_EQ(sources.size(), 4u) << PlanText(t, o);
  // Newest first: the tail (entry 5: 1 + 2 entries flushed, then the tombstone's and the last
  // batch's), generation 2, generation 1 (each one version, as lance 12 writes them), the base.
  EXPECT_EQ(lines[sources[0]].rfind("  LsmSource: WAL tail of shard " + shard + ": entries [", 0), 0u)
      << lines[sources[0]];
  EXPECT_NE(lines[sources[0]].find("(2 rows"), std::string::npos) << lines[sources[0]];
  EXPECT_EQ(Subtree(lines, sources[0]), lines[sources[0]] + "\n");  // in memory: no plan under it
  EXPECT_EQ(lines[sources[1]].rfind("  LsmSource: generation 2 of shard " + shard + " (", 0), 0u)
      << lines[sources[1]];
  EXPECT_NE(lines[sources[1]].find("_gen_2, version 1, 3 rows)"), std::string::npos) << lines[sources[1]];
  EXPECT_EQ(lines[sources[2]].rfind("  LsmSource: generation 1 of shard " + shard + " (", 0), 0u)
      << lines[sources[2]];
  EXPECT_NE(lines[sources[2]].find("_gen_1, version 1, 3 rows)"), std::string::npos) << lines[sources[2]];
  EXPECT_EQ(lines[sources[3]].rfind("  LsmSource: the base table ", 0), 0u) << lines[sources[3]];
  EXPECT_NE(lines[sources[3]].find("20 rows"), std::string::npos) << lines[sources[3]];
  // Each generation's filter goes to its maintained s_idx; its keys are read by a second plan.
  for (size_t s : {sources[1], sources[2]}) {
    const std::string sub = Subtree(lines, s);
    EXPECT_NE(sub.find("    Project: columns [id, s, _tombstone]"), std::string::npos) << sub;
    EXPECT_NE(sub.find("ScalarIndexLookup: "), std::string::npos) << sub;
    EXPECT_NE(sub.find("@s_idx(BTREE)"), std::string::npos) << sub;
    EXPECT_NE(sub.find("    Project: columns [id], "), std::string::npos) << sub;
  }
  EXPECT_NE(Subtree(lines, sources[3]).find("@s_idx(BTREE)"), std::string::npos) << Subtree(lines, sources[3]);

  // Without indexes: the same sources, no lookup anywhere; eventual: no tail.
  o.use_index = false;
  EXPECT_EQ(PlanText(t, o).find("ScalarIndexLookup"), std::string::npos) << PlanText(t, o);
  o.consistency = Consistency::kEventual;
  const std::string eventual = PlanText(t, o);
  EXPECT_EQ(eventual.find("WAL tail"), std::string::npos) << eventual;
  EXPECT_NE(eventual.find("eventual consistency"), std::string::npos) << eventual;

  // After merging both generations: no generation source, both counted as skipped, and the
  // base's line says where s_idx lags (index_catchup: generation 0 of 2 merged).
  ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
  LsmReadOptions after;
  after.filter = "s = 'a-1'";
  after.consistency = Consistency::kEventual;
  after.use_index = false;  // (with s_idx the gap is read from the generations: the next test)
  const auto merged = PlanLines(PlanText(t, after));
  ASSERT_EQ(merged.size() >= 2, true);
  EXPECT_NE(merged[0].find("2 generations skipped (merged into the base)"), std::string::npos) << merged[0];
  EXPECT_EQ(std::count_if(merged.begin(), merged.end(),
                          [](const std::string& l) { return l.rfind("  LsmSource: ", 0) == 0; }),
            1);
  EXPECT_NE(merged[1].find("index s_idx covers shard " + shard + " up to generation 0 of 2 merged: "
                           "the rows of generations 1..2"),
            std::string::npos)
      << merged[1];
  fs::remove_all(t.dir);
}

// A generation's filtered rows come from its s_idx; whole results equal the read without
// indexes and the model (a newer row failing the filter hides an older one that passes; a
// tombstone hides the key).
TEST(LsmPlan, GenerationFilterAnsweredByItsIndexEqualsTheScan) {
  Table t;
  const Model strong = MakeIndexedLsmTable(&t);
  Model eventual = strong;
  eventual[2] = "base-2";
  eventual[13] = "base-13";
  for (const char* filter :
       {"s = 'a-10'", "s = 'a-1'", "s = 'a-11'", "s = 'b-10'", "s = 'base-10'", "s = 'base-5'",
        "s >= 'a' AND s < 'b'", "s >= 'a' AND s < 'c' AND id > 1", "s < 'base-3'", "s IS NULL"}) {
    for (Consistency c : {Consistency::kStrong, Consistency::kEventual}) {
      const Model& model = c == Consistency::kStrong ? strong : eventual;
      auto f = query::Filter::MakeForBatch(filter, lsm_test::Rows());
      ASSERT_TRUE(f.ok()) << f.status().ToString();
      LsmRows want;
      for (const auto& [id, s] : model) {
        auto one = Batch({id}, "");
        // The model row as a batch, its s replaced: (id, s).
        StringBuilder sb(utf8());
        ASSERT_TRUE(sb.Append(s).ok());
        auto row = std::make_shared<RecordBatch>(lsm_test::Rows(), 1, std::vector<ArrayPtr>{one->column(0), *sb.Finish()});
        auto pass = (*f)->EvaluateBatch(*row);
        ASSERT_TRUE(pass.ok());
        if (!pass->empty()) want.emplace_back(id, s);
      }
      LsmReadOptions o;
      o.consistency = c;
      o.filter = filter;
      LsmReadStats st;
      LsmRows indexed = PlanRows(t, o, &st);
      EXPECT_EQ(st.point_keys, 0) << filter;
      o.use_index = false;
      LsmRows scanned = PlanRows(t, o);
      EXPECT_EQ(indexed, scanned) << filter;  // same rows, same order
      std::sort(indexed.begin(), indexed.end());
      EXPECT_EQ(indexed, want) << filter << (c == Consistency::kStrong ? " strong" : " eventual");
    }
  }
  fs::remove_all(t.dir);
}

// The model's rows passing `filter`, sorted by id.
LsmRows ModelRows(const Model& model, const std::string& filter) {
  auto f = query::Filter::MakeForBatch(filter, lsm_test::Rows());
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  LsmRows want;
  if (!f.ok()) return want;
  for (const auto& [id, s] : model) {
    Int64Builder ib(int64());
    StringBuilder sb(utf8());
    EXPECT_TRUE(ib.Append(id).ok());
    EXPECT_TRUE(sb.Append(s).ok());
    auto row = std::make_shared<RecordBatch>(lsm_test::Rows(), 1, std::vector<ArrayPtr>{*ib.Finish(), *sb.Finish()});
    auto pass = (*f)->EvaluateBatch(*row);
    EXPECT_TRUE(pass.ok());
    if (pass.ok() && !pass->empty()) want.emplace_back(id, s);
  }
  return want;
}

// mem_wal.md "Index catch-up": after merging generations 1 and 2, s_idx covers only the base's
// first fragment (index_catchup: generation 0 of 2); a filter on s reads the merged rows from
// the two generations (their s_idx answering) and only the covered base fragment, instead of
// filtering the merged fragments unindexed -- the same rows as the read without indexes and
// the model. A commit that is not a merge touching those fragments, or a generation collected
// by GC, turns the rule off (Explain says why); the rows stay the same.
TEST(LsmPlan, IndexCatchupGapIsReadFromTheMergedGenerations) {
  Table t;
  Model strong = MakeIndexedLsmTable(&t);
  ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
  Model eventual = strong;
  eventual[2] = "base-2";
  eventual[13] = "base-13";
  const std::vector<std::string> filters = {"s = 'a-1'", "s = 'b-10'", "s = 'a-10'", "s >= 'a' AND s < 'c'",
                                            "s = 'base-5'", "s < 'base-3'"};
  auto check = [&](const std::string& stage, bool gap, const std::string& why) {
    for (Consistency c : {Consistency::kStrong, Consistency::kEventual}) {
      for (const std::string& filter : filters) {
        LsmReadOptions o;
        o.consistency = c;
        o.filter = filter;
        const std::string text = PlanText(t, o);
        const auto lines = PlanLines(text);
        std::vector<size_t> gens, bases;
        for (size_t i = 0; i < lines.size(); ++i) {
          if (lines[i].rfind("  LsmSource: generation ", 0) == 0) gens.push_back(i);
          if (lines[i].rfind("  LsmSource: the base table ", 0) == 0) bases.push_back(i);
        }
        ASSERT_EQ(bases.size(), 1u) << text;
        const std::string base_tree = Subtree(lines, bases[0]);
        if (gap) {
          EXPECT_NE(lines[0].find("2 generations skipped (merged into the base), 2 of them read for the "
                                  "index catch-up gap"),
                    std::string::npos)
              << stage << ": " << text;
          ASSERT_EQ(gens.size(), 2u) << stage << ": " << text;
          EXPECT_EQ(lines[gens[0]].find("  LsmSource: generation 2 of shard "), 0u) << lines[gens[0]];
          EXPECT_EQ(lines[gens[1]].find("  LsmSource: generation 1 of shard "), 0u) << lines[gens[1]];
          for (size_t g : gens) {
            EXPECT_NE(lines[g].find("merged into the base; read for the index catch-up gap instead of "
                                    "base fragments [1, 2]"),
                      std::string::npos)
                << lines[g];
            EXPECT_NE(Subtree(lines, g).find("@s_idx(BTREE)"), std::string::npos) << Subtree(lines, g);
          }
          EXPECT_NE(lines[bases[0]].find("index catch-up gap of s_idx: base fragments [1, 2] (written by "
                                         "the merges read above) are not read"),
                    std::string::npos)
              << lines[bases[0]];
          EXPECT_NE(base_tree.find("ScalarIndexLookup: "), std::string::npos) << base_tree;
          EXPECT_EQ(base_tree.find("FragmentScan: "), std::string::npos) << base_tree;
        } else {
          EXPECT_TRUE(gens.empty()) << stage << ": " << text;
          EXPECT_NE(lines[bases[0]].find(why), std::string::npos) << stage << ": " << lines[bases[0]];
          EXPECT_NE(base_tree.find("FragmentScan: fragments [1, 2"), std::string::npos) << base_tree;
        }
        const LsmRows want = ModelRows(c == Consistency::kStrong ? strong : eventual, filter);
        LsmRows indexed = PlanRows(t, o);
        o.use_index = false;
        LsmRows scanned = PlanRows(t, o);
        std::sort(indexed.begin(), indexed.end());
        std::sort(scanned.begin(), scanned.end());
        EXPECT_EQ(indexed, want) << stage << ": " << filter;
        EXPECT_EQ(scanned, want) << stage << ": " << filter;
      }
    }
  };
  check("merged", true, "");
  // A delete in the covered fragment (not a merge, but not touching the merged rows): the rule
  // still holds.
  {
    auto ds = dataset::Dataset::Open(t.store, t.root);
    ASSERT_TRUE(ds.ok());
    ASSERT_TRUE((*ds)->Delete("id = 5").ok());
    strong.erase(5);
    eventual.erase(5);
  }
  check("deleted in the covered fragment", true, "");
  // A delete of a merged row (b-12, written by generation 2's merge): the merged fragments no
  // longer hold only what the generations say.
  {
    auto ds = dataset::Dataset::Open(t.store, t.root);
    ASSERT_TRUE(ds.ok());
    ASSERT_TRUE((*ds)->Delete("id = 12").ok());
    strong.erase(12);
    eventual.erase(12);
  }
  check("deleted in a merged fragment", false, "(not a MemWAL merge) wrote base fragment 2");
  fs::remove_all(t.dir);
}

TEST(LsmPlan, IndexCatchupGapNeedsTheGenerations) {
  Table t;
  Model strong = MakeIndexedLsmTable(&t);
  ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
  dataset::MemWalGcOptions gc;
  gc.older_than_seconds = 0;
  gc.now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  (std::chrono::system_clock::now() + std::chrono::hours(2)).time_since_epoch())
                  .count();
  auto r = dataset::CollectMemWalGarbage(t.store, t.root, gc);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->generation_dirs_removed, 2);
  LsmReadOptions o;
  o.filter = "s >= 'a' AND s < 'c'";
  const std::string text = PlanText(t, o);
  EXPECT_EQ(text.find("LsmSource: generation"), std::string::npos) << text;
  EXPECT_NE(text.find("index catch-up gap not read from the generations: generation "), std::string::npos) << text;
  EXPECT_NE(text.find("is gone (garbage-collected)"), std::string::npos) << text;
  LsmRows rows = PlanRows(t, o);
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, ModelRows(strong, o.filter));
  fs::remove_all(t.dir);
}

TEST(LsmPlan, OffsetAndLimitCountTheMergedRows) {
  Table t;
  MakeIndexedLsmTable(&t);
  // The merged order: the tail's winners (2, 13), generation 2's (10, 12; 11 a tombstone),
  // generation 1's (1; 10 and 11 hidden), then the base rows no newer source holds.
  LsmRows order = {{2, "a-2"}, {13, "a-13"}, {10, "b-10"}, {12, "b-12"}, {1, "a-1"}};
  for (int64_t i = 0; i < 20; ++i) {
    if (i != 1 && i != 2 && i != 10 && i != 11 && i != 12 && i != 13) order.emplace_back(i, "base-" + std::to_string(i));
  }
  LsmReadStats all_st;
  ASSERT_EQ(PlanRows(t, {}, &all_st), order);
  EXPECT_EQ(all_st.result_rows, 19);
  EXPECT_EQ(all_st.generations, 2);
  EXPECT_EQ(all_st.generation_rows, 6);
  EXPECT_EQ(all_st.tail_rows, 2);
  EXPECT_EQ(all_st.base_rows, 20);
  for (const std::string& filter : {std::string(), std::string("id >= 5"), std::string("s >= 'b'")}) {
    LsmReadOptions base_o;
    base_o.filter = filter;
    const LsmRows full = PlanRows(t, base_o);
    ASSERT_FALSE(full.empty());
    for (int64_t offset : {0, 1, 2, 3, 4, 5, 7, 12, static_cast<int>(full.size()) - 1,
                           static_cast<int>(full.size()), static_cast<int>(full.size()) + 3}) {
      for (std::optional<int64_t> limit : {std::optional<int64_t>(), std::optional<int64_t>(0),
                                           std::optional<int64_t>(1), std::optional<int64_t>(2),
                                           std::optional<int64_t>(4), std::optional<int64_t>(100)}) {
        LsmReadOptions o = base_o;
        o.offset = offset;
        o.limit = limit;
        const size_t from = std::min(full.size(), static_cast<size_t>(offset));
        const size_t to = limit ? std::min(full.size(), from + static_cast<size_t>(*limit)) : full.size();
        LsmReadStats st;
        EXPECT_EQ(PlanRows(t, o, &st), LsmRows(full.begin() + static_cast<std::ptrdiff_t>(from),
                                            full.begin() + static_cast<std::ptrdiff_t>(to)))
            << "filter '" << filter << "' offset " << offset << " limit " << (limit ? *limit : -1);
        EXPECT_EQ(st.result_rows, static_cast<int64_t>(to - from));
      }
    }
    base_o.offset = 3;
    base_o.limit = 2;
    const std::string text = PlanText(t, base_o);
    EXPECT_NE(text.find("; skip 3 rows, then at most 2"), std::string::npos) << text;
  }
  // Streaming: a limit the WAL tail fills reads no generation and not the base; one that ends in
  // generation 2 does not read generation 1 or the base.
  LsmReadOptions first;
  first.limit = 2;
  LsmReadStats first_st;
  EXPECT_EQ(PlanRows(t, first, &first_st), LsmRows(order.begin(), order.begin() + 2));
  EXPECT_EQ(first_st.tail_rows, 2);
  EXPECT_EQ(first_st.generation_rows, 0);
  EXPECT_EQ(first_st.base_rows, 0);
  first.limit = 4;
  EXPECT_EQ(PlanRows(t, first, &first_st), LsmRows(order.begin(), order.begin() + 4));
  EXPECT_EQ(first_st.generation_rows, 3);  // generation 2's three rows, not generation 1's
  EXPECT_EQ(first_st.base_rows, 0);
  LsmReadOptions bad;
  bad.offset = -1;
  EXPECT_TRUE(query::PlanLsmScan(t.store, t.root, bad).status().IsInvalidArgument());
  fs::remove_all(t.dir);
}

// bucket(a, 4) over a composite key (a, b): a filter pinning a prunes the 3 shards a's value
// does not route to (named on the LsmMerge line, no source of theirs); pinning the whole key
// plans point lookups (no sources). Rows equal the unpruned read's.
TEST(LsmPlan, ExplainNamesThePrunedShards) {
  const SchemaPtr rows = schema({field("a", int64(), false), field("b", utf8(), false), field("s", utf8())});
  auto make = [&](const std::vector<std::tuple<int64_t, std::string, std::string>>& v) {
    Int64Builder a(int64());
    StringBuilder b(utf8()), c(utf8());
    for (const auto& [x, y, z] : v) {
      EXPECT_TRUE(a.Append(x).ok());
      EXPECT_TRUE(b.Append(y).ok());
      EXPECT_TRUE(c.Append(z).ok());
    }
    return std::make_shared<RecordBatch>(rows, static_cast<int64_t>(v.size()),
                                         std::vector<ArrayPtr>{*a.Finish(), *b.Finish(), *c.Finish()});
  };
  Table t;
  t.dir = fs::temp_directory_path() / ("lance_lsm_plan_prune_" + std::to_string(::getpid()));
  fs::remove_all(t.dir);
  fs::create_directories(t.dir);
  const std::string uri = (t.dir / "t.lance").string();
  std::vector<std::tuple<int64_t, std::string, std::string>> base_rows, upserts;
  for (int64_t a = 0; a < 12; ++a) {
    base_rows.emplace_back(a, "x", "base");
    upserts.emplace_back(a, a % 2 ? "x" : "y", "g1");
  }
  ASSERT_TRUE(table::WriteDataset(uri, rows, {make(base_rows)}).ok());
  auto where = io::ObjectStore::FromUri(uri);
  ASSERT_TRUE(where.ok());
  t.store = where->store;
  t.root = where->path;
  EnableOptions eo;
  eo.primary_key = {"a", "b"};
  eo.spec = *BucketSpec(0, *int64(), 4);
  ASSERT_TRUE(EnableMemWal(t.store, t.root, eo).ok());
  auto base = table::Snapshot::Open(t.store, t.root);
  ASSERT_TRUE(base.ok());
  auto router = ShardRouter::Make(eo.spec, *(*base)->schema());
  ASSERT_TRUE(router.ok());
  auto slices = router->Split(make(upserts));
  ASSERT_TRUE(slices.ok());
  ASSERT_EQ(slices->size(), 4u);
  for (const auto& slice : *slices) {
    MemWalWriterOptions o;
    o.shard.table_schema = *WithPrimaryKey(rows, {"a", "b"});
    o.shard.shard_spec_id = eo.spec.spec_id;
    o.primary_key = {"a", "b"};
    o.auto_flush = false;
    auto w = MemWalWriter::Open(t.store, t.root, slice.shard.shard_id, o);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE((*w)->AppendAndWait(*slice.batch).ok());
    ASSERT_TRUE((*w)->Flush().ok());
    ASSERT_TRUE((*w)->Close(false).ok());
  }
  const std::string kept = (*router->Split(make({{2, "x", ""}})))[0].shard.shard_id.ToString();
  std::vector<std::string> pruned;
  for (const auto& slice : *slices) {
    if (slice.shard.shard_id.ToString() != kept) pruned.push_back(slice.shard.shard_id.ToString());
  }
  LsmReadOptions o;
  o.filter = "a = 2";
  const auto lines = PlanLines(PlanText(t, o));
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines[0].find("shards: 4 listed, 3 pruned by the filter ["), std::string::npos) << lines[0];
  size_t sources = 0;
  for (const auto& l : lines) {
    if (l.rfind("  LsmSource: ", 0) != 0) continue;
    ++sources;
    for (const auto& p : pruned) EXPECT_EQ(l.find(p), std::string::npos) << l;
    if (l.find("LsmSource: generation") != std::string::npos) {
      EXPECT_NE(l.find(kept), std::string::npos) << l;
    }
  }
  EXPECT_EQ(sources, 2u);  // the kept shard's generation and the base
  for (const auto& p : pruned) EXPECT_NE(lines[0].find(p), std::string::npos) << p << ": " << lines[0];
  auto read = [&](const std::string& filter) {
    LsmReadOptions ro;
    ro.filter = filter;
    auto r = query::LsmScan(t.store, t.root, ro);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::tuple<int64_t, std::string, std::string>> out;
    for (const auto& b : *r) {
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        out.emplace_back(b->column(0)->Values<int64_t>()[i], std::string(b->column(1)->GetView(i)),
                         std::string(b->column(2)->GetView(i)));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  using R = std::vector<std::tuple<int64_t, std::string, std::string>>;
  EXPECT_EQ(read("a = 2"), (R{{2, "x", "base"}, {2, "y", "g1"}}));
  EXPECT_EQ(read("a + 0 = 2"), read("a = 2"));
  o.filter = "a = 2 AND b = 'y'";
  const std::string lookup = PlanText(t, o);
  EXPECT_NE(lookup.find("point lookups of 1 keys"), std::string::npos) << lookup;
  EXPECT_EQ(PlanLines(lookup).size(), 1u) << lookup;
  EXPECT_EQ(read("a = 2 AND b = 'y'"), (R{{2, "y", "g1"}}));
  fs::remove_all(t.dir);
}

}  // namespace
}  // namespace lance::memwal
