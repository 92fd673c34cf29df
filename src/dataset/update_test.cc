// UPDATE and merge-insert: every row read back, the Update transaction's shape, stable row
// ids kept, rebase over a concurrent delete of other rows and refusal for the same rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "lance/dataset/dataset.h"
#include "lance/table/row_ids.h"
#include "table_fixtures/dataset_ops_test_util.h"
#include "lance/table/versions.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

using namespace evolve_test;
using dataset::UpdateParams;
using dataset::UpdateResult;

// UPDATE through the front door: a handle on the latest version.
Result<UpdateResult> UpdateRows(const std::string& uri,
                                const std::vector<std::pair<std::string, std::string>>& assignments,
                                const std::string& where, const UpdateParams& params = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(uri));
  return ds->Update(assignments, where, params);
}

std::vector<std::string> PeopleRows(const std::vector<std::string>& objects) {
  std::string json = "[";
  for (size_t i = 0; i < objects.size(); ++i) json += (i ? "," : "") + objects[i];
  auto rows = Expected(PeopleSchema(), json + "]");
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  return rows.ok() ? *rows : std::vector<std::string>{};
}

TEST(Update, RewritesMatchingRowsIntoNewFragments) {
  const std::string uri = FreshUri("update");
  TEST_OK(MakePeople(uri, 6, 3));
  TEST_ASSIGN(UpdateResult r, UpdateRows(uri, {{"score", "score * 10 + id"}, {"name", "upper(name)"}},
                                       "id >= 2 AND id < 5"));
  EXPECT_EQ(r.rows_updated, 3u);
  EXPECT_EQ(r.commit.version, 2u);
  TEST_ASSIGN(auto rows, Rows(uri));
  // Untouched rows stay in place; the updated ones move to the new fragment at the end.
  EXPECT_EQ(rows, PeopleRows({PersonJson(0, "n0", 0), PersonJson(1, "n1", 0.5), PersonJson(5, "n5", 2.5),
                              PersonJson(2, "N2", 12), PersonJson(3, "N3", 18), PersonJson(4, "N4", 24)}));
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  ASSERT_EQ(ds->manifest().fragments.size(), 3u);
  EXPECT_EQ(ds->manifest().fragments[0].deletion->num_deleted_rows, 1u);
  EXPECT_EQ(ds->manifest().fragments[1].deletion->num_deleted_rows, 2u);
  EXPECT_EQ(ds->manifest().fragments[2].id, 2u);
  EXPECT_EQ(ds->manifest().fragments[2].physical_rows, 3u);
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(auto sv, LoadVersion(loc, 2));
  TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
  ASSERT_TRUE(txn.has_value());
  ASSERT_TRUE(txn->is<Transaction::Update>());
  const auto& update = *txn->get<Transaction::Update>();
  EXPECT_EQ(update.updated_fragments.size(), 2u);
  ASSERT_EQ(update.new_fragments.size(), 1u);
  EXPECT_EQ(update.new_fragments[0].id, 0u);  // assigned by the commit

  // No match: a version of no change, as lance 12 commits (an Update of no fragments).
  TEST_ASSIGN(auto rows_before, Rows(uri));
  TEST_ASSIGN(UpdateResult none, UpdateRows(uri, {{"score", "0"}}, "id > 100"));
  EXPECT_EQ(none.rows_updated, 0u);
  EXPECT_EQ(none.commit.version, 3u);
  TEST_ASSIGN(ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), 3u);
  TEST_ASSIGN(auto rows_after, Rows(uri));
  EXPECT_EQ(rows_after, rows_before);
  TEST_ASSIGN(auto sv3, LoadVersion(loc, 3));
  TEST_ASSIGN(auto empty_txn, LoadTransaction(loc, sv3));
  ASSERT_TRUE(empty_txn.has_value());
  ASSERT_TRUE(empty_txn->is<Transaction::Update>());
  EXPECT_TRUE(empty_txn->get<Transaction::Update>()->new_fragments.empty());
  EXPECT_TRUE(empty_txn->get<Transaction::Update>()->updated_fragments.empty());

  // Every row of a fragment updated: the fragment goes away.
  TEST_OK(UpdateRows(uri, {{"score", "-1"}}, "id < 2").status());
  TEST_ASSIGN(ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->manifest().fragments[0].id, 1u);
  TEST_ASSIGN(rows, Rows(uri));
  EXPECT_EQ(rows, PeopleRows({PersonJson(5, "n5", 2.5), PersonJson(2, "N2", 12), PersonJson(3, "N3", 18),
                              PersonJson(4, "N4", 24), PersonJson(0, "n0", -1), PersonJson(1, "n1", -1)}));
}

