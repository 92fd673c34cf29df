// The ObjectStore conformance suite: one set of behaviour tests run against every backend
// (local filesystem, memory, and the fault-injecting wrapper with no faults around both).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <latch>
#include <random>
#include <thread>
#include <vector>

#include "io/object_store_test_util.h"
#include "lance/io/fault_injecting_object_store.h"
#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"

namespace lance::io {
namespace {

using testing::CheckPayload;
using testing::MakePayload;
using testing::TempDir;

struct LocalBackend {
  static std::shared_ptr<ObjectStore> Make(const TempDir& dir) {
    return LocalObjectStore::Make(dir.path() + "/store").ValueOrDie();
  }
};
struct MemoryBackend {
  static std::shared_ptr<ObjectStore> Make(const TempDir&) { return MemoryObjectStore::Make(); }
};
struct FaultLocalBackend {
  static std::shared_ptr<ObjectStore> Make(const TempDir& dir) {
    return std::make_shared<FaultInjectingObjectStore>(LocalBackend::Make(dir));
  }
};
struct FaultMemoryBackend {
  static std::shared_ptr<ObjectStore> Make(const TempDir& dir) {
    return std::make_shared<FaultInjectingObjectStore>(MemoryBackend::Make(dir));
  }
};

template <typename Backend>
class ObjectStoreConformance : public ::testing::Test {
 protected:
  void SetUp() override { store_ = Backend::Make(dir_); }

  std::string GetString(std::string_view path) {
    auto r = store_->Get(path);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::string((*r)->view()) : std::string();
  }
  std::vector<std::string> ListPaths(std::string_view prefix) {
    auto r = store_->List(prefix);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const auto& m : *r) out.push_back(m.path);
    }
    return out;
  }

  TempDir dir_;
  std::shared_ptr<ObjectStore> store_;
};

using Backends =
    ::testing::Types<LocalBackend, MemoryBackend, FaultLocalBackend, FaultMemoryBackend>;
TYPED_TEST_SUITE(ObjectStoreConformance, Backends);

TYPED_TEST(ObjectStoreConformance, PutGetHeadExists) {
  auto& s = this->store_;
  const std::string payload = MakePayload(1, 1000);
  ASSERT_TRUE(s->Put("a/b/c.bin", payload).ok());
  EXPECT_EQ(this->GetString("a/b/c.bin"), payload);
  auto meta = s->Head("a/b/c.bin");
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(meta->path, "a/b/c.bin");
  EXPECT_EQ(meta->size, 1000);
  EXPECT_GT(meta->mtime_ns, 0);
  EXPECT_TRUE(*s->Exists("a/b/c.bin"));
  EXPECT_FALSE(*s->Exists("a/b/c.bin2"));
  EXPECT_FALSE(*s->Exists("a/b"));  // a "directory" is not an object
}

TYPED_TEST(ObjectStoreConformance, MissingObjectsAreNotFound) {
  auto& s = this->store_;
  EXPECT_TRUE(s->Get("nope").status().IsNotFound());
  EXPECT_TRUE(s->GetRange("nope", 0, 1).status().IsNotFound());
  EXPECT_TRUE(s->GetRanges("nope", {{0, 1}}).status().IsNotFound());
  EXPECT_TRUE(s->Head("x/nope").status().IsNotFound());
  EXPECT_TRUE(s->Delete("nope").IsNotFound());
  EXPECT_TRUE(s->Copy("nope", "dst").IsNotFound());
  EXPECT_TRUE(s->CopyIfNotExists("nope", "dst").IsNotFound());
  EXPECT_TRUE(s->RenameIfNotExists("nope", "dst").IsNotFound());
  EXPECT_FALSE(*s->Exists("dst"));
  ASSERT_TRUE(s->Put("dir/obj", "x").ok());
  EXPECT_TRUE(s->Get("dir").status().IsNotFound());
  EXPECT_TRUE(s->Head("dir").status().IsNotFound());
  EXPECT_TRUE(s->Get("dir/obj/below").status().IsNotFound());
}

