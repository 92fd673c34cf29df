#include "capi/dispatcher.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace lance::capi {

namespace {

class Dispatcher {
 public:
  Dispatcher() { std::thread([this] { Loop(); }).detach(); }

  void Post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();  // tasks catch their own exceptions
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
};

}  // namespace

void Dispatch(std::function<void()> task) {
  // Never destroyed: the detached thread may still wait on it while the process exits.
  static Dispatcher* const dispatcher = new Dispatcher();
  dispatcher->Post(std::move(task));
}

}  // namespace lance::capi
