// The front door: a Dataset on a store the caller made (every read and write, commits
// included, goes through it), writes built on the handle's version and rebased, the handle's
// snapshot moving atomically, readers keeping theirs, threads sharing one handle, processes
// (fork) writing one table, and no exception escaping.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lance/columnar/json.h"
#include "lance/core/thread_pool.h"
#include "lance/dataset/dataset.h"
#include "lance/io/fault_injecting_object_store.h"
#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"
#include "lance/table/versions.h"

namespace lance::dataset {
namespace {

SchemaPtr TestSchema() { return schema({field("id", int64(), false), field("score", float64())}); }

// Rows [start, start + n): score = id * 2.
std::unique_ptr<RecordBatchReader> SeqRows(int64_t start, int64_t n) {
  std::string text;
  for (int64_t i = start; i < start + n; ++i) {
    text += "{\"id\":" + std::to_string(i) + ",\"score\":" + std::to_string(i * 2) + "}\n";
  }
  auto batch = ReadJsonLines(text, TestSchema());
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  std::vector<RecordBatchPtr> batches;
  if (batch.ok()) batches.push_back(*batch);
  return std::make_unique<VectorRecordBatchReader>(TestSchema(), std::move(batches));
}

// Every (id, score) of the handle's version, in scan order.
std::vector<std::pair<int64_t, double>> AllRows(const Dataset& ds, const std::string& filter = "") {
  query::ScanOptions o;
  o.filter = filter;
  o.batch_size = 37;
  auto scanner = ds.NewScan(o);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  std::vector<std::pair<int64_t, double>> out;
  if (!scanner.ok()) return out;
  auto reader = scanner->ToReader();
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  while (reader.ok()) {
    auto b = (*reader)->Next();
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    if (!b.ok() || !*b) break;
    const int64_t* id = (*b)->column(0)->Values<int64_t>();
    const double* score = (*b)->column(1)->Values<double>();
    for (int64_t i = 0; i < (*b)->num_rows(); ++i) out.emplace_back(id[i], score[i]);
  }
  return out;
}

std::shared_ptr<Dataset> WriteNew(std::shared_ptr<io::ObjectStore> store, const std::string& root,
                                  int64_t rows, int64_t rows_per_file = 100) {
  auto input = SeqRows(0, rows);
  table::WriteParams p;
  p.max_rows_per_file = rows_per_file;
  auto ds = Dataset::Write(std::move(store), root, *input, p);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return ds.ok() ? *ds : nullptr;
}

TEST(Dataset, EveryReadAndWriteGoesThroughTheCallersStore) {
  // The memory store is registered under no URI: nothing but this handle can reach it.
  const auto base = io::MemoryObjectStore::Make();
  const auto store = std::make_shared<io::FaultInjectingObjectStore>(base);
  auto ds = WriteNew(store, "db/t.lance", 250);
  ASSERT_TRUE(ds);
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_GT(store->count(io::ObjectOp::kPut) + store->count(io::ObjectOp::kPutIfNotExists) +
                store->count(io::ObjectOp::kOpenWriter),
            0);
  auto listed = base->List("db/t.lance/_versions");
  ASSERT_TRUE(listed.ok());
  size_t manifests = 0;
  for (const auto& meta : *listed) manifests += meta.path.ends_with(".manifest") ? 1 : 0;
  EXPECT_EQ(manifests, 1u);

  // Append, delete, update: each commits through the store and moves the handle.
  store->ResetCounts();
  auto more = SeqRows(250, 50);
  auto appended = ds->Append(*more);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->commit.version, 2u);
  EXPECT_EQ(ds->version(), 2u);
  EXPECT_GT(store->count(io::ObjectOp::kPutIfNotExists) + store->count(io::ObjectOp::kRenameIfNotExists), 0)
      << "the commit published its manifest elsewhere";

  store->ResetCounts();
  auto deleted = ds->Delete("id % 10 = 3");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(deleted->num_deleted_rows, 30u);
  EXPECT_EQ(ds->version(), 3u);
  EXPECT_GT(store->count(io::ObjectOp::kGetRange) + store->count(io::ObjectOp::kGet) +
                store->count(io::ObjectOp::kReaderRead),
            0);

  auto updated = ds->Update({{"score", "score + 1000"}}, "id < 20");
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->rows_updated, 18u);  // ids 3 and 13 are deleted
  EXPECT_EQ(ds->version(), 4u);

