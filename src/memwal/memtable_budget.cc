#include "lance/memwal/memtable_budget.h"

namespace lance::memwal {

void MemTableBudget::Grow(int id, int64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(sizes_mu_);
    active_of_[id] += bytes;
  }
  const int64_t total = active_.fetch_add(bytes) + bytes + frozen_.load();
  int64_t peak = peak_.load();
  while (total > peak && !peak_.compare_exchange_weak(peak, total)) {
  }
  Announce();
}

void MemTableBudget::Freeze(int id, int64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(sizes_mu_);
    active_of_[id] -= bytes;
  }
  frozen_.fetch_add(bytes);
  active_.fetch_sub(bytes);
  Announce();
}

void MemTableBudget::Release(int id, int64_t frozen, int64_t active) {
  {
    std::lock_guard<std::mutex> lock(sizes_mu_);
    if (auto it = active_of_.find(id); it != active_of_.end()) it->second -= active;  // (gone: unsubscribed)
  }
  frozen_.fetch_sub(frozen);
  active_.fetch_sub(active);
  Announce();
}

bool MemTableBudget::FreezeNext(int id) const {
  if (!Over()) return false;
  std::lock_guard<std::mutex> lock(sizes_mu_);
  int largest = -1;
  int64_t most = 0;
  for (const auto& [writer, bytes] : active_of_) {  // ascending ids: the lowest wins ties
    if (bytes > most) {
      most = bytes;
      largest = writer;
    }
  }
  return largest == id;
}

void MemTableBudget::Reserve(int64_t bytes) { pending_.fetch_add(bytes); }

void MemTableBudget::Unreserve(int64_t bytes) {
  pending_.fetch_sub(bytes);
  Announce();
}

int MemTableBudget::Subscribe(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(mu_);
  subscribers_.emplace(next_id_, std::move(wake));
  return next_id_++;
}

void MemTableBudget::Unsubscribe(int id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    subscribers_.erase(id);
  }
  std::lock_guard<std::mutex> lock(sizes_mu_);
  active_of_.erase(id);
}

void MemTableBudget::Announce() {
  // Under the lock, so that an unsubscribed writer (about to be destroyed) is never woken.
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, wake] : subscribers_) wake();
}

}  // namespace lance::memwal
