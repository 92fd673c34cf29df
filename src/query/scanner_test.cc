// Scans, counts, takes and matches of the query layer against a direct evaluation of the whole
// filter over every live row: several fragments (filter chunks and batches end inside them),
// deleted rows, nulls, a low-cardinality string column (written dictionary-encoded), random
// conjunctions that take both the dense and the sparse paths of the staged filter; streaming
// (batches of at most batch_size rows, the same rows as one read), offset / limit, fragment
// choice, system columns anywhere in the projection, and the plans' text.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"
#include "lance/core/thread_pool.h"
#include "lance/expr/expression.h"
#include "lance/file/file_reader.h"
#include "lance/io/object_store.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"
#include "query/query_test_util.h"

namespace lance::query {
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

class QueryScan : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    uri_ = new std::string("memory://query_scan_test/t.lance");
    auto batch = ReadJsonLines(RowsJson(0, kRows), TestSchema());
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    const std::vector<RecordBatchPtr> batches = {*batch};
    table::WriteParams p;
    p.max_rows_per_file = 12000;  // 3 fragments; chunks of 8192 rows end inside them
    auto w = table::WriteDataset(*uri_, TestSchema(), batches, p);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    auto d = DeleteWhere(*uri_, "id % 7 = 3 OR (id >= 12500 AND id < 12600)");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    ASSERT_GT(d->num_deleted_rows, 4000u);
  }
  static void TearDownTestSuite() { delete uri_; }

  static std::shared_ptr<const table::Snapshot> Open() {
    auto ds = table::Snapshot::Open(*uri_);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    return ds.ok() ? *ds : nullptr;
  }

  // Every live row with its address, read fragment by fragment through FragmentReader alone
  // (no plan), as JSON lines, and the live rows' batches for direct evaluation.
  struct Direct {
    std::vector<RecordBatchPtr> batches;  // one per fragment: every column + _rowid, _rowaddr
  };
  static Result<Direct> ReadDirect(const std::shared_ptr<const table::Snapshot>& ds) {
    Direct d;
    std::vector<FieldPtr> fields = ds->schema()->fields();
    fields.push_back(field(kRowIdColumn, uint64(), true));
    fields.push_back(field(kRowAddrColumn, uint64(), true));
    const SchemaPtr all = schema(fields);
    for (size_t i = 0; i < ds->manifest().fragments.size(); ++i) {
      LANCE_ASSIGN_OR_RAISE(auto fr, FragmentReader::Open(ds, i, nullptr));
      const RowSelection live = fr->LiveRows(0, fr->physical_rows());
      if (live.empty()) continue;
      LANCE_ASSIGN_OR_RAISE(auto b, fr->Read(all, live));
      d.batches.push_back(std::move(b));
    }
    return d;
  }

  // Ids of the live rows where `filter` is TRUE, by evaluating the whole filter directly
  // (and those rows as JSON lines, every column, _rowid and _rowaddr, into `lines`).
  static Result<std::vector<int64_t>> Expected(const std::shared_ptr<const table::Snapshot>& ds,
                                               const std::string& filter,
                                               std::vector<std::string>* lines = nullptr) {
    LANCE_ASSIGN_OR_RAISE(Direct d, ReadDirect(ds));
    LANCE_ASSIGN_OR_RAISE(auto pred,
                          expr::Expression::MakePredicate(filter, FilterSchema(*ds->schema())));
    std::vector<int64_t> ids;
    for (const auto& b : d.batches) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, pred->Evaluate(*b));
      const int64_t* id = b->GetColumnByName("id")->Values<int64_t>();
      LANCE_ASSIGN_OR_RAISE(auto all, JsonLinesOf({b}));
      for (int64_t r : expr::TrueIndices(*mask)) {
        ids.push_back(id[r]);
        if (lines) lines->push_back(all[static_cast<size_t>(r)]);
      }
    }
    return ids;
  }

  static std::vector<int64_t> Ids(const std::vector<RecordBatchPtr>& batches) {
    std::vector<int64_t> got;
    for (const auto& b : batches) {
      const int64_t* id = b->GetColumnByName("id")->Values<int64_t>();
      got.insert(got.end(), id, id + b->num_rows());
    }
    return got;
  }

  // Count, scan (ids and every column), FindMatches: all equal the direct evaluation.
  static void Check(const std::shared_ptr<const table::Snapshot>& ds, const std::string& filter) {
    SCOPED_TRACE(filter);
    std::vector<std::string> expected_lines;
    auto expected = Expected(ds, filter, &expected_lines);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    ScanOptions o;
    o.columns = {"id"};
    o.filter = filter;
    auto scanner = Scanner::Make(ds, o);
    ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
    auto count = scanner->CountRows();
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    EXPECT_EQ(*count, expected->size());
    auto batches = scanner->ToBatches();
    ASSERT_TRUE(batches.ok()) << batches.status().ToString();
    EXPECT_EQ(Ids(*batches), *expected);
    // Every column of the passing rows (late materialization reads them for those rows).
    ScanOptions every;
    every.filter = filter;
    every.with_row_id = true;
    every.with_row_addr = true;
    every.batch_size = 1000;
    auto all_rows = ScanLines(ds, every, 1000);
    ASSERT_TRUE(all_rows.ok()) << all_rows.status().ToString();
    EXPECT_EQ(*all_rows, expected_lines);
    // Matches: the rows whose ids are expected, as (fragment, row) of a 12000-row fragment.
    auto matches = FindMatches(ds, o);
    ASSERT_TRUE(matches.ok()) << matches.status().ToString();
    std::vector<int64_t> matched;
    for (const auto& m : *matches) {
      EXPECT_EQ(m.fragment_id, ds->manifest().fragments[m.index].id);
      EXPECT_FALSE(m.rows.empty());
      for (uint32_t r : m.rows) matched.push_back(static_cast<int64_t>(m.fragment_id) * 12000 + r);
    }
    EXPECT_EQ(matched, *expected);
  }

  static constexpr int kRows = 36000;
  static std::string* uri_;
};