  // Every row, compared with a model of the operations.
  std::vector<std::pair<int64_t, double>> want;
  for (int64_t i = 0; i < 300; ++i) {
    if (i % 10 == 3) continue;
    want.emplace_back(i, i < 20 ? i * 2 + 1000.0 : i * 2.0);
  }
  auto got = AllRows(*ds);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  auto count = ds->CountRows("score >= 1000");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 18u);
  auto all = ds->CountRows();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, 270u);

  // Reopened from the same store: the same version and rows. With the store failing every
  // operation, opening fails: reads go through it.
  auto reopened = Dataset::Open(store, "db/t.lance");
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->version(), 4u);
  io::FaultRule all_fail;
  all_fail.times = -1;
  store->AddRule(all_fail);
  auto failed = Dataset::Open(store, "db/t.lance");
  EXPECT_TRUE(failed.status().IsIOError()) << failed.status().ToString();
  store->ClearRules();
}

TEST(Dataset, WritesBuildOnTheHandlesVersionAndRebase) {
  const auto store = io::MemoryObjectStore::Make();
  auto ds = WriteNew(store, "t", 100);
  ASSERT_TRUE(ds);
  auto old = ds->Checkout(1);
  ASSERT_TRUE(old.ok());
  auto more = SeqRows(100, 100);
  ASSERT_TRUE(ds->Append(*more).ok());  // v2 by another handle
  ASSERT_EQ((*old)->version(), 1u);

  auto deleted = (*old)->Delete("id < 10 OR id >= 190");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  // Built on version 1: the rows of v2 were not seen (only ids < 10 were deleted), the
  // transaction records read_version 1, and the commit rebased over the append.
  EXPECT_EQ(deleted->num_deleted_rows, 10u);
  EXPECT_EQ(deleted->commit.read_version, 1u);
  EXPECT_EQ(deleted->commit.version, 3u);
  EXPECT_EQ(deleted->commit.rebased, 1);
  EXPECT_EQ((*old)->version(), 3u);
  auto count = (*old)->CountRows();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 190u);
  auto v3 = table::LoadVersion(table::TableLocation(store, "t"), 3);
  ASSERT_TRUE(v3.ok());
  auto txn = table::LoadTransaction(table::TableLocation(store, "t"), *v3);
  ASSERT_TRUE(txn.ok() && txn->has_value());
  EXPECT_EQ((*txn)->read_version, 1u);

  // An append through a handle at an old version is built on it too.
  auto older = ds->Checkout(1);
  ASSERT_TRUE(older.ok());
  auto rows = SeqRows(500, 5);
  auto appended = (*older)->Append(*rows);
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->commit.read_version, 1u);
  EXPECT_EQ(appended->commit.version, 4u);
  EXPECT_EQ(*(*older)->CountRows(), 195u);

  // Versions, tags, checkout and restore.
  auto versions = ds->Versions();
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(versions->size(), 4u);
  ASSERT_TRUE(ds->CreateTag("first", 1).ok());
  auto tagged = ds->Checkout(std::string("first"));
  ASSERT_TRUE(tagged.ok()) << tagged.status().ToString();
  EXPECT_EQ((*tagged)->version(), 1u);
  auto tags = ds->ListTags();
  ASSERT_TRUE(tags.ok());
  ASSERT_EQ(tags->size(), 1u);
  EXPECT_EQ((*tags)[0].name, "first");
  auto restored = (*tagged)->Restore(1);
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  EXPECT_EQ(*restored, 5u);
  EXPECT_EQ((*tagged)->version(), 5u);
  EXPECT_EQ(*(*tagged)->CountRows(), 100u);
  EXPECT_EQ(*ds->LatestVersion(), 5u);
  EXPECT_EQ(ds->version(), 2u);  // a handle moves by its own writes only
  ASSERT_TRUE(ds->Refresh().ok());
  EXPECT_EQ(ds->version(), 5u);
  ASSERT_TRUE(ds->DeleteTag("first").ok());
  EXPECT_TRUE(ds->Checkout(std::string("first")).status().IsNotFound());
  OpenOptions both;
  both.version = 1;
  both.tag = "x";
  EXPECT_TRUE(Dataset::Open(store, "t", both).status().IsInvalidArgument());
}

