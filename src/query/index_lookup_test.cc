// The planner's index lookups on the indexes lance 12 built (tests/golden/scalar_index):
// which conjuncts an index answers (keyed column, indexable form, literal convertible to the
// key exactly), and that the rows it answers for the fragments it covers are exactly the rows
// of those fragments where our filter engine finds the conjunct TRUE, deletions aside.
#include <gtest/gtest.h>

#include <filesystem>
#include <tuple>

#include "lance/expr/ast.h"
#include "lance/index/scalar/lookup.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"

namespace lance::index::scalar {
namespace {

namespace fs = std::filesystem;

const fs::path kIndexLookupGolden =
    fs::path(__FILE__).parent_path() / "../../tests/golden/scalar_index/scalar.lance";

// Row ids (addresses) of the rows of `fragments` where `filter` is TRUE, found by the query
// layer's filter engine alone (no index).
std::vector<uint64_t> Scanned(const std::shared_ptr<table::Snapshot>& snap,
                              const std::string& filter, const std::vector<uint32_t>& fragments) {
  query::ScanOptions o;
  o.filter = filter;
  o.use_index = false;
  o.fragment_ids = std::vector<uint64_t>(fragments.begin(), fragments.end());
  auto matches = query::FindMatches(snap, o);
  EXPECT_TRUE(matches.ok()) << filter << ": " << matches.status().ToString();
  std::vector<uint64_t> out;
  if (!matches.ok()) return out;
  for (const auto& m : *matches) {
    for (uint32_t row : m.rows) out.push_back(m.fragment_id << 32 | row);
  }
  std::sort(out.begin(), out.end());
  return out;
}

class Lookup : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = table::Snapshot::Open(kIndexLookupGolden.string());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    snap_ = *s;
    catalog_ = ScalarIndexCatalog::Make(snap_->location(), snap_->manifest());
  }
  std::optional<IndexedConjunct> Match(const std::string& text) {
    auto n = expr::Parse(text);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    node_ = std::move(*n);
    return catalog_->MatchConjunct(*node_);
  }
  std::shared_ptr<table::Snapshot> snap_;
  std::shared_ptr<ScalarIndexCatalog> catalog_;
  expr::NodePtr node_;
};

TEST_F(Lookup, AnswersAsTheFilterOnCoveredFragments) {
  ASSERT_FALSE(catalog_->empty());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"id = 42", "id = 42@id_idx(BTREE)"},
      {"42 = id", "id = 42@id_idx(BTREE)"},
      {"id = 57", ""},  // deleted before the index was built
      {"id < 10", ""}, {"10 > id", ""}, {"id <= 10", ""}, {"id > 290", ""}, {"id >= 290", ""},
      {"id > 330", ""},  // only the unindexed fragment has such ids
      {"id BETWEEN 100 AND 120", ""}, {"id IN (1, 2, 3, 250, 999)", ""},
      {"id = 1 OR id = 250 OR id > 295", "(id = 1@id_idx(BTREE) OR id = 250@id_idx(BTREE) OR id > 295@id_idx(BTREE))"},
      {"i32 = 7", ""}, {"i32 < -40", ""}, {"i32 IS NULL", ""}, {"i32 IS NOT NULL", ""},
      {"i32 > 2.5", ""}, {"i32 IN (1, NULL)", ""},
      {"f64 > 20.5", ""}, {"f64 <= -24", ""}, {"f64 = 0.5", ""}, {"f64 = 0", ""}, {"f64 IS NULL", ""},
      {"s = 's010'", ""}, {"s < 's005'", ""}, {"s = ''", ""}, {"s IS NULL", ""},
      {"s LIKE 's01%'", "s LIKE 's01%'@s_idx(BTREE)"}, {"s BETWEEN 's010' AND 's020'", ""},
      {"d = DATE '2019-06-03'", ""}, {"d > DATE '2019-07-10'", ""},
      {"ts >= TIMESTAMP '2023-11-14 22:13:20.040'", ""},
      {"b = true", "b = true@b_idx(BITMAP)"}, {"b = false", ""}, {"b IS NULL", ""},
      {"cat = 'c3'", "cat = 'c3'@cat_idx(BITMAP)"}, {"cat IN ('c1', 'c9')", ""}, {"cat IS NULL", ""},
      {"cat < 'c2'", ""}, {"cat = 'c1' OR i32 = 7", ""},
  };
  size_t nonempty = 0;
  for (const auto& [filter, explain] : cases) {
    auto m = Match(filter);
    ASSERT_TRUE(m.has_value()) << filter;
    if (!explain.empty()) {
      EXPECT_EQ(m->ToString(), explain);
    }
    auto a = catalog_->Answer(*m);
    ASSERT_TRUE(a.ok()) << filter << ": " << a.status().ToString();
    EXPECT_TRUE(a->exact);
    EXPECT_EQ(a->covered, (std::vector<uint32_t>{0, 1})) << filter;
    EXPECT_EQ(a->rows.ToVector(), Scanned(snap_, filter, a->covered)) << filter;
    nonempty += a->rows.empty() ? 0 : 1;
  }
  EXPECT_EQ(nonempty, cases.size() - 2);  // id = 57 and id > 330 match no indexed row
}

