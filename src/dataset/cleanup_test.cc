// Cleanup of old versions: which versions go (keep N, older than, tags, the latest), which
// files go (only those no kept version references; unverified files only when old or asked),
// and that every kept version still reads every row.
#include "lance/table/cleanup.h"

#include <gtest/gtest.h>

#include <set>

#include "lance/table/commit.h"
#include "lance/table/row_ids.h"
#include "lance/table/tags.h"
#include "lance/table/versions.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

using namespace evolve_test;

std::set<std::string> Files(const std::string& uri, const std::string& dir) {
  auto loc = TableLocation::FromUri(uri);
  EXPECT_TRUE(loc.ok());
  auto listed = loc->store()->List(loc->Path(dir));
  EXPECT_TRUE(listed.ok());
  std::set<std::string> out;
  for (const auto& o : *listed) out.insert(o.path.substr(o.path.rfind('/') + 1));
  return out;
}

std::vector<uint64_t> Versions(const std::string& uri) {
  auto ds = Snapshot::Open(uri);
  EXPECT_TRUE(ds.ok());
  auto vs = (*ds)->ListVersions();
  EXPECT_TRUE(vs.ok());
  std::vector<uint64_t> out;
  for (const auto& v : *vs) out.push_back(v.version);
  return out;
}

// v1 create (2 fragments), v2 append, v3 delete, v4 overwrite (new files), v5 append.
void History(const std::string& uri) {
  ASSERT_TRUE(MakePeople(uri, 4, 2).ok());
  WriteParams p;
  p.mode = WriteMode::kAppend;
  ASSERT_TRUE(WriteDataset(uri, PeopleSchema(), {*People(4, 2)}, p).ok());
  ASSERT_TRUE(DeleteRows(uri, "id = 1").ok());
  p.mode = WriteMode::kOverwrite;
  ASSERT_TRUE(WriteDataset(uri, PeopleSchema(), {*People(100, 3)}, p).ok());
  p.mode = WriteMode::kAppend;
  ASSERT_TRUE(WriteDataset(uri, PeopleSchema(), {*People(200, 1)}, p).ok());
}