TEST(Update, RefusesBadAssignments) {
  const std::string uri = FreshUri("update_bad");
  TEST_OK(MakePeople(uri, 3, 3));
  EXPECT_TRUE(UpdateRows(uri, {{"nope", "1"}}, "").status().IsInvalidArgument());
  EXPECT_TRUE(UpdateRows(uri, {{"score", "nope + 1"}}, "").status().IsInvalidArgument());
  EXPECT_TRUE(UpdateRows(uri, {{"score", "1"}}, "nope = 1").status().IsInvalidArgument());
  auto st = UpdateRows(uri, {{"id", "NULL"}}, "id = 1").status();
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  // The int64 result of `id + 1` is cast to the int64 column; a double to int64 too.
  TEST_OK(UpdateRows(uri, {{"id", "id + 10"}}, "id = 2").status());
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(rows, PeopleRows({PersonJson(0, "n0", 0), PersonJson(1, "n1", 0.5), PersonJson(12, "n2", 1)}));
}

TEST(Update, StableRowIdsAreKept) {
  const std::string uri = FreshUri("update_stable");
  TEST_OK(MakePeople(uri, 4, 2, /*stable_row_ids=*/true));
  TEST_OK(UpdateRows(uri, {{"name", "'x'"}}, "id = 1 OR id = 2").status());
  query::ScanOptions so;
  so.columns = {"id", "name"};
  so.with_row_id = true;
  TEST_ASSIGN(auto rows, Rows(uri, so));
  auto sch = schema({field("id", int64(), false), field("name", utf8()), field("_rowid", uint64())});
  TEST_ASSIGN(auto want, Expected(sch, R"([{"id":0,"name":"n0","_rowid":0},{"id":3,"name":"n3","_rowid":3},
                                         {"id":1,"name":"x","_rowid":1},{"id":2,"name":"x","_rowid":2}])"));
  EXPECT_EQ(rows, want);
  // New rows appended afterwards get fresh ids.
  TEST_ASSIGN(auto more, People(10, 1));
  WriteParams p;
  p.mode = WriteMode::kAppend;
  TEST_OK(WriteDataset(uri, PeopleSchema(), {more}, p).status());
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  TEST_ASSIGN(auto ids, ds->RowIds(ds->manifest().fragments.size() - 1));
  EXPECT_EQ(ids, (std::vector<uint64_t>{4}));
}

TEST(Update, RebasesOverConcurrentDeleteOfOtherRows) {
  const std::string uri = FreshUri("update_race");
  TEST_OK(MakePeople(uri, 4, 4));
  UpdateParams p;
  auto handler = std::make_shared<RacingHandler>([&] {
    auto d = DeleteRows(uri, "id = 0");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
  });
  p.commit.handler = handler;
  TEST_ASSIGN(UpdateResult r, UpdateRows(uri, {{"score", "100"}}, "id = 3", p));
  EXPECT_EQ(r.commit.attempts, 2);
  EXPECT_EQ(r.commit.version, 3u);
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(rows, PeopleRows({PersonJson(1, "n1", 0.5), PersonJson(2, "n2", 1), PersonJson(3, "n3", 100)}));

  // A concurrent delete of the same row: retryable conflict, nothing committed.
  auto same = std::make_shared<RacingHandler>([&] {
    auto d = DeleteRows(uri, "id = 1");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
  });
  p.commit.handler = same;
  auto st = UpdateRows(uri, {{"score", "7"}}, "id = 1", p).status();
  ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
  EXPECT_NE(st.message().find("retryable"), std::string::npos) << st.ToString();
  TEST_ASSIGN(rows, Rows(uri));
  EXPECT_EQ(rows, PeopleRows({PersonJson(2, "n2", 1), PersonJson(3, "n3", 100)}));
}

RecordBatchPtr Source(const std::string& json) {
  auto b = RecordBatchFromJSON(PeopleSchema(), json);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

TEST(MergeInsert, UpsertUpdatesMatchesAndInsertsTheRest) {
  const std::string uri = FreshUri("merge");
  TEST_OK(MakePeople(uri, 4, 2));
  MergeInsertParams p;
  p.on = {"id"};
  auto src = Source("[" + PersonJson(5, "new5", 5) + "," + PersonJson(1, "upd1", 10) + "," +
                    PersonJson(3, "upd3", 30) + "," + PersonJson(7, "new7", 7) + "]");
  TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, PeopleSchema(), {src}, p));
  EXPECT_EQ(r.rows_updated, 2u);
  EXPECT_EQ(r.rows_inserted, 2u);
  EXPECT_EQ(r.rows_deleted, 0u);
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(rows, PeopleRows({PersonJson(0, "n0", 0), PersonJson(2, "n2", 1), PersonJson(1, "upd1", 10),
                              PersonJson(3, "upd3", 30), PersonJson(5, "new5", 5),
                              PersonJson(7, "new7", 7)}));
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(auto sv, LoadVersion(loc, r.commit.version));
  TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
  ASSERT_TRUE(txn.has_value());
  EXPECT_TRUE(txn->is<Transaction::Update>());
}

