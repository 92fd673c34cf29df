// Full-text query trees (FullTextQuery::Kind: multi-match, boost, boolean; match boosts and
// phrase slop) on lance 12's golden FTS table (tests/golden/fts_index/fts.lance): each
// compound's rows and scores are computed here from its leaves' own searches (every match) by
// lance 12's rules and must equal the plan's exactly, best first; k cuts the root only; the
// plan names every node; malformed trees are InvalidArgument.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "table_fixtures/fts_golden_test_util.h"

namespace lance::query {
namespace {

std::shared_ptr<const table::Snapshot> TreeGolden() { return fts_golden::OpenGolden().snap; }

using TreeRows = std::vector<std::pair<int64_t, float>>;  // id, score, best first

Result<TreeRows> TreeSearch(const std::shared_ptr<const table::Snapshot>& snap, FullTextQuery q, int64_t k = 1000) {
  q.k = k;
  ScanOptions o;
  o.columns = {"id"};
  o.full_text = std::move(q);
  LANCE_ASSIGN_OR_RAISE(Scanner sc, Scanner::Make(snap, o));
  LANCE_ASSIGN_OR_RAISE(auto batches, sc.ToBatches());
  TreeRows out;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.emplace_back(b->column(0)->Values<int64_t>()[i], b->column(1)->Values<float>()[i]);
    }
  }
  return out;
}

std::map<int64_t, float> TreeMap(const TreeRows& rows) { return {rows.begin(), rows.end()}; }