TYPED_TEST(ObjectStoreConformance, PutReplacesAndPutIfNotExistsDoesNot) {
  auto& s = this->store_;
  ASSERT_TRUE(s->Put("k", "first").ok());
  ASSERT_TRUE(s->Put("k", "second, longer").ok());
  EXPECT_EQ(this->GetString("k"), "second, longer");
  ASSERT_TRUE(s->Put("k", "3").ok());
  EXPECT_EQ(this->GetString("k"), "3");
  ASSERT_TRUE(s->PutIfNotExists("p/q", "winner").ok());
  Status st = s->PutIfNotExists("p/q", "loser");
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  EXPECT_NE(st.message().find("p/q"), std::string::npos) << st.message();
  EXPECT_EQ(this->GetString("p/q"), "winner");
}

TYPED_TEST(ObjectStoreConformance, EmptyObject) {
  auto& s = this->store_;
  ASSERT_TRUE(s->Put("empty", "").ok());
  auto b = s->Get("empty");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->size(), 0);
  EXPECT_EQ(s->Head("empty")->size, 0);
  auto r = s->GetRange("empty", 0, 0);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->size(), 0);
  EXPECT_TRUE(s->GetRange("empty", 0, 1).status().IsInvalidArgument());
}

TYPED_TEST(ObjectStoreConformance, GetRangeAndBounds) {
  auto& s = this->store_;
  const std::string payload = MakePayload(2, 5000);
  ASSERT_TRUE(s->Put("r/obj", payload).ok());
  for (auto [off, len] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 5000}, {0, 1}, {4999, 1}, {1234, 2000}, {5000, 0}, {17, 0}}) {
    auto b = s->GetRange("r/obj", off, len);
    ASSERT_TRUE(b.ok()) << off << "+" << len << ": " << b.status().ToString();
    EXPECT_EQ((*b)->view(), std::string_view(payload).substr(off, len));
  }
  for (auto [off, len] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 5001}, {4990, 11}, {5001, 0}, {-1, 2}, {3, -1}, {INT64_MAX, 1}}) {
    Status st = s->GetRange("r/obj", off, len).status();
    ASSERT_TRUE(st.IsInvalidArgument()) << off << "+" << len << ": " << st.ToString();
    EXPECT_NE(st.message().find("r/obj"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(std::to_string(off)), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(std::to_string(len)), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("5000"), std::string::npos) << st.message();
  }
}

TYPED_TEST(ObjectStoreConformance, GetTail) {
  auto& s = this->store_;
  const std::string payload = MakePayload(8, 3000);
  ASSERT_TRUE(s->Put("tail", payload).ok());
  for (int64_t n : {0, 1, 100, 2999, 3000, 5000}) {
    auto t = s->GetTail("tail", n);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->object_size, 3000);
    const size_t want = static_cast<size_t>(std::min<int64_t>(n, 3000));
    EXPECT_EQ(t->bytes->view(), std::string_view(payload).substr(3000 - want));
  }
  EXPECT_TRUE(s->GetTail("tail", -1).status().IsInvalidArgument());
  EXPECT_TRUE(s->GetTail("no-tail", 10).status().IsNotFound());
  ASSERT_TRUE(s->Put("empty-tail", "").ok());
  auto e = s->GetTail("empty-tail", 64);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->object_size, 0);
  EXPECT_EQ(e->bytes->size(), 0);
}