TEST(MergeInsert, InsertOnlyAndDeleteNotMatchedBySource) {
  const std::string uri = FreshUri("merge_modes");
  TEST_OK(MakePeople(uri, 4, 4));
  // Source columns in another order: matched by name.
  auto sch = schema({field("score", float64()), field("id", int64(), false), field("name", utf8())});
  TEST_ASSIGN(auto src, RecordBatchFromJSON(sch, R"([{"score":9,"id":2,"name":"x"},
                                                   {"score":9,"id":9,"name":"y"}])"));
  MergeInsertParams p;
  p.on = {"id"};
  p.when_matched = WhenMatched::kDoNothing;
  TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, sch, {src}, p));
  EXPECT_EQ(r.rows_updated, 0u);
  EXPECT_EQ(r.rows_inserted, 1u);
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(rows, PeopleRows({PersonJson(0, "n0", 0), PersonJson(1, "n1", 0.5), PersonJson(2, "n2", 1),
                              PersonJson(3, "n3", 1.5), PersonJson(9, "y", 9)}));
  // Replace the table's content with the source: update matches, delete the rest.
  p.when_matched = WhenMatched::kUpdateAll;
  p.when_not_matched = WhenNotMatched::kDoNothing;
  p.when_not_matched_by_source = WhenNotMatchedBySource::kDelete;
  TEST_ASSIGN(r, MergeInsert(uri, sch, {src}, p));
  EXPECT_EQ(r.rows_updated, 2u);
  EXPECT_EQ(r.rows_deleted, 3u);
  TEST_ASSIGN(rows, Rows(uri));
  EXPECT_EQ(rows, PeopleRows({PersonJson(2, "x", 9), PersonJson(9, "y", 9)}));
  // Nothing to do: a version of no change, as lance 12 commits.
  p.when_matched = WhenMatched::kDoNothing;
  p.when_not_matched_by_source = WhenNotMatchedBySource::kKeep;
  const uint64_t last = r.commit.version;
  TEST_ASSIGN(r, MergeInsert(uri, sch, {src}, p));
  EXPECT_EQ(r.commit.version, last + 1);
  TEST_ASSIGN(rows, Rows(uri));
  EXPECT_EQ(rows, PeopleRows({PersonJson(2, "x", 9), PersonJson(9, "y", 9)}));
}

TEST(MergeInsert, CompositeKeysNullKeysAndAmbiguity) {
  const std::string uri = FreshUri("merge_keys");
  TEST_OK(MakePeople(uri, 3, 3));
  MergeInsertParams p;
  p.on = {"id", "name"};
  // (1, n1) matches; (2, zz) does not (inserted); a null name never matches (inserted).
  auto src = Source(R"([{"id":1,"name":"n1","score":100},{"id":2,"name":"zz","score":200},
                        {"id":0,"name":null,"score":300}])");
  TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, PeopleSchema(), {src}, p));
  EXPECT_EQ(r.rows_updated, 1u);
  EXPECT_EQ(r.rows_inserted, 2u);
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(rows, PeopleRows({PersonJson(0, "n0", 0), PersonJson(2, "n2", 1), PersonJson(1, "n1", 100),
                              PersonJson(2, "zz", 200), R"({"id":0,"name":null,"score":300})"}));
  // Two source rows for one dataset row.
  p.on = {"id"};
  auto dup = Source("[" + PersonJson(1, "a", 1) + "," + PersonJson(1, "b", 2) + "]");
  auto st = MergeInsert(uri, PeopleSchema(), {dup}, p).status();
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("ambiguous"), std::string::npos);
  // Schema mismatches.
  auto other = schema({field("id", int64(), false), field("name", utf8()), field("extra", int32())});
  TEST_ASSIGN(auto b, RecordBatchFromJSON(other, R"([{"id":1,"name":"a","extra":1}])"));
  st = MergeInsert(uri, other, {b}, p).status();
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  // A missing non-key column is a partial source (accepted); the extra one is refused.
  EXPECT_EQ(st.message().find("missing"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("not in the dataset 'extra' (int32)"), std::string::npos)
      << st.ToString();
  auto retyped = schema({field("id", int64(), false), field("name", utf8()), field("score", utf8())});
  TEST_ASSIGN(b, RecordBatchFromJSON(retyped, R"([{"id":1,"name":"a","score":"x"}])"));
  st = MergeInsert(uri, retyped, {b}, p).status();
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("'score' is string but the dataset has double"), std::string::npos)
      << st.ToString();
  p.on = {"nope"};
  EXPECT_TRUE(MergeInsert(uri, PeopleSchema(), {src}, p).status().IsInvalidArgument());
}