TEST(Cleanup, KeepLastVersionsDeletesOnlyUnreferencedFiles) {
  const std::string uri = FreshUri("cleanup");
  History(uri);
  ASSERT_EQ(Versions(uri), (std::vector<uint64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(Files(uri, "data").size(), 5u);
  EXPECT_EQ(Files(uri, "_deletions").size(), 1u);
  TEST_ASSIGN(auto latest_rows, Rows(uri));

  CleanupOptions o;
  o.keep_versions = 2;
  o.dry_run = true;
  TEST_ASSIGN(CleanupStats dry, CleanupOldVersions(uri, o));
  EXPECT_EQ(dry.removed_versions, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(Versions(uri).size(), 5u);  // nothing deleted

  o.dry_run = false;
  TEST_ASSIGN(CleanupStats s, CleanupOldVersions(uri, o));
  EXPECT_EQ(s.removed_versions, (std::vector<uint64_t>{1, 2, 3}));
  // The old data (3 files) and the deletion file belonged only to versions 1-3.
  EXPECT_EQ(s.data_files_removed, 3u);
  EXPECT_EQ(s.deletion_files_removed, 1u);
  EXPECT_EQ(s.transaction_files_removed, 3u);
  EXPECT_GT(s.bytes_removed, 0u);
  EXPECT_EQ(Versions(uri), (std::vector<uint64_t>{4, 5}));
  EXPECT_EQ(Files(uri, "data").size(), 2u);
  EXPECT_TRUE(Files(uri, "_deletions").empty());
  EXPECT_EQ(Files(uri, "_transactions").size(), 2u);
  TEST_ASSIGN(auto rows, Rows(uri));
  EXPECT_EQ(rows, latest_rows);
  OpenOptions v4;
  v4.version = 4;
  TEST_ASSIGN(auto ds4, Snapshot::Open(uri, v4));
  EXPECT_EQ(ds4->CountRows(), 3u);
  v4.version = 2;
  EXPECT_TRUE(Snapshot::Open(uri, v4).status().IsNotFound());
  // The latest version always stays.
  o.keep_versions = 1;
  o.older_than_seconds = 0;
  TEST_ASSIGN(s, CleanupOldVersions(uri, o));
  EXPECT_EQ(s.removed_versions, (std::vector<uint64_t>{4}));
  EXPECT_EQ(Versions(uri), (std::vector<uint64_t>{5}));
  TEST_ASSIGN(rows, Rows(uri));
  EXPECT_EQ(rows, latest_rows);
}

TEST(Cleanup, TaggedVersionsAndAgeAreRespected) {
  const std::string uri = FreshUri("cleanup_tags");
  History(uri);
  TEST_OK(CreateTag(uri, "first", 1));
  CleanupOptions o;
  o.older_than_seconds = 3600;  // everything is younger than an hour
  TEST_ASSIGN(CleanupStats s, CleanupOldVersions(uri, o));
  EXPECT_TRUE(s.removed_versions.empty());
  EXPECT_EQ(Versions(uri).size(), 5u);

  o.older_than_seconds = 0;
  TEST_ASSIGN(s, CleanupOldVersions(uri, o));
  EXPECT_EQ(s.removed_versions, (std::vector<uint64_t>{2, 3, 4}));
  EXPECT_EQ(Versions(uri), (std::vector<uint64_t>{1, 5}));
  // Version 1's files are kept for the tag: it still reads every row.
  OpenOptions t;
  t.tag = "first";
  TEST_ASSIGN(auto ds, Snapshot::Open(uri, t));
  TEST_ASSIGN(auto batches, ScanBatches(ds));
  int64_t n = 0;
  for (const auto& b : batches) n += b->num_rows();
  EXPECT_EQ(n, 4);
  // Version 2's appended file and version 3's deletion file went.
  EXPECT_EQ(Files(uri, "data").size(), 4u);
  EXPECT_TRUE(Files(uri, "_deletions").empty());
}

TEST(Cleanup, UnverifiedFilesNeedAgeOrPermission) {
  const std::string uri = FreshUri("cleanup_unverified");
  History(uri);
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_OK(loc.store()->Put(loc.Path("data/in-progress.lance"), "partial"));
  CleanupOptions o;
  o.keep_versions = 5;
  TEST_ASSIGN(CleanupStats s, CleanupOldVersions(uri, o));
  EXPECT_TRUE(s.removed_versions.empty());
  EXPECT_EQ(s.data_files_removed, 0u);
  EXPECT_TRUE(Files(uri, "data").count("in-progress.lance"));
  o.delete_unverified = true;
  TEST_ASSIGN(s, CleanupOldVersions(uri, o));
  EXPECT_EQ(s.data_files_removed, 1u);
  EXPECT_FALSE(Files(uri, "data").count("in-progress.lance"));
  EXPECT_EQ(Versions(uri).size(), 5u);
}

TEST(Cleanup, Arguments) {
  EXPECT_EQ(*ParseDurationSeconds("7d"), 7 * 86400);
  EXPECT_EQ(*ParseDurationSeconds("12h"), 12 * 3600);
  EXPECT_EQ(*ParseDurationSeconds("30m"), 1800);
  EXPECT_EQ(*ParseDurationSeconds("45"), 45);
  EXPECT_EQ(*ParseDurationSeconds("2w"), 14 * 86400);
  EXPECT_TRUE(ParseDurationSeconds("").status().IsInvalidArgument());
  EXPECT_TRUE(ParseDurationSeconds("7y").status().IsInvalidArgument());
  EXPECT_TRUE(ParseDurationSeconds("d").status().IsInvalidArgument());
  const std::string uri = FreshUri("cleanup_args");
  TEST_OK(MakePeople(uri, 2, 2));
  EXPECT_TRUE(CleanupOldVersions(uri, {}).status().IsInvalidArgument());
  CleanupOptions zero;
  zero.keep_versions = 0;
  EXPECT_TRUE(CleanupOldVersions(uri, zero).status().IsInvalidArgument());
  CleanupOptions ok;
  ok.keep_versions = 1;
  EXPECT_TRUE(CleanupOldVersions(FreshUri("missing"), ok).status().IsNotFound());
}

}  // namespace
}  // namespace lance::table
