// Schema evolution: drop / rename / nullability (Project, no data rewritten) and added
// columns (Merge, one new data file per fragment), every row read back.
#include "table_fixtures/dataset_ops_test_util.h"

#include <gtest/gtest.h>

#include "lance/table/row_ids.h"
#include "lance/table/versions.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

using namespace evolve_test;

TEST(SchemaEvolution, DropColumnsKeepsDataFilesAndEveryRow) {
  const std::string uri = FreshUri("drop");
  TEST_OK(MakePeople(uri, 5, 3));
  TEST_ASSIGN(auto before, Snapshot::Open(uri));
  TEST_ASSIGN(CommitInfo c, DropColumns(uri, {"name"}));
  EXPECT_EQ(c.version, 2u);
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  ASSERT_EQ(ds->schema()->num_fields(), 2);
  EXPECT_EQ(ds->schema()->field(0)->name(), "id");
  EXPECT_EQ(ds->schema()->field(1)->name(), "score");
  EXPECT_EQ(ds->schema()->field(1)->id(), 2);
  // Same data files as before: nothing was rewritten.
  ASSERT_EQ(ds->manifest().fragments.size(), 2u);
  EXPECT_EQ(ds->manifest().fragments[0].files[0].path, before->manifest().fragments[0].files[0].path);
  EXPECT_EQ(ds->manifest().fragments[0].files[0].fields, (std::vector<int32_t>{0, 1, 2}));
  TEST_ASSIGN(auto rows, Rows(uri));
  auto sch = schema({field("id", int64(), false), field("score", float64())});
  TEST_ASSIGN(auto want, Expected(sch, R"([{"id":0,"score":0},{"id":1,"score":0.5},{"id":2,"score":1},
                                         {"id":3,"score":1.5},{"id":4,"score":2}])"));
  EXPECT_EQ(rows, want);
  // The transaction is a Project (lance 12 writes the same).
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(auto sv, LoadVersion(loc, 2));
  TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
  ASSERT_TRUE(txn.has_value());
  ASSERT_TRUE(txn->is<Transaction::Project>());
  EXPECT_TRUE(txn->get<Transaction::Project>()->preserves_nullability);

  EXPECT_TRUE(DropColumns(uri, {"nope"}).status().IsInvalidArgument());
  auto all = DropColumns(uri, {"id", "score"});
  ASSERT_TRUE(all.status().IsInvalidArgument()) << all.status().ToString();
  EXPECT_NE(all.status().message().find("every column"), std::string::npos);
}