TEST(MergeInsert, StableRowIdsKeptForUpdatedRowsFreshForInserted) {
  const std::string uri = FreshUri("merge_stable");
  TEST_OK(MakePeople(uri, 3, 3, /*stable_row_ids=*/true));
  MergeInsertParams p;
  p.on = {"id"};
  auto src = Source("[" + PersonJson(1, "u", 1) + "," + PersonJson(8, "i", 8) + "]");
  TEST_OK(MergeInsert(uri, PeopleSchema(), {src}, p).status());
  query::ScanOptions so;
  so.columns = {"id"};
  so.with_row_id = true;
  TEST_ASSIGN(auto rows, Rows(uri, so));
  auto sch = schema({field("id", int64(), false), field("_rowid", uint64())});
  TEST_ASSIGN(auto want, Expected(sch, R"([{"id":0,"_rowid":0},{"id":2,"_rowid":2},{"id":1,"_rowid":1},
                                         {"id":8,"_rowid":3}])"));
  EXPECT_EQ(rows, want);
}

// Many dataset rows (several probe slices on several threads): every key probed once, the
// matches found wherever they are, for a fixed-width key (int32, hashed by value) and a
// string key (hashed through its encoding).
TEST(MergeInsert, ManyRowsEveryMatchFoundForFixedAndStringKeys) {
  constexpr int64_t kRows = 150000;
  for (bool string_key : {false, true}) {
    const std::string uri = FreshUri(string_key ? "merge_many_s" : "merge_many_i");
    auto sch = schema({field("k", int32(), false), field("s", utf8(), false), field("v", int64())});
    auto make = [&](int64_t start, int64_t n, int64_t step, int64_t v) {
      std::string json = "[";
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = start + i * step;
        json += fmt::format("{}{{\"k\":{},\"s\":\"s{}\",\"v\":{}}}", i ? "," : "", k, k, v);
      }
      return RecordBatchFromJSON(sch, json + "]");
    };
    TEST_ASSIGN(auto base, make(0, kRows, 1, 0));
    WriteParams wp;
    wp.max_rows_per_file = 100000;
    TEST_OK(WriteDataset(uri, sch, {base}, wp).status());
    // Keys 7, 1007, ... (150 of them, in both fragments) plus 50 beyond the dataset.
    TEST_ASSIGN(auto src, make(7, 200, 1000, 1));
    MergeInsertParams p;
    p.on = {string_key ? "s" : "k"};
    TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, sch, {src}, p));
    EXPECT_EQ(r.rows_updated, 150u);
    EXPECT_EQ(r.rows_inserted, 50u);
    TEST_ASSIGN(auto ds, dataset::Dataset::Open(uri));
    EXPECT_EQ(*ds->CountRows(), static_cast<uint64_t>(kRows + 50));
    TEST_ASSIGN(uint64_t ones, ds->CountRows("v = 1"));
    EXPECT_EQ(ones, 200u);
    TEST_ASSIGN(uint64_t updated, ds->CountRows("v = 1 AND k % 1000 = 7 AND k < 150000"));
    EXPECT_EQ(updated, 150u);
    TEST_ASSIGN(uint64_t stale, ds->CountRows("v = 0 AND k % 1000 = 7"));
    EXPECT_EQ(stale, 0u);
  }
}

// 64-bit keys through the vectorized filter of the probe (four keys a step, a tail of fewer):
// negative keys and keys past 32 bits (the filter hashes both halves), in slices whose length
// is not a multiple of four; every matched key is updated, no other row changes.
TEST(MergeInsert, WideInt64KeysEveryMatchFound) {
  constexpr int64_t kRows = 20003;
  const std::string uri = FreshUri("merge_wide64");
  auto sch = schema({field("k", int64(), false), field("v", int64())});
  auto key = [](int64_t i) -> int64_t { return (i - 10000) * int64_t{4294967311}; };
  auto make = [&](const std::vector<int64_t>& keys, int64_t v) {
    std::string json = "[";
    for (size_t i = 0; i < keys.size(); ++i) {
      json += fmt::format("{}{{\"k\":{},\"v\":{}}}", i ? "," : "", keys[i], v);
    }
    return RecordBatchFromJSON(sch, json + "]");
  };
  std::vector<int64_t> all;
  for (int64_t i = 0; i < kRows; ++i) all.push_back(key(i));
  TEST_ASSIGN(auto base, make(all, 0));
  WriteParams wp;
  wp.max_rows_per_file = 7001;
  TEST_OK(WriteDataset(uri, sch, {base}, wp).status());
  // Every 97th key (both signs), the last row's, and keys that differ from dataset keys
  // in one half only.
  std::vector<int64_t> src;
  for (int64_t i = 0; i < kRows; i += 97) src.push_back(key(i));
  src.push_back(key(kRows - 1));
  const size_t matched = src.size();
  for (int64_t k : {key(5) + 1, key(5) ^ (int64_t{1} << 40), int64_t{7}, key(kRows)}) src.push_back(k);
  TEST_ASSIGN(auto input, make(src, 1));
  MergeInsertParams p;
  p.on = {"k"};
  TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, sch, {input}, p));
  EXPECT_EQ(r.rows_updated, matched);
  EXPECT_EQ(r.rows_inserted, 4u);
  std::set<std::string> want;
  const std::set<int64_t> in_src(src.begin(), src.end());
  for (int64_t k : src) want.insert(fmt::format("{{\"k\":{},\"v\":1}}", k));
  for (int64_t k : all) {
    if (!in_src.count(k)) want.insert(fmt::format("{{\"k\":{},\"v\":0}}", k));
  }
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(rows.size(), want.size());
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()), want);
}

