// The commit path as an engine uses it: a store the caller made (not a URI), transactions built
// from the C++ model (Append, Delete, CreateIndex), data and deletion files staged and
// committed, every row checked afterwards; retryable conflicts on real races
// (IsRetryable()) and incompatible ones (not); a failed commit removes what it staged.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/io/memory_object_store.h"
#include "lance/table/commit.h"
#include "lance/table/deletion.h"
#include "lance/table/snapshot.h"
#include "lance/table/versions.h"
#include "lance/table/write.h"
#include "table_fixtures/scan_test_util.h"
#include "table_fixtures/status_test_util.h"


namespace lance::table {
namespace {

SchemaPtr Schema2() { return schema({field("id", int64(), false), field("name", utf8())}); }

Result<RecordBatchPtr> Rows(const SchemaPtr& s, int64_t first, int64_t n) {
  std::string json = "[";
  for (int64_t i = first; i < first + n; ++i) {
    json += fmt::format("{}{{\"id\":{},\"name\":\"n{}\"}}", i == first ? "" : ",", i, i);
  }
  return RecordBatchFromJSON(s, json + "]");
}

// Every id of the latest version, in scan order.
std::vector<int64_t> Ids(const TableLocation& loc) {
  auto ds = Snapshot::Open(loc);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  if (!ds.ok()) return {};
  query::ScanOptions so;
  so.columns = {"id"};
  auto batches = ScanBatches((*ds), so);
  EXPECT_TRUE(batches.ok());
  std::vector<int64_t> out;
  for (const auto& b : *batches) {
    const int64_t* v = b->column(0)->Values<int64_t>();
    out.insert(out.end(), v, v + b->num_rows());
  }
  return out;
}

std::vector<int64_t> Range(int64_t first, int64_t last) {
  std::vector<int64_t> out;
  for (int64_t i = first; i < last; ++i) out.push_back(i);
  return out;
}

// A handler that lets a competitor commit first on its first call (a lost race).
class RacingHandler final : public CommitHandler {
 public:
  explicit RacingHandler(std::function<void()> competitor) : competitor_(std::move(competitor)) {}
  Status CommitManifest(io::ObjectStore& store, const std::string& path, std::string_view bytes) override {
    if (++calls == 1) competitor_();
    return PutIfNotExistsCommitHandler()->CommitManifest(store, path, bytes);
  }
  std::string_view name() const override { return "racing"; }
  int calls = 0;

 private:
  std::function<void()> competitor_;
};

// A Delete transaction removing the rows `ids` (their row addresses found by a scan of the
// latest version), its deletion files staged in `staged`.
Result<Transaction> DeleteIds(StagedFiles& staged, const std::vector<int64_t>& ids) {
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(staged.location()));
  query::ScanOptions so;
  so.columns = {"id"};
  so.with_row_addr = true;
  LANCE_ASSIGN_OR_RAISE(auto batches, ScanBatches(ds, so));
  std::vector<uint64_t> addresses;
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      const int64_t id = b->column(0)->Values<int64_t>()[r];
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) {
        addresses.push_back(b->column(1)->Values<uint64_t>()[r]);
      }
    }
  }
  LANCE_ASSIGN_OR_RAISE(StagedDeletions d, StageDeletions(staged, *ds, addresses));
  Transaction::Delete del;
  del.updated_fragments = std::move(d.updated_fragments);
  del.deleted_fragment_ids = std::move(d.removed_fragment_ids);
  del.rebase = std::move(d.rebase);
  del.predicate = "id in list";
  Transaction txn;
  txn.read_version = ds->version();
  txn.operation = std::move(del);
  return txn;
}

