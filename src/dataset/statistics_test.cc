// CalculateDataStatistics: per-field page bytes summed over every data file of every fragment,
// checked against the file readers' own column metadata, for flat and nested fields, several
// fragments, an added column (a second data file per fragment) and a dropped column.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "lance/columnar/json.h"
#include "lance/file/file_reader.h"
#include "lance/table/snapshot.h"
#include "table_fixtures/dataset_ops_test_util.h"
#include "lance/table/statistics.h"
#include "lance/table/write.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

using namespace evolve_test;

// Page bytes of column `c` of `reader`.
uint64_t ColumnBytes(const file::FileReader& reader, int c) {
  uint64_t n = 0;
  for (const auto& p : reader.columns()[static_cast<size_t>(c)].pages) {
    for (const auto& b : p.buffers) n += b.second;
  }
  return n;
}

TEST(DataStatistics, SumsPageBytesPerFieldOverFragmentsAndFiles) {
  const std::string uri = FreshUri("stats");
  auto s = schema({field("id", int64(), false),
                   field("meta", struct_({field("a", int32()), field("b", utf8())}))});
  std::string json = "[";
  for (int i = 0; i < 30; ++i) {
    json += std::string(i ? "," : "") + "{\"id\":" + std::to_string(i) + ",\"meta\":{\"a\":" +
            std::to_string(i * 3) + ",\"b\":\"text" + std::to_string(i) + "\"}}";
  }
  json += "]";
  TEST_ASSIGN(auto batch, RecordBatchFromJSON(s, json));
  WriteParams wp;
  wp.max_rows_per_file = 12;
  TEST_OK(WriteDataset(uri, s, {batch}, wp).status());
  TEST_OK(AddColumns(uri, {{"twice", "id * 2"}}).status());

  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  const Manifest& m = ds->manifest();
  ASSERT_EQ(m.fragments.size(), 3u);
  // Expected, from the readers: 2.2 files have one column per leaf, mapped by column_indices.
  std::map<int32_t, uint64_t> want;
  for (const auto& f : m.fields) want[f.id] = 0;
  for (size_t i = 0; i < m.fragments.size(); ++i) {
    ASSERT_EQ(m.fragments[i].files.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      const DataFileInfo& df = m.fragments[i].files[k];
      TEST_ASSIGN(auto reader, ds->DataFileReader(i, k));
      for (size_t j = 0; j < df.fields.size(); ++j) {
        if (df.column_indices[j] >= 0) want[df.fields[j]] += ColumnBytes(*reader, df.column_indices[j]);
      }
    }
  }
  TEST_ASSIGN(auto stats, CalculateDataStatistics(*ds));
  ASSERT_EQ(stats.size(), m.fields.size());
  uint64_t total = 0;
  for (size_t i = 0; i < stats.size(); ++i) {
    EXPECT_EQ(stats[i].field_id, m.fields[i].id);
    EXPECT_EQ(stats[i].bytes_on_disk, want[stats[i].field_id]) << m.fields[i].name;
    total += stats[i].bytes_on_disk;
  }
  // Leaves hold bytes; the struct itself has no column of its own in 2.2.
  std::map<std::string, uint64_t> by_name;
  for (size_t i = 0; i < stats.size(); ++i) by_name[m.fields[i].name] = stats[i].bytes_on_disk;
  EXPECT_GE(by_name["id"], 30u * 8 / 4);  // something close to the values, not zero
  EXPECT_GT(by_name["a"], 0u);
  EXPECT_GT(by_name["b"], 0u);
  EXPECT_GT(by_name["twice"], 0u);
  EXPECT_EQ(by_name["meta"], 0u);
  // Every column of every file belongs to some field: the fields' bytes add up to all page
  // bytes of the dataset.
  uint64_t all_pages = 0;
  for (size_t i = 0; i < m.fragments.size(); ++i) {
    for (size_t k = 0; k < 2; ++k) {
      TEST_ASSIGN(auto reader, ds->DataFileReader(i, k));
      for (int c = 0; c < reader->num_columns(); ++c) all_pages += ColumnBytes(*reader, c);
    }
  }
  EXPECT_EQ(total, all_pages);

  // A dropped column leaves the statistics (its bytes still sit in the files).
  TEST_OK(DropColumns(uri, {"twice"}).status());
  TEST_ASSIGN(auto after, Snapshot::Open(uri));
  TEST_ASSIGN(auto stats2, CalculateDataStatistics(*after));
  ASSERT_EQ(stats2.size(), stats.size() - 1);
  for (const auto& f : stats2) EXPECT_EQ(f.bytes_on_disk, want[f.field_id]);
}

TEST(DataStatistics, EmptyDatasetHasZeroBytesPerField) {
  const std::string uri = FreshUri("stats_empty");
  TEST_OK(WriteDataset(uri, PeopleSchema(), {}, {}).status());
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  TEST_ASSIGN(auto stats, CalculateDataStatistics(*ds));
  ASSERT_EQ(stats.size(), 3u);
  for (const auto& f : stats) EXPECT_EQ(f.bytes_on_disk, 0u);
}

}  // namespace
}  // namespace lance::table