std::string* QueryScan::uri_ = nullptr;

TEST_F(QueryScan, ConjunctionsMatchDirectEvaluation) {
  auto ds = Open();
  ASSERT_TRUE(ds);
  for (const char* f : {
           "score > 50 AND cat = 'c7'",          // selective equality first, score taken
           "cat = 'c7' AND score > 50",
           "cat IS NOT NULL AND score > 50",     // dense: the second conjunct rereads the span
           "cat IN ('c1', 'c4') AND flag AND id % 5 = 0",
           "cat LIKE 'c1%' AND score IS NULL",
           "cat IS NULL AND score < 30",
           "NOT flag AND cat <> 'c2' AND score >= 99.5",
           "(cat = 'c9' OR score < 5) AND _rowaddr % 3 = 1",
           "cat = 'none' AND score > 1",         // nothing survives the first conjunct
           "id >= 0",                            // every live row
           "id >= 100 AND id < 30000",           // two conjuncts on one column: read once
           "flag",
           "NULL AND cat = 'c1'",
           "true",                               // no column at all
           "1 = 0",
           "_rowid >= 4294967296 AND id % 2 = 0",
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
    Check(ds, f);
  }
}

// The dictionary path above is exercised: kind's pages are dictionary pages without levels.
TEST_F(QueryScan, KindIsStoredInDictionaryPages) {
  auto ds = Open();
  ASSERT_TRUE(ds);
  for (size_t i = 0; i < ds->manifest().fragments.size(); ++i) {
    auto reader = ds->DataFileReader(i, 0);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    const int kind = (*reader)->schema()->GetFieldIndex("kind");
    ASSERT_EQ(kind, 4);
    for (const auto& page : (*reader)->columns()[4].pages) {
      EXPECT_NE(page.description.find("dictionary"), std::string::npos) << page.description;
      EXPECT_EQ(page.description.find("def="), std::string::npos) << page.description;
    }
    auto fr = FragmentReader::Open(ds, i, nullptr);
    ASSERT_TRUE(fr.ok());
    FragmentReadOptions keep;
    keep.keep_dictionaries = true;
    auto b = (*fr)->Read(schema({ds->schema()->field(4)}), RowSelection::Range(0, 100), keep);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ((*b)->column(0)->type_id(), TypeId::kDictionary);
    EXPECT_EQ((*b)->schema()->field(0)->type()->id(), TypeId::kDictionary);
  }
}

TEST_F(QueryScan, RandomConjunctionsCountEqualsScan) {
  auto ds = Open();
  ASSERT_TRUE(ds);
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
    Check(ds, f);
  }
}

