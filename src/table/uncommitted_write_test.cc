// WriteUncommittedFragments (data files without a commit) and WriteParams::create_config.
#include <gtest/gtest.h>

#include <string>

#include "lance/columnar/json.h"
#include "lance/file/file_reader.h"
#include "lance/io/object_store.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/json_lines_test_util.h"

namespace lance::table {
namespace {

using namespace evolve_test;

TEST(UncommittedWrite, WritesDataFilesAndNoManifest) {
  const std::string uri = FreshUri("uncommitted");
  TEST_ASSIGN(auto batch, People(0, 25));
  WriteParams p;
  p.max_rows_per_file = 10;
  TEST_ASSIGN(auto frags, WriteUncommittedFragments(uri, PeopleSchema(), {batch}, p));
  ASSERT_EQ(frags.size(), 3u);
  TEST_ASSIGN(auto sp, io::ObjectStore::FromUri(uri));
  // No version exists: nothing was committed.
  TEST_ASSIGN(auto versions, sp.store->List(sp.path + "/_versions"));
  EXPECT_TRUE(versions.empty());
  EXPECT_TRUE(Snapshot::Open(uri).status().IsNotFound());
  // Each file holds its rows with the schema's fresh field ids 0, 1, 2.
  std::vector<std::string> lines;
  for (size_t i = 0; i < frags.size(); ++i) {
    const FragmentInfo& f = frags[i];
    EXPECT_EQ(f.id, 0u);
    EXPECT_EQ(f.physical_rows, i < 2 ? 10u : 5u);
    ASSERT_EQ(f.files.size(), 1u);
    EXPECT_EQ(f.files[0].fields, (std::vector<int32_t>{0, 1, 2}));
    EXPECT_EQ(f.files[0].major, 2u);
    EXPECT_EQ(f.files[0].minor, 2u);
    TEST_ASSIGN(auto bytes, sp.store->Get(sp.path + "/data/" + f.files[0].path));
    EXPECT_EQ(static_cast<uint64_t>(bytes->size()), f.files[0].size_bytes);
    TEST_ASSIGN(auto reader, file::FileReader::Open(bytes));
    EXPECT_EQ(static_cast<uint64_t>(reader->num_rows()), f.physical_rows);
    for (int c = 0; c < 3; ++c) EXPECT_EQ(reader->schema()->field(c)->id(), c);
    TEST_ASSIGN(auto rows, reader->ReadAll());
    TEST_ASSIGN(auto l, JsonLinesOf(std::vector<RecordBatchPtr>{rows}));
    lines.insert(lines.end(), l.begin(), l.end());
  }
  TEST_ASSIGN(auto want, JsonLinesOf(std::vector<RecordBatchPtr>{batch}));
  EXPECT_EQ(lines, want);
}

TEST(UncommittedWrite, ChecksTheDatasetLikeAWrite) {
  const std::string uri = FreshUri("uncommitted_existing");
  ASSERT_TRUE(MakePeople(uri, 5, 100).ok());
  TEST_ASSIGN(auto batch, People(5, 3));
  // Create (the default) refuses an existing dataset; append takes the dataset's field ids.
  auto r = WriteUncommittedFragments(uri, PeopleSchema(), {batch});
  EXPECT_TRUE(r.status().IsAlreadyExists()) << r.status().ToString();
  WriteParams p;
  p.mode = WriteMode::kAppend;
  auto bad = RecordBatchFromJSON(schema({field("x", int32())}), "[{\"x\":1}]");
  ASSERT_TRUE(bad.ok());
  EXPECT_TRUE(WriteUncommittedFragments(uri, (*bad)->schema(), {*bad}, p).status().IsInvalidArgument());
  TEST_ASSIGN(auto frags, WriteUncommittedFragments(uri, PeopleSchema(), {batch}, p));
  ASSERT_EQ(frags.size(), 1u);
  EXPECT_EQ(frags[0].physical_rows, 3u);
  // The dataset itself is unchanged.
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(ds->CountRows(), 5u);
}

TEST(CreateConfig, RecordedByCreateOnly) {
  WriteParams p;
  p.create_config = {{"lance.auto_cleanup.interval", "20"}, {"lance.auto_cleanup.older_than", "14days"}};
  TEST_ASSIGN(auto batch, People(0, 3));
  const std::string created = FreshUri("create_config");
  TEST_OK(WriteDataset(created, PeopleSchema(), {batch}, p).status());
  TEST_ASSIGN(auto ds, Snapshot::Open(created));
  EXPECT_EQ(ds->manifest().config.at("lance.auto_cleanup.interval"), "20");
  EXPECT_EQ(ds->manifest().config.at("lance.auto_cleanup.older_than"), "14days");
  // An append keeps them, an overwrite (of an existing or of a missing path) does not add them.
  p.mode = WriteMode::kAppend;
  TEST_OK(WriteDataset(created, PeopleSchema(), {batch}, p).status());
  TEST_ASSIGN(auto ds2, Snapshot::Open(created));
  EXPECT_EQ(ds2->manifest().config.count("lance.auto_cleanup.interval"), 1u);
  p.mode = WriteMode::kOverwrite;
  const std::string overwritten = FreshUri("create_config_overwrite");
  TEST_OK(WriteDataset(overwritten, PeopleSchema(), {batch}, p).status());
  TEST_ASSIGN(auto ds3, Snapshot::Open(overwritten));
  EXPECT_EQ(ds3->manifest().config.count("lance.auto_cleanup.interval"), 0u);
  // Append of a missing path creates the dataset: it records them.
  p.mode = WriteMode::kAppend;
  const std::string appended = FreshUri("create_config_append");
  TEST_OK(WriteDataset(appended, PeopleSchema(), {batch}, p).status());
  TEST_ASSIGN(auto ds4, Snapshot::Open(appended));
  EXPECT_EQ(ds4->manifest().config.at("lance.auto_cleanup.interval"), "20");
}

}  // namespace
}  // namespace lance::table