TYPED_TEST(ObjectStoreConformance, ReaderReadsAndIsASnapshot) {
  auto& s = this->store_;
  const std::string payload = MakePayload(12, 200000);
  ASSERT_TRUE(s->Put("data/f.lance", payload).ok());
  EXPECT_TRUE(s->OpenReader("data/missing").status().IsNotFound());
  EXPECT_TRUE(s->OpenReader("/bad").status().IsInvalidArgument());
  auto native = s->OpenReader("data/f.lance");
  ASSERT_TRUE(native.ok()) << native.status().ToString();
  // The generic fallback (Head + GetRange through the store) must behave the same.
  auto generic = s->ObjectStore::OpenReader("data/f.lance");
  ASSERT_TRUE(generic.ok()) << generic.status().ToString();
  std::mt19937_64 rng(5);
  for (ObjectReader* r : {native->get(), generic->get()}) {
    EXPECT_EQ(r->path(), "data/f.lance");
    EXPECT_EQ(r->size(), 200000);
    EXPECT_EQ(r->ReadAt(0, 200000).ValueOrDie()->view(), payload);
    EXPECT_EQ(r->ReadAt(123, 0).ValueOrDie()->size(), 0);
    Status oob = r->ReadAt(199990, 11).status();
    EXPECT_TRUE(oob.IsInvalidArgument()) << oob.ToString();
    EXPECT_NE(oob.message().find("offset 199990 length 11"), std::string::npos) << oob.message();
    EXPECT_TRUE(r->ReadRanges({{0, 1}, {199999, 2}}).status().IsInvalidArgument());
    std::vector<Range> ranges;
    for (int i = 0; i < 100; ++i) {
      int64_t off = static_cast<int64_t>(rng() % payload.size());
      ranges.push_back({off, static_cast<int64_t>(rng() % std::min<uint64_t>(payload.size() - off, 5000))});
    }
    auto got = r->ReadRanges(ranges);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (size_t i = 0; i < ranges.size(); ++i) {
      ASSERT_EQ((*got)[i]->view(), std::string_view(payload).substr(ranges[i].offset, ranges[i].length));
    }
  }
  // Concurrent reads through one reader.
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const int64_t off = (t * 50 + i) * 900;
        auto b = (*native)->ReadAt(off, 800);
        if (!b.ok() || (*b)->view() != std::string_view(payload).substr(off, 800)) bad.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  // A native reader keeps reading the object it opened after a replace and a delete.
  ASSERT_TRUE(s->Put("data/f.lance", "replaced").ok());
  ASSERT_TRUE(s->Delete("data/f.lance").ok());
  EXPECT_EQ((*native)->ReadAt(1000, 64).ValueOrDie()->view(), std::string_view(payload).substr(1000, 64));
}

TYPED_TEST(ObjectStoreConformance, GetRangesMatchDirectReads) {
  auto& s = this->store_;
  const std::string payload = MakePayload(3, 300000);
  ASSERT_TRUE(s->Put("rr", payload).ok());
  std::mt19937_64 rng(42);
  for (int round = 0; round < 20; ++round) {
    CoalesceOptions opts;
    opts.max_gap = static_cast<int64_t>(rng() % 20000);
    opts.max_merged_size = 1 + static_cast<int64_t>(rng() % 100000);
    s->set_coalesce_options(opts);
    std::vector<Range> ranges;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      int64_t off = static_cast<int64_t>(rng() % payload.size());
      int64_t len = static_cast<int64_t>(rng() % std::min<uint64_t>(payload.size() - off, 30000) + 1);
      if (rng() % 10 == 0) len = 0;
      ranges.push_back({off, len});
      if (rng() % 8 == 0) ranges.push_back(ranges.back());  // duplicates are allowed
    }
    auto got = s->GetRanges("rr", ranges);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) {
      ASSERT_EQ((*got)[i]->size(), ranges[i].length);
      ASSERT_EQ((*got)[i]->view(), std::string_view(payload).substr(ranges[i].offset, ranges[i].length))
          << "round " << round << " range " << i;
    }
  }
  auto none = s->GetRanges("rr", {});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TYPED_TEST(ObjectStoreConformance, GetRangesOutOfBoundsNamesTheRange) {
  auto& s = this->store_;
  ASSERT_TRUE(s->Put("oob", MakePayload(4, 1000)).ok());
  s->set_coalesce_options({1 << 20, 1 << 30});  // everything merges into one read
  Status st = s->GetRanges("oob", {{0, 10}, {500, 10}, {995, 10}, {20, 5}}).status();
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("offset 995 length 10"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("1000"), std::string::npos) << st.message();
}