// Without stable row ids, deletions or conditions a matched row's address comes from its
// place in the key scan: over 28 fragments of 37 rows (smaller than a probe slice), every
// update replaces exactly its row. The second merge runs over the first one's deletion files,
// so it reads the addresses from the scan's _rowaddr instead; both must agree with the model.
TEST(MergeInsert, PositionalAddressesOverManySmallFragments) {
  auto sch = schema({field("k", int64(), false), field("v", int64())});
  auto make = [&](const std::vector<int64_t>& keys, int64_t v) {
    std::string json = "[";
    for (size_t i = 0; i < keys.size(); ++i) {
      json += fmt::format("{}{{\"k\":{},\"v\":{}}}", i ? "," : "", keys[i], v);
    }
    return RecordBatchFromJSON(sch, json + "]");
  };
  const std::string uri = FreshUri("merge_positional");
  std::vector<int64_t> all;
  for (int64_t i = 0; i < 1003; ++i) all.push_back(3 * i);
  TEST_ASSIGN(auto base, make(all, 0));
  WriteParams wp;
  wp.max_rows_per_file = 37;
  TEST_OK(WriteDataset(uri, sch, {base}, wp).status());
  std::map<int64_t, int64_t> want;
  for (int64_t k : all) want[k] = 0;
  for (int64_t round = 1; round <= 2; ++round) {
    std::vector<int64_t> src;
    for (size_t i = static_cast<size_t>(round); i < all.size(); i += 5) src.push_back(all[i]);
    src.push_back(-round);  // new
    TEST_ASSIGN(auto input, make(src, round));
    MergeInsertParams p;
    p.on = {"k"};
    TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, sch, {input}, p));
    EXPECT_EQ(r.rows_updated, src.size() - 1) << round;
    EXPECT_EQ(r.rows_inserted, 1u) << round;
    for (int64_t k : src) want[k] = round;
    TEST_ASSIGN(auto rows, Rows(uri));
    std::set<std::string> want_rows;
    for (const auto& [k, v] : want) want_rows.insert(fmt::format("{{\"k\":{},\"v\":{}}}", k, v));
    EXPECT_EQ(rows.size(), want_rows.size()) << round;
    EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()), want_rows) << round;
  }
}

// The fixed-width probe at every key width (1, 2, 4, 8 bytes), with null keys on both sides:
// a null never matches, so the null source row is inserted and the null dataset row is
// deleted as not matched by the source.
TEST(MergeInsert, FixedKeysOfEveryWidthWithNulls) {
  for (const auto& type : {int8(), int16(), int32(), int64()}) {
    const std::string uri = FreshUri("merge_widths_" + type->ToString());
    auto sch = schema({field("k", type), field("v", int64(), false)});
    TEST_ASSIGN(auto base, RecordBatchFromJSON(sch, R"([{"k":1,"v":0},{"k":2,"v":0},{"k":3,"v":0},
                                                      {"k":null,"v":0},{"k":-5,"v":0}])"));
    TEST_OK(WriteDataset(uri, sch, {base}, WriteParams{}).status());
    TEST_ASSIGN(auto src, RecordBatchFromJSON(sch, R"([{"k":-5,"v":1},{"k":2,"v":2},{"k":null,"v":3},
                                                     {"k":9,"v":4}])"));
    MergeInsertParams p;
    p.on = {"k"};
    p.when_not_matched_by_source = WhenNotMatchedBySource::kDelete;
    TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, sch, {src}, p));
    EXPECT_EQ(r.rows_updated, 2u) << type->ToString();
    EXPECT_EQ(r.rows_inserted, 2u) << type->ToString();
    EXPECT_EQ(r.rows_deleted, 3u) << type->ToString();
    TEST_ASSIGN(auto rows, Rows(uri));
    std::sort(rows.begin(), rows.end());
    TEST_ASSIGN(auto want, Expected(sch, R"([{"k":-5,"v":1},{"k":2,"v":2},{"k":null,"v":3},{"k":9,"v":4}])"));
    std::sort(want.begin(), want.end());
    EXPECT_EQ(rows, want) << type->ToString();
  }
}

