// BatchPump: a scan read ahead on its own thread into a small queue, for lance-c's poll-based
// iteration (lance_scanner_poll_next) and the blocking reads of the same scan.
//
// The thread opens the scan (so a first poll does not wait for it), then reads batches while
// the queue has room (`capacity` batches). A poll that finds the queue empty keeps the caller's
// waker; the thread calls it once, outside its lock, when a batch, the end or an error arrives.
// An error is sticky. Destroying the pump stops the thread after its current read and drops a
// waker not yet called. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"

namespace lance::capi {

class BatchPump {
 public:
  using Opener = std::function<Result<std::unique_ptr<RecordBatchReader>>()>;
  enum class Poll { kReady, kPending, kFinished, kError };

  explicit BatchPump(Opener open, size_t capacity = 4);
  ~BatchPump();
  BatchPump(const BatchPump&) = delete;
  BatchPump& operator=(const BatchPump&) = delete;

  // kReady with *out set; kPending (`waker` kept, replacing an earlier one); kFinished;
  // kError with *error set.
  Poll TryNext(RecordBatchPtr* out, Status* error, std::function<void()> waker);
  // Waits for the next batch; nullptr at the end.
  Result<RecordBatchPtr> Next();

 private:
  void Run(Opener open);
  // Records the end (OK) or an error and wakes everyone.
  void Finish(Status status);

  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable data_cv_;   // a batch or the end arrived
  std::condition_variable space_cv_;  // the queue has room, or stop
  std::deque<RecordBatchPtr> queue_;
  bool done_ = false;
  bool stop_ = false;
  Status error_;
  std::function<void()> waker_;
  std::thread thread_;
};

}  // namespace lance::capi