TEST(Dataset, ReadersKeepTheirSnapshotAndTakesFollowTheHandle) {
  const auto store = io::MemoryObjectStore::Make();
  auto ds = WriteNew(store, "t", 100, 30);
  ASSERT_TRUE(ds);
  query::ScanOptions o;
  o.batch_size = 10;
  auto scanner = ds->NewScan(o);
  ASSERT_TRUE(scanner.ok());
  auto reader = scanner->ToReader();
  ASSERT_TRUE(reader.ok());
  auto first = (*reader)->Next();
  ASSERT_TRUE(first.ok() && *first);
  ASSERT_TRUE(ds->Delete("id >= 0").ok());  // every row, while the reader is open
  EXPECT_EQ(*ds->CountRows(), 0u);
  int64_t rows = (*first)->num_rows();
  while (true) {
    auto b = (*reader)->Next();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    if (!*b) break;
    rows += (*b)->num_rows();
  }
  EXPECT_EQ(rows, 100);

  auto again = Dataset::Open(store, "t", OpenOptions{1, std::nullopt, nullptr, nullptr, 100});
  ASSERT_TRUE(again.ok());
  auto taken = (*again)->Take({99, 0, 42, 42}, {"score", "_rowid"});
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_EQ((*taken)->num_rows(), 4);
  ASSERT_EQ((*taken)->num_columns(), 2);
  const double* score = (*taken)->column(0)->Values<double>();
  EXPECT_EQ(score[0], 198.0);
  EXPECT_EQ(score[1], 0.0);
  EXPECT_EQ(score[2], 84.0);
  EXPECT_EQ(score[3], 84.0);
  const uint64_t* ids = (*taken)->column(1)->Values<uint64_t>();
  auto by_id = (*again)->TakeRowIds({ids[2], ids[0]}, {"id"});
  ASSERT_TRUE(by_id.ok()) << by_id.status().ToString();
  ASSERT_EQ((*by_id)->num_rows(), 2);
  EXPECT_EQ((*by_id)->column(0)->Values<int64_t>()[0], 42);
  EXPECT_EQ((*by_id)->column(0)->Values<int64_t>()[1], 99);
  EXPECT_TRUE((*again)->Take({100}).status().IsInvalidArgument());
}

TEST(Dataset, ThreadsShareOneHandle) {
  const auto store = io::MemoryObjectStore::Make();
  auto ds = WriteNew(store, "t", 10);
  ASSERT_TRUE(ds);
  constexpr int kThreads = 4, kAppends = 3;
  std::vector<std::thread> threads;
  std::vector<Status> errors(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kAppends; ++k) {
        auto rows = SeqRows(1000 * (t + 1) + 10 * k, 10);
        auto r = ds->Append(*rows);
        if (!r.ok()) errors[static_cast<size_t>(t)] = r.status();
        auto count = ds->CountRows();  // reads run beside the writes
        if (!count.ok()) errors[static_cast<size_t>(t)] = count.status();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& e : errors) EXPECT_TRUE(e.ok()) << e.ToString();
  EXPECT_EQ(ds->version(), 1u + kThreads * kAppends);
  EXPECT_EQ(*ds->CountRows(), 10u + 10u * kThreads * kAppends);
}