// Merge-insert finds each matched row's address from its fragment and live position (no
// _rowaddr scan): over fragments with deleted rows (one of them emptied), updates replace
// exactly the matched rows and a delete-by-source removes exactly the others.
TEST(MergeInsert, AddressesOfMatchedRowsPastDeletedRows) {
  auto sch = schema({field("k", int64(), false), field("v", int64())});
  auto make = [&](const std::vector<int64_t>& keys, int64_t v) {
    std::string json = "[";
    for (size_t i = 0; i < keys.size(); ++i) {
      json += fmt::format("{}{{\"k\":{},\"v\":{}}}", i ? "," : "", keys[i], v);
    }
    return RecordBatchFromJSON(sch, json + "]");
  };
  for (bool by_source : {false, true}) {
    for (bool stable : {false, true}) {
      const std::string uri = FreshUri("merge_addr");
      std::vector<int64_t> all(3000);
      for (int64_t i = 0; i < 3000; ++i) all[static_cast<size_t>(i)] = i;
      TEST_ASSIGN(auto base, make(all, 0));
      WriteParams wp;
      wp.max_rows_per_file = 700;
      wp.enable_stable_row_ids = stable;
      TEST_OK(WriteDataset(uri, sch, {base}, wp).status());
      TEST_OK(DeleteRows(uri, "k % 3 = 0 OR (k >= 1400 AND k < 2100) OR k % 17 = 5").status());
      std::set<int64_t> live;
      for (int64_t k : all) {
        if (!(k % 3 == 0 || (k >= 1400 && k < 2100) || k % 17 == 5)) live.insert(k);
      }
      // Every 7th live key, a deleted key (inserted again) and keys beyond the dataset.
      std::vector<int64_t> src;
      int64_t n = 0;
      for (int64_t k : live) {
        if (n++ % 7 == 0) src.push_back(k);
      }
      for (int64_t k : {int64_t{3}, int64_t{1500}, int64_t{5000}, int64_t{5001}}) src.push_back(k);
      TEST_ASSIGN(auto input, make(src, 1));
      MergeInsertParams p;
      p.on = {"k"};
      if (by_source) p.when_not_matched_by_source = WhenNotMatchedBySource::kDelete;
      TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, sch, {input}, p));
      const size_t matched = src.size() - 4;
      EXPECT_EQ(r.rows_updated, matched);
      EXPECT_EQ(r.rows_inserted, 4u);
      std::set<std::string> want;
      for (int64_t k : src) want.insert(fmt::format("{{\"k\":{},\"v\":1}}", k));
      if (!by_source) {
        const std::set<int64_t> in_src(src.begin(), src.end());
        for (int64_t k : live) {
          if (!in_src.count(k)) want.insert(fmt::format("{{\"k\":{},\"v\":0}}", k));
        }
      } else {
        EXPECT_EQ(r.rows_deleted, live.size() - matched);
      }
      TEST_ASSIGN(auto rows, Rows(uri));
      EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()), want) << by_source << stable;
      EXPECT_EQ(rows.size(), want.size());
    }
  }
}


std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// A conditional update: only matched rows whose condition over target.* and source.* is TRUE
// are replaced; FALSE or NULL leave the row as it is, and its input row is not inserted.
TEST(MergeInsert, UpdateConditionOverTargetAndSourceColumns) {
  const std::string uri = FreshUri("merge_cond");
  TEST_OK(MakePeople(uri, 6, 3));
  TEST_OK(UpdateRows(uri, {{"score", "NULL"}}, "id = 4").status());
  TEST_OK(DeleteRows(uri, "id = 5").status());
  MergeInsertParams p;
  p.on = {"id"};
  p.when_matched_update_where = "target.score < source.score";
  auto src = Source("[" + PersonJson(1, "u1", 10) + "," + PersonJson(2, "u2", 0.25) + "," +
                    PersonJson(4, "u4", 7) + "," + PersonJson(5, "u5", 9) + "," +
                    PersonJson(9, "u9", 9) + "]");
  TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, PeopleSchema(), {src}, p));
  EXPECT_EQ(r.rows_updated, 1u);   // id 1 (0.5 < 10); id 2 false, id 4 null
  EXPECT_EQ(r.rows_inserted, 2u);  // 5 (deleted before) and 9; not 2 nor 4
  EXPECT_EQ(r.rows_deleted, 0u);
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(Sorted(rows),
            Sorted(PeopleRows({PersonJson(0, "n0", 0), PersonJson(1, "u1", 10), PersonJson(2, "n2", 1),
                               PersonJson(3, "n3", 1.5), R"({"id":4,"name":"n4","score":null})",
                               PersonJson(5, "u5", 9), PersonJson(9, "u9", 9)})));

  // Source-only and mixed conditions.
  p.when_matched_update_where = "source.name = 'v0' OR (target.name = 'n3' AND source.score > 1)";
  p.when_not_matched = WhenNotMatched::kDoNothing;
  src = Source("[" + PersonJson(0, "v0", -1) + "," + PersonJson(3, "v3", 3) + "," +
               PersonJson(2, "v2", 50) + "," + PersonJson(77, "v77", 1) + "]");
  TEST_ASSIGN(r, MergeInsert(uri, PeopleSchema(), {src}, p));
  EXPECT_EQ(r.rows_updated, 2u);
  EXPECT_EQ(r.rows_inserted, 0u);
  TEST_ASSIGN(rows, Rows(uri));
  EXPECT_EQ(Sorted(rows),
            Sorted(PeopleRows({PersonJson(0, "v0", -1), PersonJson(1, "u1", 10), PersonJson(2, "n2", 1),
                               PersonJson(3, "v3", 3), R"({"id":4,"name":"n4","score":null})",
                               PersonJson(5, "u5", 9), PersonJson(9, "u9", 9)})));

  // A condition false for every match and nothing to insert: a version of no change, as
  // lance 12 commits.
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  const uint64_t version = ds->version();
  TEST_ASSIGN(auto rows_before, Rows(uri));
  p.when_matched_update_where = "target.score > source.score";
  src = Source("[" + PersonJson(1, "w", 11) + "]");
  TEST_ASSIGN(r, MergeInsert(uri, PeopleSchema(), {src}, p));
  EXPECT_EQ(r.rows_updated, 0u);
  EXPECT_EQ(r.commit.version, version + 1);
  TEST_ASSIGN(ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), version + 1);
  TEST_ASSIGN(auto rows_after, Rows(uri));
  EXPECT_EQ(rows_after, rows_before);
}