TEST_F(QueryScan, BadFiltersAndOptionsAreInvalidArgument) {
  auto ds = Open();
  ASSERT_TRUE(ds);
  ScanOptions o;
  o.filter = "score + 1";
  EXPECT_TRUE(Scanner::Make(ds, o).status().IsInvalidArgument());
  o.filter = "cat = 'c1' AND scroe > 1";
  auto b = Scanner::Make(ds, o);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("scroe"), std::string::npos) << b.status().ToString();
  ScanOptions cols;
  cols.columns = {"nope"};
  EXPECT_TRUE(Scanner::Make(ds, cols).status().IsInvalidArgument());
  for (int k = 0; k < 3; ++k) {
    ScanOptions s;
    if (k == 0) s.offset = -1;
    if (k == 1) s.limit = -2;
    if (k == 2) s.batch_size = -3;
    EXPECT_TRUE(Scanner::Make(ds, s).status().IsInvalidArgument()) << k;
  }
  ScanOptions f;
  f.filter = "id > 1";
  auto scanner = Scanner::Make(ds, f);
  ASSERT_TRUE(scanner.ok());
  EXPECT_TRUE(scanner->Take({1}).status().IsInvalidArgument());
  EXPECT_TRUE(FindMatches(ds, ScanOptions{}).status().IsInvalidArgument());
}

// Streaming: every batch size gives batches of at most that many rows (none empty), the rows
// of one read of every fragment in order, with and without a filter, whatever the pool and the
// prefetch depth.
TEST_F(QueryScan, StreamsBoundedBatchesOfTheSameRows) {
  auto ds = Open();
  ASSERT_TRUE(ds);
  auto direct = ReadDirect(ds);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  auto expected = JsonLinesOf(direct->batches);
  ASSERT_TRUE(expected.ok());
  auto one_thread = ThreadPool::Make(1);
  ASSERT_TRUE(one_thread.ok());
  for (int64_t batch_size : {0, 1, 7, 1000, 8192, 8193, 20000, 100000}) {
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), one_thread->get()}) {
      SCOPED_TRACE("batch size " + std::to_string(batch_size));
      ScanOptions o;
      o.with_row_id = true;
      o.with_row_addr = true;
      o.batch_size = batch_size;
      o.pool = pool;
      o.prefetch = batch_size == 7 ? 1 : 0;
      if (batch_size == 1) {  // a narrow scan of tiny batches
        o.columns = {"id", "kind"};
        o.limit = 3000;
      }
      auto got = ScanLines(ds, o, batch_size > 0 ? batch_size : kDefaultBatchSize);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (batch_size == 1) {
        ASSERT_EQ(got->size(), 3000u);
        continue;
      }
      EXPECT_EQ(*got, *expected);
      // Filtered: the same as the direct evaluation's rows.
      o.filter = "kind = 'k2' OR score > 90";
      auto filtered = ScanLines(ds, o, batch_size > 0 ? batch_size : kDefaultBatchSize);
      ASSERT_TRUE(filtered.ok()) << filtered.status().ToString();
      auto ids = Expected(ds, o.filter);
      ASSERT_TRUE(ids.ok());
      EXPECT_EQ(filtered->size(), ids->size());
    }
  }
}

