// Backend-independent pieces of the object store layer: range coalescing, the GetRanges
// executor (how many backend reads it issues), path rules and URI resolution.
#include "lance/io/object_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include "io/object_store_test_util.h"
#include "lance/core/thread_pool.h"
#include "lance/io/fault_injecting_object_store.h"
#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"

namespace lance::io {
namespace {

using testing::MakePayload;
using testing::TempDir;

TEST(CoalesceRangesTest, MergesWithinGapAndSizeLimits) {
  CoalesceOptions opts{/*max_gap=*/4, /*max_merged_size=*/100};
  auto plan = CoalesceRanges({{0, 10}, {14, 6}, {30, 5}}, opts).ValueOrDie();
  // [0,10) and [14,20) are 4 apart: merged; [30,35) is 10 past: separate.
  ASSERT_EQ(plan.reads, (std::vector<Range>{{0, 20}, {30, 5}}));
  EXPECT_EQ(plan.slices[0].read, 0u);
  EXPECT_EQ(plan.slices[1].read, 0u);
  EXPECT_EQ(plan.slices[1].offset_in_read, 14);
  EXPECT_EQ(plan.slices[2].read, 1u);
  EXPECT_EQ(plan.slices[2].offset_in_read, 0);

  // The size limit splits an otherwise mergeable run.
  plan = CoalesceRanges({{0, 60}, {60, 60}, {120, 10}}, opts).ValueOrDie();
  EXPECT_EQ(plan.reads, (std::vector<Range>{{0, 60}, {60, 70}}));
  // A single range longer than the limit is read whole.
  plan = CoalesceRanges({{0, 500}}, opts).ValueOrDie();
  EXPECT_EQ(plan.reads, (std::vector<Range>{{0, 500}}));
}

TEST(CoalesceRangesTest, UnsortedOverlappingAndDuplicateRanges) {
  CoalesceOptions opts{0, 1 << 20};
  std::vector<Range> in = {{50, 10}, {0, 10}, {5, 10}, {50, 10}, {58, 1}, {100, 0}};
  auto plan = CoalesceRanges(in, opts).ValueOrDie();
  EXPECT_EQ(plan.reads, (std::vector<Range>{{0, 15}, {50, 10}, {100, 0}}));
  EXPECT_EQ(plan.slices[0].read, 1u);
  EXPECT_EQ(plan.slices[1].read, 0u);
  EXPECT_EQ(plan.slices[2].offset_in_read, 5);
  EXPECT_EQ(plan.slices[3].read, 1u);
  EXPECT_EQ(plan.slices[4].offset_in_read, 8);
  EXPECT_EQ(plan.slices[5].read, 2u);
}

TEST(CoalesceRangesTest, RejectsNegativeAndOverflowingRanges) {
  EXPECT_TRUE(CoalesceRanges({{-1, 3}}, {}).status().IsInvalidArgument());
  EXPECT_TRUE(CoalesceRanges({{0, -3}}, {}).status().IsInvalidArgument());
  EXPECT_TRUE(CoalesceRanges({{INT64_MAX - 1, 5}}, {}).status().IsInvalidArgument());
  auto empty = CoalesceRanges({}, {}).ValueOrDie();
  EXPECT_TRUE(empty.reads.empty());
}

// Random plans cover every requested byte, with slices inside their reads.
TEST(CoalesceRangesTest, RandomPlansAreConsistent) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    CoalesceOptions opts{static_cast<int64_t>(rng() % 1000), 1 + static_cast<int64_t>(rng() % 5000)};
    std::vector<Range> in;
    for (int i = 0, n = static_cast<int>(rng() % 50); i < n; ++i) {
      in.push_back({static_cast<int64_t>(rng() % 100000), static_cast<int64_t>(rng() % 3000)});
    }
    auto plan = CoalesceRanges(in, opts).ValueOrDie();
    ASSERT_EQ(plan.slices.size(), in.size());
    for (size_t i = 0; i + 1 < plan.reads.size(); ++i) {
      EXPECT_LE(plan.reads[i].offset, plan.reads[i + 1].offset);
    }
    for (size_t i = 0; i < in.size(); ++i) {
      const Range& read = plan.reads[plan.slices[i].read];
      EXPECT_EQ(read.offset + plan.slices[i].offset_in_read, in[i].offset);
      EXPECT_LE(in[i].end(), read.end());
    }
    for (const Range& r : plan.reads) {
      // Only a lone range may exceed the merge limit.
      int members = 0;
      for (size_t i = 0; i < in.size(); ++i) members += (&plan.reads[plan.slices[i].read] == &r);
      if (members > 1) {
        EXPECT_LE(r.length, opts.max_merged_size);
      }
    }
  }
}

