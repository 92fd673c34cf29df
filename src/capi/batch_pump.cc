#include "capi/batch_pump.h"

#include <exception>
#include <string>

namespace lance::capi {

BatchPump::BatchPump(Opener open, size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {
  thread_ = std::thread([this, open = std::move(open)]() mutable { Run(std::move(open)); });
}

BatchPump::~BatchPump() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    waker_ = nullptr;
  }
  space_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BatchPump::Finish(Status status) {
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    error_ = std::move(status);
    wake = std::move(waker_);
    waker_ = nullptr;
  }
  data_cv_.notify_all();
  if (wake) wake();
}

void BatchPump::Run(Opener open) {
  // Nothing may escape the thread: an exception becomes the scan's error.
  auto failure = [](const char* what) {
    return Status::Internal("internal error while scanning: {}", what);
  };
  try {
    auto opened = open();
    if (!opened.ok()) return Finish(opened.status());
    std::unique_ptr<RecordBatchReader> reader = std::move(opened).ValueOrDie();
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        space_cv_.wait(lock, [&] { return stop_ || queue_.size() < capacity_; });
        if (stop_) return;
      }
      auto next = reader->Next();
      if (!next.ok()) return Finish(next.status());
      if (!*next) return Finish(Status::OK());
      std::function<void()> wake;
      {
        std::lock_guard<std::mutex> lock(mu_);
        queue_.push_back(std::move(*next));
        wake = std::move(waker_);
        waker_ = nullptr;
      }
      data_cv_.notify_all();
      if (wake) wake();
    }
  } catch (const std::bad_alloc&) {
    Finish(failure("out of memory"));
  } catch (const std::exception& e) {
    Finish(failure(e.what()));
  } catch (...) {
    Finish(failure("unknown exception"));
  }
}

BatchPump::Poll BatchPump::TryNext(RecordBatchPtr* out, Status* error,
                                   std::function<void()> waker) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!queue_.empty()) {
    *out = std::move(queue_.front());
    queue_.pop_front();
    space_cv_.notify_one();
    return Poll::kReady;
  }
  if (done_) {
    if (!error_.ok()) {
      *error = error_;
      return Poll::kError;
    }
    return Poll::kFinished;
  }
  waker_ = std::move(waker);
  return Poll::kPending;
}

Result<RecordBatchPtr> BatchPump::Next() {
  std::unique_lock<std::mutex> lock(mu_);
  data_cv_.wait(lock, [&] { return !queue_.empty() || done_; });
  if (!queue_.empty()) {
    RecordBatchPtr b = std::move(queue_.front());
    queue_.pop_front();
    space_cv_.notify_one();
    return b;
  }
  if (!error_.ok()) return error_;
  return RecordBatchPtr{};
}

}  // namespace lance::capi
