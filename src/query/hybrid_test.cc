// Hybrid search (lance/query/hybrid.h) on the golden indexed table (tests/golden/lance_table/
// indexed.lance: an IVF_PQ index on `vec`, an INVERTED index on `text`): the fused rows must be
// exactly what the two one-sided searches (run alone here, with _rowid) give when fused by the
// rule written out again below (min-max normalisation, 1 / (rank0 + k) summed, vector rows
// first, stable by relevance, the first k); errors name what is wrong. lancedb's own answers
// are compared in tests/interop/fts_hybrid.test.mjs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "lance/query/hybrid.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::query {
namespace {

namespace fs = std::filesystem;
const fs::path kHybridGolden = fs::path(__FILE__).parent_path() / "../../tests/golden/lance_table/indexed.lance";

struct HybridRow {
  int64_t id;
  uint64_t row_id;
  float score;
  float relevance;
};

std::shared_ptr<const table::Snapshot> HybridGolden() {
  auto s = table::Snapshot::Open(kHybridGolden.string());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

ScanOptions HybridOptions(std::string text, std::vector<float> v, uint64_t k, std::string filter = "") {
  ScanOptions o;
  o.columns = {"id"};
  o.with_row_id = true;
  o.filter = std::move(filter);
  NearestOptions n;
  n.column = "vec";
  n.query = std::move(v);
  n.k = k;
  n.prefilter = true;
  o.nearest = n;
  o.full_text = FullTextQuery{std::move(text), {"text"}, static_cast<int64_t>(k), false, false};
  return o;
}

// (id, row id, the side's own score) of a one-sided search, in its order.
std::vector<HybridRow> OneSide(const std::shared_ptr<const table::Snapshot>& snap, ScanOptions o, const char* score) {
  auto sc = Scanner::Make(snap, std::move(o));
  EXPECT_TRUE(sc.ok()) << sc.status().ToString();
  if (!sc.ok()) return {};
  auto batches = sc->ToBatches();
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  std::vector<HybridRow> out;
  for (const auto& b : *batches) {
    const int s = b->schema()->GetFieldIndex(score), r = b->schema()->GetFieldIndex("_rowid");
    EXPECT_GE(s, 0);
    EXPECT_GE(r, 0);
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.push_back({b->column(0)->Values<int64_t>()[i], b->column(r)->Values<uint64_t>()[i],
                     b->column(s)->Values<float>()[i], 0.0f});
    }
  }
  return out;
}

// The fusion, written out from its definition.
std::vector<HybridRow> FuseByHand(std::vector<HybridRow> vec, std::vector<HybridRow> txt, uint64_t k, float rrf_k) {
  for (auto* list : {&vec, &txt}) {
    if (list->empty()) continue;
    float lo = list->front().score, hi = lo;
    for (const auto& r : *list) lo = std::min(lo, r.score), hi = std::max(hi, r.score);
    const float range = hi - lo < 1e-4f ? hi : hi - lo;
    if (range != 0) {
      for (auto& r : *list) r.score = (r.score - lo) / range;
    }
  }
  std::map<uint64_t, float> rel;
  for (size_t i = 0; i < vec.size(); ++i) rel[vec[i].row_id] += 1.0f / (static_cast<float>(i) + rrf_k);
  for (size_t i = 0; i < txt.size(); ++i) rel[txt[i].row_id] += 1.0f / (static_cast<float>(i) + rrf_k);
  std::vector<HybridRow> merged;
  std::map<uint64_t, bool> seen;
  for (const auto* list : {&vec, &txt}) {
    for (const auto& r : *list) {
      if (seen[r.row_id]) continue;
      seen[r.row_id] = true;
      merged.push_back(r);
      merged.back().relevance = rel[r.row_id];
    }
  }
  // insertion sort by relevance, descending: stable
  for (size_t i = 1; i < merged.size(); ++i) {
    for (size_t j = i; j > 0 && merged[j].relevance > merged[j - 1].relevance; --j) std::swap(merged[j], merged[j - 1]);
  }
  if (merged.size() > k) merged.resize(k);
  return merged;
}

std::vector<HybridRow> Hybrid(const std::shared_ptr<const table::Snapshot>& snap, const ScanOptions& o) {
  auto sc = Scanner::Make(snap, o);
  EXPECT_TRUE(sc.ok()) << sc.status().ToString();
  if (!sc.ok()) return {};
  std::vector<std::string> names;
  for (const auto& f : sc->schema()->fields()) names.push_back(f->name());
  EXPECT_EQ(names, (std::vector<std::string>{"id", "_score", "_rowid", "_relevance_score"}));
  auto batches = sc->ToBatches();
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  std::vector<HybridRow> out;
  for (const auto& b : *batches) {
    EXPECT_EQ(b->schema()->num_fields(), 4);
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.push_back({b->column(0)->Values<int64_t>()[i], b->column(2)->Values<uint64_t>()[i],
                     b->column(1)->Values<float>()[i], b->column(3)->Values<float>()[i]});
    }
  }
  return out;
}