// Project reads whole runs of a range at once and hands out slices: the batches are exactly
// those of reading batch_size rows at a time (per fragment: full batches of its live rows,
// then the rest), for ranges (fragments without deletions) and lists (one with).
TEST(QueryProject, ReadUnitsSliceIntoTheSameBatches) {
  const std::string uri = "memory://query_project_units/t.lance";
  auto batch = ReadJsonLines(RowsJson(0, 150000), TestSchema());
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  table::WriteParams p;
  p.max_rows_per_file = 50000;
  ASSERT_TRUE(table::WriteDataset(uri, TestSchema(), {*batch}, p).ok());
  ASSERT_TRUE(DeleteWhere(uri, "id >= 60000 AND id < 60100").ok());
  auto ds = table::Snapshot::Open(uri);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  auto one_thread = ThreadPool::Make(1);
  ASSERT_TRUE(one_thread.ok());
  for (int64_t batch_size : {0, 777, 1000, 50000}) {
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), one_thread->get()}) {
      SCOPED_TRACE("batch size " + std::to_string(batch_size));
      const int64_t bs = batch_size > 0 ? batch_size : kDefaultBatchSize;
      std::vector<int64_t> expected_sizes, expected_ids;
      for (const auto& f : (*ds)->manifest().fragments) {
        int64_t live = static_cast<int64_t>(f.num_rows());
        for (; live > 0; live -= std::min(live, bs)) expected_sizes.push_back(std::min(live, bs));
      }
      for (int64_t i = 0; i < 150000; ++i) {
        if (i < 60000 || i >= 60100) expected_ids.push_back(i);
      }
      ScanOptions o;
      o.columns = {"id", "cat", "_rowaddr"};
      o.batch_size = batch_size;
      o.pool = pool;
      auto scanner = Scanner::Make(*ds, o);
      ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
      auto reader = scanner->ToReader();
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      std::vector<int64_t> sizes, ids;
      std::vector<RecordBatchPtr> batches;
      while (true) {
        auto b = (*reader)->Next();
        ASSERT_TRUE(b.ok()) << b.status().ToString();
        if (!*b) break;
        ASSERT_TRUE((*b)->ValidateFull().ok());
        sizes.push_back((*b)->num_rows());
        const int64_t* id = (*b)->column(0)->Values<int64_t>();
        const uint64_t* addr = (*b)->column(2)->Values<uint64_t>();
        for (int64_t r = 0; r < (*b)->num_rows(); ++r) {
          ids.push_back(id[r]);
          ASSERT_EQ(addr[r], (static_cast<uint64_t>(id[r]) / 50000) << 32 | (static_cast<uint64_t>(id[r]) % 50000));
        }
        batches.push_back(*b);
      }
      EXPECT_EQ(sizes, expected_sizes);
      EXPECT_EQ(ids, expected_ids);
      // Every value of the sliced batches equals the rows written (cat's nulls included).
      auto lines = JsonLinesOf(batches);
      ASSERT_TRUE(lines.ok());
      ASSERT_EQ(lines->size(), expected_ids.size());
      for (size_t k = 0; k < lines->size(); k += 997) {
        const int i = static_cast<int>(expected_ids[k]);
        const std::string cat = i % 13 == 5 ? "null" : "\"c" + std::to_string(i * 7 % 10) + "\"";
        EXPECT_EQ((*lines)[k], "{\"id\":" + std::to_string(i) + ",\"cat\":" + cat + ",\"_rowaddr\":" +
                                   std::to_string((static_cast<uint64_t>(i) / 50000) << 32 | (i % 50000)) + "}");
      }
    }
  }
}

// A reader dropped half way (prefetched tasks still queued or running) is safe, and two readers
// of one scanner run independently.
TEST_F(QueryScan, ReadersAreIndependentAndMayStopEarly) {
  auto ds = Open();
  ASSERT_TRUE(ds);
  ScanOptions o;
  o.batch_size = 500;
  o.filter = "flag";
  auto scanner = Scanner::Make(ds, o);
  ASSERT_TRUE(scanner.ok());
  for (int k = 0; k < 5; ++k) {
    auto r = scanner->ToReader();
    ASSERT_TRUE(r.ok());
    auto b = (*r)->Next();
    ASSERT_TRUE(b.ok() && *b);
  }
  auto a = scanner->ToReader();
  auto b = scanner->ToReader();
  ASSERT_TRUE(a.ok() && b.ok());
  int64_t rows_a = 0, rows_b = 0;
  while (true) {
    auto x = (*a)->Next();
    auto y = (*b)->Next();
    ASSERT_TRUE(x.ok() && y.ok());
    if (*x) rows_a += (*x)->num_rows();
    if (*y) rows_b += (*y)->num_rows();
    if (!*x && !*y) break;
  }
  auto count = scanner->CountRows();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(static_cast<uint64_t>(rows_a), *count);
  EXPECT_EQ(rows_a, rows_b);
}