TEST(SchemaEvolution, DropNestedFieldRewritesTheStruct) {
  const std::string uri = FreshUri("drop_nested");
  auto sch = schema({field("id", int64()),
                     field("s", struct_({field("a", int32()), field("b", utf8()),
                                         field("t", struct_({field("x", int8()), field("y", utf8(), false)}))})),
                     field("l", list(struct_({field("p", int32()), field("q", int32())})))});
  TEST_ASSIGN(auto batch, RecordBatchFromJSON(sch, R"([
      {"id":1,"s":{"a":10,"b":"x","t":{"x":1,"y":"u"}},"l":[{"p":1,"q":2}]},
      {"id":2,"s":null,"l":null},
      {"id":3,"s":{"a":null,"b":"z","t":{"x":5,"y":"w"}},"l":[]},
      {"id":4,"s":{"a":40,"b":null,"t":{"x":null,"y":"v"}},"l":null}])"));
  WriteParams wp;
  wp.max_rows_per_file = 3;
  TEST_OK(WriteDataset(uri, sch, {batch}, wp).status());
  TEST_OK(DeleteRows(uri, "id = 2").status());
  TEST_ASSIGN(auto before, Snapshot::Open(uri));

  TEST_ASSIGN(CommitInfo c, DropColumns(uri, {"s.b", "s.t.x"}));
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), c.version);
  // s keeps its place with new ids (above every id used before); l and id are untouched.
  ASSERT_EQ(ds->schema()->num_fields(), 3);
  EXPECT_EQ(ds->schema()->field(1)->name(), "s");
  EXPECT_GT(ds->schema()->field(1)->id(), 10);
  EXPECT_EQ(ds->schema()->field(0)->id(), 0);
  EXPECT_EQ(ds->schema()->field(2)->id(), before->schema()->field(2)->id());
  const auto& t = ds->schema()->field(1)->type()->field(1);
  EXPECT_EQ(t->name(), "t");
  ASSERT_EQ(t->type()->num_fields(), 1);
  EXPECT_FALSE(t->type()->field(0)->nullable());  // y keeps its nullability
  // Each fragment gained one data file; the old ones are still there.
  for (size_t i = 0; i < ds->manifest().fragments.size(); ++i) {
    EXPECT_EQ(ds->manifest().fragments[i].files.size(), 2u);
    EXPECT_EQ(ds->manifest().fragments[i].files[0].path, before->manifest().fragments[i].files[0].path);
  }
  TEST_ASSIGN(auto rows, Rows(uri));
  auto want_sch = schema({field("id", int64()),
                          field("s", struct_({field("a", int32()),
                                              field("t", struct_({field("y", utf8(), false)}))})),
                          field("l", list(struct_({field("p", int32()), field("q", int32())})))});
  TEST_ASSIGN(auto want, Expected(want_sch, R"([
      {"id":1,"s":{"a":10,"t":{"y":"u"}},"l":[{"p":1,"q":2}]},
      {"id":3,"s":{"a":null,"t":{"y":"w"}},"l":[]},
      {"id":4,"s":{"a":40,"t":{"y":"v"}},"l":null}])"));
  EXPECT_EQ(rows, want);

  auto through_list = DropColumns(uri, {"l.item.p"}).status();
  EXPECT_FALSE(through_list.ok());
  EXPECT_TRUE(DropColumns(uri, {"s.zz"}).status().IsInvalidArgument());
  auto last = DropColumns(uri, {"s.t.y"}).status();
  ASSERT_TRUE(last.IsInvalidArgument()) << last.ToString();
  EXPECT_NE(last.message().find("last field of struct 't'"), std::string::npos) << last.ToString();
  // A child together with its whole struct: the struct goes, nothing is rewritten.
  TEST_ASSIGN(auto before_drop, Snapshot::Open(uri));
  TEST_OK(DropColumns(uri, {"s.a", "s"}).status());
  TEST_ASSIGN(auto after, Snapshot::Open(uri));
  EXPECT_EQ(after->manifest().fragments[0].files.size(), before_drop->manifest().fragments[0].files.size());
  TEST_ASSIGN(auto rows2, Rows(uri, [] { query::ScanOptions o; o.columns = {"id"}; return o; }()));
  TEST_ASSIGN(auto want2, Expected(schema({field("id", int64())}), R"([{"id":1},{"id":3},{"id":4}])"));
  EXPECT_EQ(rows2, want2);
}

TEST(SchemaEvolution, RenameAndNullability) {
  const std::string uri = FreshUri("rename");
  TEST_OK(MakePeople(uri, 4, 2));
  ColumnAlteration r;
  r.path = "score";
  r.rename = "points";
  TEST_OK(AlterColumns(uri, {r}).status());
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->schema()->field(2)->name(), "points");
  EXPECT_EQ(ds->schema()->field(2)->id(), 2);
  TEST_ASSIGN(auto rows, Rows(uri));
  auto sch = schema({field("id", int64(), false), field("name", utf8()), field("points", float64())});
  TEST_ASSIGN(auto want, Expected(sch, R"([{"id":0,"name":"n0","points":0},{"id":1,"name":"n1","points":0.5},
                                         {"id":2,"name":"n2","points":1},{"id":3,"name":"n3","points":1.5}])"));
  EXPECT_EQ(rows, want);

  // Taken names and bad names are refused.
  ColumnAlteration clash;
  clash.path = "points";
  clash.rename = "id";
  EXPECT_TRUE(AlterColumns(uri, {clash}).status().IsInvalidArgument());
  clash.rename = "a.b";
  EXPECT_TRUE(AlterColumns(uri, {clash}).status().IsInvalidArgument());

  // Loosening is always allowed; tightening only without nulls.
  ColumnAlteration loosen;
  loosen.path = "id";
  loosen.nullable = true;
  TEST_OK(AlterColumns(uri, {loosen}).status());
  TEST_ASSIGN(ds, Snapshot::Open(uri));
  EXPECT_TRUE(ds->schema()->field(0)->nullable());
  ColumnAlteration tighten;
  tighten.path = "name";
  tighten.nullable = false;
  TEST_ASSIGN(CommitInfo c, AlterColumns(uri, {tighten}));
  TEST_ASSIGN(ds, Snapshot::Open(uri));
  EXPECT_FALSE(ds->schema()->field(1)->nullable());
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(auto sv, LoadVersion(loc, c.version));
  TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
  ASSERT_TRUE(txn.has_value());
  ASSERT_TRUE(txn->is<Transaction::Project>());
  EXPECT_FALSE(txn->get<Transaction::Project>()->preserves_nullability);

  // A column holding a null cannot become non-nullable.
  const std::string uri2 = FreshUri("rename_nulls");
  auto sch2 = schema({field("id", int64()), field("v", utf8())});
  TEST_ASSIGN(auto batch, RecordBatchFromJSON(sch2, R"([{"id":1,"v":"a"},{"id":2,"v":null}])"));
  TEST_OK(WriteDataset(uri2, sch2, {batch}).status());
  ColumnAlteration bad;
  bad.path = "v";
  bad.nullable = false;
  auto st = AlterColumns(uri2, {bad}).status();
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("holds nulls"), std::string::npos);
}

