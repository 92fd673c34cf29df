// TaskWindow: a bounded, ordered window of tasks running ahead on a thread pool -- how the
// query operators prefetch. Push() queues a task on the pool; PopFront() returns the oldest
// task's result, running it on the calling thread when no worker has started it yet (so a
// consumer that is itself a pool worker never waits for a queued task: the deadlock rule of
// lance/core/thread_pool.h). The destructor waits for tasks already running and drops those
// not started. Used by one consumer thread at a time.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "lance/core/result.h"
#include "lance/core/thread_pool.h"

namespace lance::query::internal {

template <typename T>
class TaskWindow {
 public:
  // `pool` may be null: then every task runs in PopFront.
  explicit TaskWindow(ThreadPool* pool) : pool_(pool) {}
  ~TaskWindow() {
    for (auto& slot : slots_) {
      std::unique_lock<std::mutex> lock(slot->mu);
      if (slot->state == State::kQueued) {
        slot->state = State::kDone;  // never runs
        slot->fn = nullptr;
        continue;
      }
      slot->cv.wait(lock, [&] { return slot->state == State::kDone; });
    }
  }
  TaskWindow(const TaskWindow&) = delete;
  TaskWindow& operator=(const TaskWindow&) = delete;

  size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }

  // Queues `fn` (which must own or share everything it uses). `spawn` = false keeps it off the
  // pool: PopFront runs it (for a task the consumer will ask for next anyway, a worker's
  // wake-up would only race it).
  void Push(std::function<Result<T>()> fn, bool spawn = true) {
    auto slot = std::make_shared<Slot>();
    slot->fn = std::move(fn);
    slots_.push_back(slot);
    if (spawn && pool_ != nullptr && !pool_->InForkedChild()) {
      pool_->Spawn([slot] { Run(*slot); });
    }
  }

  // The oldest task's result. REQUIRES: !empty().
  Result<T> PopFront() {
    std::shared_ptr<Slot> slot = std::move(slots_.front());
    slots_.pop_front();
    Run(*slot);
    std::unique_lock<std::mutex> lock(slot->mu);
    slot->cv.wait(lock, [&] { return slot->state == State::kDone; });
    return std::move(*slot->result);
  }

 private:
  enum class State { kQueued, kRunning, kDone };
  struct Slot {
    std::mutex mu;
    std::condition_variable cv;
    State state = State::kQueued;
    std::function<Result<T>()> fn;
    std::optional<Result<T>> result;
  };

  // Runs the slot's task unless some thread claimed it already.
  static void Run(Slot& slot) {
    {
      std::lock_guard<std::mutex> lock(slot.mu);
      if (slot.state != State::kQueued) return;
      slot.state = State::kRunning;
    }
    Result<T> r = slot.fn();
    std::lock_guard<std::mutex> lock(slot.mu);
    slot.result.emplace(std::move(r));
    slot.fn = nullptr;
    slot.state = State::kDone;
    slot.cv.notify_all();
  }

  ThreadPool* pool_;
  std::deque<std::shared_ptr<Slot>> slots_;
};

}  // namespace lance::query::internal
