// The planner's share rule (kIndexMaxShare): a lookup that an index estimates to return more
// than 40 % of the rows it covers is planned as a scan, with the reason in Explain; a narrow one
// goes through the index. Either way the rows are those of the scan without indexes (every row
// and column, in order) and the counts agree. On a 100k-row table (over kIndexShareMinRows) in
// two fragments with a BTREE on `id` (estimated by the pages a range touches) and a BITMAP on
// `grp` (estimated by the sizes of the row sets it names); and on a small table, where the rule
// does not apply.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lance/columnar/json.h"
#include "lance/index/scalar/create.h"
#include "lance/query/index_training.h"
#include "lance/query/planner.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"
#include "query/query_test_util.h"

namespace lance::query {
namespace {

using index::scalar::ScalarIndexType;

SchemaPtr ShareSchema() { return schema({field("id", int64(), false), field("grp", utf8()), field("v", int32())}); }

// grp: "big" for 3 rows of 5 (60 %), "mid" for 1 of 5 (20 %), else "small" / null.
std::string ShareRows(int64_t n) {
  std::string out;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = (i * 7) % 20;
    const std::string grp = k < 12 ? "\"big\"" : k < 16 ? "\"mid\"" : k < 19 ? "\"small\"" : "null";
    out += "{\"id\":" + std::to_string(i) + ",\"grp\":" + grp + ",\"v\":" + std::to_string((i * 31) % 1000) + "}\n";
  }
  return out;
}

void BuildShareIndex(const std::string& uri, const std::string& column, ScalarIndexType type) {
  auto snap = table::Snapshot::Open(uri);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  index::scalar::CreateScalarIndexOptions o;
  o.type = type;
  std::shared_ptr<const table::Snapshot> at = *snap;
  auto rows = [at](const table::Snapshot&, const std::string& col) { return CollectTrainingData(at, col); };
  auto c = index::scalar::CreateScalarIndex(**snap, column, rows, o);
  ASSERT_TRUE(c.ok()) << column << ": " << c.status().ToString();
}

std::shared_ptr<const table::Snapshot> ShareTable(const std::string& uri, int64_t n) {
  auto batch = ReadJsonLines(ShareRows(n), ShareSchema());
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  if (!batch.ok()) return nullptr;
  table::WriteParams p;
  p.max_rows_per_file = n / 2 + 1;
  EXPECT_TRUE(table::WriteDataset(uri, ShareSchema(), {*batch}, p).ok());
  EXPECT_TRUE(DeleteWhere(uri, "id % 97 = 3").ok());
  BuildShareIndex(uri, "id", ScalarIndexType::kBTree);
  BuildShareIndex(uri, "grp", ScalarIndexType::kBitmap);
  auto snap = table::Snapshot::Open(uri);
  EXPECT_TRUE(snap.ok());
  return snap.ok() ? *snap : nullptr;
}

// Explain of `filter`, after checking that its rows and count equal the unindexed scan's.
std::string CheckedExplain(const std::shared_ptr<const table::Snapshot>& snap, const std::string& filter) {
  ScanOptions o;
  o.filter = filter;
  o.use_index = true;
  auto sc = Scanner::Make(snap, o);
  EXPECT_TRUE(sc.ok()) << filter << ": " << sc.status().ToString();
  if (!sc.ok()) return "";
  auto with = ScanLines(snap, o);
  o.use_index = false;
  auto without = ScanLines(snap, o);
  EXPECT_TRUE(with.ok() && without.ok()) << filter;
  if (!with.ok() || !without.ok()) return "";
  EXPECT_EQ(*with, *without) << filter;
  EXPECT_FALSE(without->empty()) << filter;
  auto count = sc->CountRows();
  EXPECT_TRUE(count.ok()) << filter;
  if (count.ok()) {
    EXPECT_EQ(*count, without->size()) << filter;
  }
  return sc->Explain();
}

TEST(IndexShare, BroadLookupsScanNarrowOnesUseTheIndex) {
  auto snap = ShareTable("memory://index_share/big.lance", 100000);
  ASSERT_TRUE(snap);
  struct Case {
    const char* filter;
    bool indexed;
  };
  const Case cases[] = {
      {"id >= 50000", false},                // 50 % of the rows, by the BTree pages
      {"id < 90000 AND v > 10", false},      // the range is broad; v has no index
      {"grp = 'big'", false},                // 60 %, by the bitmap's size
      {"grp IN ('mid', 'small')", true},     // 20 % + 15 %: 35 %
      {"id >= 1000 AND id < 21000", true},   // 20 %
      {"id = 77777", true},
      // 30 ids over every page of the BTree: by pages touched it would look like all the rows.
      {"id IN (1, 3400, 6800, 10200, 13600, 17000, 20400, 23800, 27200, 30600, 34000, 37400, 40800, "
       "44200, 47600, 51000, 54400, 57800, 61200, 64600, 68000, 71400, 74800, 78200, 81600, 85000, "
       "88400, 91800, 95200, 98600)",
       true},
      {"grp = 'mid'", true},                 // 20 %
      {"grp IS NULL", true},                 // 5 %
      {"grp = 'big' AND id < 5000", true},   // the narrow BTree lookup is kept
  };
  for (const Case& c : cases) {
    const std::string plan = CheckedExplain(snap, c.filter);
    const std::string filter = c.filter;
    const bool indexed = c.indexed;
    EXPECT_EQ(plan.find("ScalarIndexLookup") != std::string::npos, indexed) << filter << "\n" << plan;
    if (!indexed) {
      EXPECT_NE(plan.find("scanned, not looked up:"), std::string::npos) << filter << "\n" << plan;
      EXPECT_NE(plan.find("over the 40 % where a scan is cheaper"), std::string::npos) << plan;
      EXPECT_NE(plan.find("FragmentScan: fragments [0, 1] (2 of 2)"), std::string::npos) << plan;
    } else {
      EXPECT_EQ(plan.find("scanned, not looked up:"), std::string::npos) << filter << "\n" << plan;
    }
  }
  // The reason names the index and the share it estimated (a bitmap's is exact: 60 % of the
  // live rows it was built on).
  const std::string btree = CheckedExplain(snap, "id >= 50000");
  EXPECT_NE(btree.find("not looked up: id >= 50000@id_idx(BTREE) may match about 53248 of the 100000 rows"),
            std::string::npos)
      << btree;
  const std::string bitmap = CheckedExplain(snap, "grp = 'big'");
  EXPECT_NE(bitmap.find("not looked up: grp = 'big'@grp_idx(BITMAP) may match about 59385 of the 100000 "
                        "rows the index covers (59 %"),
            std::string::npos)
      << bitmap;
  // --no-index plans carry no such note.
  ScanOptions o;
  o.filter = "id >= 50000";
  o.use_index = false;
  auto sc = Scanner::Make(snap, o);
  ASSERT_TRUE(sc.ok());
  EXPECT_EQ(sc->Explain().find("scanned, not looked up:"), std::string::npos);
}

// Below kIndexShareMinRows covered rows the index is used however broad the lookup.
TEST(IndexShare, SmallTablesKeepTheIndex) {
  auto snap = ShareTable("memory://index_share/small.lance", 5000);
  ASSERT_TRUE(snap);
  for (const char* filter : {"id >= 100", "grp = 'big'", "grp IS NOT NULL"}) {
    const std::string plan = CheckedExplain(snap, filter);
    EXPECT_NE(plan.find("ScalarIndexLookup"), std::string::npos) << filter << "\n" << plan;
  }
}

// An FM lookup is weighed by the needle's occurrences times kFmLocateCostRows: through the
// index below about 1 % of the covered rows, scanned above -- for contains, LIKE '%x%' and NOT
// contains alike, and beside a BTree lookup (DropBroadLookups weighs it the same way), the
// rows and counts equal to the unindexed scan's either way.
TEST(IndexShare, FmLookupsWeighTheirOccurrences) {
  const std::string uri = "memory://index_share/fm.lance";
  const int64_t n = 100000;
  std::string lines;
  for (int64_t i = 0; i < n; ++i) {
    std::string t = "row " + std::to_string(i);
    if (i % 250 == 0) t += " rare";      // 400 rows: 0.4 % (16 % weighed)
    if (i % 3 == 0) t += " common";      // 33334 rows
    if (i % 40 == 7) t += " tenth";      // 2500 rows: 2.5 % (100 % weighed)
    lines += "{\"id\":" + std::to_string(i) + ",\"t\":\"" + t + "\"}\n";
  }
  const SchemaPtr s = schema({field("id", int64(), false), field("t", utf8())});
  auto batch = ReadJsonLines(lines, s);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  table::WriteParams p;
  p.max_rows_per_file = n / 2 + 1;
  ASSERT_TRUE(table::WriteDataset(uri, s, {*batch}, p).ok());
  BuildShareIndex(uri, "t", ScalarIndexType::kFm);
  BuildShareIndex(uri, "id", ScalarIndexType::kBTree);
  auto opened = table::Snapshot::Open(uri);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const std::shared_ptr<const table::Snapshot> snap = *opened;
  struct Case {
    const char* filter;
    bool indexed;
  };
  const Case cases[] = {
      {"contains(t, 'rare')", true},        {"t LIKE '%rare%'", true},
      {"contains(t, 'row 1234')", true},    {"contains(t, 'common')", false},
      {"t LIKE '%mmo%'", false},            {"contains(t, 'tenth')", false},
      {"NOT contains(t, 'common')", false}, {"contains(t, 'rare') AND id > 5", true},
      {"contains(t, 'tenth') AND id < 20000", true},
  };
  for (const Case& c : cases) {
    const std::string plan = CheckedExplain(snap, c.filter);
    EXPECT_EQ(plan.find("ScalarIndexLookup") != std::string::npos, c.indexed) << c.filter << "\n" << plan;
    EXPECT_EQ(plan.find("in the FM index, each costing about as much as scanning 40 rows") != std::string::npos,
              !c.indexed)
        << c.filter << "\n" << plan;
  }
  const std::string tenth = CheckedExplain(snap, "contains(t, 'tenth')");
  EXPECT_NE(tenth.find("contains(t, Utf8(\"tenth\"))@t_idx(FM) has 2500 occurrences to locate"), std::string::npos)
      << tenth;
  EXPECT_NE(tenth.find("the cost of scanning 100 % of the 100000 rows the index covers"), std::string::npos) << tenth;
  // With several lookups the broad ones are dropped by the same cost: 'tenth' (2500
  // occurrences, under an eighth of the rows but 100000 weighed) is filtered over the rows of
  // the id range (~20k by its BTree pages), not the range dropped for the FM lookup -- whose
  // weighed cost would then make the share rule scan everything.
  const std::string both = CheckedExplain(snap, "contains(t, 'tenth') AND id < 20000");
  EXPECT_NE(both.find("@id_idx(BTREE)"), std::string::npos) << both;
  EXPECT_EQ(both.find("@t_idx(FM)"), std::string::npos) << both;
  const std::string rare = CheckedExplain(snap, "contains(t, 'rare') AND id > 5");
  EXPECT_NE(rare.find("@t_idx(FM)"), std::string::npos) << rare;
  EXPECT_EQ(rare.find("@id_idx(BTREE)"), std::string::npos) << rare;
}

}  // namespace
}  // namespace lance::query
