// query::ScanOptions::fragment_ids and query::ScanOptions::batch_size: a scan restricted to some fragments
// (manifest order, unknown ids ignored, offset/limit/filter over the selection) and batches cut
// to a size, compared row by row with a full scan.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lance/table/snapshot.h"
#include "lance/table/write.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/json_lines_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

using namespace evolve_test;

// People rows [0, 25) in fragments of 10 rows: ids 0-9, 10-19, 20-24.
std::string ThreeFragments() {
  const std::string uri = FreshUri("scan_options");
  EXPECT_TRUE(MakePeople(uri, 25, 10).ok());
  return uri;
}

std::vector<std::string> IdsOf(const std::vector<RecordBatchPtr>& batches) {
  std::vector<std::string> out;
  for (const auto& b : batches) {
    const auto* ids = b->GetColumnByName("id")->Values<int64_t>();
    for (int64_t i = 0; i < b->num_rows(); ++i) out.push_back(std::to_string(ids[i]));
  }
  return out;
}

std::vector<std::string> IdStrings(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back(std::to_string(i));
  return out;
}

TEST(ScanOptions, FragmentIdsSelectFragmentsInManifestOrder) {
  const std::string uri = ThreeFragments();
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  ASSERT_EQ(ds->manifest().fragments.size(), 3u);
  const uint64_t f0 = ds->manifest().fragments[0].id, f2 = ds->manifest().fragments[2].id;

  query::ScanOptions so;
  so.fragment_ids = std::vector<uint64_t>{f2, 12345, f0};  // order and unknown ids do not matter
  TEST_ASSIGN(auto batches, ScanBatches(ds, so));
  std::vector<std::string> want = IdStrings(0, 10);
  for (const auto& s : IdStrings(20, 25)) want.push_back(s);
  EXPECT_EQ(IdsOf(batches), want);

  // Whole rows, not only ids: the selection reads the same rows a full scan does.
  TEST_ASSIGN(auto all, ScanBatches(ds));
  TEST_ASSIGN(auto all_lines, JsonLinesOf(all));
  TEST_ASSIGN(auto some_lines, JsonLinesOf(batches));
  std::vector<std::string> expected(all_lines.begin(), all_lines.begin() + 10);
  expected.insert(expected.end(), all_lines.begin() + 20, all_lines.end());
  EXPECT_EQ(some_lines, expected);

  // Offset and limit count rows of the selection (filters are the query layer's).
  so.offset = 8;
  so.limit = 4;
  TEST_ASSIGN(auto windowed, ScanBatches(ds, so));
  EXPECT_EQ(IdsOf(windowed), (std::vector<std::string>{"8", "9", "20", "21"}));

  // An empty selection scans nothing.
  query::ScanOptions none;
  none.fragment_ids = std::vector<uint64_t>{};
  TEST_ASSIGN(auto empty, ScanBatches(ds, none));
  EXPECT_TRUE(empty.empty());
}

TEST(ScanOptions, BatchSizeCutsBatches) {
  const std::string uri = ThreeFragments();
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  TEST_ASSIGN(auto whole, ScanBatches(ds));
  ASSERT_EQ(whole.size(), 3u);  // one per fragment by default
  TEST_ASSIGN(auto whole_lines, JsonLinesOf(whole));

  query::ScanOptions so;
  so.batch_size = 4;
  TEST_ASSIGN(auto cut, ScanBatches(ds, so));
  std::vector<int64_t> sizes;
  for (const auto& b : cut) sizes.push_back(b->num_rows());
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4, 2, 4, 4, 2, 4, 1}));
  TEST_ASSIGN(auto cut_lines, JsonLinesOf(cut));
  EXPECT_EQ(cut_lines, whole_lines);

  // With an offset, a limit and row ids the batches still hold the same rows, cut.
  so.offset = 3;
  so.limit = 15;
  so.with_row_id = true;
  TEST_ASSIGN(auto filtered, ScanBatches(ds, so));
  for (const auto& b : filtered) EXPECT_LE(b->num_rows(), 4);
  EXPECT_EQ(IdsOf(filtered), IdStrings(3, 18));
  query::ScanOptions uncut = so;
  uncut.batch_size = 0;
  TEST_ASSIGN(auto ref, ScanBatches(ds, uncut));
  TEST_ASSIGN(auto a, JsonLinesOf(filtered));
  TEST_ASSIGN(auto b, JsonLinesOf(ref));
  EXPECT_EQ(a, b);

  query::ScanOptions bad;
  bad.batch_size = -1;
  auto r = ScanBatches(ds, bad);
  ASSERT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("batch size"), std::string::npos);
}

}  // namespace
}  // namespace lance::table
