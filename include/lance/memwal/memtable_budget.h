// MemTableBudget: one MemTable memory bound shared by the shard writers of a process.
//
// A writer given a budget (MemWalWriterOptions::budget) counts the bytes of its active MemTable
// and of the one it has frozen for a flush here. Its flush trigger fires when the active
// MemTables of all writers together reach half the bound: every writer with rows then freezes
// its active MemTable and flushes it (the first to freeze may take the trigger away from the
// others), and appends to a writer wait while the trigger holds and its active MemTable has
// rows (as for a writer's own max_bytes), or while all MemTables together (active and frozen)
// hold the bound, until a flush ends. The MemTables of the process hold at most about the
// bound, plus the appends already past that wait when it was reached (they land once durable).
//
// Thread-safe. Changes are announced to every subscribed writer (Subscribe), outside the
// budget's lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace lance::memwal {

class MemTableBudget {
 public:
  explicit MemTableBudget(int64_t max_bytes) : max_bytes_(max_bytes) {}

  int64_t max_bytes() const { return max_bytes_; }
  int64_t active_bytes() const { return active_.load(); }
  int64_t frozen_bytes() const { return frozen_.load(); }
  // The most the MemTables held together at once (active + frozen).
  int64_t peak_bytes() const { return peak_.load(); }
  // The flush trigger: the active MemTables hold half the bound.
  bool Over() const { return max_bytes_ > 0 && 2 * active_.load() >= max_bytes_; }
  // Appends wait: the MemTables (active and frozen) hold the bound.
  bool Full() const { return max_bytes_ > 0 && active_.load() + frozen_.load() >= max_bytes_; }

  // An active MemTable grew by `bytes`.
  void Grow(int64_t bytes);
  // An active MemTable of `bytes` was frozen for a flush.
  void Freeze(int64_t bytes);
  // A frozen MemTable of `frozen` bytes was flushed, and / or (a closing writer) an active one
  // of `active` bytes dropped.
  void Release(int64_t frozen, int64_t active);

  // `wake` runs after every change (from the changing thread, no budget lock held); it must
  // not call back into the budget. The returned id unsubscribes.
  int Subscribe(std::function<void()> wake);
  void Unsubscribe(int id);

 private:
  void Announce();

  const int64_t max_bytes_;
  std::atomic<int64_t> active_{0};
  std::atomic<int64_t> frozen_{0};
  std::atomic<int64_t> peak_{0};
  std::mutex mu_;  // guards subscribers_ and next_id_; held while announcing (never re-entered)
  std::map<int, std::function<void()>> subscribers_;
  int next_id_ = 0;
};

}  // namespace lance::memwal