void ExpectHybridEqual(const std::vector<HybridRow>& got, const std::vector<HybridRow>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].id, want[i].id) << what << " row " << i;
    EXPECT_EQ(got[i].row_id, want[i].row_id) << what << " row " << i;
    EXPECT_EQ(got[i].score, want[i].score) << what << " row " << i;
    EXPECT_EQ(got[i].relevance, want[i].relevance) << what << " row " << i;
  }
}

TEST(HybridSearch, FusesTheTwoOneSidedSearchesByReciprocalRank) {
  auto snap = HybridGolden();
  ASSERT_NE(snap, nullptr);
  struct Case {
    std::string text;
    std::vector<float> v;
    uint64_t k;
    std::string filter;
    float rrf_k;
  };
  const std::vector<Case> cases = {
      {"kiwi apple", {3, 1, 12, 1}, 6, "", 60},
      {"pear", {0, 5, 2, 7}, 10, "", 60},
      {"kiwi", {1, 1, 1, 1}, 4, "id % 3 = 0", 60},
      {"apple pear", {9, 0, 4, 2}, 10, "id > 40", 2},
      {"nosuchword", {3, 1, 12, 1}, 5, "", 60},
  };
  for (const auto& c : cases) {
    const std::string what = c.text + " k " + std::to_string(c.k) + " filter '" + c.filter + "'";
    ScanOptions o = HybridOptions(c.text, c.v, c.k, c.filter);
    o.fusion.rrf_k = c.rrf_k;
    ScanOptions vec = o;
    vec.full_text.reset();
    ScanOptions txt = o;
    txt.nearest.reset();
    const auto v = OneSide(snap, vec, "_distance");
    const auto t = OneSide(snap, txt, "_score");
    ASSERT_FALSE(v.empty()) << what;
    const auto want = FuseByHand(v, t, c.k, c.rrf_k);
    ExpectHybridEqual(Hybrid(snap, o), want, what);
  }
}

TEST(HybridSearch, ExplainShowsBothSearchesUnderTheFusion) {
  auto snap = HybridGolden();
  ASSERT_NE(snap, nullptr);
  auto sc = Scanner::Make(snap, HybridOptions("kiwi", {1, 2, 3, 4}, 5));
  ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  const std::string plan = sc->Explain();
  EXPECT_EQ(plan.rfind("HybridSearch: reciprocal-rank fusion (k = 60)", 0), 0u) << plan;
  EXPECT_NE(plan.find("\n  KNN: column vec, k 5"), std::string::npos) << plan;
  EXPECT_NE(plan.find("\n  FullTextSearch: match query [kiwi] on column text"), std::string::npos) << plan;
}

TEST(HybridSearch, RefusesWhatDoesNotApply) {
  auto snap = HybridGolden();
  ASSERT_NE(snap, nullptr);
  auto expect_invalid = [&](ScanOptions o, const std::string& needle) {
    auto sc = Scanner::Make(snap, std::move(o));
    ASSERT_FALSE(sc.ok()) << needle;
    EXPECT_TRUE(sc.status().IsInvalidArgument()) << sc.status().ToString();
    EXPECT_NE(sc.status().message().find(needle), std::string::npos) << sc.status().ToString();
  };
  ScanOptions o = HybridOptions("kiwi", {1, 2, 3, 4}, 5);
  o.limit = 3;
  expect_invalid(o, "offset and limit");
  o = HybridOptions("kiwi", {1, 2, 3, 4}, 5);
  o.with_row_addr = true;
  expect_invalid(o, "_rowaddr");
  o = HybridOptions("kiwi", {1, 2, 3, 4}, 5);
  o.columns = {"id", "_rowid"};
  expect_invalid(o, "column '_rowid'");
  o = HybridOptions("kiwi", {1, 2, 3, 4}, 5);
  o.fusion.rrf_k = 0;
  expect_invalid(o, "RRF constant");
  o = HybridOptions("kiwi", {1, 2, 3}, 5);
  expect_invalid(o, "the query has 3 values");
  o = HybridOptions("kiwi", {1, 2, 3, 4}, 5);
  o.full_text->columns = {"nosuchcolumn"};
  expect_invalid(o, "nosuchcolumn");
}

}  // namespace
}  // namespace lance::query