TEST_F(Lookup, LeavesWhatNoIndexAnswers) {
  for (const std::string filter :
       {"id + 1 = 5", "id <> 5", "NOT (id = 5)", "id NOT IN (1, 2)", "s LIKE '%x'", "s LIKE 'a_b%'",
        "s ILIKE 'S0%'", "lower(s) = 's010'", "id = i32", "id = 'abc'", "d = '2019-06-03'",
        "ts = TIMESTAMP '2023-11-14 22:13:20.000000001'", "id = 5 OR id + 1 = 3",
        "tags IS NULL", "nope = 3", "id NOT BETWEEN 1 AND 3"}) {
    EXPECT_FALSE(Match(filter).has_value()) << filter;
  }
}

TEST_F(Lookup, PlansConjunctsMergingRangesOnAColumn) {
  for (const auto& [filter, explain, answered] :
       std::vector<std::tuple<std::string, std::string, std::vector<size_t>>>{
           {"id >= 10 AND id < 20", "id >= 10 AND id < 20@id_idx(BTREE)", {0, 1}},
           {"id > 5 AND id + 1 = 9 AND id >= 5 AND id <= 30 AND id < 30",
            "id > 5 AND id < 30@id_idx(BTREE)", {0, 2, 3, 4}},
           {"i32 > 0 AND cat = 'c2' AND i32 <= 40",
            "i32 > 0 AND i32 <= 40@i32_idx(BTREE) AND cat = 'c2'@cat_idx(BITMAP)", {0, 1, 2}},
           {"lower(s) = 'x' AND b = true", "b = true@b_idx(BITMAP)", {1}},
       }) {
    auto n = expr::Parse(filter);
    ASSERT_TRUE(n.ok());
    const auto conjuncts = SplitConjuncts(**n);
    const IndexPlan plan = catalog_->PlanConjuncts(conjuncts);
    EXPECT_EQ(plan.ToString(), explain) << filter;
    EXPECT_EQ(plan.answered, answered) << filter;
    auto a = catalog_->AnswerAll(plan);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    std::string answered_text;
    for (size_t i : plan.answered) {
      answered_text += (answered_text.empty() ? "" : " AND ") + expr::ToString(*conjuncts[i]);
    }
    EXPECT_EQ(a->rows.ToVector(), Scanned(snap_, answered_text, a->covered)) << filter;
    EXPECT_FALSE(a->rows.empty()) << filter;
  }
}

TEST_F(Lookup, DropsBroadLookupsKeepingTheMostSelective) {
  auto n = expr::Parse("i32 > 0 AND id > 3 AND cat = 'c2'");
  ASSERT_TRUE(n.ok());
  const IndexPlan plan = catalog_->PlanConjuncts(SplitConjuncts(**n));
  ASSERT_EQ(plan.lookups.size(), 3u);
  // Each BTree lookup touches its one page of 4096 rows; the bitmap's size is not known.
  auto kept = catalog_->DropBroadLookups(plan, 1000);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->ToString(), "cat = 'c2'@cat_idx(BITMAP)");
  EXPECT_EQ(kept->answered, std::vector<size_t>{2});
  auto all = catalog_->DropBroadLookups(plan, 5000);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->lookups.size(), 3u);
  auto n2 = expr::Parse("i32 > 0 AND id > 3");
  ASSERT_TRUE(n2.ok());
  auto one = catalog_->DropBroadLookups(catalog_->PlanConjuncts(SplitConjuncts(**n2)), 10);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->ToString(), "i32 > 0@i32_idx(BTREE)");
}

TEST_F(Lookup, SplitsTopLevelConjuncts) {
  auto n = expr::Parse("a = 1 AND (b = 2 OR c = 3) AND NOT d AND (e > 1 AND f < 2)");
  ASSERT_TRUE(n.ok());
  const auto parts = SplitConjuncts(**n);
  ASSERT_EQ(parts.size(), 5u);
  EXPECT_EQ(expr::ToString(*parts[0]), "(a = 1)");
  EXPECT_EQ(expr::ToString(*parts[4]), "(f < 2)");
}

}  // namespace
}  // namespace lance::index::scalar