TEST(CommitApi, AnEngineWritesThroughItsOwnStore) {
  const auto store = io::MemoryObjectStore::Make();  // not registered under any URI
  const TableLocation loc(store, "warehouse/t.lance/");
  EXPECT_EQ(loc.root(), "warehouse/t.lance");
  TEST_ASSIGN(auto first, Rows(Schema2(), 0, 10));
  WriteParams wp;
  wp.max_rows_per_file = 4;
  TEST_ASSIGN(WriteResult created, WriteDataset(loc, Schema2(), {first}, wp));
  EXPECT_EQ(created.fragment_ids, (std::vector<uint64_t>{0, 1, 2}));
  ASSERT_NE(created.commit.manifest, nullptr);
  EXPECT_EQ(created.commit.manifest->num_rows(), 10u);

  // Append: data files of new fragments written by the engine, then the transaction.
  TEST_ASSIGN(CommittedVersion v1, LoadLatestWritableVersion(loc));
  TEST_ASSIGN(auto ds, Snapshot::Open(loc, v1));
  StagedFiles staged(loc);
  TEST_ASSIGN(auto more, Rows(ds->schema(), 10, 5));
  TEST_ASSIGN(std::vector<FragmentInfo> fragments,
            WriteFragments(staged, v1.manifest, ds->schema(), {more}, 1000));
  ASSERT_EQ(fragments.size(), 1u);
  EXPECT_EQ(staged.paths().size(), 1u);
  Transaction append;
  append.read_version = v1.version;
  append.operation = Transaction::Append{fragments, {}};
  TEST_ASSIGN(CommitInfo c2, CommitTransaction(loc, append, {}, &staged));
  EXPECT_EQ(c2.version, 2u);
  EXPECT_TRUE(staged.paths().empty());  // referenced by version 2 now
  EXPECT_EQ(c2.manifest->fragments.back().id, 3u);
  EXPECT_EQ(Ids(loc), Range(0, 15));

  // Delete through staged deletion files.
  StagedFiles staged_del(loc);
  TEST_ASSIGN(Transaction del, DeleteIds(staged_del, {1, 2, 12}));
  TEST_ASSIGN(CommitInfo c3, CommitTransaction(loc, std::move(del), {}, &staged_del));
  EXPECT_EQ(c3.version, 3u);
  std::vector<int64_t> want = Range(0, 15);
  want.erase(std::remove_if(want.begin(), want.end(), [](int64_t i) { return i == 1 || i == 2 || i == 12; }),
             want.end());
  EXPECT_EQ(Ids(loc), want);

  // Index metadata committed by a layer above; it leaves when its column is dropped.
  IndexInfo index;
  index.name = "name_idx";
  index.uuid = "0123abcd-0000-4000-8000-000000000001";
  index.fields = {1};
  index.dataset_version = 3;
  index.has_fragment_bitmap = true;
  index.fragment_ids = {0, 1, 2, 3};
  index.details_type_url = "/lance.table.BTreeIndexDetails";
  Transaction ci;
  ci.read_version = 3;
  ci.operation = Transaction::CreateIndex{{index}, {}, {}};
  TEST_ASSIGN(CommitInfo c4, CommitTransaction(loc, ci));
  ASSERT_EQ(c4.manifest->indices.size(), 1u);
  TEST_ASSIGN(auto with_index, Snapshot::Open(loc));
  ASSERT_EQ(with_index->manifest().indices.size(), 1u);
  EXPECT_EQ(with_index->manifest().indices[0].uuid, index.uuid);
  EXPECT_EQ(with_index->manifest().indices[0].fragment_ids, index.fragment_ids);
  // A Project dropping "name" (what dataset's DropColumns commits) prunes the index on it.
  Transaction drop;
  drop.read_version = 4;
  Transaction::Project project;
  for (const auto& f : with_index->manifest().fields) {
    if (f.name != "name") project.schema.push_back(f);
  }
  project.preserves_nullability = true;
  drop.operation = std::move(project);
  TEST_OK(CommitTransaction(loc, drop).status());
  TEST_ASSIGN(auto dropped, Snapshot::Open(loc));
  EXPECT_TRUE(dropped->manifest().indices.empty());
  EXPECT_EQ(Ids(loc), want);
  EXPECT_EQ(dropped->version(), 5u);
}

// Two deletes racing: of different rows both land (the loser rebases and merges the deletion
// vectors); of a common row the loser fails with a retryable conflict, and running it again
// on the new version succeeds.
TEST(CommitApi, RacingDeletesAreRebasedOrRetryable) {
  const auto store = io::MemoryObjectStore::Make();
  const TableLocation loc(store, "t");
  TEST_ASSIGN(auto rows, Rows(Schema2(), 0, 20));
  TEST_OK(WriteDataset(loc, Schema2(), {rows}).status());

  for (bool common : {false, true}) {
    StagedFiles ours(loc);
    TEST_ASSIGN(Transaction mine, DeleteIds(ours, common ? std::vector<int64_t>{5, 6} : std::vector<int64_t>{3}));
    CommitOptions o;
    o.handler = std::make_shared<RacingHandler>([&] {
      StagedFiles theirs(loc);
      auto t = DeleteIds(theirs, common ? std::vector<int64_t>{6, 7} : std::vector<int64_t>{4});
      ASSERT_TRUE(t.ok());
      ASSERT_TRUE(CommitTransaction(loc, std::move(*t), {}, &theirs).ok());
    });
    auto r = CommitTransaction(loc, std::move(mine), o, &ours);
    if (!common) {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->attempts, 2);
      EXPECT_EQ(r->rebased, 1);
      continue;
    }
    ASSERT_TRUE(r.status().IsCommitConflict()) << r.status().ToString();
    EXPECT_TRUE(r.status().IsRetryable()) << r.status().ToString();
    // Nothing it staged is left; the retry on the new version lands.
    for (const auto& p : ours.paths()) EXPECT_FALSE(*store->Exists(p)) << p;
    StagedFiles again(loc);
    TEST_ASSIGN(Transaction retry, DeleteIds(again, {5, 6}));
    TEST_OK(CommitTransaction(loc, std::move(retry), {}, &again).status());
  }
  std::vector<int64_t> want;
  for (int64_t i : Range(0, 20)) {
    if (i < 3 || i > 7) want.push_back(i);
  }
  EXPECT_EQ(Ids(loc), want);
}

