// Durability of commits on a local table: by default every write flushes its files and
// manifest (fdatasync / fsync counted by io::LocalFlushCount) before it returns; with
// OpenOptions::sync_commits = false / CommitOptions::sync = false (not durable) a write flushes
// nothing, and the versions it commits read back the same.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "lance/columnar/json.h"
#include "lance/dataset/dataset.h"
#include "lance/index/scalar/create.h"
#include "lance/io/local_object_store.h"

namespace lance::dataset {
namespace {

SchemaPtr SyncSchema() { return schema({field("id", int64(), false), field("score", float64())}); }

// Rows [start, start + n): score = id.
std::vector<RecordBatchPtr> Batches(int64_t start, int64_t n) {
  std::string text;
  for (int64_t i = start; i < start + n; ++i) {
    text += "{\"id\":" + std::to_string(i) + ",\"score\":" + std::to_string(i) + "}\n";
  }
  auto batch = ReadJsonLines(text, SyncSchema());
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return batch.ok() ? std::vector<RecordBatchPtr>{*batch} : std::vector<RecordBatchPtr>{};
}

std::string FreshDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("lance_sync_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return (dir / "t.lance").string();
}

// Sorted (id, score) of every live row.
std::vector<std::pair<int64_t, double>> SyncRows(const Dataset& ds) {
  std::vector<std::pair<int64_t, double>> out;
  auto scanner = ds.NewScan();
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  if (!scanner.ok()) return out;
  auto reader = scanner->ToReader();
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  auto all = (*reader)->ReadAll();
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  if (!all.ok()) return out;
  for (const auto& b : *all) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.emplace_back(b->column(0)->Values<int64_t>()[i], b->column(1)->Values<double>()[i]);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Flushes issued by the writes of `sync` mode: create, append, delete, update, merge-insert,
// each one's count in `flushes` (in that order). Checks the rows after all five.
void RunWrites(bool sync, std::vector<int64_t>* flushes) {
  const std::string uri = FreshDir(sync ? "default" : "nosync");
  OpenOptions oo;
  oo.sync_commits = sync;
  int64_t before = io::LocalFlushCount();
  auto step = [&] {
    const int64_t now = io::LocalFlushCount();
    flushes->push_back(now - before);
    before = now;
  };
  VectorRecordBatchReader create_input(SyncSchema(), Batches(0, 100));
  auto created = Dataset::Write(uri, create_input, {}, oo);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  std::shared_ptr<Dataset> ds = *created;
  step();
  VectorRecordBatchReader append_input(SyncSchema(), Batches(100, 50));
  ASSERT_TRUE(ds->Append(append_input).ok());
  step();
  auto deleted = ds->Delete("id % 10 = 3");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted->num_deleted_rows, 15u);
  step();
  auto updated = ds->Update({{"score", "score + 1000"}}, "id < 20");
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->rows_updated, 18u);
  step();
  VectorRecordBatchReader merge_input(SyncSchema(), Batches(140, 20));  // 10 matched, 10 new
  MergeInsertParams mp;
  mp.on = {"id"};
  auto merged = ds->MergeInsert(merge_input, mp);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->rows_updated, 9u);  // 143 is deleted
  EXPECT_EQ(merged->rows_inserted, 11u);
  step();

  // The same rows whatever the mode, read by a fresh handle.
  auto reopened = Dataset::Open(uri);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->version(), 5u);
  std::vector<std::pair<int64_t, double>> want;
  for (int64_t i = 0; i < 160; ++i) {
    if (i % 10 == 3 && i < 140) continue;
    want.emplace_back(i, i < 20 ? i + 1000.0 : static_cast<double>(i));
  }
  EXPECT_EQ(SyncRows(**reopened), want);
  std::filesystem::remove_all(std::filesystem::path(uri).parent_path());
}

TEST(CommitSync, DefaultWritesFlushEveryCommit) {
  std::vector<int64_t> flushes;
  RunWrites(true, &flushes);
  ASSERT_EQ(flushes.size(), 5u);
  const char* names[] = {"create", "append", "delete", "update", "merge-insert"};
  for (size_t i = 0; i < flushes.size(); ++i) {
    // At least: a data or deletion file, the transaction, the manifest, their directories.
    EXPECT_GE(flushes[i], 4) << names[i] << " flushed only " << flushes[i] << " times";
  }
}