// Offset and limit count rows after the filter, across batches and fragments; counts honour
// them too.
TEST_F(QueryScan, OffsetAndLimitCountFilteredRows) {
  auto ds = Open();
  ASSERT_TRUE(ds);
  for (const std::string filter : {"", "cat = 'c3' OR kind = 'k1'"}) {
    ScanOptions all;
    all.columns = {"id"};
    all.filter = filter;
    auto every = Scanner::Make(ds, all);
    ASSERT_TRUE(every.ok());
    auto full = every->ToBatches();
    ASSERT_TRUE(full.ok());
    const std::vector<int64_t> ids = Ids(*full);
    for (auto [offset, limit] : std::vector<std::pair<int64_t, int64_t>>{
             {0, 0}, {0, 1}, {5, 3}, {8190, 10}, {11000, 5000}, {0, 100000}, {100000, 5}}) {
      SCOPED_TRACE(filter + " offset " + std::to_string(offset) + " limit " + std::to_string(limit));
      ScanOptions o = all;
      o.offset = offset;
      o.limit = limit;
      o.batch_size = 777;
      auto s = Scanner::Make(ds, o);
      ASSERT_TRUE(s.ok());
      auto got = s->ToBatches();
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      const size_t begin = std::min<size_t>(ids.size(), static_cast<size_t>(offset));
      const size_t end = std::min<size_t>(ids.size(), begin + static_cast<size_t>(limit));
      EXPECT_EQ(Ids(*got), std::vector<int64_t>(ids.begin() + begin, ids.begin() + end));
      for (const auto& b : *got) EXPECT_LE(b->num_rows(), 777);
      auto n = s->CountRows();
      ASSERT_TRUE(n.ok());
      EXPECT_EQ(*n, end - begin);
    }
  }
}

// Chosen fragments are read in manifest order whatever the order asked; unknown ids are
// ignored; offsets count the chosen fragments' rows.
TEST_F(QueryScan, FragmentChoice) {
  auto ds = Open();
  ASSERT_TRUE(ds);
  ScanOptions o;
  o.columns = {"id"};
  o.with_row_addr = true;
  o.fragment_ids = std::vector<uint64_t>{2, 77, 0};
  auto lines = ScanLines(ds, o);
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  const auto& f = ds->manifest().fragments;
  ASSERT_EQ(lines->size(), f[0].num_rows() + f[2].num_rows());
  EXPECT_EQ(lines->front(), R"({"id":0,"_rowaddr":0})");
  EXPECT_EQ(lines->back(), R"({"id":35999,"_rowaddr":8589946591})");
  o.filter = "id % 1000 = 0";
  auto s = Scanner::Make(ds, o);
  ASSERT_TRUE(s.ok());
  auto n = s->CountRows();
  ASSERT_TRUE(n.ok());
  auto expected = Expected(ds, "id % 1000 = 0 AND (id < 12000 OR id >= 24000)");
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(*n, expected->size());
  auto matches = FindMatches(ds, o);
  ASSERT_TRUE(matches.ok());
  for (const auto& m : *matches) EXPECT_NE(m.fragment_id, 1u);
  o.fragment_ids = std::vector<uint64_t>{};
  auto none = ScanLines(ds, o);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// System columns may sit anywhere in the projection; naming one and asking for it with
// with_row_id / with_row_addr gives it once; without stable row ids _rowid is the address.
TEST_F(QueryScan, SystemColumnsAnywhere) {
  auto ds = Open();
  ASSERT_TRUE(ds);
  ScanOptions o;
  o.columns = {"_rowaddr", "id", "_rowid"};
  o.with_row_id = true;
  o.with_row_addr = true;
  o.limit = 2;
  o.offset = 8000;
  auto s = Scanner::Make(ds, o);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->schema()->num_fields(), 3);
  auto lines = ScanLines(ds, o);
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  ASSERT_EQ(lines->size(), 2u);
  // Live position 8000: row 9333 of fragment 0 (rows 3, 10, ... 9331 deleted before it).
  auto took = s->Take({8000});
  ASSERT_TRUE(took.ok());
  auto took_lines = DrainLines(took->get());
  ASSERT_TRUE(took_lines.ok());
  ASSERT_EQ(took_lines->size(), 1u);
  EXPECT_EQ((*took_lines)[0], (*lines)[0]);
  EXPECT_EQ((*lines)[0], R"({"_rowaddr":9333,"id":9333,"_rowid":9333})");
}

