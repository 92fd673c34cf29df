// The table's schema rules (schema_rules.h) wherever a schema or a name enters, and the
// commit's read-back: a write the format cannot hold, or that lance 12 cannot open, is refused
// before anything is written, and a commit never publishes a version its reader refuses
// (issue 15 items 2 and 3).
#include <gtest/gtest.h>

#include <atomic>

#include "lance/columnar/json.h"
#include "lance/table/commit.h"
#include "table_fixtures/dataset_ops_test_util.h"
#include "lance/table/schema_rules.h"
#include "lance/table/snapshot.h"
#include "lance/table/versions.h"
#include "lance/table/write.h"

namespace lance::table {
namespace {

using evolve_test::AddColumns;
using evolve_test::AddColumnsFromData;

std::atomic<int> g_schema_rules_uris{0};
std::string SchemaRulesUri() { return "memory://schema_rules_test_" + std::to_string(++g_schema_rules_uris) + "/t.lance"; }

// Every object under the table's root.
std::vector<std::string> FilesOf(const std::string& uri) {
  auto loc = TableLocation::FromUri(uri);
  EXPECT_TRUE(loc.ok());
  auto list = loc->store()->List(loc->root());
  std::vector<std::string> out;
  if (list.ok()) {
    for (const auto& m : *list) out.push_back(m.path);
  }
  return out;
}

std::string Why(const Status& st) { return st.ok() ? "OK" : st.message(); }

TEST(SchemaRules, RefusesWhatLance12RefusesOrCannotRead) {
  const auto check = [](std::vector<FieldPtr> fields) {
    return Why(CheckTableSchema(Schema(std::move(fields)), "create"));
  };
  EXPECT_EQ(check({field("a", int32()), field("b", utf8())}), "OK");
  // Case-only differences, spaces, dots below the top level and odd characters: lance 12
  // accepts and reads them.
  EXPECT_EQ(check({field("a", int32()), field("A", int32()), field("a b", int32()),
                   field("s", struct_({field("x.y", int32())})), field("q`\"", int32())}),
            "OK");
  EXPECT_EQ(check({}), "OK");
  EXPECT_NE(check({field("a", int32()), field("a", utf8())}).find("duplicate field name 'a'"),
            std::string::npos);
  EXPECT_NE(check({field("s", struct_({field("x", int32()), field("x", int32())}))})
                .find("duplicate field name 'x' in 's'"),
            std::string::npos);
  EXPECT_NE(check({field("a.b", int32())}).find("'a.b' cannot contain '.'"), std::string::npos);
  EXPECT_NE(check({field("", int32())}).find("cannot be empty"), std::string::npos);
  EXPECT_NE(check({field("s", struct_({field("", int32())}))}).find("'s' has a field with an empty name"),
            std::string::npos);
  EXPECT_NE(check({field("v", fixed_size_list(float32(), 0))})
                .find("'v' is a fixed_size_list of list_size 0"),
            std::string::npos);
  EXPECT_NE(check({field("v", fixed_size_binary(0))}).find("'v' is a fixed_size_binary of byte_width 0"),
            std::string::npos);
  // Nested anywhere: in a list's items, a struct's fields, a fixed_size_list's items.
  EXPECT_NE(check({field("l", list(fixed_size_list(int8(), 0)))}).find("'l.item'"), std::string::npos);
  EXPECT_NE(check({field("s", struct_({field("t", struct_({field("w", fixed_size_binary(0))}))}))})
                .find("'s.t.w'"),
            std::string::npos);
  EXPECT_NE(check({field("f", fixed_size_list(fixed_size_binary(0), 2))}).find("byte_width 0"),
            std::string::npos);
  EXPECT_NE(check({field("l", list(struct_({field("k", int32()), field("k", int32())})))})
                .find("duplicate field name 'k'"),
            std::string::npos);
}

TEST(SchemaRules, WritesRefuseBeforeAnythingIsWritten) {
  const std::vector<std::vector<FieldPtr>> bad = {
      {field("id", int32()), field("v", fixed_size_list(float32(), 0))},
      {field("id", int32()), field("v", fixed_size_binary(0))},
      {field("id", int32()), field("id", int32())},
      {field("a.b", int32())},
      {field("s", struct_({field("x", int32()), field("x", int32())}))},
  };
  for (const auto& fields : bad) {
    const SchemaPtr sch = schema(fields);
    for (WriteMode mode : {WriteMode::kCreate, WriteMode::kAppend, WriteMode::kOverwrite}) {
      const std::string uri = SchemaRulesUri();
      WriteParams p;
      p.mode = mode;
      // No rows: the schema alone must be refused (a table with the schema would brick).
      auto r = WriteDataset(uri, sch, {}, p);
      ASSERT_FALSE(r.ok()) << sch->ToString();
      EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
      EXPECT_EQ(FilesOf(uri), std::vector<std::string>{}) << sch->ToString();
    }
  }
  // On an existing table: refused, the table keeps its one version and stays readable.
  const std::string uri = SchemaRulesUri();
  const SchemaPtr good = schema({field("id", int64())});
  auto rows = ReadJsonLines("{\"id\":1}\n{\"id\":2}\n", good);
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE(WriteDataset(uri, good, {*rows}, {}).ok());
  const size_t files = FilesOf(uri).size();
  WriteParams over;
  over.mode = WriteMode::kOverwrite;
  auto r = WriteDataset(uri, schema({field("id", int64()), field("v", fixed_size_list(int32(), 0))}), {}, over);
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_EQ(FilesOf(uri).size(), files);
  auto ds = Snapshot::Open(uri);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 1u);
  EXPECT_EQ((*ds)->CountRows(), 2u);
}

TEST(SchemaRules, SchemaEvolutionRefusesBadNames) {
  const std::string uri = SchemaRulesUri();
  const SchemaPtr good = schema({field("id", int64())});
  auto rows = ReadJsonLines("{\"id\":1}\n{\"id\":2}\n", good);
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE(WriteDataset(uri, good, {*rows}, {}).ok());
  const size_t files = FilesOf(uri).size();
  for (const std::string& name : {std::string("x.y"), std::string(""), std::string("id")}) {
    auto r = AddColumns(uri, {{name, "id + 1"}});
    EXPECT_TRUE(r.status().IsInvalidArgument()) << name << ": " << r.status().ToString();
  }
  // New columns from data: the same rules, nested too.
  const SchemaPtr bad = schema({field("v", fixed_size_list(int32(), 0))});
  auto r = AddColumnsFromData(uri, bad, {});
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_EQ(FilesOf(uri).size(), files);
  auto ds = Snapshot::Open(uri);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 1u);
}