TYPED_TEST(ObjectStoreConformance, DeleteRemoves) {
  auto& s = this->store_;
  ASSERT_TRUE(s->Put("d/x", "1").ok());
  ASSERT_TRUE(s->Put("d/y", "2").ok());
  ASSERT_TRUE(s->Delete("d/x").ok());
  EXPECT_TRUE(s->Get("d/x").status().IsNotFound());
  EXPECT_TRUE(s->Delete("d/x").IsNotFound());
  EXPECT_EQ(this->ListPaths("d"), std::vector<std::string>{"d/y"});
}

TYPED_TEST(ObjectStoreConformance, ListIsRecursiveSortedAndSegmentWise) {
  auto& s = this->store_;
  for (const char* p : {"t/b/2", "t/a", "t/b/1", "t/bc", "t/b/deep/er/x", "u/1", "t0"}) {
    ASSERT_TRUE(s->Put(p, p).ok()) << p;
  }
  EXPECT_EQ(this->ListPaths("t/b"),
            (std::vector<std::string>{"t/b/1", "t/b/2", "t/b/deep/er/x"}));
  EXPECT_EQ(this->ListPaths("t/b/"), this->ListPaths("t/b"));
  EXPECT_EQ(this->ListPaths("t"), (std::vector<std::string>{"t/a", "t/b/1", "t/b/2",
                                                            "t/b/deep/er/x", "t/bc"}));
  EXPECT_EQ(this->ListPaths(""), (std::vector<std::string>{"t/a", "t/b/1", "t/b/2",
                                                           "t/b/deep/er/x", "t/bc", "t0", "u/1"}));
  EXPECT_TRUE(this->ListPaths("missing/prefix").empty());
  EXPECT_EQ(this->ListPaths("t/a"), std::vector<std::string>{"t/a"});
  auto metas = s->List("u");
  ASSERT_TRUE(metas.ok());
  ASSERT_EQ(metas->size(), 1u);
  EXPECT_EQ((*metas)[0].size, 3);
  EXPECT_TRUE(s->List("/abs").status().IsInvalidArgument());
}

TYPED_TEST(ObjectStoreConformance, ListDirIsOneLevel) {
  auto& s = this->store_;
  for (const char* p : {"v/1", "v/sub/a", "v/sub/b", "v/sub2/x/y", "v/0", "w"}) {
    ASSERT_TRUE(s->Put(p, "z").ok());
  }
  auto r = s->ListDir("v");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::string> objects;
  for (const auto& m : r->objects) objects.push_back(m.path);
  EXPECT_EQ(objects, (std::vector<std::string>{"v/0", "v/1"}));
  EXPECT_EQ(r->directories, (std::vector<std::string>{"v/sub", "v/sub2"}));
  auto root = s->ListDir("");
  ASSERT_TRUE(root.ok());
  ASSERT_EQ(root->objects.size(), 1u);
  EXPECT_EQ(root->objects[0].path, "w");
  EXPECT_EQ(root->directories, std::vector<std::string>{"v"});
  auto missing = s->ListDir("nothing/here");
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->objects.empty() && missing->directories.empty());
}

TYPED_TEST(ObjectStoreConformance, CopyAndRename) {
  auto& s = this->store_;
  ASSERT_TRUE(s->Put("src", "source bytes").ok());
  ASSERT_TRUE(s->Copy("src", "c/dst").ok());
  EXPECT_EQ(this->GetString("c/dst"), "source bytes");
  ASSERT_TRUE(s->Put("src", "newer").ok());
  ASSERT_TRUE(s->Copy("src", "c/dst").ok());  // replaces
  EXPECT_EQ(this->GetString("c/dst"), "newer");
  EXPECT_TRUE(s->CopyIfNotExists("src", "c/dst").IsAlreadyExists());
  ASSERT_TRUE(s->CopyIfNotExists("src", "c/dst2").ok());
  EXPECT_EQ(this->GetString("c/dst2"), "newer");

  ASSERT_TRUE(s->RenameIfNotExists("c/dst2", "moved/here").ok());
  EXPECT_FALSE(*s->Exists("c/dst2"));
  EXPECT_EQ(this->GetString("moved/here"), "newer");
  ASSERT_TRUE(s->Put("other", "other").ok());
  EXPECT_TRUE(s->RenameIfNotExists("other", "moved/here").IsAlreadyExists());
  EXPECT_EQ(this->GetString("other"), "other");  // nothing changed
  EXPECT_EQ(this->GetString("moved/here"), "newer");
  EXPECT_TRUE(s->RenameIfNotExists("other", "other").IsAlreadyExists());
}