TEST(MergeInsert, ConditionsThatDoNotBindAreRefused) {
  const std::string uri = FreshUri("merge_cond_bad");
  TEST_OK(MakePeople(uri, 3, 3));
  auto src = Source("[" + PersonJson(1, "u", 1) + "]");
  auto refused = [&](const MergeInsertParams& p, const std::string& needle) {
    auto st = MergeInsert(uri, PeopleSchema(), {src}, p).status();
    EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.ToString();
  };
  MergeInsertParams p;
  p.on = {"id"};
  p.when_matched_update_where = "score < 1";  // unqualified: lance 12 calls it ambiguous
  refused(p, "target.COL");
  p.when_matched_update_where = "target.nope < 1";
  refused(p, "nope");
  p.when_matched_update_where = "target.score + source.score";
  refused(p, "update condition");
  p.when_matched_update_where = "target.score < 1";
  p.when_matched = WhenMatched::kDoNothing;
  refused(p, "when matched: update");
  p = {};
  p.on = {"id"};
  p.when_not_matched_by_source_delete_where = "score > 1";
  refused(p, "when not matched by source: delete");  // the delete is not asked for
  p.when_not_matched_by_source = WhenNotMatchedBySource::kDelete;
  p.when_not_matched_by_source_delete_where = "target.score > 1";  // lance 12 refuses it too
  refused(p, "delete condition");
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), 1u);
}

// A conditional delete by source: only unmatched rows where the filter over their own columns
// is TRUE go (NULL keeps the row).
TEST(MergeInsert, DeleteConditionOverUnmatchedDatasetRows) {
  const std::string uri = FreshUri("merge_cond_del");
  TEST_OK(MakePeople(uri, 7, 3));
  TEST_OK(UpdateRows(uri, {{"score", "NULL"}}, "id = 6").status());
  TEST_OK(DeleteRows(uri, "id = 0").status());
  MergeInsertParams p;
  p.on = {"id"};
  p.when_not_matched_by_source = WhenNotMatchedBySource::kDelete;
  p.when_not_matched_by_source_delete_where = "score > 1.6 OR name = 'n2'";
  // id 5 matches (updated even though the filter holds for it), 8 is inserted.
  auto src = Source("[" + PersonJson(5, "u5", 5) + "," + PersonJson(8, "u8", 8) + "]");
  TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, PeopleSchema(), {src}, p));
  EXPECT_EQ(r.rows_updated, 1u);
  EXPECT_EQ(r.rows_inserted, 1u);
  EXPECT_EQ(r.rows_deleted, 2u);  // 2 (name) and 4 (2.0); not 1, 3 (false) nor 6 (null)
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(Sorted(rows),
            Sorted(PeopleRows({PersonJson(1, "n1", 0.5), PersonJson(3, "n3", 1.5), PersonJson(5, "u5", 5),
                               R"({"id":6,"name":"n6","score":null})", PersonJson(8, "u8", 8)})));

  // Both conditions at once: update only the improved matches, delete only low scores.
  p.when_matched_update_where = "source.score > target.score";
  p.when_not_matched_by_source_delete_where = "score < 1";
  src = Source("[" + PersonJson(3, "x3", 1) + "," + PersonJson(8, "x8", 80) + "]");
  TEST_ASSIGN(r, MergeInsert(uri, PeopleSchema(), {src}, p));
  EXPECT_EQ(r.rows_updated, 1u);   // 8; not 3 (1 < 1.5)
  EXPECT_EQ(r.rows_inserted, 0u);
  EXPECT_EQ(r.rows_deleted, 1u);   // 1 (0.5); 5 (5) and 6 (null) stay
  TEST_ASSIGN(rows, Rows(uri));
  EXPECT_EQ(Sorted(rows),
            Sorted(PeopleRows({PersonJson(3, "n3", 1.5), PersonJson(5, "u5", 5),
                               R"({"id":6,"name":"n6","score":null})", PersonJson(8, "x8", 80)})));
}

