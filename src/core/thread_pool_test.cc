#include "lance/core/thread_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace lance {
namespace {

TEST(ThreadPoolTest, RejectsNegativeThreads) {
  auto r = ThreadPool::Make(-1);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
}

TEST(ThreadPoolTest, ZeroThreadsRunsEverythingOnTheCaller) {
  auto pool = ThreadPool::Make(0).ValueOrDie();
  EXPECT_EQ(pool->num_threads(), 0);
  const auto caller = std::this_thread::get_id();
  EXPECT_EQ(pool->Submit([] { return std::this_thread::get_id(); }).get(), caller);
  bool spawned_inline = false;
  pool->Spawn([&] { spawned_inline = std::this_thread::get_id() == caller; });
  EXPECT_TRUE(spawned_inline);  // already ran: Spawn returned after running it
  std::set<std::thread::id> ids;
  std::mutex mu;
  ParallelFor(pool.get(), 50, [&](int64_t) {
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ids, std::set<std::thread::id>{caller});
}

TEST(ThreadPoolTest, SubmitReturnsValues) {
  auto pool = ThreadPool::Make(3).ValueOrDie();
  EXPECT_EQ(pool->num_threads(), 3);
  std::vector<std::future<int>> futures;
  for (int i = 0; i < 100; ++i) futures.push_back(pool->Submit([i] { return i * i; }));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(futures[i].get(), i * i);
}

TEST(ThreadPoolTest, TasksRunOnWorkers) {
  auto pool = ThreadPool::Make(2).ValueOrDie();
  EXPECT_FALSE(pool->IsWorkerThread());
  auto on_worker = pool->Submit([&] { return pool->IsWorkerThread(); });
  EXPECT_TRUE(on_worker.get());
  auto other = ThreadPool::Make(1).ValueOrDie();
  EXPECT_FALSE(pool->Submit([&] { return other->IsWorkerThread(); }).get());
}

TEST(ThreadPoolTest, ShutdownDrainsQueueAndLaterTasksRunInline) {
  auto pool = ThreadPool::Make(2).ValueOrDie();
  std::atomic<int> ran{0};
  for (int i = 0; i < 50; ++i) pool->Spawn([&] { ran.fetch_add(1); });
  pool->Shutdown();
  EXPECT_EQ(ran.load(), 50);
  auto id = pool->Submit([] { return std::this_thread::get_id(); });
  EXPECT_EQ(id.get(), std::this_thread::get_id());
  pool->Shutdown();  // idempotent
}

TEST(ThreadPoolTest, DefaultPoolIsShared) {
  ThreadPool* a = ThreadPool::Default();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, ThreadPool::Default());
  EXPECT_GE(a->num_threads(), 2);
  EXPECT_EQ(a->Submit([] { return 7; }).get(), 7);
}

TEST(ParallelForTest, RunsEveryIndexExactlyOnce) {
  auto pool = ThreadPool::Make(4).ValueOrDie();
  for (int64_t n : {0, 1, 2, 3, 17, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    ParallelFor(pool.get(), n, [&](int64_t i) { hits[static_cast<size_t>(i)].fetch_add(1); });
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[static_cast<size_t>(i)].load(), 1) << n << " " << i;
  }
  std::vector<int> serial(10, 0);
  ParallelFor(nullptr, 10, [&](int64_t i) { serial[static_cast<size_t>(i)] = static_cast<int>(i); });
  for (int i = 0; i < 10; ++i) EXPECT_EQ(serial[static_cast<size_t>(i)], i);
}

TEST(ParallelForTest, UsesSeveralThreads) {
  auto pool = ThreadPool::Make(3).ValueOrDie();
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> arrived{0};
  // Each item waits (bounded) until two items are in flight, which needs a second thread.
  ParallelFor(pool.get(), 4, [&](int64_t) {
    arrived.fetch_add(1);
    for (int spin = 0; spin < 2000 && arrived.load() < 2; ++spin) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_GE(ids.size(), 2u);
}

// Nested fan-out from every worker of a tiny pool: with blocking waits on pool futures this
// would deadlock; ParallelFor must complete.
TEST(ParallelForTest, NestedFromWorkersDoesNotDeadlock) {
  auto pool = ThreadPool::Make(2).ValueOrDie();
  std::atomic<int64_t> sum{0};
  std::vector<std::future<void>> outer;
  for (int t = 0; t < 4; ++t) {
    outer.push_back(pool->Submit([&] {
      ParallelFor(pool.get(), 8, [&](int64_t i) {
        ParallelFor(pool.get(), 8, [&](int64_t j) { sum.fetch_add(i * 8 + j); });
      });
    }));
  }
  for (auto& f : outer) f.get();
  // 4 repetitions of sum(0..63).
  EXPECT_EQ(sum.load(), 4 * (63 * 64 / 2));
}

// In a forked child the workers are gone: tasks must run inline instead of hanging.
TEST(ThreadPoolTest, UsableInForkedChild) {
  auto pool = ThreadPool::Make(2).ValueOrDie();
  EXPECT_FALSE(pool->InForkedChild());
  EXPECT_EQ(pool->Submit([] { return 1; }).get(), 1);  // workers are running now
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!pool->InForkedChild()) ::_exit(3);
    if (pool->Submit([] { return 41; }).get() != 41) ::_exit(4);
    std::atomic<int> sum{0};
    ParallelFor(pool.get(), 100, [&](int64_t i) { sum.fetch_add(static_cast<int>(i)); });
    ParallelFor(ThreadPool::Default(), 10, [&](int64_t) { sum.fetch_add(1); });
    ::_exit(sum.load() == 4950 + 10 ? 0 : 5);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace lance
