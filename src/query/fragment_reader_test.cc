// FragmentReader: live rows past deletions, the n-th live row, ranges and lists (any order,
// repeats) reading the same values, system columns with and without stable row ids, columns
// of a second data file (added columns), and refused reads.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"
#include "lance/core/thread_pool.h"
#include "lance/query/fragment_reader.h"
#include "lance/query/scanner.h"
#include "lance/file/lance_schema.h"
#include "lance/table/commit.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"
#include "query/query_test_util.h"

namespace lance::query {
namespace {

SchemaPtr Schema2() { return schema({field("id", int64(), false), field("s", utf8())}); }

std::string FragmentRows(int start, int n) {
  std::string out;
  for (int i = start; i < start + n; ++i) {
    out += "{\"id\":" + std::to_string(i) + ",\"s\":" +
           (i % 5 == 1 ? std::string("null") : "\"v" + std::to_string(i % 9) + "\"") + "}\n";
  }
  return out;
}

std::shared_ptr<const table::Snapshot> Make(const std::string& uri, bool stable) {
  auto b = ReadJsonLines(FragmentRows(0, 5000), Schema2());
  EXPECT_TRUE(b.ok());
  table::WriteParams p;
  p.max_rows_per_file = 3000;
  p.enable_stable_row_ids = stable;
  EXPECT_TRUE(table::WriteDataset(uri, Schema2(), {*b}, p).ok());
  auto more = ReadJsonLines(FragmentRows(5000, 700), Schema2());
  EXPECT_TRUE(more.ok());
  table::WriteParams append;
  append.mode = table::WriteMode::kAppend;
  EXPECT_TRUE(table::WriteDataset(uri, Schema2(), {*more}, append).ok());
  auto d = DeleteWhere(uri, "id % 4 = 2 OR (id > 100 AND id < 400) OR id = 5699");
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  auto ds = table::Snapshot::Open(uri);
  EXPECT_TRUE(ds.ok());
  return ds.ok() ? *ds : nullptr;
}

TEST(FragmentReader, LiveRowsAndNthLiveRowSkipDeletions) {
  auto ds = Make("memory://fragment_reader_live/t.lance", false);
  ASSERT_TRUE(ds);
  ASSERT_EQ(ds->manifest().fragments.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    auto fr = FragmentReader::Open(ds, i, nullptr);
    ASSERT_TRUE(fr.ok()) << fr.status().ToString();
    const auto& deleted = (*fr)->deleted();
    EXPECT_EQ(static_cast<int64_t>(deleted.size()), (*fr)->physical_rows() - (*fr)->live_rows());
    std::vector<int64_t> live;
    size_t d = 0;
    for (int64_t r = 0; r < (*fr)->physical_rows(); ++r) {
      if (d < deleted.size() && deleted[d] == r) {
        ++d;
      } else {
        live.push_back(r);
      }
    }
    ASSERT_EQ(static_cast<int64_t>(live.size()), (*fr)->live_rows());
    for (size_t n = 0; n < live.size(); ++n) {
      ASSERT_EQ((*fr)->NthLiveRow(static_cast<int64_t>(n)), live[n]) << "fragment " << i;
    }
    for (auto [start, len] : std::vector<std::pair<int64_t, int64_t>>{{0, 10}, {95, 20}, {0, 3000}, {399, 2}}) {
      if (start + len > (*fr)->physical_rows()) continue;
      const RowSelection sel = (*fr)->LiveRows(start, len);
      std::vector<int64_t> want;
      for (int64_t r : live) {
        if (r >= start && r < start + len) want.push_back(r);
      }
      EXPECT_EQ(sel.ToVector(), want);
      EXPECT_EQ(sel.is_range(), (*fr)->DeletedIn(start, len) == 0);
    }
  }
}

// Adds the column twice = id * 2 to every fragment of `base` as a second data file (a Merge
// committed through the table layer, as dataset's AddColumns writes it).
Status AddTwice(const std::shared_ptr<const table::Snapshot>& base) {
  const table::Manifest& m = base->manifest();
  int32_t next_id = 0;
  for (const auto& f : m.fields) next_id = std::max(next_id, f.id + 1);
  LANCE_ASSIGN_OR_RAISE(auto lance_fields, file::LanceFieldsFromSchema(Schema({field("twice", int64())})));
  for (auto& f : lance_fields) f.id += next_id;
  LANCE_ASSIGN_OR_RAISE(SchemaPtr file_schema, file::SchemaFromLanceFields(lance_fields));
  table::StagedFiles staged(base->location());
  table::Transaction::Merge merge;
  for (size_t i = 0; i < m.fragments.size(); ++i) {
    LANCE_ASSIGN_OR_RAISE(auto reader, FragmentReader::Open(base, i, nullptr));
    LANCE_ASSIGN_OR_RAISE(auto ids, reader->Read(schema({base->schema()->field(0)}),
                                                 RowSelection::Range(0, reader->physical_rows())));
    const int64_t* id = ids->column(0)->Values<int64_t>();
    std::string json = "[";
    for (int64_t r = 0; r < ids->num_rows(); ++r) {
      json += (r ? ",{\"twice\":" : "{\"twice\":") + std::to_string(id[r] * 2) + "}";
    }
    LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatchFromJSON(file_schema, json + "]"));
    LANCE_ASSIGN_OR_RAISE(auto df, table::WriteColumnFile(staged, m, *batch));
    table::FragmentInfo f = m.fragments[i];
    f.files.push_back(std::move(df));
    merge.fragments.push_back(std::move(f));
  }
  merge.schema = m.fields;
  merge.schema.insert(merge.schema.end(), lance_fields.begin(), lance_fields.end());
  merge.schema_metadata = m.schema_metadata;
  merge.preserves_nullability = true;
  table::Transaction txn;
  txn.read_version = base->version();
  txn.operation = std::move(merge);
  return table::CommitTransaction(base->location(), std::move(txn), {}, &staged).status();
}

// Lists in any order with repeats read what a range read holds at those rows; columns of a
// second data file (an added column) come from that file; system columns are the addresses.
TEST(FragmentReader, ListsRangesAndColumnsOfSeveralFiles) {
  const std::string uri = "memory://fragment_reader_lists/t.lance";
  auto base = Make(uri, false);
  ASSERT_TRUE(base);
  ASSERT_TRUE(AddTwice(base).ok());
  auto snap = table::Snapshot::Open(uri);
  ASSERT_TRUE(snap.ok());
  std::shared_ptr<const table::Snapshot> ds = *snap;
  ASSERT_EQ(ds->manifest().fragments[0].files.size(), 2u);
  auto pool = ThreadPool::Make(2);
  ASSERT_TRUE(pool.ok());
  auto fr = FragmentReader::Open(ds, 1, pool->get());
  ASSERT_TRUE(fr.ok());
  std::vector<FieldPtr> fields = ds->schema()->fields();
  fields.insert(fields.begin() + 1, field(kRowAddrColumn, uint64()));
  fields.push_back(field(kRowIdColumn, uint64()));
  const SchemaPtr cols = schema(fields);
  auto all = (*fr)->Read(cols, RowSelection::Range(0, (*fr)->physical_rows()));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  auto all_lines = JsonLinesOf({*all});
  ASSERT_TRUE(all_lines.ok());
  EXPECT_EQ((*all_lines)[7], R"({"id":3007,"_rowaddr":4294967303,"s":"v1","twice":6014,"_rowid":4294967303})");
  std::mt19937 rng(3);
  std::vector<int64_t> rows;
  for (int k = 0; k < 500; ++k) rows.push_back(static_cast<int64_t>(rng() % 2000));
  rows.push_back(0);
  rows.push_back(0);
  auto taken = (*fr)->Read(cols, RowSelection::List(rows));
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  auto taken_lines = JsonLinesOf({*taken});
  ASSERT_TRUE(taken_lines.ok());
  ASSERT_EQ(taken_lines->size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ((*taken_lines)[k], (*all_lines)[static_cast<size_t>(rows[k])]) << rows[k];
  }
  auto range = (*fr)->Read(cols, RowSelection::Range(1990, 10));
  ASSERT_TRUE(range.ok());
  auto range_lines = JsonLinesOf({*range});
  ASSERT_TRUE(range_lines.ok());
  EXPECT_EQ(*range_lines, std::vector<std::string>(all_lines->begin() + 1990, all_lines->begin() + 2000));
  // No columns: a batch of the rows' count.
  auto none = (*fr)->Read(schema({}), RowSelection::Range(5, 17));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->num_rows(), 17);
  // Refused: rows outside the fragment, a column the dataset does not have.
  EXPECT_TRUE((*fr)->Read(cols, RowSelection::Range(1999, 2)).status().IsInvalidArgument());
  EXPECT_TRUE((*fr)->Read(cols, RowSelection::List({4, 2000})).status().IsInvalidArgument());
  EXPECT_TRUE((*fr)->Read(schema({field("zz", int64())}), RowSelection::Range(0, 1))
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(FragmentReader::Open(ds, 3, nullptr).status().IsInvalidArgument());
}

// With stable row ids, _rowid is the fragment's row-id sequence (the second fragment's ids
// continue the first's), _rowaddr still the address.
TEST(FragmentReader, StableRowIds) {
  auto ds = Make("memory://fragment_reader_stable/t.lance", true);
  ASSERT_TRUE(ds);
  const SchemaPtr cols = schema({field(kRowIdColumn, uint64()), field(kRowAddrColumn, uint64())});
  for (size_t i = 0; i < ds->manifest().fragments.size(); ++i) {
    auto fr = FragmentReader::Open(ds, i, nullptr);
    ASSERT_TRUE(fr.ok());
    auto ids = ds->RowIds(i);
    ASSERT_TRUE(ids.ok());
    auto decoded = (*fr)->RowIds();
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(**decoded, *ids);
    const RowSelection live = (*fr)->LiveRows(0, (*fr)->physical_rows());
    auto b = (*fr)->Read(cols, live);
    ASSERT_TRUE(b.ok());
    const uint64_t* rid = (*b)->column(0)->Values<uint64_t>();
    const uint64_t* addr = (*b)->column(1)->Values<uint64_t>();
    for (int64_t k = 0; k < live.size(); ++k) {
      ASSERT_EQ(rid[k], (*ids)[static_cast<size_t>(live[k])]);
      ASSERT_EQ(addr[k], ((*fr)->id() << 32) | static_cast<uint64_t>(live[k]));
    }
  }
  // Through a scan and a take by row id: the same ids, deleted rows' ids skipped.
  ScanOptions o;
  o.columns = {"id", "_rowid"};
  auto scanner = Scanner::Make(ds, o);
  ASSERT_TRUE(scanner.ok());
  auto lines = ScanLines(ds, o);
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->size(), ds->CountRows());
  // Ids were assigned in write order: row id = id for every row.
  for (const auto& line : *lines) {
    const auto comma = line.find(',');
    ASSERT_EQ(line.substr(6, comma - 6), line.substr(line.find("_rowid") + 8, line.size() - line.find("_rowid") - 9))
        << line;
  }
  auto took = scanner->TakeRowIds({5699, 5697, 2, 3, 4, 4999, 99999});
  ASSERT_TRUE(took.ok());
  auto took_lines = DrainLines(took->get());
  ASSERT_TRUE(took_lines.ok());
  // 5699 and 2 are deleted (id % 4 = 2 or id = 5699), 99999 does not exist.
  EXPECT_EQ(*took_lines, (std::vector<std::string>{R"({"id":5697,"_rowid":5697})",
                                                   R"({"id":3,"_rowid":3})", R"({"id":4,"_rowid":4})",
                                                   R"({"id":4999,"_rowid":4999})"}));
  // The appended fragment's first row has row id 5000 (ids count rows written).
  auto fr = FragmentReader::Open(ds, 2, nullptr);
  ASSERT_TRUE(fr.ok());
  auto appended = (*fr)->RowIds();
  ASSERT_TRUE(appended.ok());
  EXPECT_EQ((*appended)->front(), 5000u);
}

}  // namespace
}  // namespace lance::query