TYPED_TEST(ObjectStoreConformance, WriterPublishesOnClose) {
  auto& s = this->store_;
  const std::string payload = MakePayload(5, 3 * 1024 * 1024 + 77);
  auto w = s->OpenWriter("big/file");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // Mixed write sizes: tiny, medium, and larger than any internal buffer.
  size_t pos = 0;
  for (size_t step : {size_t{1}, size_t{15}, size_t{1000}, size_t{2 * 1024 * 1024}, size_t{4096}}) {
    ASSERT_TRUE((*w)->Write(std::string_view(payload).substr(pos, step)).ok());
    pos += step;
    EXPECT_EQ((*w)->bytes_written(), static_cast<int64_t>(pos));
  }
  EXPECT_FALSE(*s->Exists("big/file"));  // invisible until Close
  EXPECT_TRUE(this->ListPaths("").empty());
  ASSERT_TRUE((*w)->Write(std::string_view(payload).substr(pos)).ok());
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_TRUE((*w)->Write("x").IsInvalidArgument());
  EXPECT_TRUE((*w)->Abort().ok());  // no-op after Close
  EXPECT_EQ(CheckPayload(this->GetString("big/file")), 5);
  EXPECT_EQ(this->ListPaths(""), std::vector<std::string>{"big/file"});

  auto w2 = s->OpenWriter("big/file", /*overwrite=*/false);
  ASSERT_TRUE(w2.ok());
  ASSERT_TRUE((*w2)->Write("short").ok());
  EXPECT_TRUE((*w2)->Close().IsAlreadyExists());
  EXPECT_EQ(CheckPayload(this->GetString("big/file")), 5);

  auto w3 = s->OpenWriter("big/file", /*overwrite=*/true);
  ASSERT_TRUE(w3.ok());
  ASSERT_TRUE((*w3)->Write("replaced").ok());
  ASSERT_TRUE((*w3)->Close().ok());
  EXPECT_EQ(this->GetString("big/file"), "replaced");
}

TYPED_TEST(ObjectStoreConformance, AbandonedWriterLeavesNothingVisible) {
  auto& s = this->store_;
  {
    auto w = s->OpenWriter("gone/a");
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Write(MakePayload(6, 5000)).ok());
  }  // destroyed without Close
  {
    auto w = s->OpenWriter("gone/b");
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Write("abc").ok());
    ASSERT_TRUE((*w)->Abort().ok());
    EXPECT_TRUE((*w)->Close().IsInvalidArgument());
  }
  EXPECT_TRUE(this->ListPaths("").empty());
  EXPECT_FALSE(*s->Exists("gone/a"));
  auto dir = s->ListDir("gone");
  ASSERT_TRUE(dir.ok());
  EXPECT_TRUE(dir->objects.empty());
}

TYPED_TEST(ObjectStoreConformance, InvalidPathsAreRejected) {
  auto& s = this->store_;
  for (const char* p : {"", "/abs", "trailing/", "a//b", "a/../b", "./a", "a/.", "..",
                        ".lance-tmp.x", "d/.lance-tmp.y"}) {
    EXPECT_TRUE(s->Put(p, "x").IsInvalidArgument()) << "'" << p << "'";
    EXPECT_TRUE(s->Get(p).status().IsInvalidArgument()) << "'" << p << "'";
    EXPECT_TRUE(s->PutIfNotExists(p, "x").IsInvalidArgument()) << "'" << p << "'";
    EXPECT_TRUE(s->OpenWriter(p).status().IsInvalidArgument()) << "'" << p << "'";
  }
  EXPECT_TRUE(this->ListPaths("").empty());
}

