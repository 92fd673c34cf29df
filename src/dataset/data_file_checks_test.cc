// A data file is checked against every cheap invariant the manifest records before its rows
// are trusted (issue 15 item 4): row count, size in bytes, the columns the manifest reads. A
// fragment's file swapped for another fragment's (same row count) is Corruption, not
// duplicate rows.
#include <gtest/gtest.h>

#include <atomic>

#include "lance/columnar/json.h"
#include "lance/table/snapshot.h"
#include "lance/table/versions.h"
#include "lance/table/write.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

std::atomic<int> g_data_file_uris{0};

TEST(DataFileChecks, SwappedFileOfSameRowCountIsCorruption) {
  const std::string uri = "memory://data_file_checks_" + std::to_string(++g_data_file_uris) + "/t.lance";
  const SchemaPtr sch = schema({field("id", int64()), field("s", utf8())});
  // Two fragments of 3 rows each; the second's strings are longer, so its file is larger.
  auto rows = ReadJsonLines(
      "{\"id\":1,\"s\":\"a\"}\n{\"id\":2,\"s\":\"b\"}\n{\"id\":3,\"s\":\"c\"}\n"
      "{\"id\":4,\"s\":\"dddddddddddddddddddddddddddddddddddddddd\"}\n"
      "{\"id\":5,\"s\":\"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\"}\n"
      "{\"id\":6,\"s\":\"ffffffffffffffffffffffffffffffffffffffffffffffffff\"}\n",
      sch);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  WriteParams p;
  p.max_rows_per_file = 3;
  ASSERT_TRUE(WriteDataset(uri, sch, {*rows}, p).ok());
  auto ds = Snapshot::Open(uri);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_EQ((*ds)->manifest().fragments.size(), 2u);
  const DataFileInfo& f0 = (*ds)->manifest().fragments[0].files[0];
  const DataFileInfo& f1 = (*ds)->manifest().fragments[1].files[0];
  ASSERT_NE(f0.size_bytes, 0u);
  ASSERT_NE(f0.size_bytes, f1.size_bytes);
  // The manifest records each file's real size.
  auto loc = TableLocation::FromUri(uri);
  ASSERT_TRUE(loc.ok());
  auto b1 = loc->store()->Get(loc->Path("data/" + f1.path));
  ASSERT_TRUE(b1.ok());
  EXPECT_EQ(static_cast<uint64_t>((*b1)->size()), f1.size_bytes);
  ASSERT_EQ((*ds)->CountRows(), 6u);

  // Fragment 0's file replaced by fragment 1's bytes.
  const std::string_view bytes(reinterpret_cast<const char*>((*b1)->data()),
                               static_cast<size_t>((*b1)->size()));
  ASSERT_TRUE(loc->store()->Delete(loc->Path("data/" + f0.path)).ok());
  ASSERT_TRUE(loc->store()->Put(loc->Path("data/" + f0.path), bytes).ok());
  auto again = Snapshot::Open(uri);
  ASSERT_TRUE(again.ok());
  query::ScanOptions so;
  auto scan = ScanBatches((*again), so);
  ASSERT_FALSE(scan.ok()) << "a swapped data file read as fragment 0's rows";
  EXPECT_TRUE(scan.status().IsCorruption()) << scan.status().ToString();
  EXPECT_NE(scan.status().message().find("bytes, the manifest says"), std::string::npos)
      << scan.status().ToString();
}

TEST(VersionFiles, StrayNamesInVersionsAreIgnored) {
  // Names that hold no version (version 0 under either naming, other files) are skipped by
  // listing, resolving the latest version and opening, as lance 12 skips them.
  const std::string uri = "memory://data_file_checks_" + std::to_string(++g_data_file_uris) + "/t.lance";
  const SchemaPtr sch = schema({field("id", int64())});
  auto rows = ReadJsonLines("{\"id\":1}\n", sch);
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE(WriteDataset(uri, sch, {*rows}, {}).ok());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_TRUE(WriteDataset(uri, sch, {*rows}, append).ok());
  auto loc = TableLocation::FromUri(uri);
  ASSERT_TRUE(loc.ok());
  for (const char* name : {"18446744073709551615.manifest", "0.manifest", "notes.txt", "x.manifest"}) {
    ASSERT_TRUE(loc->store()->Put(loc->Path(std::string("_versions/") + name), "garbage").ok());
  }
  auto versions = ListVersions(*loc);
  ASSERT_TRUE(versions.ok()) << versions.status().ToString();
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[0].version, 1u);
  EXPECT_EQ((*versions)[1].version, 2u);
  auto ds = Snapshot::Open(uri);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 2u);
  EXPECT_EQ((*ds)->CountRows(), 2u);
}

}  // namespace
}  // namespace lance::table