// Processes appending to and deleting from one local table: every commit lands once; a
// delete that loses to another process's delete of the same fragment rebases (or, retryable,
// runs again).
TEST(Dataset, ProcessesWriteOneTable) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("lance_dataset_fork_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string uri = (dir / "t.lance").string();
  {
    auto input = SeqRows(0, 100);
    ASSERT_TRUE(Dataset::Write(uri, *input).ok());
  }
  constexpr int kProcs = 3, kRounds = 3;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcs; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      auto ds = Dataset::Open(uri);
      if (!ds.ok()) ::_exit(10);
      for (int k = 0; k < kRounds && code == 0; ++k) {
        const int64_t start = 10000 * (p + 1) + 100 * k;
        auto rows = SeqRows(start, 10);
        auto appended = (*ds)->Append(*rows);
        if (!appended.ok()) {
          std::fprintf(stderr, "child %d append: %s\n", p, appended.status().ToString().c_str());
          code = 11;
        }
        const std::string filter = "id = " + std::to_string(start) + " OR id = " + std::to_string(p * 10 + k);
        Status st;
        for (int attempt = 0; attempt < 20; ++attempt) {
          auto d = (*ds)->Delete(filter);
          st = d.status();
          if (st.ok() || !st.IsRetryable()) break;
          if (!(*ds)->Refresh().ok()) break;
        }
        if (!st.ok()) {
          std::fprintf(stderr, "child %d delete: %s\n", p, st.ToString().c_str());
          code = 12;
        }
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  auto ds = Dataset::Open(uri);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  std::set<int64_t> want;
  for (int64_t i = 0; i < 100; ++i) want.insert(i);
  for (int p = 0; p < kProcs; ++p) {
    for (int k = 0; k < kRounds; ++k) {
      const int64_t start = 10000 * (p + 1) + 100 * k;
      for (int64_t i = start + 1; i < start + 10; ++i) want.insert(i);
      want.erase(p * 10 + k);
    }
  }
  std::set<int64_t> got;
  for (const auto& [id, score] : AllRows(**ds)) {
    EXPECT_EQ(score, id * 2.0);
    EXPECT_TRUE(got.insert(id).second) << "row " << id << " twice";
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ((*ds)->version(), 1u + 2u * kProcs * kRounds);
  std::filesystem::remove_all(dir);
}

// A store that throws from Get (as an allocation failure deep in a read would).
class ThrowingStore final : public io::FaultInjectingObjectStore {
 public:
  using FaultInjectingObjectStore::FaultInjectingObjectStore;
  Result<BufferPtr> Get(std::string_view path) override {
    if (armed) throw std::bad_alloc();
    return FaultInjectingObjectStore::Get(path);
  }
  Result<BufferPtr> GetRange(std::string_view path, int64_t offset, int64_t length) override {
    if (armed) throw std::runtime_error("boom");
    return FaultInjectingObjectStore::GetRange(path, offset, length);
  }
  Result<io::TailRead> GetTail(std::string_view path, int64_t max_length) override {
    if (armed) throw std::bad_alloc();
    return FaultInjectingObjectStore::GetTail(path, max_length);
  }
  bool armed = false;
};

TEST(Dataset, NoExceptionEscapes) {
  const auto store = std::make_shared<ThrowingStore>(io::MemoryObjectStore::Make());
  auto ds = WriteNew(store, "t", 10);
  ASSERT_TRUE(ds);
  store->armed = true;
  auto opened = Dataset::Open(store, "t");
  ASSERT_FALSE(opened.ok());
  EXPECT_TRUE(opened.status().IsOutOfMemory() || opened.status().code() == StatusCode::kInternal)
      << opened.status().ToString();
  // Reads made on the calling thread (resolving versions, opening a version to commit on).
  auto latest = ds->LatestVersion();
  EXPECT_TRUE(latest.status().IsOutOfMemory()) << latest.status().ToString();
  auto refreshed = ds->Refresh();
  EXPECT_TRUE(refreshed.IsOutOfMemory()) << refreshed.ToString();
  store->armed = false;
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(*ds->CountRows("id > 3"), 6u);
}

// Batches made on demand (rows [k * rows, (k + 1) * rows) of TestSchema), counting how many of
// them are alive at once: a write that streams holds one or two, one that collects its input
// first holds them all.
class CountingReader final : public RecordBatchReader {
 public:
  CountingReader(int batches, int64_t rows, int64_t first = 0)
      : batches_(batches), rows_(rows), first_(first) {}
  SchemaPtr schema() const override { return TestSchema(); }
  Result<RecordBatchPtr> Next() override {
    if (next_ == batches_) return RecordBatchPtr();
    auto source = SeqRows(first_ + next_ * rows_, rows_);
    LANCE_ASSIGN_OR_RAISE(auto b, source->Next());
    ++next_;
    max_alive_ = std::max(max_alive_, ++*alive_);
    return RecordBatchPtr(new RecordBatch(*b), [alive = alive_](RecordBatch* p) {
      --*alive;
      delete p;
    });
  }
  int max_alive() const { return max_alive_; }

 private:
  int batches_;
  int64_t rows_;
  int64_t first_;
  int next_ = 0;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
  int max_alive_ = 0;
};

TEST(Dataset, WritesStreamTheirInput) {
  const auto store = io::MemoryObjectStore::Make();
  table::WriteParams p;
  p.max_rows_per_file = 7000;
  CountingReader created(40, 500);
  auto ds = Dataset::Write(store, "t", created, p);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_LE(created.max_alive(), 2);
  CountingReader appended(30, 500, 20000);
  auto more = (*ds)->Append(appended, p);
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  EXPECT_LE(appended.max_alive(), 2);
  EXPECT_EQ(more->rows_written, 15000u);
  // Every row, in order, in fragments of at most 7000 rows.
  const auto rows = AllRows(**ds);
  ASSERT_EQ(rows.size(), 35000u);
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].first, static_cast<int64_t>(i));
    ASSERT_EQ(rows[i].second, static_cast<double>(2 * i));
  }
  EXPECT_EQ((*ds)->snapshot()->manifest().fragments.size(), 3u + 3u);
}