TYPED_TEST(ObjectStoreConformance, LargeObjectGet) {
  auto& s = this->store_;
  const std::string payload = MakePayload(7, 4 * 1024 * 1024 + 3);
  ASSERT_TRUE(s->Put("large", payload).ok());
  auto b = s->Get("large");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(CheckPayload((*b)->view()), 7);
  // The buffer stays valid after the object is replaced and deleted.
  ASSERT_TRUE(s->Put("large", "tiny").ok());
  ASSERT_TRUE(s->Delete("large").ok());
  EXPECT_EQ(CheckPayload((*b)->view()), 7);
}

// Readers racing a writer that keeps replacing one object see only whole versions.
TYPED_TEST(ObjectStoreConformance, ConcurrentReplaceIsAtomicForReaders) {
  auto& s = this->store_;
  ASSERT_TRUE(s->Put("hot", MakePayload(100, 64 * 1024)).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, reads{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        auto b = s->Get("hot");
        if (!b.ok() || CheckPayload((*b)->view()) < 100) bad.fetch_add(1);
        reads.fetch_add(1);
      }
    });
  }
  for (uint64_t v = 101; v < 161; ++v) {
    ASSERT_TRUE(s->Put("hot", MakePayload(v, 16 + (v * 7919) % (256 * 1024))).ok());
    // Let the readers overlap with every version (bounded wait, not a timing assertion).
    const int seen = reads.load();
    for (int spin = 0; spin < 100000 && reads.load() < seen + 2; ++spin) std::this_thread::yield();
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(CheckPayload(this->GetString("hot")), 160);
}

// N threads race PutIfNotExists on one path: exactly one wins and its bytes are stored.
TYPED_TEST(ObjectStoreConformance, PutIfNotExistsThreadRace) {
  auto& s = this->store_;
  constexpr int kThreads = 12;
  for (int round = 0; round < 10; ++round) {
    const std::string path = "race/" + std::to_string(round);
    std::latch start(kThreads);
    std::vector<Status> results(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const std::string payload = MakePayload(1000 * round + t, 16 + 4096 * (t + 1));
        start.arrive_and_wait();
        results[t] = s->PutIfNotExists(path, payload);
      });
    }
    for (auto& t : threads) t.join();
    int winners = 0, winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      if (results[t].ok()) {
        ++winners;
        winner = t;
      } else {
        EXPECT_TRUE(results[t].IsAlreadyExists()) << results[t].ToString();
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    EXPECT_EQ(this->GetString(path), MakePayload(1000 * round + winner, 16 + 4096 * (winner + 1)));
  }
  EXPECT_EQ(this->ListPaths("race").size(), 10u);
}

// N threads race RenameIfNotExists of distinct sources onto one destination.
TYPED_TEST(ObjectStoreConformance, RenameIfNotExistsThreadRace) {
  auto& s = this->store_;
  constexpr int kThreads = 8;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(s->Put("staged/" + std::to_string(t), MakePayload(t, 100 + t)).ok());
  }
  std::latch start(kThreads);
  std::vector<Status> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      results[t] = s->RenameIfNotExists("staged/" + std::to_string(t), "final/manifest");
    });
  }
  for (auto& t : threads) t.join();
  int winner = -1;
  for (int t = 0; t < kThreads; ++t) {
    if (results[t].ok()) {
      EXPECT_EQ(winner, -1) << "two winners";
      winner = t;
      EXPECT_FALSE(*s->Exists("staged/" + std::to_string(t)));
    } else {
      EXPECT_TRUE(results[t].IsAlreadyExists()) << results[t].ToString();
      EXPECT_TRUE(*s->Exists("staged/" + std::to_string(t)));
    }
  }
  ASSERT_NE(winner, -1);
  EXPECT_EQ(this->GetString("final/manifest"), MakePayload(winner, 100 + winner));
}

}  // namespace
}  // namespace lance::io
