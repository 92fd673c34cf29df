// The direct whole-column reads of fragment_rows.h (ReadPhysicalRows, ReadLiveRows) against the
// dataset's own scan, and the add-columns path built on them, on random data with nulls, deletions, several fragments (with two data files each after an
// added column) and stable row ids.
#include "table/fragment_rows.h"

#include "lance/columnar/compute.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/expr/expression.h"
#include "lance/table/schema_evolution.h"
#include "table_fixtures/evolve_test_util.h"

namespace lance::table {
namespace {

using evolve_test::DeleteRows;
using evolve_test::FreshUri;

SchemaPtr MixedSchema() {
  return schema({field("id", int64(), false), field("name", utf8()), field("score", float64()),
                 field("flag", boolean()), field("small", int32()), field("tags", list(int32())),
                 field("big", large_utf8())});
}

// n random rows with about a fifth of every nullable value null.
std::string MixedJson(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  auto maybe = [&](const std::string& v) { return rng() % 5 == 0 ? std::string("null") : v; };
  std::string out = "[";
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ",";
    std::string tags = "[";
    for (uint32_t k = 0, m = rng() % 4; k < m; ++k) tags += (k ? "," : "") + std::to_string(rng() % 100);
    tags += "]";
    out += fmt::format(
        R"({{"id":{},"name":{},"score":{},"flag":{},"small":{},"tags":{},"big":{}}})", i,
        maybe(fmt::format("\"n{}{}\"", i, std::string(rng() % 7, 'x'))),
        maybe(fmt::format("{}", static_cast<int>(rng() % 2000) / 8.0)), maybe(rng() % 2 ? "true" : "false"),
        maybe(std::to_string(static_cast<int>(rng() % 1000) - 500)), maybe(tags),
        maybe(fmt::format("\"b{}\"", rng() % 50)));
  }
  return out + "]";
}

// A dataset of 3000 mixed rows in fragments of 700, random rows deleted (and the whole first
// fragment), plus an added column so that fragments have two data files.
void MakeMixed(const std::string& uri, bool stable) {
  auto batch = RecordBatchFromJSON(MixedSchema(), MixedJson(3000, stable ? 7 : 8));
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  WriteParams p;
  p.max_rows_per_file = 700;
  p.enable_stable_row_ids = stable;
  EV_ASSERT_OK(WriteDataset(uri, MixedSchema(), {*batch}, p).status());
  EV_ASSERT_OK(DeleteRows(uri, "id < 700 OR id % 7 = 3 OR id % 11 = 0 OR id = 2999").status());
  EV_ASSERT_OK(AddColumns(uri, {{"half", "score / 2"}}).status());
  EV_ASSERT_OK(DeleteRows(uri, "id % 13 = 5").status());
}

std::vector<std::string> Lines(const std::vector<RecordBatchPtr>& batches) {
  auto lines = JsonLinesOf(batches);
  EXPECT_TRUE(lines.ok()) << lines.status().ToString();
  return lines.ok() ? *lines : std::vector<std::string>{};
}

TEST(RowRewrite, ReadLiveRowsEqualsTheScan) {
  for (bool stable : {false, true}) {
    const std::string uri = FreshUri(stable ? "live_stable" : "live");
    MakeMixed(uri, stable);
    EV_ASSIGN(auto loc, TableLocation::FromUri(uri));
    EV_ASSIGN(auto ds, Snapshot::Open(uri));
    const auto& frags = ds->manifest().fragments;
    ASSERT_GE(frags.size(), 4u);
    ASSERT_EQ(frags[0].files.size(), 2u);
    std::vector<size_t> all;
    for (size_t i = 0; i < frags.size(); ++i) all.push_back(i);
    // Every fragment, and a run in the middle (what one compaction group reads).
    for (const auto& pick : {all, std::vector<size_t>{1, 2}}) {
      uint64_t first = 0, rows = 0;
      for (size_t i = 0; i < pick.front(); ++i) first += frags[i].num_rows();
      for (size_t i : pick) rows += frags[i].num_rows();
      ScanOptions so;
      so.offset = static_cast<int64_t>(first);
      so.limit = static_cast<int64_t>(rows);
      so.with_row_id = stable;
      EV_ASSIGN(auto want, ds->Scan(so));
      EV_ASSIGN(auto got, internal::ReadLiveRows(*ds, pick, stable));
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < got.size(); ++k) {
        ASSERT_TRUE(got[k]->schema()->Equals(*want[k]->schema())) << got[k]->schema()->ToString();
      }
      const auto got_lines = Lines(got);
      EXPECT_EQ(got_lines.size(), rows);
      EXPECT_EQ(got_lines, Lines(want)) << "stable=" << stable;
    }
  }
}

