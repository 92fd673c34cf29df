// Helpers shared by the tests of update, merge-insert, schema evolution, compaction and
// cleanup: datasets in the in-memory store built from JSON rows and a commit handler that
// loses its first race on purpose (reading rows back: scan_test_util.h, through query/).
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
#include "table_fixtures/status_test_util.h"


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