TEST(SchemaRules, CommitRefusesToPublishWhatItCannotReadBack) {
  // A transaction built by an engine (not through WriteDataset) with a schema lance 12 cannot
  // open: the commit checks the manifest it encoded and publishes nothing.
  for (int variant = 0; variant < 3; ++variant) {
    const std::string uri = SchemaRulesUri();
    auto loc = TableLocation::FromUri(uri);
    ASSERT_TRUE(loc.ok());
    Transaction::Overwrite o;
    auto lf = [](std::string name, int32_t id, int32_t parent, std::string type) {
      file::LanceField f;
      f.name = std::move(name);
      f.id = id;
      f.parent_id = parent;
      f.logical_type = std::move(type);
      f.nullable = true;
      return f;
    };
    if (variant == 0) o.schema = {lf("a", 0, -1, "int64"), lf("a", 1, -1, "int64")};
    if (variant == 1) o.schema = {lf("v", 0, -1, "fixed_size_list:float:0"), lf("item", 1, 0, "float")};
    if (variant == 2) o.schema = {lf("x.y", 0, -1, "int64")};
    o.data_storage_version = "2.2";
    Transaction t;
    t.operation = std::move(o);
    auto c = CommitTransaction(*loc, std::move(t), {});
    ASSERT_FALSE(c.ok()) << variant;
    EXPECT_NE(c.status().message().find(variant == 1 ? "list" : "refusing to commit"), std::string::npos)
        << c.status().ToString();
    auto latest = LoadLatestVersion(*loc);
    ASSERT_TRUE(latest.ok()) << latest.status().ToString();
    EXPECT_FALSE(latest->has_value()) << variant;
    EXPECT_EQ(FilesOf(uri), std::vector<std::string>{}) << variant;
  }
}

}  // namespace
}  // namespace lance::table
