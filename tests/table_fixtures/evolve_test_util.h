// Helpers shared by the tests of update, merge-insert, schema evolution, compaction and
// cleanup: datasets in the in-memory store built from JSON rows, every row read back as
// canonical JSON lines, and a commit handler that loses its first race on purpose.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"
#include "lance/expr/expression.h"
#include "lance/table/snapshot.h"
#include "lance/table/transaction.h"
#include "lance/table/write.h"
#include "table_fixtures/json_lines_test_util.h"

#define EV_CONCAT_INNER(a, b) a##b
#define EV_CONCAT(a, b) EV_CONCAT_INNER(a, b)
#define EV_ASSERT_OK(expr)                                      \
  do {                                                          \
    const ::lance::Status _st = (expr);                         \
    ASSERT_TRUE(_st.ok()) << #expr << ": " << _st.ToString();   \
  } while (0)
#define EV_ASSIGN_IMPL(tmp, lhs, rexpr)                                     \
  auto tmp = (rexpr);                                                       \
  ASSERT_TRUE(tmp.ok()) << #rexpr << ": " << tmp.status().ToString();       \
  lhs = std::move(*tmp)
#define EV_ASSIGN(lhs, rexpr) EV_ASSIGN_IMPL(EV_CONCAT(_ev_res_, __LINE__), lhs, rexpr)

namespace lance::table::evolve_test {

inline std::string FreshUri(const std::string& what) {
  static std::atomic<int> counter{0};
  return "memory://evolve_" + what + "_" + std::to_string(++counter) + "/t.lance";
}

// id: int64 not null, name: utf8, score: double.
inline SchemaPtr PeopleSchema() {
  return schema({field("id", int64(), false), field("name", utf8()), field("score", float64())});
}

// Rows {"id": i, "name": "n<i>", "score": i / 2} for i in [start, start + n).
inline std::string PeopleJson(int start, int n) {
  std::string out = "[";
  for (int i = start; i < start + n; ++i) {
    if (i > start) out += ",";
    out += "{\"id\":" + std::to_string(i) + ",\"name\":\"n" + std::to_string(i) +
           "\",\"score\":" + std::to_string(i / 2.0) + "}";
  }
  return out + "]";
}

inline Result<RecordBatchPtr> People(int start, int n) {
  return RecordBatchFromJSON(PeopleSchema(), PeopleJson(start, n));
}

// Writes rows [0, n) of People as a new dataset with `rows_per_fragment`.
inline Status MakePeople(const std::string& uri, int n, int64_t rows_per_fragment,
                         bool stable_row_ids = false) {
  LANCE_ASSIGN_OR_RAISE(auto batch, People(0, n));
  WriteParams p;
  p.max_rows_per_file = rows_per_fragment;
  p.enable_stable_row_ids = stable_row_ids;
  return WriteDataset(uri, PeopleSchema(), {batch}, p).status();
}

// Every row of the latest version (or `options`) as canonical JSON lines, one per row.
inline Result<std::vector<std::string>> Rows(const std::string& uri, ScanOptions options = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(uri));
  LANCE_ASSIGN_OR_RAISE(auto batches, ds->Scan(options));
  return JsonLinesOf(batches);
}

// Deletes the live rows of the latest version where `filter` is TRUE. The table layer has no
// filter engine (deletes by filter are dataset/'s, over the query layer): the tests of table
// operations find the rows by evaluating the filter over a plain scan of every column with
// _rowaddr, then delete them by address.
inline Result<DeleteResult> DeleteRows(const std::string& uri, const std::string& filter) {
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(uri));
  LANCE_ASSIGN_OR_RAISE(auto pred, expr::Expression::MakePredicate(filter, ds->schema()));
  ScanOptions so;
  so.with_row_addr = true;
  LANCE_ASSIGN_OR_RAISE(auto batches, ds->Scan(so));
  std::vector<uint64_t> addresses;
  for (const auto& b : batches) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, pred->Evaluate(*b));
    const uint64_t* addr = b->column(b->num_columns() - 1)->Values<uint64_t>();
    for (int64_t r : expr::TrueIndices(*mask)) addresses.push_back(addr[r]);
  }
  return DeleteRowAddresses(uri, std::move(addresses), ds->version(), filter);
}

// `json` (an array of row objects of `schema`) as canonical JSON lines, one per row.
inline Result<std::vector<std::string>> Expected(const SchemaPtr& schema, const std::string& json) {
  LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatchFromJSON(schema, json));
  return JsonLinesOf(std::vector<RecordBatchPtr>{batch});
}

// One People row as a JSON object.
inline std::string PersonJson(int id, const std::string& name, double score) {
  return "{\"id\":" + std::to_string(id) + ",\"name\":\"" + name + "\",\"score\":" +
         std::to_string(score) + "}";
}

// Lets `competitor` commit first on its first call, then publishes normally.
class RacingHandler final : public CommitHandler {
 public:
  explicit RacingHandler(std::function<void()> competitor) : competitor_(std::move(competitor)) {}
  Status CommitManifest(io::ObjectStore& store, const std::string& path,
                        std::string_view bytes) override {
    if (++calls == 1) competitor_();
    return PutIfNotExistsCommitHandler()->CommitManifest(store, path, bytes);
  }
  std::string_view name() const override { return "racing"; }
  int calls = 0;

 private:
  std::function<void()> competitor_;
};

}  // namespace lance::table::evolve_test