TEST(RowRewrite, ReadPhysicalRowsHoldsDeletedRows) {
  const std::string uri = FreshUri("physical");
  MakeMixed(uri, false);
  EV_ASSIGN(auto loc, TableLocation::FromUri(uri));
  EV_ASSIGN(auto ds, Snapshot::Open(uri));
  EV_ASSIGN(auto got, internal::ReadPhysicalRows(*ds, 1, {"half", "id"}));
  ASSERT_TRUE(got.has_value());
  const auto& frag = ds->manifest().fragments[1];
  ASSERT_EQ((*got)->num_rows(), static_cast<int64_t>(frag.physical_rows));
  EV_ASSIGN(auto deleted, ds->DeletedRows(1));
  ASSERT_FALSE(deleted.empty());
  // The live rows of the physical read are the scan's rows of that fragment.
  EV_ASSIGN(auto live_half, DropElements((*got)->column(0), deleted));
  EV_ASSIGN(auto live_id, DropElements((*got)->column(1), deleted));
  ScanOptions so;
  so.columns = {"half", "id"};
  so.offset = static_cast<int64_t>(ds->manifest().fragments[0].num_rows());
  so.limit = static_cast<int64_t>(frag.num_rows());
  EV_ASSIGN(auto want, ds->Scan(so));
  ASSERT_EQ(want.size(), 1u);
  EXPECT_TRUE(live_half->Equals(*want[0]->column(0)));
  EXPECT_TRUE(live_id->Equals(*want[0]->column(1)));
  // An unknown column is the caller's error.
  EXPECT_FALSE(internal::ReadPhysicalRows(*ds, 1, {"nope"}).ok());
}

// Computed columns through the whole-column path equal the expression evaluated over the
// scan's live rows; an expression that fails on a deleted row (integer division by zero at
// id 13, deleted) still adds its column (that fragment goes the scan's way).
TEST(RowRewrite, AddColumnsEqualsEvaluatingTheScan) {
  for (bool stable : {false, true}) {
    const std::string uri = FreshUri(stable ? "add_direct_stable" : "add_direct");
    MakeMixed(uri, stable);
    EV_ASSERT_OK(DeleteRows(uri, "id = 713").status());
    EV_ASSIGN(auto before, Snapshot::Open(uri));
    const std::vector<ColumnExpression> exprs = {{"a", "score * 2 + small"},
                                                 {"b", "name"},
                                                 {"c", "small > 0 AND flag"},
                                                 {"d", "100 / (id - 713)"}};
    EV_ASSIGN(auto scan, before->Scan());
    std::vector<std::vector<ArrayPtr>> want(exprs.size());
    for (size_t k = 0; k < exprs.size(); ++k) {
      EV_ASSIGN(auto e, expr::Expression::Make(exprs[k].expression, before->schema()));
      for (const auto& b : scan) {
        EV_ASSIGN(auto v, e->Evaluate(*b));
        want[k].push_back(v);
      }
    }
    EV_ASSERT_OK(AddColumns(uri, exprs).status());
    EV_ASSIGN(auto after, Snapshot::Open(uri));
    ScanOptions so;
    so.columns = {"a", "b", "c", "d"};
    EV_ASSIGN(auto got, after->Scan(so));
    ASSERT_EQ(got.size(), scan.size());
    for (size_t b = 0; b < got.size(); ++b) {
      for (size_t k = 0; k < exprs.size(); ++k) {
        EXPECT_TRUE(got[b]->column(static_cast<int>(k))->Equals(*want[k][b]))
            << exprs[k].expression << " batch " << b;
      }
    }
    // Deleted rows hold nulls in the new files.
    EV_ASSIGN(auto phys, internal::ReadPhysicalRows(*after, 1, {"a"}));
    ASSERT_TRUE(phys.has_value());
    EV_ASSIGN(auto deleted, after->DeletedRows(1));
    for (uint32_t r : deleted) EXPECT_TRUE((*phys)->column(0)->IsNull(r)) << r;
  }
}

}  // namespace
}  // namespace lance::table