// Coalescing reduces backend reads: count them through the fault-injecting wrapper, whose
// GetRanges issues one GetRange per merged read.
TEST(GetRangesTest, CoalescingReducesBackendReads) {
  auto counted = std::make_shared<FaultInjectingObjectStore>(MemoryObjectStore::Make());
  const std::string payload = MakePayload(1, 1 << 20);
  ASSERT_TRUE(counted->Put("obj", payload).ok());
  std::vector<Range> ranges;
  for (int64_t i = 0; i < 1000; ++i) ranges.push_back({i * 1000, 100});  // 900-byte gaps

  counted->set_coalesce_options({/*max_gap=*/0, /*max_merged_size=*/1 << 30});
  counted->ResetCounts();
  auto separate = counted->GetRanges("obj", ranges);
  ASSERT_TRUE(separate.ok());
  EXPECT_EQ(counted->count(ObjectOp::kGetRange), 1000);

  counted->set_coalesce_options({/*max_gap=*/1024, /*max_merged_size=*/64 * 1024});
  counted->ResetCounts();
  auto merged = counted->GetRanges("obj", ranges);
  ASSERT_TRUE(merged.ok());
  const int64_t expected = CoalesceRanges(ranges, counted->coalesce_options())->reads.size();
  EXPECT_EQ(counted->count(ObjectOp::kGetRange), expected);
  EXPECT_EQ(expected, 16);  // 1000 ranges spanning ~1 MB in 64 KiB reads
  for (size_t i = 0; i < ranges.size(); ++i) {
    ASSERT_EQ((*merged)[i]->view(), (*separate)[i]->view());
    ASSERT_EQ((*merged)[i]->view(), std::string_view(payload).substr(ranges[i].offset, 100));
  }
}

// The wrapper's GetRanges (generic executor) and the local store's own GetRanges agree with
// direct reads on a real file, with the fan-out on a small private pool.
TEST(GetRangesTest, ParallelReadsOnLocalFileMatchDirectReads) {
  TempDir dir;
  auto local = LocalObjectStore::Make(dir.path()).ValueOrDie();
  auto pool = ThreadPool::Make(3).ValueOrDie();
  local->set_io_pool(pool.get());
  auto wrapped = std::make_shared<FaultInjectingObjectStore>(local);
  const std::string payload = MakePayload(2, 3 << 20);
  ASSERT_TRUE(local->Put("data", payload).ok());
  std::mt19937_64 rng(99);
  for (ObjectStore* s : {static_cast<ObjectStore*>(local.get()), static_cast<ObjectStore*>(wrapped.get())}) {
    s->set_coalesce_options({8 * 1024, 256 * 1024});
    for (int round = 0; round < 10; ++round) {
      std::vector<Range> ranges;
      for (int i = 0; i < 200; ++i) {
        int64_t off = static_cast<int64_t>(rng() % payload.size());
        int64_t len = static_cast<int64_t>(rng() % std::min<uint64_t>(payload.size() - off, 20000));
        ranges.push_back({off, len});
      }
      auto got = s->GetRanges("data", ranges);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      for (size_t i = 0; i < ranges.size(); ++i) {
        auto direct = s->GetRange("data", ranges[i].offset, ranges[i].length).ValueOrDie();
        ASSERT_EQ((*got)[i]->view(), direct->view());
      }
    }
  }
  EXPECT_GT(wrapped->count(ObjectOp::kGetRange), 0);
}

// GetRanges called from inside pool tasks (as a decoder running on the pool would) must not
// deadlock even when every worker does it at once.
TEST(GetRangesTest, CallableFromPoolThreads) {
  auto pool = ThreadPool::Make(2).ValueOrDie();
  auto store = std::make_shared<FaultInjectingObjectStore>(MemoryObjectStore::Make());
  store->set_io_pool(pool.get());
  store->set_coalesce_options({0, 1 << 20});
  const std::string payload = MakePayload(3, 100000);
  ASSERT_TRUE(store->Put("o", payload).ok());
  std::vector<std::future<bool>> futures;
  for (int t = 0; t < 8; ++t) {
    futures.push_back(pool->Submit([&, t] {
      std::vector<Range> ranges;
      for (int i = 0; i < 50; ++i) ranges.push_back({i * 1000 + t, 10});
      auto got = store->GetRanges("o", ranges);
      if (!got.ok()) return false;
      for (size_t i = 0; i < ranges.size(); ++i) {
        if ((*got)[i]->view() != std::string_view(payload).substr(ranges[i].offset, 10)) return false;
      }
      return true;
    }));
  }
  for (auto& f : futures) EXPECT_TRUE(f.get());
}

