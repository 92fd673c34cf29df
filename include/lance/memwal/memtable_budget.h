// MemTableBudget: one MemTable memory bound shared by the shard writers of a process.
//
// A writer given a budget (MemWalWriterOptions::budget) counts the bytes of its active MemTable
// and of the one it has frozen for a flush here, under the id Subscribe gave it. The flush
// trigger fires when the active MemTables of all writers together reach half the bound: the
// writer with the largest active MemTable (FreezeNext) then freezes it and flushes it -- one
// flush frees the most -- and while the trigger still holds the next largest follows. Appends
// to that writer wait while it is the one to freeze (as for a writer's own max_bytes), appends
// to any writer while all MemTables together (active and frozen) and the appends admitted but
// not yet landed hold the bound, until a flush ends or they land. The MemTables of the process
// hold at most about the bound (an estimate of each append is reserved when it is admitted).
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
  // Bytes of appends admitted (Reserve) and not yet in a MemTable.
  int64_t pending_bytes() const { return pending_.load(); }
  // Appends wait: the MemTables (active and frozen) with the appends admitted before hold the
  // bound, or would with `more` bytes (an append of that size is admitted only when nothing
  // else is held or it fits: one larger than the bound still goes, alone).
  bool Full(int64_t more = 0) const {
    if (max_bytes_ <= 0) return false;
    const int64_t held = active_.load() + frozen_.load() + pending_.load();
    return held >= max_bytes_ || (held > 0 && held + more > max_bytes_);
  }
  // An append of about `bytes` admitted (before its WAL write) / landed or failed: the appends
  // in flight count against the bound, so a writer with many of them cannot overshoot it.
  void Reserve(int64_t bytes);
  void Unreserve(int64_t bytes);

  // The active MemTable of writer `id` grew by `bytes`.
  void Grow(int id, int64_t bytes);
  // Writer `id` froze its active MemTable of `bytes` for a flush.
  void Freeze(int id, int64_t bytes);
  // Writer `id` flushed a frozen MemTable of `frozen` bytes, and / or (closing) dropped an
  // active one of `active` bytes.
  void Release(int id, int64_t frozen, int64_t active);
  // Whether writer `id` is the one to freeze now: the trigger holds (Over) and its active
  // MemTable is the largest (ties: the lowest id).
  bool FreezeNext(int id) const;

  // `wake` runs after every change (from the changing thread, no budget lock held); it must
  // not call back into the budget. The returned id is the writer's (Grow, Freeze, Release,
  // FreezeNext) and unsubscribes.
  int Subscribe(std::function<void()> wake);
  void Unsubscribe(int id);

 private:
  void Announce();

  const int64_t max_bytes_;
  std::atomic<int64_t> active_{0};
  std::atomic<int64_t> frozen_{0};
  std::atomic<int64_t> pending_{0};
  std::atomic<int64_t> peak_{0};
  mutable std::mutex sizes_mu_;  // guards active_of_; a leaf lock (nothing is called under it)
  std::map<int, int64_t> active_of_;  // each writer's active MemTable bytes
  std::mutex mu_;  // guards subscribers_ and next_id_; held while announcing (never re-entered)
  std::map<int, std::function<void()>> subscribers_;
  int next_id_ = 0;
};

}  // namespace lance::memwal
