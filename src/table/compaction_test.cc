// Compaction: the plan (small runs merged, big fragments left alone, deletions
// materialized), every row equal afterwards, stable row ids kept, and the retryable conflict
// with a concurrent delete on a fragment being rewritten.
#include "lance/table/compaction.h"

#include <gtest/gtest.h>

#include "table/commit_internal.h"
#include "table/evolve_test_util.h"

namespace lance::table {
namespace {

using namespace evolve_test;

CompactionOptions Target(int64_t rows) {
  CompactionOptions o;
  o.target_rows_per_fragment = rows;
  return o;
}

TEST(Compaction, MergesSmallFragmentsAndMaterializesDeletions) {
  const std::string uri = FreshUri("compact");
  EV_ASSERT_OK(MakePeople(uri, 20, 2));  // 10 fragments of 2 rows
  EV_ASSERT_OK(DeleteRows(uri, "id = 3 OR id = 10 OR id = 11").status());
  EV_ASSIGN(auto before, Rows(uri));
  ASSERT_EQ(before.size(), 17u);
  CompactionOptions o;
  o.target_rows_per_fragment = 8;
  EV_ASSIGN(CompactionResult r, CompactFiles(uri, o));
  EXPECT_EQ(r.rows_rewritten, 17u);
  EV_ASSIGN(auto ds, Dataset::Open(uri));
  EXPECT_EQ(ds->version(), r.commit.version);
  // Groups close at 8 live rows: [0..4] 9 rows -> 8 + 1, and so on; no deletion files left.
  uint64_t total = 0;
  for (const auto& f : ds->manifest().fragments) {
    EXPECT_FALSE(f.deletion.has_value());
    EXPECT_LE(f.physical_rows, 8u);
    total += f.physical_rows;
  }
  EXPECT_EQ(total, 17u);
  EXPECT_LT(ds->manifest().fragments.size(), 10u);
  EV_ASSIGN(auto after, Rows(uri));
  EXPECT_EQ(after, before);
  EV_ASSIGN(auto loc, internal::Locate(uri));
  EV_ASSIGN(auto sv, internal::LoadVersion(loc, r.commit.version));
  EV_ASSIGN(auto txn, internal::LoadTransaction(loc, sv));
  ASSERT_TRUE(txn->has_rewrite());
  EXPECT_GE(txn->rewrite().groups_size(), 1);

  // Nothing left to do: no commit.
  EV_ASSIGN(CompactionResult again, CompactFiles(uri, o));
  EXPECT_EQ(again.commit.version, 0u);
  EXPECT_TRUE(CompactFiles(uri, Target(0)).status().IsInvalidArgument());
}

TEST(Compaction, LeavesBigFragmentsAlone) {
  const std::string uri = FreshUri("compact_big");
  EV_ASSERT_OK(MakePeople(uri, 10, 5));  // 2 fragments of 5
  EV_ASSIGN(auto ds0, Dataset::Open(uri));
  CompactionOptions o;
  o.target_rows_per_fragment = 5;
  EV_ASSIGN(CompactionResult r, CompactFiles(uri, o));
  EXPECT_EQ(r.commit.version, 0u);
  // One deleted row of 5 (20% > 10%): that fragment alone is rewritten.
  EV_ASSERT_OK(DeleteRows(uri, "id = 7").status());
  EV_ASSIGN(r, CompactFiles(uri, o));
  EXPECT_EQ(r.fragments_removed, 1u);
  EXPECT_EQ(r.fragments_added, 1u);
  EV_ASSIGN(auto ds, Dataset::Open(uri));
  ASSERT_EQ(ds->manifest().fragments.size(), 2u);
  EXPECT_EQ(ds->manifest().fragments[0].files[0].path, ds0->manifest().fragments[0].files[0].path);
  EXPECT_EQ(ds->manifest().fragments[1].physical_rows, 4u);
  EV_ASSIGN(auto rows, Rows(uri));
  std::string json = "[";
  for (int i : {0, 1, 2, 3, 4, 5, 6, 8, 9}) json += (json.size() > 1 ? "," : "") + PersonJson(i, "n" + std::to_string(i), i / 2.0);
  EV_ASSIGN(auto want, Expected(PeopleSchema(), json + "]"));
  EXPECT_EQ(rows, want);
}

TEST(Compaction, KeepsStableRowIds) {
  const std::string uri = FreshUri("compact_stable");
  EV_ASSERT_OK(MakePeople(uri, 6, 2, /*stable_row_ids=*/true));
  EV_ASSERT_OK(DeleteRows(uri, "id = 2").status());
  EV_ASSERT_OK(CompactFiles(uri, Target(100)).status());
  EV_ASSIGN(auto ds, Dataset::Open(uri));
  ASSERT_EQ(ds->manifest().fragments.size(), 1u);
  ScanOptions so;
  so.columns = {"id"};
  so.with_row_id = true;
  EV_ASSIGN(auto rows, Rows(uri, so));
  auto sch = schema({field("id", int64(), false), field("_rowid", uint64())});
  EV_ASSIGN(auto want, Expected(sch, R"([{"id":0,"_rowid":0},{"id":1,"_rowid":1},{"id":3,"_rowid":3},
                                         {"id":4,"_rowid":4},{"id":5,"_rowid":5}])"));
  EXPECT_EQ(rows, want);
  EV_ASSIGN(auto taken, ds->TakeRowIds({4, 2, 0}));
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0]->num_rows(), 2);
}

TEST(Compaction, ConflictsWithConcurrentDeleteOnRewrittenFragment) {
  const std::string uri = FreshUri("compact_race");
  EV_ASSERT_OK(MakePeople(uri, 6, 2));
  CompactionOptions o;
  o.target_rows_per_fragment = 100;
  auto handler = std::make_shared<RacingHandler>([&] {
    auto d = DeleteRows(uri, "id = 4");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
  });
  o.commit.handler = handler;
  auto st = CompactFiles(uri, o).status();
  ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
  EXPECT_NE(st.message().find("retryable"), std::string::npos) << st.ToString();
  // The delete stands; a fresh compaction then succeeds with every row intact.
  EV_ASSIGN(auto before, Rows(uri));
  ASSERT_EQ(before.size(), 5u);
  o.commit.handler = nullptr;
  EV_ASSERT_OK(CompactFiles(uri, o).status());
  EV_ASSIGN(auto after, Rows(uri));
  EXPECT_EQ(after, before);
  // An append committed concurrently is compatible: it survives the compaction.
  auto appender = std::make_shared<RacingHandler>([&] {
    auto more = People(50, 1);
    WriteParams p;
    p.mode = WriteMode::kAppend;
    ASSERT_TRUE(WriteDataset(uri, PeopleSchema(), {*more}, p).ok());
  });
  EV_ASSERT_OK(DeleteRows(uri, "id = 0").status());
  o.commit.handler = appender;
  EV_ASSIGN(CompactionResult r, CompactFiles(uri, o));
  EXPECT_EQ(r.commit.attempts, 2);
  EV_ASSIGN(auto rows, Rows(uri));
  ASSERT_EQ(rows.size(), 5u);
  EV_ASSIGN(auto last, Expected(PeopleSchema(), "[" + PersonJson(50, "n50", 25) + "]"));
  EXPECT_EQ(rows.back(), last[0]);
}

}  // namespace
}  // namespace lance::table