TEST(ObjectPathTest, Rules) {
  EXPECT_TRUE(ValidateObjectPath("a").ok());
  EXPECT_TRUE(ValidateObjectPath("a/b.c/d_e-f").ok());
  EXPECT_TRUE(ValidateObjectPath(".hidden/x").ok());
  EXPECT_TRUE(ValidateObjectPath("a/..b").ok());
  for (const char* bad : {"", "/", "/a", "a/", "a//b", ".", "..", "a/./b", "a/../b", ".lance-tmp.z"}) {
    Status st = ValidateObjectPath(bad);
    EXPECT_TRUE(st.IsInvalidArgument()) << "'" << bad << "'";
  }
  EXPECT_TRUE(ValidateObjectPath(std::string_view("a\0b", 3)).IsInvalidArgument());
  EXPECT_TRUE(ValidateListPrefix("").ok());
  EXPECT_TRUE(ValidateListPrefix("a/b/").ok());
  EXPECT_TRUE(ValidateListPrefix("a//").IsInvalidArgument());
  EXPECT_EQ(JoinPath("a", "b"), "a/b");
  EXPECT_EQ(JoinPath("a/", "b"), "a/b");
  EXPECT_EQ(JoinPath("", "b"), "b");
  EXPECT_EQ(JoinPath("a", ""), "a");
  EXPECT_TRUE(IsTempObjectName(".lance-tmp.x.1"));
  EXPECT_FALSE(IsTempObjectName("x.lance-tmp."));
}

TEST(FromUriTest, FileUrisAndPlainPaths) {
  TempDir dir;
  auto r = ObjectStore::FromUri("file://" + dir.path() + "/ds.lance");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->store->scheme(), "file");
  EXPECT_EQ(r->path, dir.path().substr(1) + "/ds.lance");
  ASSERT_TRUE(r->store->Put(JoinPath(r->path, "_versions/1.manifest"), "m").ok());
  std::ifstream in(dir.path() + "/ds.lance/_versions/1.manifest");
  std::string content;
  in >> content;
  EXPECT_EQ(content, "m");

  auto plain = ObjectStore::FromUri(dir.path() + "/./x/../ds.lance/");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->path, r->path);
  EXPECT_EQ(plain->store, r->store);  // one shared root store

  auto localhost = ObjectStore::FromUri("file://localhost/tmp/a");
  ASSERT_TRUE(localhost.ok());
  EXPECT_EQ(localhost->path, "tmp/a");
  auto escaped = ObjectStore::FromUri("FILE:///tmp/with%20space/x");
  ASSERT_TRUE(escaped.ok());
  EXPECT_EQ(escaped->path, "tmp/with space/x");
  auto root = ObjectStore::FromUri("/");
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->path, "");

  EXPECT_TRUE(ObjectStore::FromUri("file://host/x").status().IsInvalidArgument());
  EXPECT_TRUE(ObjectStore::FromUri("file://relative").status().IsInvalidArgument());
  EXPECT_TRUE(ObjectStore::FromUri("file:///bad%2").status().IsInvalidArgument());
  EXPECT_TRUE(ObjectStore::FromUri("file:///bad%zz").status().IsInvalidArgument());
  EXPECT_TRUE(ObjectStore::FromUri("").status().IsInvalidArgument());
  Status s3 = ObjectStore::FromUri("s3://bucket/key").status();
  EXPECT_TRUE(s3.IsNotSupported()) << s3.ToString();
  EXPECT_NE(s3.message().find("s3"), std::string::npos);
}

TEST(FromUriTest, RelativePathsResolveAgainstTheCurrentDirectory) {
  TempDir dir;
  char old_cwd[4096];
  ASSERT_NE(::getcwd(old_cwd, sizeof(old_cwd)), nullptr);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  auto r = ObjectStore::FromUri("data/../data/t.lance");
  auto dot = ObjectStore::FromUri("./data/t.lance");
  ASSERT_EQ(::chdir(old_cwd), 0);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(dot.ok());
  EXPECT_EQ(r->path, dir.path().substr(1) + "/data/t.lance");
  EXPECT_EQ(dot->path, r->path);
  ASSERT_TRUE(r->store->Put(JoinPath(r->path, "f"), "v").ok());
  EXPECT_TRUE(std::ifstream(dir.path() + "/data/t.lance/f").good());
}

TEST(FromUriTest, MemoryUrisShareAStorePerName) {
  auto a = ObjectStore::FromUri("memory://uri-test-a/ds/x.lance").ValueOrDie();
  EXPECT_EQ(a.store->scheme(), "memory");
  EXPECT_EQ(a.path, "ds/x.lance");
  ASSERT_TRUE(a.store->Put(JoinPath(a.path, "obj"), "1").ok());
  auto again = ObjectStore::FromUri("memory://uri-test-a/").ValueOrDie();
  EXPECT_EQ(again.store, a.store);
  EXPECT_EQ(again.path, "");
  EXPECT_TRUE(*again.store->Exists("ds/x.lance/obj"));
  auto other = ObjectStore::FromUri("memory://uri-test-b/ds/x.lance").ValueOrDie();
  EXPECT_NE(other.store, a.store);
  EXPECT_FALSE(*other.store->Exists("ds/x.lance/obj"));
  EXPECT_TRUE(ObjectStore::FromUri("memory://n/a//b").status().IsInvalidArgument());
}

}  // namespace
}  // namespace lance::io