// An input that fails part-way leaves no version and no data file behind.
TEST(Dataset, AWriteWhoseInputFailsLeavesNothing) {
  class Failing final : public RecordBatchReader {
   public:
    SchemaPtr schema() const override { return TestSchema(); }
    Result<RecordBatchPtr> Next() override {
      if (n_++ == 3) return Status::IOError("input broke");
      return SeqRows(n_ * 100, 100)->Next();
    }

   private:
    int n_ = 0;
  };
  const auto store = io::MemoryObjectStore::Make();
  table::WriteParams p;
  p.max_rows_per_file = 150;
  Failing input;
  auto ds = Dataset::Write(store, "t", input, p);
  ASSERT_FALSE(ds.ok());
  EXPECT_TRUE(ds.status().IsIOError()) << ds.status().ToString();
  auto left = store->List("t");
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty()) << left->size() << " objects left, the first " << (*left)[0].path;
}

// The threads of the process (entries of /proc/self/task).
int LiveThreads() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// Opens, writes (create, append, overwrite of a column file via add-columns, delete, update,
// compact) and reads (scan, filtered count, take) a table on a local store -- durable commits,
// so every commit flushes -- with `pool` as the handle's pool and the store's I/O pool.
// Returns "" or what went wrong.
std::string UseTableOn(ThreadPool* pool, const std::filesystem::path& dir) {
  auto store = io::LocalObjectStore::Make(dir.string());
  if (!store.ok()) return store.status().ToString();
  (*store)->set_io_pool(pool);
  OpenOptions o;
  o.pool = pool;
  table::WriteParams p;
  p.max_rows_per_file = 300;
  auto input = SeqRows(0, 1000);
  auto ds = Dataset::Write(*store, "t.lance", *input, p, o);
  if (!ds.ok()) return ds.status().ToString();
  auto more = SeqRows(1000, 500);
  if (auto r = (*ds)->Append(*more); !r.ok()) return r.status().ToString();
  if (auto r = (*ds)->Delete("id % 7 = 0"); !r.ok()) return r.status().ToString();
  if (auto r = (*ds)->Update({{"score", "score + 1"}}, "id < 100"); !r.ok()) return r.status().ToString();
  if (auto r = (*ds)->AddColumns({{"twice", "id * 2"}}); !r.ok()) return r.status().ToString();
  if (auto r = (*ds)->Compact(); !r.ok()) return r.status().ToString();
  auto reopened = Dataset::Open(*store, "t.lance", o);
  if (!reopened.ok()) return reopened.status().ToString();
  const auto rows = AllRows(**reopened, "id >= 10");
  size_t expected = 0;
  for (int64_t i = 10; i < 1500; ++i) expected += i % 7 != 0 ? 1 : 0;
  if (rows.size() != expected) return "scan returned " + std::to_string(rows.size()) + " rows";
  auto count = (*reopened)->CountRows("twice > 100");
  if (!count.ok()) return count.status().ToString();
  auto taken = (*reopened)->Take({0, 5, 900});
  if (!taken.ok()) return taken.status().ToString();
  return "";
}

// No hidden runtime: a handle given a pool (and its store given the same pool) runs every
// read, encode and flush there and starts no thread of its own (not ThreadPool::Default(),
// not the table layer's flush threads); with a pool without workers, the process keeps its
// one thread. Counted in a fresh process (a death-test child re-runs this test alone), so
// no pool started by an earlier test hides a new one: the threads alive before (main + the
// caller's workers) must be the threads alive after (pools never stop their threads, so a
// runtime that was started would still be counted).
TEST(DatasetThreads, ACallersPoolIsTheOnlyRuntime) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto dir = std::filesystem::temp_directory_path() /
                   ("lance_dataset_threads_" + std::to_string(::getpid()));
  for (int workers : {3, 0}) {
    std::filesystem::remove_all(dir);
    EXPECT_EXIT(
        {
          auto pool = ThreadPool::Make(workers);
          if (!pool.ok()) ::_exit(2);
          const int before = LiveThreads();
          const std::string failed = UseTableOn(pool->get(), dir);
          const int after = LiveThreads();
          std::fprintf(stderr, "threads before %d after %d (expected %d) %s\n", before, after,
                       1 + workers, failed.c_str());
          ::_exit(failed.empty() && before == 1 + workers && after == before ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "threads before [0-9]+ after [0-9]+")
        << workers << " workers";
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lance::dataset
