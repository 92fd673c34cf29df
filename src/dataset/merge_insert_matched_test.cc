// Merge-insert with matched rows deleted (WhenMatched::kDelete) or failing the operation
// (WhenMatched::kFail), and from a partial-schema source, with and without stable row ids.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lance/columnar/json.h"
#include "lance/table/snapshot.h"
#include "table_fixtures/dataset_ops_test_util.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

using namespace evolve_test;

std::vector<std::string> MatchedPeopleRows(const std::vector<std::string>& objects) {
  std::string json = "[";
  for (size_t i = 0; i < objects.size(); ++i) json += (i ? "," : "") + objects[i];
  auto rows = Expected(PeopleSchema(), json + "]");
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? *rows : std::vector<std::string>{};
}

RecordBatchPtr MatchedSource(const std::string& json) {
  auto b = RecordBatchFromJSON(PeopleSchema(), json);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

class MergeMatched : public ::testing::TestWithParam<bool> {};

TEST_P(MergeMatched, DeleteRemovesMatchedRowsAndInsertsTheRest) {
  const std::string uri = FreshUri("merge_delete");
  TEST_OK(MakePeople(uri, 5, 2, /*stable_row_ids=*/GetParam()));
  MergeInsertParams p;
  p.on = {"id"};
  p.when_matched = WhenMatched::kDelete;
  auto src = MatchedSource(R"([{"id":1,"name":"x","score":9},{"id":4,"name":"y","score":9},
                        {"id":7,"name":"z","score":7}])");
  TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, PeopleSchema(), {src}, p));
  EXPECT_EQ(r.rows_deleted, 2u);
  EXPECT_EQ(r.rows_updated, 0u);
  EXPECT_EQ(r.rows_inserted, 1u);
  EXPECT_EQ(r.commit.version, 2u);
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(rows, MatchedPeopleRows({PersonJson(0, "n0", 0), PersonJson(2, "n2", 1), PersonJson(3, "n3", 1.5),
                              PersonJson(7, "z", 7)}));

  // Deleting matches without inserting: only deletions are committed.
  p.when_not_matched = WhenNotMatched::kDoNothing;
  TEST_ASSIGN(r, MergeInsert(uri, PeopleSchema(), {MatchedSource(R"([{"id":0,"name":"a","score":1},
                                                             {"id":99,"name":"b","score":1}])")}, p));
  EXPECT_EQ(r.rows_deleted, 1u);
  EXPECT_EQ(r.rows_inserted, 0u);
  TEST_ASSIGN(rows, Rows(uri));
  EXPECT_EQ(rows, MatchedPeopleRows({PersonJson(2, "n2", 1), PersonJson(3, "n3", 1.5), PersonJson(7, "z", 7)}));
}

TEST_P(MergeMatched, FailRefusesAnyMatchAndCommitsNothing) {
  const std::string uri = FreshUri("merge_fail");
  TEST_OK(MakePeople(uri, 3, 10, GetParam()));
  MergeInsertParams p;
  p.on = {"id"};
  p.when_matched = WhenMatched::kFail;
  auto r = MergeInsert(uri, PeopleSchema(), {MatchedSource(R"([{"id":8,"name":"x","score":1},
                                                         {"id":2,"name":"y","score":1}])")}, p);
  ASSERT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("fail"), std::string::npos);
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), 1u);
  // Without a match it inserts as usual.
  TEST_ASSIGN(MergeInsertResult ok, MergeInsert(uri, PeopleSchema(), {MatchedSource(R"([{"id":8,"name":"x","score":1}])")}, p));
  EXPECT_EQ(ok.rows_inserted, 1u);
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(rows, MatchedPeopleRows({PersonJson(0, "n0", 0), PersonJson(1, "n1", 0.5), PersonJson(2, "n2", 1),
                              PersonJson(8, "x", 1)}));
}

TEST_P(MergeMatched, PartialSourceKeepsTheMissingColumnsOfUpdatedRows) {
  const std::string uri = FreshUri("merge_partial");
  TEST_OK(MakePeople(uri, 6, 2, GetParam()));
  MergeInsertParams p;
  p.on = {"id"};
  // score, id (no name): updated rows keep their names, the inserted row gets a null one.
  auto part = schema({field("score", float64()), field("id", int64(), false)});
  TEST_ASSIGN(auto src, RecordBatchFromJSON(part, R"([{"score":40,"id":4},{"score":90,"id":9},
                                                   {"score":10,"id":1}])"));
  TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, part, {src}, p));
  EXPECT_EQ(r.rows_updated, 2u);
  EXPECT_EQ(r.rows_inserted, 1u);
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(rows, MatchedPeopleRows({PersonJson(0, "n0", 0), PersonJson(2, "n2", 1), PersonJson(3, "n3", 1.5),
                                     PersonJson(5, "n5", 2.5), PersonJson(4, "n4", 40), PersonJson(1, "n1", 10),
                                     R"({"id":9,"name":null,"score":90})"}));
  // An update condition over the target's columns, the source naming only its own.
  p.when_matched_update_where = "target.name = 'n0' AND source.score > target.score";
  TEST_ASSIGN(src, RecordBatchFromJSON(part, R"([{"score":5,"id":0},{"score":5,"id":2}])"));
  TEST_ASSIGN(r, MergeInsert(uri, part, {src}, p));
  EXPECT_EQ(r.rows_updated, 1u);
  TEST_ASSIGN(rows, Rows(uri));
  EXPECT_EQ(rows, MatchedPeopleRows({PersonJson(2, "n2", 1), PersonJson(3, "n3", 1.5), PersonJson(5, "n5", 2.5),
                                     PersonJson(4, "n4", 40), PersonJson(1, "n1", 10),
                                     R"({"id":9,"name":null,"score":90})", PersonJson(0, "n0", 5)}));
  p.when_matched_update_where = "source.name = 'x'";
  auto st = MergeInsert(uri, part, {src}, p).status();
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("update condition"), std::string::npos) << st.ToString();
  // The key must be given.
  p.when_matched_update_where.clear();
  auto keyless = schema({field("score", float64())});
  TEST_ASSIGN(auto nokey, RecordBatchFromJSON(keyless, R"([{"score":1}])"));
  st = MergeInsert(uri, keyless, {nokey}, p).status();
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("lacks the key column 'id'"), std::string::npos) << st.ToString();
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), 3u);
}

INSTANTIATE_TEST_SUITE_P(StableRowIds, MergeMatched, ::testing::Bool());

}  // namespace
}  // namespace lance::table
