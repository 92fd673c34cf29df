// Filtered scans planned through scalar indexes (on tests/golden/scalar_index/scalar.lance: nine
// indexes lance 12 built over fragments 0 and 1, deletions in both, fragment 2 appended after
// and unindexed): for every filter the scan with indexes yields exactly the rows of the scan
// without (every row and column, in order; also with a projection, offset / limit, small
// batches and counts), and the plan names the index lookups, the filter left over the rows
// they return, and the fragment scanned without an index.
#include <gtest/gtest.h>

#include <filesystem>

#include "lance/query/planner.h"
#include "lance/query/scanner.h"
#include "query/query_test_util.h"

namespace lance::query {
namespace {

namespace fs = std::filesystem;

const fs::path kIndexScanGolden =
    fs::path(__FILE__).parent_path() / "../../tests/golden/scalar_index/scalar.lance";

class IndexScan : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = table::Snapshot::Open(kIndexScanGolden.string());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    snap_ = *s;
  }
  std::string Explain(const ScanOptions& o) {
    auto sc = Scanner::Make(snap_, o);
    EXPECT_TRUE(sc.ok()) << sc.status().ToString();
    return sc.ok() ? sc->Explain() : "";
  }
  void ExpectSame(ScanOptions o) {
    o.use_index = true;
    auto with = ScanLines(snap_, o, o.batch_size);
    o.use_index = false;
    auto without = ScanLines(snap_, o, o.batch_size);
    ASSERT_TRUE(with.ok()) << o.filter << ": " << with.status().ToString();
    ASSERT_TRUE(without.ok()) << o.filter << ": " << without.status().ToString();
    EXPECT_EQ(*with, *without) << o.filter;
    auto cw = Scanner::Make(snap_, o);
    ASSERT_TRUE(cw.ok());
    o.use_index = true;
    auto ci = Scanner::Make(snap_, o);
    ASSERT_TRUE(ci.ok());
    auto a = cw->CountRows();
    auto b = ci->CountRows();
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b) << o.filter;
    EXPECT_EQ(*b, with->size()) << o.filter;
  }
  std::shared_ptr<table::Snapshot> snap_;
};

const char* kFilters[] = {
    "id = 42", "id = 57", "id = 320", "id >= 150 AND id < 260", "id IN (3, 4, 5, 199, 250, 333, 1000)",
    "id BETWEEN 10 AND 20", "id > 5 AND id < 300 AND i32 > 10", "i32 = 7", "i32 < -40", "i32 IS NULL",
    "i32 IS NOT NULL AND b = true", "f64 > 20.5", "f64 <= -24", "f64 = 0.5", "f64 IS NULL",
    "s = 's010'", "s < 's005'", "s IN ('s050', 's051', 'zz')", "s = ''", "s IS NULL", "s LIKE 's01%'",
    "d = DATE '2019-06-03'", "d > DATE '2019-07-10'", "b = true", "b IS NULL", "cat = 'c3'",
    "cat IN ('c1', 'c9')", "cat IS NULL", "cat = 'c2' AND i32 > 0", "cat = 'c1' OR i32 = 7",
    "cat = 'c1' OR cat = 'c4'", "(cat = 'c1' OR cat = 'c4') AND lower(s) > 's05'",
    "NOT (cat = 'c1')", "id + 1 = 43",
};

TEST_F(IndexScan, SameRowsWithAndWithoutIndexes) {
  for (const char* f : kFilters) {
    ScanOptions o;
    o.filter = f;
    ExpectSame(o);
    o.columns = {"s", "_rowid", "id"};
    o.batch_size = 7;
    ExpectSame(o);
    o.offset = 3;
    o.limit = 11;
    ExpectSame(o);
    o = ScanOptions();
    o.filter = f;
    o.fragment_ids = std::vector<uint64_t>{2, 1};
    ExpectSame(o);
  }
}

TEST_F(IndexScan, ExplainNamesTheIndexesAndTheScannedFragments) {
  ScanOptions o;
  o.filter = "cat = 'c2' AND i32 > 0 AND id + 1 > 3";
  const std::string plan = Explain(o);
  EXPECT_NE(plan.find("Union"), std::string::npos) << plan;
  // The BTree lookup i32 > 0 would touch every row (its page holds them all): it is left to the
  // filter over the rows of the bitmap's lookup.
  EXPECT_NE(plan.find("ScalarIndexLookup: cat = 'c2'@cat_idx(BITMAP); fragments [0, 1] (2 of 3) "
                      "covered by the index"),
            std::string::npos)
      << plan;
  EXPECT_NE(plan.find("Filter: \"(i32 > 0) AND ((id + 1) > 3)\""), std::string::npos) << plan;
  EXPECT_NE(plan.find("FragmentScan: fragments [2] (1 of 3)"), std::string::npos) << plan;

  o.filter = "id = 42";
  o.fragment_ids = std::vector<uint64_t>{0};
  const std::string only = Explain(o);
  EXPECT_EQ(only.find("Union"), std::string::npos) << only;
  EXPECT_EQ(only.find("FragmentScan"), std::string::npos) << only;
  EXPECT_NE(only.find("ScalarIndexLookup: id = 42@id_idx(BTREE); fragments [0] (1 of 3)"),
            std::string::npos)
      << only;

  for (const char* none : {"id + 1 = 43", "NOT (cat = 'c1')", "cat = 'c1' OR i32 + 0 = 7"}) {
    o = ScanOptions();
    o.filter = none;
    EXPECT_EQ(Explain(o).find("ScalarIndexLookup"), std::string::npos) << none;
  }
  o = ScanOptions();
  o.filter = "id = 42";
  o.use_index = false;
  EXPECT_EQ(Explain(o).find("ScalarIndexLookup"), std::string::npos);
}

}  // namespace
}  // namespace lance::query