TEST(SchemaEvolution, AddColumnsFromExpressionsWritesOneFilePerFragment) {
  const std::string uri = FreshUri("add_expr");
  TEST_OK(MakePeople(uri, 5, 3));
  TEST_OK(DeleteRows(uri, "id = 1").status());
  TEST_OK(DropColumns(uri, {"score"}).status());
  TEST_ASSIGN(CommitInfo c, AddColumns(uri, {{"twice", "id * 2"}, {"big", "upper(name)"}}));
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), c.version);
  ASSERT_EQ(ds->schema()->num_fields(), 4);
  // Ids continue above the dropped field's id (2), which data files still hold.
  EXPECT_EQ(ds->schema()->field(2)->id(), 3);
  EXPECT_EQ(ds->schema()->field(3)->id(), 4);
  for (const auto& f : ds->manifest().fragments) {
    ASSERT_EQ(f.files.size(), 2u);
    EXPECT_EQ(f.files[1].fields, (std::vector<int32_t>{3, 4}));
  }
  TEST_ASSIGN(auto rows, Rows(uri));
  auto sch = schema({field("id", int64(), false), field("name", utf8()), field("twice", int64()),
                     field("big", utf8())});
  TEST_ASSIGN(auto want, Expected(sch, R"([{"id":0,"name":"n0","twice":0,"big":"N0"},
                                         {"id":2,"name":"n2","twice":4,"big":"N2"},
                                         {"id":3,"name":"n3","twice":6,"big":"N3"},
                                         {"id":4,"name":"n4","twice":8,"big":"N4"}])"));
  EXPECT_EQ(rows, want);
  EXPECT_TRUE(AddColumns(uri, {{"id", "1"}}).status().IsInvalidArgument());
  EXPECT_TRUE(AddColumns(uri, {{"x", "nope + 1"}}).status().IsInvalidArgument());
}

TEST(SchemaEvolution, AddColumnsFromDataLinesUpWithScanOrder) {
  const std::string uri = FreshUri("add_data");
  TEST_OK(MakePeople(uri, 6, 4));
  TEST_OK(DeleteRows(uri, "id = 0 OR id = 5").status());
  auto extra = schema({field("tag", utf8()), field("n", int32())});
  TEST_ASSIGN(auto batch, RecordBatchFromJSON(extra, R"([{"tag":"a","n":1},{"tag":null,"n":2},
                                                       {"tag":"c","n":3},{"tag":"d","n":null}])"));
  TEST_OK(AddColumnsFromData(uri, extra, {batch}).status());
  query::ScanOptions so;
  so.columns = {"id", "tag", "n"};
  TEST_ASSIGN(auto rows, Rows(uri, so));
  auto sch = schema({field("id", int64(), false), field("tag", utf8()), field("n", int32())});
  TEST_ASSIGN(auto want, Expected(sch, R"([{"id":1,"tag":"a","n":1},{"id":2,"tag":null,"n":2},
                                         {"id":3,"tag":"c","n":3},{"id":4,"tag":"d","n":null}])"));
  EXPECT_EQ(rows, want);
  TEST_ASSIGN(auto short_batch, RecordBatchFromJSON(schema({field("z", int32())}), R"([{"z":1}])"));
  auto st = AddColumnsFromData(uri, short_batch->schema(), {short_batch}).status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
}