// An append read before an overwrite cannot land after it: a conflict that is not retryable
// (the overwrite replaced the rows it was appending to), and its data file is removed.
TEST(CommitApi, AppendAfterOverwriteIsNotRetryable) {
  const auto store = io::MemoryObjectStore::Make();
  const TableLocation loc(store, "t");
  TEST_ASSIGN(auto rows, Rows(Schema2(), 0, 5));
  TEST_OK(WriteDataset(loc, Schema2(), {rows}).status());
  WriteParams p;
  p.mode = WriteMode::kAppend;
  p.commit.handler = std::make_shared<RacingHandler>([&] {
    WriteParams o;
    o.mode = WriteMode::kOverwrite;
    auto fresh = Rows(Schema2(), 100, 3);
    ASSERT_TRUE(fresh.ok());
    ASSERT_TRUE(WriteDataset(loc, Schema2(), {*fresh}, o).ok());
  });
  TEST_ASSIGN(auto more, Rows(Schema2(), 5, 5));
  auto st = WriteDataset(loc, Schema2(), {more}, p).status();
  ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
  EXPECT_FALSE(st.IsRetryable()) << st.ToString();
  EXPECT_EQ(Ids(loc), Range(100, 103));
  TEST_ASSIGN(auto data, store->List(loc.Path("data")));
  EXPECT_EQ(data.size(), 2u);  // the two committed versions' files only
}

// Writers on threads of one process race for real (no handler of ours in between): every
// append lands exactly once, the lost races rebased.
TEST(CommitApi, ThreadsRacingForVersions) {
  const auto store = io::MemoryObjectStore::Make();
  const TableLocation loc(store, "t");
  TEST_ASSIGN(auto rows, Rows(Schema2(), 0, 1));
  TEST_OK(WriteDataset(loc, Schema2(), {rows}).status());
  constexpr int kPerThread = 8;
  std::atomic<int> lost{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto batch = Rows(Schema2(), 1 + t * kPerThread + i, 1);
        ASSERT_TRUE(batch.ok());
        WriteParams p;
        p.mode = WriteMode::kAppend;
        auto r = WriteDataset(loc, Schema2(), {*batch}, p);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        lost += r->commit.attempts - 1;
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<int64_t> ids = Ids(loc);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, Range(0, 1 + 2 * kPerThread));
  TEST_ASSIGN(auto latest, LoadLatestVersion(loc));
  EXPECT_EQ(latest->version, 1u + 2 * kPerThread);
}

// The version resolver: the latest version from the hint at the cost of one GET of the hint,
// one of the manifest and one HEAD; a stale hint falls back to one listing.
TEST(CommitApi, ResolverReadsTheHintThenLists) {
  const auto store = io::MemoryObjectStore::Make();
  const TableLocation loc(store, "t");
  TEST_ASSIGN(auto rows, Rows(Schema2(), 0, 3));
  TEST_OK(WriteDataset(loc, Schema2(), {rows}).status());
  WriteParams p;
  p.mode = WriteMode::kAppend;
  TEST_OK(WriteDataset(loc, Schema2(), {rows}, p).status());
  OpenStats fresh;
  TEST_ASSIGN(auto latest, LoadLatestVersion(loc, &fresh));
  EXPECT_EQ(latest->version, 2u);
  EXPECT_EQ(fresh.gets, 2);
  EXPECT_EQ(fresh.heads, 1);
  EXPECT_EQ(fresh.lists, 0);
  TEST_OK(store->Put(loc.Path("_versions/latest_version_hint.json"), "{\"version\":1}"));
  OpenStats stale;
  TEST_ASSIGN(latest, LoadLatestVersion(loc, &stale));
  EXPECT_EQ(latest->version, 2u);
  EXPECT_EQ(stale.lists, 1);
  TEST_ASSIGN(auto files, ListVersionFiles(loc));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[1].version, 2u);
  TEST_ASSIGN(auto v1, LoadVersion(loc, 1));
  EXPECT_EQ(v1.manifest.num_rows(), 3u);
  TEST_ASSIGN(auto t2, LoadTransaction(loc, *latest));
  ASSERT_TRUE(t2.has_value());
  EXPECT_TRUE(t2->is<Transaction::Append>());
  EXPECT_TRUE(LoadVersion(loc, 9).status().IsNotFound());
  const TableLocation empty(store, "nothing-here");
  TEST_ASSIGN(auto none, LoadLatestVersion(empty));
  EXPECT_FALSE(none.has_value());
  EXPECT_TRUE(LoadLatestWritableVersion(empty).status().IsNotFound());
}

}  // namespace
}  // namespace lance::table