// Take by scan position over fragments with deleted rows: every live row, in a shuffled order
// with repeats, equals the scan's row at that position (every column); batches split at the
// batch size.
TEST_F(QueryScan, TakeMapsLivePositionsPastDeletedRows) {
  auto ds = Open();
  ASSERT_TRUE(ds);
  ScanOptions all;
  all.with_row_id = true;
  auto lines = ScanLines(ds, all);
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  ASSERT_EQ(lines->size(), ds->CountRows());
  std::vector<uint64_t> offsets;
  for (uint64_t i = 0; i < lines->size(); i += 7) offsets.push_back(i);
  offsets.push_back(lines->size() - 1);
  offsets.push_back(0);
  std::mt19937 rng(7);
  std::shuffle(offsets.begin(), offsets.end(), rng);
  all.batch_size = 100;
  auto s = Scanner::Make(ds, all);
  ASSERT_TRUE(s.ok());
  auto taken = s->Take(offsets);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  auto taken_lines = DrainLines(taken->get(), 100);
  ASSERT_TRUE(taken_lines.ok()) << taken_lines.status().ToString();
  ASSERT_EQ(taken_lines->size(), offsets.size());
  for (size_t k = 0; k < offsets.size(); ++k) {
    EXPECT_EQ((*taken_lines)[k], (*lines)[offsets[k]]) << "offset " << offsets[k];
  }
  // By row id: the same rows (ids of a dataset without stable row ids are addresses).
  std::vector<uint64_t> ids;
  for (const auto& b : *s->ToBatches()) {
    const uint64_t* id = b->GetColumnByName(kRowIdColumn)->Values<uint64_t>();
    ids.insert(ids.end(), id, id + b->num_rows());
  }
  std::vector<uint64_t> wanted;
  for (uint64_t off : offsets) wanted.push_back(ids[off]);
  wanted.push_back(3);                       // deleted (id % 7 = 3)
  wanted.push_back((uint64_t{9} << 32) | 1);  // no fragment 9
  auto by_id = s->TakeRowIds(wanted);
  ASSERT_TRUE(by_id.ok());
  auto by_id_lines = DrainLines(by_id->get(), 100);
  ASSERT_TRUE(by_id_lines.ok());
  EXPECT_EQ(*by_id_lines, *taken_lines);
  auto bad = s->Take({lines->size()});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
}

TEST_F(QueryScan, ExplainShowsEveryOperatorAndWhatItReads) {
  auto ds = Open();
  ASSERT_TRUE(ds);
  ScanOptions o;
  o.columns = {"id", "cat"};
  o.with_row_id = true;
  o.filter = "score > 50 AND kind = 'k4'";
  o.offset = 3;
  o.limit = 10;
  auto s = Scanner::Make(ds, o);
  ASSERT_TRUE(s.ok());
  const auto& f = ds->manifest().fragments;
  const uint64_t live = f[0].num_rows() + f[1].num_rows() + f[2].num_rows();
  const uint64_t deleted = 36000 - live;
  EXPECT_EQ(s->Explain(),
            "Project: columns [id, cat, _rowid], batches of at most 8192 rows; reads [id, cat] "
            "for the rows that reach it, computes [_rowid]\n"
            "  Limit: skip 3 rows, then at most 10\n"
            "    Filter: \"score > 50 AND kind = 'k4'\"; conjuncts in order: 1) kind = 'k4' reads "
            "[kind] (one column: dictionary pages tested once per entry); 2) score > 50 reads "
            "[score] (one column: dictionary pages tested once per entry); each over a span while "
            "more than a quarter of it is in play, else over the rows in play only\n"
            "      FragmentScan: fragments [0, 1, 2] (3 of 3), " +
                std::to_string(live) + " live rows (" + std::to_string(deleted) +
                " deleted skipped), spans of 8192 rows\n");
  ScanOptions plain;
  plain.columns = {"id"};
  plain.fragment_ids = std::vector<uint64_t>{1};
  plain.batch_size = 100;
  auto p = Scanner::Make(ds, plain);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->Explain(),
            "Project: columns [id], batches of at most 100 rows; reads [id] for the rows that "
            "reach it\n"
            "  FragmentScan: fragments [1] (1 of 3), " +
                std::to_string(f[1].num_rows()) + " live rows (" +
                std::to_string(12000 - f[1].num_rows()) + " deleted skipped), spans of 100 rows\n");
  auto count = Planner(ds).PlanCount(ScanOptions{});
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count->Explain().substr(0, 70),
            "Count: the live rows of the fragments, from the manifest (no data read");
  auto take = Planner(ds).PlanTake({5, 1}, plain);
  ASSERT_TRUE(take.ok());
  EXPECT_EQ(take->Explain(),
            "Project: columns [id], batches of at most 100 rows; reads [id] for the rows that "
            "reach it\n"
            "  Take: 2 rows by scan position [5, 1], in that order\n");
}