TEST(CommitSync, NoSyncWritesFlushNothing) {
  std::vector<int64_t> flushes;
  RunWrites(false, &flushes);
  EXPECT_EQ(flushes, (std::vector<int64_t>{0, 0, 0, 0, 0}));
}

TEST(CommitSync, OperationOptionTurnsSyncOffForOneWrite) {
  const std::string uri = FreshDir("op");
  VectorRecordBatchReader input(SyncSchema(), Batches(0, 10));
  auto ds = Dataset::Write(uri, input);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  // table layer, the default handler: no flush with sync off.
  int64_t before = io::LocalFlushCount();
  table::WriteParams p;
  p.mode = table::WriteMode::kAppend;
  p.commit.sync = false;
  ASSERT_TRUE(table::WriteDataset(uri, SyncSchema(), Batches(10, 10), p).ok());
  EXPECT_EQ(io::LocalFlushCount() - before, 0);
  // A handler of the caller's choosing is given the store that does not flush.
  before = io::LocalFlushCount();
  p.commit.handler = table::RenameIfNotExistsCommitHandler();
  ASSERT_TRUE(table::WriteDataset(uri, SyncSchema(), Batches(20, 10), p).ok());
  EXPECT_EQ(io::LocalFlushCount() - before, 0);
  // The same handler with sync on flushes.
  before = io::LocalFlushCount();
  p.commit.sync = true;
  ASSERT_TRUE(table::WriteDataset(uri, SyncSchema(), Batches(30, 10), p).ok());
  EXPECT_GE(io::LocalFlushCount() - before, 4);
  // Through the handle: the write's own option off, the handle's on.
  before = io::LocalFlushCount();
  VectorRecordBatchReader more(SyncSchema(), Batches(40, 10));
  table::WriteParams hp;
  hp.commit.sync = false;
  ASSERT_TRUE((*ds)->Append(more, hp).ok());
  EXPECT_EQ(io::LocalFlushCount() - before, 0);
  UpdateParams up;
  up.commit.sync = false;
  before = io::LocalFlushCount();
  ASSERT_TRUE((*ds)->Update({{"score", "0"}}, "id = 1", up).ok());
  EXPECT_EQ(io::LocalFlushCount() - before, 0);
  auto count = (*ds)->CountRows();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 50u);
  std::filesystem::remove_all(std::filesystem::path(uri).parent_path());
}

// An index's files are written without a flush each and synced by its commit, in the round
// of the manifest: each file, its directory _indices/{uuid} and _indices itself (a new entry),
// beside the commit's own flushes (those of a commit that adds no file: a delete).
TEST(CommitSync, CreateIndexSyncsItsFilesWithItsCommit) {
  const std::string uri = FreshDir("index");
  VectorRecordBatchReader input(SyncSchema(), Batches(0, 100));
  auto ds = Dataset::Write(uri, input);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  int64_t before = io::LocalFlushCount();
  auto deleted = (*ds)->Delete("id = 99");  // a commit with a deletion file
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  const int64_t delete_flushes = io::LocalFlushCount() - before;
  index::scalar::CreateScalarIndexOptions o;
  o.type = index::scalar::ScalarIndexType::kBTree;
  before = io::LocalFlushCount();
  auto created = (*ds)->CreateScalarIndex("id", o);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const int64_t index_flushes = io::LocalFlushCount() - before;
  // The delete flushed its deletion file and _deletions/; the index two files, _indices/{uuid}
  // and _indices/.
  EXPECT_EQ(index_flushes, delete_flushes + 2) << "delete " << delete_flushes;
  // Off for one operation: nothing flushed, and the index still reads.
  o.replace = true;
  o.commit.sync = false;
  before = io::LocalFlushCount();
  ASSERT_TRUE((*ds)->CreateScalarIndex("id", o).ok());
  EXPECT_EQ(io::LocalFlushCount() - before, 0);
  auto count = (*ds)->CountRows("id < 10");
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count, 10u);
  std::filesystem::remove_all(std::filesystem::path(uri).parent_path());
}

}  // namespace
}  // namespace lance::dataset
