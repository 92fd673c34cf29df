// Scans and takes of the golden dataset written by lance 12 (tests/golden/lance_table:
// appends, Arrow IPC and Roaring deletion files, a tag): every version equals lance 12's rows,
// projections, offsets across fragments, row addresses, takes by position and row id.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lance/io/object_store.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "query/query_test_util.h"

namespace lance::query {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(__FILE__).parent_path() / "../../tests/golden/lance_table";

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) out.push_back(line);
  return out;
}

int g_store_counter = 0;

// Copies the golden dataset into a fresh memory store; returns its URI.
std::string CopyGolden() {
  const std::string uri =
      "memory://query_golden_" + std::to_string(++g_store_counter) + "/history.lance";
  auto sp = io::ObjectStore::FromUri(uri);
  EXPECT_TRUE(sp.ok());
  const fs::path root = kGolden / "history.lance";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), root).string();
    EXPECT_TRUE(sp->store->Put(sp->path + "/" + rel, ReadText(e.path())).ok()) << rel;
  }
  return uri;
}

std::shared_ptr<const table::Snapshot> OpenVersion(const std::string& uri, uint64_t v) {
  table::OpenOptions open;
  open.version = v;
  auto ds = table::Snapshot::Open(uri, open);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return ds.ok() ? *ds : nullptr;
}

TEST(GoldenScan, EveryVersionEqualsTheReference) {
  const std::string uri = CopyGolden();
  for (uint64_t v = 1; v <= 4; ++v) {
    auto ds = OpenVersion(uri, v);
    ASSERT_TRUE(ds);
    EXPECT_EQ(ds->version(), v);
    const auto expected = Lines(ReadText(kGolden / ("expected_v" + std::to_string(v) + ".jsonl")));
    for (int64_t batch_size : {0, 3, 1000}) {
      ScanOptions o;
      o.with_row_id = true;
      o.batch_size = batch_size;
      auto got = ScanLines(ds, o, batch_size > 0 ? batch_size : kDefaultBatchSize);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(*got, expected) << "version " << v << " batch size " << batch_size;
    }
    auto s = Scanner::Make(ds);
    ASSERT_TRUE(s.ok());
    auto n = s->CountRows();
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, expected.size());
  }
}

TEST(GoldenScan, ProjectionLimitOffsetTakeAndRowAddresses) {
  const std::string uri = CopyGolden();
  auto ds = OpenVersion(uri, 3);
  ASSERT_TRUE(ds);
  const auto all = Lines(ReadText(kGolden / "expected_v3.jsonl"));
  ScanOptions o;
  o.columns = {"f", "id"};
  o.offset = 5;
  o.limit = 4;
  o.with_row_addr = true;
  auto got = ScanLines(ds, o);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 4u);
  // Row 7 of the scan (offset 5 + 2) crosses into fragment 1 (7 live rows in fragment 0).
  EXPECT_EQ((*got)[2], R"({"f":null,"id":10,"_rowaddr":4294967296})");
  EXPECT_EQ((*got)[0], R"({"f":0.875,"id":7,"_rowaddr":7})");

  ScanOptions none;
  none.offset = 100000;
  auto empty = ScanLines(ds, none);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());

  ScanOptions take_opts;
  take_opts.with_row_id = true;
  auto s = Scanner::Make(ds, take_opts);
  ASSERT_TRUE(s.ok());
  auto took = s->Take({4506, 0, 7, 7});
  ASSERT_TRUE(took.ok()) << took.status().ToString();
  auto took_lines = DrainLines(took->get());
  ASSERT_TRUE(took_lines.ok());
  EXPECT_EQ(*took_lines, (std::vector<std::string>{all[4506], all[0], all[7], all[7]}));
  auto out_of_range = s->Take({4507});
  EXPECT_TRUE(out_of_range.status().IsInvalidArgument()) << out_of_range.status().ToString();
}

TEST(GoldenScan, TakeRowIdsSkipsDeletedAndMissing) {
  const std::string uri = CopyGolden();
  auto ds = OpenVersion(uri, 3);
  ASSERT_TRUE(ds);
  const auto all = Lines(ReadText(kGolden / "expected_v3.jsonl"));
  ScanOptions o;
  o.with_row_id = true;
  auto s = Scanner::Make(ds, o);
  ASSERT_TRUE(s.ok());
  // (fragment 1, row 1) = id 11; (0, 0) = id 0; (0, 1) is deleted; row 99 and fragment 5 do
  // not exist.
  auto took = s->TakeRowIds({(uint64_t{1} << 32) | 1, 0, 1, 99, uint64_t{5} << 32});
  ASSERT_TRUE(took.ok()) << took.status().ToString();
  auto lines = DrainLines(took->get());
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(*lines, (std::vector<std::string>{all[8], all[0]}));
}

// Counts with a filter over the versions with Arrow IPC and Roaring deletion files equal the
// rows a filtered scan yields, and the rows a direct look at the expected rows finds.
TEST(GoldenScan, FilteredCountsOverDeletionFiles) {
  const std::string uri = CopyGolden();
  for (uint64_t v = 1; v <= 4; ++v) {
    auto ds = OpenVersion(uri, v);
    ASSERT_TRUE(ds);
    const auto expected = Lines(ReadText(kGolden / ("expected_v" + std::to_string(v) + ".jsonl")));
    ScanOptions o;
    o.columns = {"id"};
    o.filter = "id % 3 = 1";
    auto s = Scanner::Make(ds, o);
    ASSERT_TRUE(s.ok());
    auto n = s->CountRows();
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    auto rows = ScanLines(ds, o);
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(*n, rows->size());
    size_t direct = 0;
    for (const auto& line : expected) {
      const size_t at = line.find("\"id\":");
      ASSERT_NE(at, std::string::npos) << line;
      direct += std::stoll(line.substr(at + 5)) % 3 == 1;
    }
    EXPECT_EQ(*n, direct) << "version " << v;
  }
}

}  // namespace
}  // namespace lance::query
