// ThreadPool: a fixed set of worker threads running submitted tasks in FIFO order.
//
// Thread-safety: every method may be called from any thread, including from inside a task.
// Deadlock rule: a task must never block on the future of another task of the same pool (with
// every worker blocked like that, nobody runs the awaited tasks). To fan work out from code
// that may itself run on the pool, use ParallelFor: the caller claims and runs items itself and
// only ever waits for items that some thread is already running, so it cannot deadlock however
// deeply it nests.
//
// fork(): the workers do not exist in a forked child, so there every Spawn/Submit runs inline
// and ParallelFor runs all items on the caller. A child must not destroy an inherited pool.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "lance/core/result.h"

namespace lance {

class ThreadPool {
 public:
  // Starts `num_threads` workers. 0 makes a pool without workers, for an engine that wants no
  // thread started or used on its behalf: Spawn / Submit run the task inline on the caller and
  // ParallelFor runs every item on the caller. Errors: InvalidArgument when num_threads < 0,
  // IOError when the system cannot start a thread (the workers already started are joined).
  static Result<std::unique_ptr<ThreadPool>> Make(int num_threads);

  // The process-wide pool, sized to the number of hardware threads (at least 2), created on
  // first use and never destroyed (so tasks may still run during static destruction).
  static ThreadPool* Default();

  // Runs the queued tasks, then joins the workers.
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()); }

  // True when the calling thread is one of this pool's workers.
  bool IsWorkerThread() const;

  // True in a process forked after the pool was made (its workers do not exist there).
  bool InForkedChild() const;

  // Queues `fn` and returns the future of its result. After Shutdown(), and on a pool without
  // workers, the task runs inline on the calling thread, so the future is always eventually
  // ready.
  template <typename F>
  auto Submit(F&& fn) -> std::future<std::invoke_result_t<std::decay_t<F>>> {
    using R = std::invoke_result_t<std::decay_t<F>>;
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<F>(fn));
    std::future<R> future = task->get_future();
    Spawn([task] { (*task)(); });
    return future;
  }

  // Queues `fn` without a future (fire and forget). After Shutdown(), and on a pool without
  // workers, it runs inline.
  void Spawn(std::function<void()> fn);

  // Stops accepting tasks, runs those already queued, joins the workers. Idempotent.
  void Shutdown();

 private:
  ThreadPool();
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // guarded by mutex_
  bool stopping_ = false;                    // guarded by mutex_
  std::vector<std::thread> workers_;
  int owner_pid_;  // the process that started the workers
};

// Calls fn(i) for every i in [0, n), in parallel on `pool` and on the calling thread, and
// returns when all calls have finished. Safe to call from a pool worker and to nest (see the
// deadlock rule above). `pool` may be null: then everything runs on the caller. Items are
// claimed in increasing order; `fn` must be safe to call concurrently for distinct i.
void ParallelFor(ThreadPool* pool, int64_t n, const std::function<void(int64_t)>& fn);

}  // namespace lance