TEST(SchemaEvolution, AddColumnsJoinedOnAKey) {
  const std::string uri = FreshUri("add_joined");
  TEST_OK(MakePeople(uri, 6, 4));
  TEST_OK(DeleteRows(uri, "id = 1").status());
  // Input in its own order, with a key the dataset lacks (9), a null key and keys 0 and 3
  // missing; the key column is int32 while the dataset's is int64.
  auto extra = schema({field("tag", utf8()), field("id", int32()), field("n", int64())});
  TEST_ASSIGN(auto batch, RecordBatchFromJSON(extra, R"([{"tag":"five","id":5,"n":50},
      {"tag":"nine","id":9,"n":90},{"tag":"two","id":2,"n":null},{"tag":"nokey","id":null,"n":7},
      {"tag":"four","id":4,"n":40},{"tag":"one","id":1,"n":10}])"));
  TEST_ASSIGN(CommitInfo c, AddColumnsJoined(uri, extra, {batch}, {"id"}));
  EXPECT_EQ(c.version, 3u);
  query::ScanOptions so;
  so.columns = {"id", "tag", "n"};
  TEST_ASSIGN(auto rows, Rows(uri, so));
  auto sch = schema({field("id", int64(), false), field("tag", utf8()), field("n", int64())});
  TEST_ASSIGN(auto want, Expected(sch, R"([{"id":0,"tag":null,"n":null},{"id":2,"tag":"two","n":null},
      {"id":3,"tag":null,"n":null},{"id":4,"tag":"four","n":40},{"id":5,"tag":"five","n":50}])"));
  EXPECT_EQ(rows, want);

  TEST_ASSIGN(auto dup, RecordBatchFromJSON(schema({field("id", int64()), field("z", int32())}),
                                          R"([{"id":3,"z":1},{"id":3,"z":2}])"));
  auto st = AddColumnsJoined(uri, dup->schema(), {dup}, {"id"}).status();
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("input rows 0 and 1 have the same key (3 )"), std::string::npos) << st.ToString();
  EXPECT_TRUE(AddColumnsJoined(uri, dup->schema(), {dup}, {"nope"}).status().IsInvalidArgument());
  TEST_ASSIGN(auto only_key, RecordBatchFromJSON(schema({field("id", int64())}), R"([{"id":3}])"));
  EXPECT_TRUE(AddColumnsJoined(uri, only_key->schema(), {only_key}, {"id"}).status().IsInvalidArgument());
  TEST_ASSIGN(auto other_key, RecordBatchFromJSON(schema({field("k", int64()), field("z", int32())}),
                                                R"([{"k":3,"z":1}])"));
  auto missing = AddColumnsJoined(uri, other_key->schema(), {other_key}, {"k"}).status();
  ASSERT_TRUE(missing.IsInvalidArgument());
  EXPECT_NE(missing.message().find("not a column of the dataset"), std::string::npos);
}

TEST(SchemaEvolution, AlterColumnTypeCastsIntoNewFiles) {
  const std::string uri = FreshUri("alter_type");
  auto sch = schema({field("id", int64(), false), field("n", int32(), false), field("s", utf8())});
  TEST_ASSIGN(auto batch, RecordBatchFromJSON(sch, R"([{"id":0,"n":7,"s":"10"},{"id":1,"n":-3,"s":"x"},
                                                     {"id":2,"n":12,"s":null},{"id":3,"n":5,"s":"4"}])"));
  WriteParams wp;
  wp.max_rows_per_file = 2;
  TEST_OK(WriteDataset(uri, sch, {batch}, wp).status());
  TEST_OK(DeleteRows(uri, "id = 2").status());
  TEST_ASSIGN(CommitInfo c, AlterColumnType(uri, "n", "double"));
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), c.version);
  ASSERT_EQ(ds->schema()->num_fields(), 3);
  EXPECT_EQ(ds->schema()->field(1)->name(), "n");
  EXPECT_TRUE(ds->schema()->field(1)->type()->Equals(*float64()));
  EXPECT_FALSE(ds->schema()->field(1)->nullable());
  EXPECT_EQ(ds->schema()->field(1)->id(), 3);  // a new id: the old one stays in the old files
  for (const auto& f : ds->manifest().fragments) EXPECT_EQ(f.files.size(), 2u);
  TEST_ASSIGN(auto rows, Rows(uri));
  auto want_sch = schema({field("id", int64(), false), field("n", float64(), false), field("s", utf8())});
  TEST_ASSIGN(auto want, Expected(want_sch, R"([{"id":0,"n":7,"s":"10"},{"id":1,"n":-3,"s":"x"},
                                              {"id":3,"n":5,"s":"4"}])"));
  EXPECT_EQ(rows, want);
  // A value that does not convert fails the whole change; nothing is committed.
  auto st = AlterColumnType(uri, "s", "bigint").status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  TEST_ASSIGN(ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), c.version);
  EXPECT_TRUE(AlterColumnType(uri, "n", "nosuchtype").status().IsInvalidArgument());
  EXPECT_TRUE(AlterColumnType(uri, "zz", "int").status().IsInvalidArgument());
}

}  // namespace
}  // namespace lance::table
