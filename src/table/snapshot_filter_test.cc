// Filtered counts and scans of Snapshot against a direct evaluation of the whole filter over
// every live row: several fragments (chunk boundaries inside them), deleted rows, nulls, a
// low-cardinality string column (written dictionary-encoded), and random conjunctions that
// take both the dense and the sparse (take the rows still in play) paths of a staged filter.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "lance/columnar/json.h"
#include "lance/expr/expression.h"
#include "lance/file/file_reader.h"
#include "lance/io/object_store.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"
#include "table/json_lines_test_util.h"

namespace lance::table {
namespace {

SchemaPtr TestSchema() {
  return schema({field("id", int64(), false), field("cat", utf8()), field("score", float64()),
                 field("flag", boolean()), field("kind", utf8(), false)});
}

// Rows [start, start + n): cat cycles through c0..c9 with a null every 13th row, score is
// i * 37 % 100 (null every 17th row), flag is i % 3 == 0 (null every 11th row), kind is one
// of k0..k5 (never null: dictionary pages without levels, read as dictionary indices by
// filters).
std::string RowsJson(int start, int n) {
  std::string out;
  for (int i = start; i < start + n; ++i) {
    out += "{\"id\":" + std::to_string(i);
    out += ",\"cat\":" + (i % 13 == 5 ? std::string("null") : "\"c" + std::to_string(i * 7 % 10) + "\"");
    out += ",\"score\":" + (i % 17 == 2 ? std::string("null") : std::to_string((i * 37) % 100) + ".5");
    out += ",\"flag\":" + std::string(i % 11 == 4 ? "null" : (i % 3 == 0 ? "true" : "false"));
    out += ",\"kind\":\"k" + std::to_string(i * 11 % 6) + "\"";
    out += "}\n";
  }
  return out;
}

class DatasetFilter : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    uri_ = new std::string("memory://dataset_filter_test/t.lance");
    auto batch = ReadJsonLines(RowsJson(0, kRows), TestSchema());
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    const std::vector<RecordBatchPtr> batches = {*batch};
    WriteParams p;
    p.max_rows_per_file = 12000;  // 3 fragments; chunks of 8192 rows end inside them
    auto w = WriteDataset(*uri_, TestSchema(), batches, p);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    auto d = DeleteRows(*uri_, "id % 7 = 3 OR (id >= 12500 AND id < 12600)");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    ASSERT_GT(d->num_deleted_rows, 4000u);
  }
  static void TearDownTestSuite() { delete uri_; }

  // Ids of the live rows where `filter` is TRUE, by evaluating the whole filter directly on
  // a full scan (with _rowaddr, which filters may use).
  static Result<std::vector<int64_t>> Expected(const Snapshot& ds, const std::string& filter) {
    ScanOptions all;
    all.with_row_addr = true;
    LANCE_ASSIGN_OR_RAISE(auto batches, ds.Scan(all));
    std::vector<FieldPtr> fields = ds.schema()->fields();
    fields.push_back(field("_rowid", uint64(), true));
    fields.push_back(field("_rowaddr", uint64(), true));
    LANCE_ASSIGN_OR_RAISE(auto pred, expr::Expression::MakePredicate(filter, schema(fields)));
    std::vector<int64_t> ids;
    for (const auto& b : batches) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, pred->Evaluate(*b));
      const int64_t* id = b->GetColumnByName("id")->Values<int64_t>();
      for (int64_t r : expr::TrueIndices(*mask)) ids.push_back(id[r]);
    }
    return ids;
  }

  static void Check(const Snapshot& ds, const std::string& filter) {
    SCOPED_TRACE(filter);
    auto expected = Expected(ds, filter);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    auto count = ds.CountRows(filter);
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    EXPECT_EQ(*count, expected->size());
    ScanOptions o;
    o.columns = {"id"};
    o.filter = filter;
    auto batches = ds.Scan(o);
    ASSERT_TRUE(batches.ok()) << batches.status().ToString();
    std::vector<int64_t> got;
    for (const auto& b : *batches) {
      const int64_t* id = b->column(0)->Values<int64_t>();
      got.insert(got.end(), id, id + b->num_rows());
    }
    EXPECT_EQ(got, *expected);
  }

  static constexpr int kRows = 36000;
  static std::string* uri_;
};

std::string* DatasetFilter::uri_ = nullptr;

TEST_F(DatasetFilter, ConjunctionsMatchDirectEvaluation) {
  auto ds = Snapshot::Open(*uri_);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  for (const char* f : {
           "score > 50 AND cat = 'c7'",          // selective equality first, score taken
           "cat = 'c7' AND score > 50",
           "cat IS NOT NULL AND score > 50",     // dense: the second conjunct rereads the chunk
           "cat IN ('c1', 'c4') AND flag AND id % 5 = 0",
           "cat LIKE 'c1%' AND score IS NULL",
           "cat IS NULL AND score < 30",
           "NOT flag AND cat <> 'c2' AND score >= 99.5",
           "(cat = 'c9' OR score < 5) AND _rowaddr % 3 = 1",
           "cat = 'none' AND score > 1",         // nothing survives the first conjunct
           "id >= 0",                            // every live row
           "flag",
           "NULL AND cat = 'c1'",
           // kind: tested once per dictionary entry
           "score > 50 AND kind = 'k4'",
           "kind = 'k1'",
           "kind IN ('k0', 'k5') AND id % 2 = 1",
           "kind LIKE '%3' AND cat IS NOT NULL",
           "kind IS NULL",
           "kind IS NOT NULL AND score < 10",
           "kind <> 'k2' AND NOT flag",
           "kind > 'k3'",
           "kind = 'k9'",                        // no entry matches
           "(kind = 'k2' OR kind = 'k3') AND score >= 90.5",
           "kind = 'k1' AND id < 30000 AND kind <> 'k0'",
           "kind = cat",                         // two columns: read as values
           "(kind = 'k0' OR score > 98) AND flag IS NULL",
           "upper(kind) = 'K2' AND length(kind) = 2",
       }) {
    Check(**ds, f);
  }
}

