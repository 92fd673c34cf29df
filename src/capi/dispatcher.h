// The thread lance_scanner_scan_async's callbacks run on: one per process, started on first
// use, running the callbacks one at a time in the order they were posted (as lance-c's
// dispatcher thread), so that a caller's callback never runs on a scan thread and never runs
// concurrently with another.
#pragma once

#include <functional>

namespace lance::capi {

// Queues `task` for the dispatcher thread. Throws std::system_error when the thread cannot be
// started (the caller's guard reports it).
void Dispatch(std::function<void()> task);

}  // namespace lance::capi
