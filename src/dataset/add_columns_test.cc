// AddColumns by expression against the expression evaluated over a scan of the live rows, on
// fragments with deletions and two data files; deleted rows hold nulls in the new files.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/expr/expression.h"
#include "lance/query/fragment_reader.h"
#include "lance/query/scanner.h"
#include "table_fixtures/dataset_ops_test_util.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

using evolve_test::AddColumns;
using evolve_test::ColumnExpression;
using evolve_test::DeleteRows;
using evolve_test::FreshUri;

// Every live row of `snap` (`columns`, empty: all) through the query layer's scan.
Result<std::vector<RecordBatchPtr>> ScanAll(std::shared_ptr<const Snapshot> snap,
                                            std::vector<std::string> columns) {
  query::ScanOptions so;
  so.columns = std::move(columns);
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(std::move(snap), std::move(so)));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  return reader->ReadAll();
}

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
  TEST_OK(WriteDataset(uri, MixedSchema(), {*batch}, p).status());
  TEST_OK(DeleteRows(uri, "id < 700 OR id % 7 = 3 OR id % 11 = 0 OR id = 2999").status());
  TEST_OK(AddColumns(uri, {{"half", "score / 2"}}).status());
  TEST_OK(DeleteRows(uri, "id % 13 = 5").status());
}

// Computed columns through the whole-column path equal the expression evaluated over the
// scan's live rows; an expression that fails on a deleted row (integer division by zero at
// id 13, deleted) still adds its column (that fragment goes the scan's way).
TEST(RowRewrite, AddColumnsEqualsEvaluatingTheScan) {
  for (bool stable : {false, true}) {
    const std::string uri = FreshUri(stable ? "add_direct_stable" : "add_direct");
    MakeMixed(uri, stable);
    TEST_OK(DeleteRows(uri, "id = 713").status());
    TEST_ASSIGN(auto before, Snapshot::Open(uri));
    const std::vector<ColumnExpression> exprs = {{"a", "score * 2 + small"},
                                                 {"b", "name"},
                                                 {"c", "small > 0 AND flag"},
                                                 {"d", "100 / (id - 713)"}};
    TEST_ASSIGN(auto scan, ScanAll(before, {}));
    std::vector<std::vector<ArrayPtr>> want(exprs.size());
    for (size_t k = 0; k < exprs.size(); ++k) {
      TEST_ASSIGN(auto e, expr::Expression::Make(exprs[k].expression, before->schema()));
      for (const auto& b : scan) {
        TEST_ASSIGN(auto v, e->Evaluate(*b));
        want[k].push_back(v);
      }
    }
    TEST_OK(AddColumns(uri, exprs).status());
    TEST_ASSIGN(auto after, Snapshot::Open(uri));
    TEST_ASSIGN(auto got, ScanAll(after, {"a", "b", "c", "d"}));
    ASSERT_EQ(got.size(), scan.size());
    for (size_t b = 0; b < got.size(); ++b) {
      for (size_t k = 0; k < exprs.size(); ++k) {
        EXPECT_TRUE(got[b]->column(static_cast<int>(k))->Equals(*want[k][b]))
            << exprs[k].expression << " batch " << b;
      }
    }
    // Deleted rows hold nulls in the new files.
    TEST_ASSIGN(auto reader, query::FragmentReader::Open(after, 1, nullptr));
    TEST_ASSIGN(auto phys, reader->Read(schema({after->schema()->GetFieldByName("a")}),
                                      query::RowSelection::Range(0, reader->physical_rows())));
    ASSERT_FALSE(reader->deleted().empty());
    for (uint32_t r : reader->deleted()) EXPECT_TRUE(phys->column(0)->IsNull(r)) << r;
  }
}

}  // namespace
}  // namespace lance::table