// The dictionary path above is exercised: kind's pages are dictionary pages without levels.
TEST_F(DatasetFilter, KindIsStoredInDictionaryPages) {
  auto ds = Snapshot::Open(*uri_);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  auto sp = io::ObjectStore::FromUri(*uri_);
  ASSERT_TRUE(sp.ok());
  for (const auto& frag : (*ds)->manifest().fragments) {
    ASSERT_EQ(frag.files.size(), 1u);
    auto reader = file::FileReader::Open(sp->store, sp->path + "/data/" + frag.files[0].path);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    const int kind = (*reader)->schema()->GetFieldIndex("kind");
    ASSERT_EQ(kind, 4);
    for (const auto& page : (*reader)->columns()[4].pages) {
      EXPECT_NE(page.description.find("dictionary"), std::string::npos) << page.description;
      EXPECT_EQ(page.description.find("def="), std::string::npos) << page.description;
    }
    file::ReadOptions keep;
    keep.keep_dictionaries = true;
    auto b = (*reader)->ReadRange(0, 100, {kind}, keep);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ((*b)->column(0)->type_id(), TypeId::kDictionary);
  }
}

TEST_F(DatasetFilter, RandomConjunctionsCountEqualsScan) {
  auto ds = Snapshot::Open(*uri_);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  const std::vector<std::string> atoms = {
      "cat = 'c3'", "cat IN ('c0', 'c5', 'c8')", "cat LIKE '%9'", "cat IS NULL",
      "cat IS NOT NULL", "cat NOT IN ('c1')", "score > 50", "score <= 20.5",
      "score IS NULL", "id % 3 = 0", "flag", "NOT flag", "flag IS NULL", "id < 20000",
      "(cat = 'c2' OR flag)", "_rowaddr % 4 = 0", "score BETWEEN 10 AND 40",
      "kind = 'k3'", "kind IN ('k1', 'k2')", "kind NOT LIKE 'k1'", "kind >= 'k4'",
      "(kind = 'k5' OR id % 4 = 1)"};
  std::mt19937 rng(1234);
  for (int t = 0; t < 40; ++t) {
    const int n = 1 + static_cast<int>(rng() % 3);
    std::string f;
    for (int k = 0; k < n; ++k) {
      if (k > 0) f += " AND ";
      f += atoms[rng() % atoms.size()];
    }
    Check(**ds, f);
  }
}

TEST_F(DatasetFilter, BadFiltersAreInvalidArgument) {
  auto ds = Snapshot::Open(*uri_);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  auto a = (*ds)->CountRows("score + 1");
  ASSERT_FALSE(a.ok());
  EXPECT_TRUE(a.status().IsInvalidArgument()) << a.status().ToString();
  auto b = (*ds)->CountRows("cat = 'c1' AND scroe > 1");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("scroe"), std::string::npos) << b.status().ToString();
}

// Take by scan position over fragments with deleted rows: every live row, in a shuffled
// order with repeats, equals the scan's row at that position (ids and every column).
TEST_F(DatasetFilter, TakeMapsLivePositionsPastDeletedRows) {
  auto ds = Snapshot::Open(*uri_);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  auto scanned = (*ds)->Scan();
  ASSERT_TRUE(scanned.ok()) << scanned.status().ToString();
  auto scanned_lines = JsonLinesOf(*scanned);
  ASSERT_TRUE(scanned_lines.ok()) << scanned_lines.status().ToString();
  const std::vector<std::string>& lines = *scanned_lines;
  ASSERT_EQ(lines.size(), (*ds)->CountRows());
  std::vector<uint64_t> offsets;
  for (uint64_t i = 0; i < lines.size(); i += 3) offsets.push_back(i);
  offsets.push_back(lines.size() - 1);
  offsets.push_back(0);
  std::mt19937 rng(7);
  std::shuffle(offsets.begin(), offsets.end(), rng);
  auto taken = (*ds)->Take(offsets);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  auto taken_lines = JsonLinesOf(*taken);
  ASSERT_TRUE(taken_lines.ok()) << taken_lines.status().ToString();
  ASSERT_EQ(taken_lines->size(), offsets.size());
  for (size_t k = 0; k < offsets.size(); ++k) {
    EXPECT_EQ((*taken_lines)[k], lines[offsets[k]]) << "offset " << offsets[k];
  }
  auto bad = (*ds)->Take({lines.size()});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
}

}  // namespace
}  // namespace lance::table
