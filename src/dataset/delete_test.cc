// Dataset::Delete (rows found by the query layer's filter engine) against a direct evaluation: for each filter, a fresh dataset of several fragments
// (runs of rows end inside them) with rows already deleted, the rows the filter should delete
// found by evaluating it over a scan of the live rows with _rowaddr, then DeleteRows; the
// deleted count and the rows left must agree. Covers nulls, a dictionary-encoded string column,
// divisions that fail only on rows deleted before (a scan never evaluates those), a failing
// filter, a constant filter (the scan path) and a filter matching only deleted rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "lance/columnar/json.h"
#include "lance/dataset/dataset.h"
#include "lance/expr/expression.h"
#include "lance/table/snapshot.h"
#include "lance/table/versions.h"
#include "lance/table/write.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

// DELETE ... WHERE through the front door: a handle on the latest version.
Result<DeleteResult> DeleteRows(const std::string& uri, const std::string& filter) {
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(uri));
  return ds->Delete(filter);
}

constexpr int kRows = 70000;

SchemaPtr TestSchema() {
  return schema({field("id", int64(), false), field("x", int32()), field("cat", utf8(), false)});
}

// x = i % 5 - 2 (null every 9th row), cat = c0..c5.
std::string RowsJson(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += "{\"id\":" + std::to_string(i) + ",\"x\":" +
           (i % 9 == 4 ? std::string("null") : std::to_string(i % 5 - 2)) + ",\"cat\":\"c" +
           std::to_string(i * 7 % 6) + "\"}\n";
  }
  return out;
}

// A new dataset at `uri` (3 fragments) with the rows id % 7 = 3 deleted.
void MakeDataset(const std::string& uri) {
  auto batch = ReadJsonLines(RowsJson(kRows), TestSchema());
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  WriteParams p;
  p.max_rows_per_file = 30000;  // runs of 32768 rows end inside the fragments
  auto w = WriteDataset(uri, TestSchema(), {*batch}, p);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto d = DeleteRows(uri, "id % 7 = 3");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->num_deleted_rows, static_cast<uint64_t>((kRows + 3) / 7));
}

// Live rows as (row address, id).
std::vector<std::pair<uint64_t, int64_t>> LiveRows(const std::string& uri) {
  std::vector<std::pair<uint64_t, int64_t>> out;
  auto ds = Snapshot::Open(uri);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  if (!ds.ok()) return out;
  query::ScanOptions so;
  so.columns = {"id"};
  so.with_row_addr = true;
  auto batches = ScanBatches((*ds), so);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  if (!batches.ok()) return out;
  for (const auto& b : *batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.emplace_back(b->column(1)->Values<uint64_t>()[i], b->column(0)->Values<int64_t>()[i]);
    }
  }
  return out;
}

// Addresses of the live rows where `filter` is TRUE, by evaluating it over a scan.
std::set<uint64_t> Expected(const std::string& uri, const std::string& filter) {
  std::set<uint64_t> out;
  auto ds = Snapshot::Open(uri);
  EXPECT_TRUE(ds.ok());
  auto pred = expr::Expression::MakePredicate(filter, (*ds)->schema());
  EXPECT_TRUE(pred.ok()) << pred.status().ToString();
  query::ScanOptions so;
  so.with_row_addr = true;
  auto batches = ScanBatches((*ds), so);
  EXPECT_TRUE(batches.ok());
  for (const auto& b : *batches) {
    auto mask = (*pred)->Evaluate(*b);
    EXPECT_TRUE(mask.ok()) << filter << ": " << mask.status().ToString();
    if (!mask.ok()) continue;
    for (int64_t r : expr::TrueIndices(**mask)) {
      out.insert(b->column(b->num_columns() - 1)->Values<uint64_t>()[r]);
    }
  }
  return out;
}

TEST(DeleteRows, AgreesWithEvaluatingTheFilterOverAScan) {
  const std::vector<std::string> filters = {
      "id % 100 = 7",
      "id % 7 = 4",
      "x = 1",
      "x IS NULL OR id < 100",
      "cat = 'c3' AND id % 2 = 0",
      "id % -3 <> 0 AND id > 55000",
      "10 / (id % 7 - 3) > 5",  // divides by zero only on the rows already deleted
      "id >= 29990 AND id < 30010 OR id = 69999",  // fragment edges
      "1 = 1",                                      // constant: every live row
  };
  int k = 0;
  for (const auto& filter : filters) {
    const std::string uri = "memory://delete_test/agree" + std::to_string(k++) + ".lance";
    MakeDataset(uri);
    const auto before = LiveRows(uri);
    const std::set<uint64_t> expected = Expected(uri, filter);
    auto r = DeleteRows(uri, filter);
    ASSERT_TRUE(r.ok()) << filter << ": " << r.status().ToString();
    EXPECT_EQ(r->num_deleted_rows, expected.size()) << filter;
    std::vector<std::pair<uint64_t, int64_t>> want;
    for (const auto& row : before) {
      if (!expected.count(row.first)) want.push_back(row);
    }
    EXPECT_EQ(LiveRows(uri), want) << filter;
    if (filter == "1 = 1") {
      EXPECT_EQ(r->removed_fragment_ids.size(), 3u);
    }
  }
}

TEST(DeleteRows, FailingFilterAndNothingToDelete) {
  const std::string uri = "memory://delete_test/errors.lance";
  MakeDataset(uri);
  const auto before = LiveRows(uri);
  // Live rows with id % 7 = 4 divide by zero.
  auto r = DeleteRows(uri, "10 / (id % 7 - 4) > 5");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("division by zero"), std::string::npos) << r.status().ToString();
  EXPECT_FALSE(DeleteRows(uri, "nope = 1").ok());
  // Only rows deleted before match: nothing is deleted, and the version made holds the same
  // rows (lance 12 commits one, its transaction a Delete of no fragment).
  auto none = DeleteRows(uri, "id % 7 = 3");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->num_deleted_rows, 0u);
  EXPECT_EQ(none->commit.version, 3u);
  EXPECT_EQ(LiveRows(uri), before);
  auto ds = Snapshot::Open(uri);
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ((*ds)->version(), 3u);
  auto v3 = LoadVersion((*ds)->location(), 3);
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  auto txn = LoadTransaction((*ds)->location(), *v3);
  ASSERT_TRUE(txn.ok() && txn->has_value());
  ASSERT_TRUE((*txn)->is<Transaction::Delete>());
  EXPECT_TRUE((*txn)->get<Transaction::Delete>()->updated_fragments.empty());
  EXPECT_EQ((*txn)->get<Transaction::Delete>()->predicate, "id % 7 = 3");
}

}  // namespace
}  // namespace lance::table
