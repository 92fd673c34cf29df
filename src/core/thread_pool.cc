#include "lance/core/thread_pool.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <system_error>

namespace lance {

namespace {
// The pool whose worker loop runs on this thread, or null.
thread_local const ThreadPool* tls_current_pool = nullptr;
}  // namespace

Result<std::unique_ptr<ThreadPool>> ThreadPool::Make(int num_threads) {
  if (num_threads < 0) {
    return Status::InvalidArgument("ThreadPool::Make: num_threads must be >= 0, got {}",
                                   num_threads);
  }
  std::unique_ptr<ThreadPool> pool(new ThreadPool());
  pool->workers_.reserve(static_cast<size_t>(num_threads));
  for (int i = 0; i < num_threads; ++i) {
    // std::thread reports a thread it cannot start only by throwing std::system_error (e.g.
    // EAGAIN at the process's thread limit): that one exception becomes a Status here; the
    // workers already started are joined when `pool` goes away.
    try {
      pool->workers_.emplace_back([p = pool.get()] { p->WorkerLoop(); });
    } catch (const std::system_error& e) {
      return Status::IOError("ThreadPool::Make: cannot start worker {} of {}: {}", i + 1,
                             num_threads, e.what());
    }
  }
  return pool;
}

ThreadPool* ThreadPool::Default() {
  // Leaked on purpose: joining threads during static destruction is a classic shutdown hang.
  static ThreadPool* pool = [] {
    int n = static_cast<int>(std::thread::hardware_concurrency());
    return Make(std::max(n, 2)).ValueOrDie().release();
  }();
  return pool;
}

ThreadPool::ThreadPool() : owner_pid_(static_cast<int>(::getpid())) {}

ThreadPool::~ThreadPool() { Shutdown(); }

bool ThreadPool::InForkedChild() const { return static_cast<int>(::getpid()) != owner_pid_; }

bool ThreadPool::IsWorkerThread() const { return tls_current_pool == this; }

void ThreadPool::Spawn(std::function<void()> fn) {
  // In a forked child the queue's lock may have been copied in a held state: never touch it.
  // Without workers nobody would ever run a queued task.
  if (workers_.empty() || InForkedChild()) {
    fn();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopping_) {
      queue_.push_back(std::move(fn));
      cv_.notify_one();
      return;
    }
  }
  fn();
}

void ThreadPool::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) {
    // A task calling Shutdown() on its own pool must not join itself.
    if (t.get_id() == std::this_thread::get_id()) {
      t.detach();
    } else if (t.joinable()) {
      t.join();
    }
  }
}

void ThreadPool::WorkerLoop() {
  tls_current_pool = this;
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping_ and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

namespace {

// Shared between the caller and its helpers; helpers that start after the caller returned
// find no item left and never touch `fn`.
struct ParallelForState {
  explicit ParallelForState(int64_t n) : n(n) {}
  const int64_t n;
  std::atomic<int64_t> next{0};
  std::mutex mutex;
  std::condition_variable done_cv;
  int64_t done = 0;  // guarded by mutex

  // Claims and runs items until none is left.
  void RunItems(const std::function<void(int64_t)>* fn) {
    int64_t finished = 0;
    for (int64_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      (*fn)(i);
      ++finished;
    }
    if (finished > 0) {
      std::lock_guard<std::mutex> lock(mutex);
      done += finished;
      if (done == n) done_cv.notify_all();
    }
  }
};

}  // namespace

void ParallelFor(ThreadPool* pool, int64_t n, const std::function<void(int64_t)>& fn) {
  if (n <= 0) return;
  if (n == 1 || pool == nullptr || pool->InForkedChild()) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  auto state = std::make_shared<ParallelForState>(n);
  const int64_t helpers = std::min<int64_t>(n - 1, pool->num_threads());
  // Helpers hold `state` by shared_ptr and `fn` by pointer; they only dereference the pointer
  // after claiming an item, which is impossible once the caller has seen every item done.
  const std::function<void(int64_t)>* fn_ptr = &fn;
  for (int64_t h = 0; h < helpers; ++h) {
    pool->Spawn([state, fn_ptr] { state->RunItems(fn_ptr); });
  }
  state->RunItems(fn_ptr);
  std::unique_lock<std::mutex> lock(state->mutex);
  state->done_cv.wait(lock, [&] { return state->done == n; });
}

}  // namespace lance