// A dense read may evaluate rows outside the selection (deleted ones): should that fail, the
// selected rows alone decide, as a scan of live rows would.
TEST(QueryFilter, FailingDeletedRowsDoNotFailTheFilter) {
  const std::string uri = "memory://query_filter_errors/t.lance";
  std::string json;
  for (int i = 0; i < 3000; ++i) {
    json += "{\"id\":" + std::to_string(i) + ",\"d\":" + std::to_string(i % 100 == 0 ? 0 : 2) + "}\n";
  }
  const SchemaPtr s = schema({field("id", int64(), false), field("d", int64(), false)});
  auto batch = ReadJsonLines(json, s);
  ASSERT_TRUE(batch.ok());
  ASSERT_TRUE(table::WriteDataset(uri, s, {*batch}).ok());
  ASSERT_TRUE(DeleteWhere(uri, "d = 0").ok());
  auto ds = table::Snapshot::Open(uri);
  ASSERT_TRUE(ds.ok());
  ScanOptions o;
  o.filter = "id / d > 10";
  auto scanner = Scanner::Make(*ds, o);
  ASSERT_TRUE(scanner.ok());
  auto n = scanner->CountRows();
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  // Live rows: d = 2, id / 2 > 10 for id >= 22: ids 22..2999 less the multiples of 100 (>= 100).
  EXPECT_EQ(*n, 2978u - 29u);
  auto rows = scanner->ToBatches();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  // Before the delete the same filter fails (a live row divides by zero).
  auto v1 = table::Snapshot::Open(uri, table::OpenOptions{1, std::nullopt});
  ASSERT_TRUE(v1.ok());
  auto before = Scanner::Make(*v1, o);
  ASSERT_TRUE(before.ok());
  EXPECT_FALSE(before->CountRows().ok());
}

// Filter::EvaluateBatch, the one engine over rows in memory (merge-insert's update condition):
// conjuncts in turn, NULL and FALSE dropping a row, struct fields by qualified name, a later
// conjunct over few rows evaluated on those rows only (a division by zero elsewhere is not an
// error), and a failure in a row in play reported.
TEST(FilterBatch, ConjunctsOverJoinedStructColumns) {
  auto row = struct_({field("id", int64(), true), field("score", int64(), true)});
  auto joined = schema({field("target", row, false), field("source", row, false)});
  auto batch = RecordBatchFromJSON(joined, R"([
    {"target": {"id": 1, "score": 10}, "source": {"id": 1, "score": 20}},
    {"target": {"id": 2, "score": 30}, "source": {"id": 2, "score": 5}},
    {"target": {"id": 3, "score": null}, "source": {"id": 3, "score": 7}},
    {"target": {"id": 4, "score": 0}, "source": {"id": 4, "score": 9}},
    {"target": {"id": 5, "score": 1}, "source": {"id": 5, "score": 8}},
    {"target": {"id": 6, "score": 0}, "source": {"id": 6, "score": 1}},
    {"target": {"id": 7, "score": 2}, "source": {"id": 7, "score": 3}},
    {"target": {"id": 8, "score": 4}, "source": {"id": 8, "score": 6}}])");
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto rows = [&](const std::string& cond) -> Result<std::vector<int64_t>> {
    LANCE_ASSIGN_OR_RAISE(auto f, Filter::MakeForBatch(cond, joined));
    return f->EvaluateBatch(**batch);
  };
  auto r = rows("source.score > target.score");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (std::vector<int64_t>{0, 3, 4, 5, 6, 7}));  // row 2: NULL, dropped
  r = rows("source.score > target.score AND target.id >= 5");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<int64_t>{4, 5, 6, 7}));
  // Rows 3 and 5 (target.score 0) are out of play when the division runs on the one row left.
  r = rows("target.id = 8 AND source.score / target.score = 1");  // 6 / 4 = 1 in integers
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (std::vector<int64_t>{7}));
  r = rows("target.id = 5 AND source.score / target.score = 8");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (std::vector<int64_t>{4}));
  r = rows("target.id = 4 AND source.score / target.score = 1");
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  // No system columns on a batch; a bare column is unknown.
  EXPECT_TRUE(Filter::MakeForBatch("_rowid > 1", joined).status().IsInvalidArgument());
  EXPECT_TRUE(Filter::MakeForBatch("score > 1", joined).status().IsInvalidArgument());
  r = rows("true");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->size(), 8u);
}

}  // namespace
}  // namespace lance::query