// `want` (id -> score) best first, ties by id: the row order the plan must give (ids ascend
// with row addresses in the golden table).
TreeRows TreeBestFirst(const std::map<int64_t, float>& want) {
  TreeRows out(want.begin(), want.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

TEST(TextQueryTree, CompoundsScoreAsLance12) {
  auto snap = TreeGolden();
  auto leaf = [&](FullTextQuery q) {
    auto r = TreeSearch(snap, std::move(q));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? TreeMap(*r) : std::map<int64_t, float>{};
  };
  const auto lance = leaf(FullTextQuery::Match("lance", "body"));
  const auto fox = leaf(FullTextQuery::Match("search fox", "body"));
  const auto river = leaf(FullTextQuery::Match("river", "body"));
  const auto title = leaf(FullTextQuery::Match("search", "title"));
  const auto body_search = leaf(FullTextQuery::Match("search", "body"));
  ASSERT_GT(lance.size(), 100u);
  ASSERT_GT(fox.size(), 50u);
  ASSERT_GT(river.size(), 10u);
  ASSERT_GT(title.size(), 10u);

  auto check = [&](const FullTextQuery& q, const std::map<int64_t, float>& want, const char* what) {
    auto got = TreeSearch(snap, q);
    ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
    ASSERT_FALSE(want.empty()) << what;
    EXPECT_EQ(*got, TreeBestFirst(want)) << what;
    auto top = TreeSearch(snap, q, 7);
    ASSERT_TRUE(top.ok());
    EXPECT_EQ(*top, TreeRows(got->begin(), got->begin() + std::min<size_t>(7, got->size()))) << what << " k=7";
  };

  // a match boost multiplies
  std::map<int64_t, float> want;
  FullTextQuery boosted = FullTextQuery::Match("lance", "body");
  boosted.boost = 2.5f;
  for (const auto& [id, s] : lance) want[id] = s * 2.5f;
  check(boosted, want, "match boost");

  // must + should: the must rows, plus the should score where it matches too
  want.clear();
  for (const auto& [id, s] : lance) want[id] = fox.count(id) ? s + fox.at(id) : s;
  check(FullTextQuery::Boolean({{Occur::kMust, FullTextQuery::Match("lance", "body")},
                                {Occur::kShould, FullTextQuery::Match("search fox", "body")}}),
        want, "must + should");

  // must + must: the rows of both, scores summed
  want.clear();
  for (const auto& [id, s] : lance) {
    if (fox.count(id)) want[id] = s + fox.at(id);
  }
  check(FullTextQuery::Boolean({{Occur::kMust, FullTextQuery::Match("lance", "body")},
                                {Occur::kMust, FullTextQuery::Match("search fox", "body")}}),
        want, "must + must");

  // should + should - must_not: the union summed, without the must_not rows
  want.clear();
  for (const auto& [id, s] : river) want[id] = s;
  for (const auto& [id, s] : title) want[id] = want.count(id) ? want[id] + s : s;
  for (const auto& [id, s] : lance) want.erase(id);
  check(FullTextQuery::Boolean({{Occur::kShould, FullTextQuery::Match("river", "body")},
                                {Occur::kShould, FullTextQuery::Match("search", "title")},
                                {Occur::kMustNot, FullTextQuery::Match("lance", "body")}}),
        want, "should + should - must_not");

  // boost: positive minus negative_boost x negative where both match
  want.clear();
  for (const auto& [id, s] : fox) want[id] = lance.count(id) ? s - 0.3f * lance.at(id) : s;
  check(FullTextQuery::Boost(FullTextQuery::Match("search fox", "body"), FullTextQuery::Match("lance", "body"), 0.3f),
        want, "boost");

  // multi-match: the best of the columns' boosted scores
  want.clear();
  for (const auto& [id, s] : body_search) want[id] = s;
  for (const auto& [id, s] : title) want[id] = want.count(id) ? std::max(want[id], s * 2.0f) : s * 2.0f;
  check(FullTextQuery::MultiMatch("search", {"body", "title"}, {1.0f, 2.0f}), want, "multi-match");

  // nested: a boolean inside a boost
  const auto phrase = leaf(FullTextQuery::Phrase("lance search", "body", 1));
  ASSERT_FALSE(phrase.empty());
  want.clear();
  for (const auto& [id, s] : river) want[id] = s;
  for (const auto& [id, s] : phrase) want[id] = want.count(id) ? want[id] + s : s;
  for (auto& [id, s] : want) {
    if (title.count(id)) s -= 0.5f * title.at(id);
  }
  check(FullTextQuery::Boost(FullTextQuery::Boolean({{Occur::kShould, FullTextQuery::Match("river", "body")},
                                                     {Occur::kShould, FullTextQuery::Phrase("lance search", "body", 1)}}),
                             FullTextQuery::Match("search", "title")),
        want, "boost of a boolean");
}

TEST(TextQueryTree, SlopWidensPhrases) {
  auto snap = TreeGolden();
  auto rows = [&](uint32_t slop) {
    auto r = TreeSearch(snap, FullTextQuery::Phrase("lance search", "body", slop));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? TreeMap(*r) : std::map<int64_t, float>{};
  };
  const auto s0 = rows(0), s2 = rows(2);
  ASSERT_FALSE(s0.empty());
  EXPECT_GT(s2.size(), s0.size());
  for (const auto& [id, s] : s0) {
    ASSERT_TRUE(s2.count(id)) << id;
    EXPECT_EQ(s2.at(id), s) << "a phrase scores as the match of its tokens, whatever the slop";
  }
}

TEST(TextQueryTree, ExplainAndErrors) {
  auto snap = TreeGolden();
  ScanOptions o;
  FullTextQuery phrase = FullTextQuery::Phrase("lance search", "body", 2);
  o.full_text = FullTextQuery::Boolean({{Occur::kMust, phrase},
                                        {Occur::kMustNot, FullTextQuery::Match("river", "title")}});
  o.full_text->k = 4;
  auto sc = Scanner::Make(snap, o);
  ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  const std::string plan = sc->Explain();
  EXPECT_NE(plan.find("FullTextSearch: boolean: must rows"), std::string::npos) << plan;
  EXPECT_NE(plan.find("top 4"), std::string::npos) << plan;
  EXPECT_NE(plan.find("must: phrase query [lance search] on column body by body_idx@"), std::string::npos) << plan;
  EXPECT_NE(plan.find("slop 2"), std::string::npos) << plan;
  EXPECT_NE(plan.find("must_not: match query [river] on column title by title_idx@"), std::string::npos) << plan;

  auto st = [&](FullTextQuery q) {
    ScanOptions so;
    so.full_text = std::move(q);
    auto s = Scanner::Make(snap, so);
    if (!s.ok()) return s.status();
    return s->ToBatches().status();
  };
  const Status only_not = st(FullTextQuery::Boolean({{Occur::kMustNot, FullTextQuery::Match("lance", "body")}}));
  EXPECT_TRUE(only_not.IsInvalidArgument()) << only_not.ToString();
  EXPECT_NE(only_not.message().find("at least one must or should"), std::string::npos) << only_not.ToString();
  FullTextQuery one;
  one.kind = FullTextQuery::Kind::kBoost;
  one.children = {FullTextQuery::Match("lance", "body")};
  EXPECT_TRUE(st(one).IsInvalidArgument());
  FullTextQuery multi = FullTextQuery::MultiMatch("lance", {"body"});
  multi.children.push_back(FullTextQuery::Phrase("lance search", "body"));
  EXPECT_TRUE(st(multi).IsInvalidArgument()) << "a multi-match holds matches only";
  FullTextQuery two_columns = FullTextQuery::Phrase("lance search", "body");
  two_columns.columns.push_back("title");
  EXPECT_TRUE(st(two_columns).IsInvalidArgument()) << "a phrase searches one column";
  // a match over two columns, or over none of two indexed ones, is their multi-match
  FullTextQuery match_two = FullTextQuery::Match("search river", "body");
  match_two.columns.push_back("title");
  auto multi_rows = TreeSearch(snap, FullTextQuery::MultiMatch("search river", {"body", "title"}));
  ASSERT_TRUE(multi_rows.ok());
  EXPECT_GT(multi_rows->size(), 50u);
  auto two_rows = TreeSearch(snap, match_two);
  ASSERT_TRUE(two_rows.ok());
  EXPECT_EQ(*two_rows, *multi_rows);
  auto none_rows = TreeSearch(snap, FullTextQuery::Match("search river", ""));
  ASSERT_TRUE(none_rows.ok());
  EXPECT_EQ(*none_rows, *multi_rows);
  const Status no_pos = st(FullTextQuery::Boolean({{Occur::kShould, FullTextQuery::Phrase("search engine", "title", 1)}}));
  EXPECT_NE(no_pos.message().find("without positions"), std::string::npos) << no_pos.ToString();
}

}  // namespace
}  // namespace lance::query
