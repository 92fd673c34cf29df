// AddNullColumns: new all-null columns by metadata alone (no data file written), read back as
// nulls; then values written into them by an update and an append.
#include <gtest/gtest.h>

#include <string>

#include "lance/columnar/json.h"
#include "lance/table/snapshot.h"
#include "table_fixtures/dataset_ops_test_util.h"
#include "lance/table/write.h"
#include "lance/table/versions.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

using namespace evolve_test;

TEST(AddNullColumns, MetadataOnlyAndReadAsNulls) {
  const std::string uri = FreshUri("add_nulls");
  TEST_OK(MakePeople(uri, 5, 2));
  TEST_ASSIGN(auto before, Snapshot::Open(uri));
  auto added = schema({field("note", utf8()),
                       field("pos", struct_({field("x", float64()), field("y", float64())}))});
  TEST_ASSIGN(CommitInfo ci, AddNullColumns(uri, added));
  EXPECT_EQ(ci.version, 2u);
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  // Same fragments, same data files: nothing was written.
  ASSERT_EQ(ds->manifest().fragments.size(), before->manifest().fragments.size());
  for (size_t i = 0; i < ds->manifest().fragments.size(); ++i) {
    ASSERT_EQ(ds->manifest().fragments[i].files.size(), 1u);
    EXPECT_EQ(ds->manifest().fragments[i].files[0].path, before->manifest().fragments[i].files[0].path);
  }
  EXPECT_EQ(ds->schema()->num_fields(), 5);
  EXPECT_TRUE(ds->schema()->field(4)->type()->Equals(*added->field(1)->type()));
  // Fresh ids above every id in use.
  EXPECT_EQ(ds->schema()->field(3)->id(), 3);
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(auto sv, LoadVersion(loc, 2));
  TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
  ASSERT_TRUE(txn.has_value());
  EXPECT_TRUE(txn->is<Transaction::Merge>());
  TEST_ASSIGN(auto rows, Rows(uri));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[1], R"({"id":1,"name":"n1","score":0.5,"note":null,"pos":null})");

  // The new column takes values like any other (a merge-insert rewrites the row).
  {
    TEST_ASSIGN(auto snap, Snapshot::Open(uri));
    TEST_ASSIGN(auto row, RecordBatchFromJSON(snap->schema(),
                                            R"([{"id":3,"name":"n3","score":1.5,"note":"hello","pos":null}])"));
    MergeInsertParams mp;
    mp.on = {"id"};
    TEST_ASSIGN(auto merged, MergeInsert(uri, snap->schema(), {row}, mp));
    EXPECT_EQ(merged.rows_updated, 1u);
  }
  TEST_ASSIGN(rows, Rows(uri));
  bool found = false;
  for (const auto& r : rows) found = found || r == R"({"id":3,"name":"n3","score":1.5,"note":"hello","pos":null})";
  EXPECT_TRUE(found);
}

TEST(AddNullColumns, RefusesNonNullableAndTakenNames) {
  const std::string uri = FreshUri("add_nulls_bad");
  TEST_OK(MakePeople(uri, 2, 2));
  auto r = AddNullColumns(uri, schema({field("x", int32(), false)}));
  ASSERT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("'x' is not nullable"), std::string::npos) << r.status().ToString();
  r = AddNullColumns(uri, schema({field("s", struct_({field("inner", int32(), false)}))}));
  ASSERT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("'inner'"), std::string::npos) << r.status().ToString();
  r = AddNullColumns(uri, schema({field("name", utf8())}));
  ASSERT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("already exists"), std::string::npos) << r.status().ToString();
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), 1u);
}

}  // namespace
}  // namespace lance::table