TEST(MergeInsert, ConditionalUpdateKeepsStableRowIds) {
  const std::string uri = FreshUri("merge_cond_stable");
  TEST_OK(MakePeople(uri, 4, 2, /*stable_row_ids=*/true));
  MergeInsertParams p;
  p.on = {"id"};
  p.when_matched_update_where = "source.score > target.score";
  p.when_not_matched_by_source = WhenNotMatchedBySource::kDelete;
  p.when_not_matched_by_source_delete_where = "id = 3";
  auto src = Source("[" + PersonJson(1, "a", 9) + "," + PersonJson(2, "b", 0) + "," +
                    PersonJson(8, "c", 8) + "]");
  TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, PeopleSchema(), {src}, p));
  EXPECT_EQ(r.rows_updated, 1u);
  EXPECT_EQ(r.rows_inserted, 1u);
  EXPECT_EQ(r.rows_deleted, 1u);
  query::ScanOptions so;
  so.columns = {"id", "name"};
  so.with_row_id = true;
  TEST_ASSIGN(auto rows, Rows(uri, so));
  auto sch = schema({field("id", int64(), false), field("name", utf8()), field("_rowid", uint64())});
  TEST_ASSIGN(auto want, Expected(sch, R"([{"id":0,"name":"n0","_rowid":0},{"id":1,"name":"a","_rowid":1},
                                         {"id":2,"name":"n2","_rowid":2},{"id":8,"name":"c","_rowid":4}])"));
  EXPECT_EQ(Sorted(rows), Sorted(want));
}

// Conditions over many rows in fragments with deleted rows: the condition of each matched
// row is evaluated on that row (not a neighbour), checked against a model.
TEST(MergeInsert, ConditionsPastDeletedRowsMatchAModel) {
  auto sch = schema({field("k", int64(), false), field("v", int64())});
  for (bool stable : {false, true}) {
    const std::string uri = FreshUri("merge_cond_many");
    std::string json = "[";
    for (int64_t i = 0; i < 3000; ++i) json += fmt::format("{}{{\"k\":{},\"v\":{}}}", i ? "," : "", i, i % 10);
    TEST_ASSIGN(auto base, RecordBatchFromJSON(sch, json + "]"));
    WriteParams wp;
    wp.max_rows_per_file = 700;
    wp.enable_stable_row_ids = stable;
    TEST_OK(WriteDataset(uri, sch, {base}, wp).status());
    TEST_OK(DeleteRows(uri, "k % 3 = 0 OR (k >= 1400 AND k < 2100)").status());
    std::map<int64_t, int64_t> model;
    for (int64_t k = 0; k < 3000; ++k) {
      if (!(k % 3 == 0 || (k >= 1400 && k < 2100))) model[k] = k % 10;
    }
    // Every 4th key with v = 5; the update holds where the old v was below 5.
    json = "[";
    std::set<int64_t> in_src;
    for (int64_t k = 0; k < 3200; k += 4) {
      json += fmt::format("{}{{\"k\":{},\"v\":5}}", in_src.empty() ? "" : ",", k);
      in_src.insert(k);
    }
    TEST_ASSIGN(auto input, RecordBatchFromJSON(sch, json + "]"));
    MergeInsertParams p;
    p.on = {"k"};
    p.when_matched_update_where = "target.v < source.v";
    p.when_not_matched_by_source = WhenNotMatchedBySource::kDelete;
    p.when_not_matched_by_source_delete_where = "v = 7 OR k < 100";
    uint64_t updated = 0, inserted = 0, deleted = 0;
    std::map<int64_t, int64_t> want;
    for (auto [k, v] : model) {
      if (in_src.count(k)) {
        want[k] = v < 5 ? 5 : v;
        updated += v < 5;
      } else if (!(v == 7 || k < 100)) {
        want[k] = v;
      } else {
        ++deleted;
      }
    }
    for (int64_t k : in_src) {
      if (!model.count(k)) {
        want[k] = 5;
        ++inserted;
      }
    }
    TEST_ASSIGN(MergeInsertResult r, MergeInsert(uri, sch, {input}, p));
    EXPECT_EQ(r.rows_updated, updated);
    EXPECT_EQ(r.rows_inserted, inserted);
    EXPECT_EQ(r.rows_deleted, deleted);
    std::vector<std::string> want_rows;
    for (auto [k, v] : want) want_rows.push_back(fmt::format("{{\"k\":{},\"v\":{}}}", k, v));
    TEST_ASSIGN(auto rows, Rows(uri));
    EXPECT_EQ(Sorted(rows), Sorted(want_rows)) << stable;
  }
}

}  // namespace
}  // namespace lance::table
