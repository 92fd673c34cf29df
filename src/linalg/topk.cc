#include "lance/linalg/topk.h"

#include <algorithm>
#include <cmath>

namespace lance::linalg {

TopK::TopK(size_t k) : k_(k) { items_.reserve(k == 0 ? 0 : std::max<size_t>(2 * k, 64)); }

// Keeps the k best in items_ and moves the bound to the k-th.
void TopK::Prune() {
  if (items_.size() <= k_) return;
  std::nth_element(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(k_ - 1),
                   items_.end(), NeighborBefore);
  const Neighbor& kth = items_[k_ - 1];
  bound_key_ = DistanceKey(kth.distance);
  bound_row_ = kth.row;
  bound_distance_ = kth.distance;
  items_.resize(k_);
}

void TopK::Push(uint64_t row, float distance) {
  if (k_ == 0 || std::isnan(distance)) return;
  const uint32_t key = DistanceKey(distance);
  if (!Admits(key, row)) return;
  items_.push_back({row, distance});
  if (items_.size() >= std::max<size_t>(2 * k_, 64)) Prune();
}

void TopK::Push(const float* dist, size_t n, uint64_t first_row, const uint8_t* valid,
                int64_t valid_offset) {
  if (k_ == 0) return;
  const size_t cap = std::max<size_t>(2 * k_, 64);
  for (size_t i = 0; i < n; ++i) {
    const float d = dist[i];
    const uint32_t key = DistanceKey(d);
    const uint64_t row = first_row + i;
    // NaN keys sort above +inf (or below -inf for a negative NaN): test explicitly.
    if (!Admits(key, row) || d != d) continue;
    if (valid != nullptr) {
      const int64_t bit = valid_offset + static_cast<int64_t>(i);
      if (((valid[bit >> 3] >> (bit & 7)) & 1) == 0) continue;
    }
    items_.push_back({row, d});
    if (items_.size() >= cap) Prune();
  }
}

void TopK::Push(const float* dist, const uint64_t* rows, size_t n, const uint8_t* valid,
                int64_t valid_offset) {
  if (valid == nullptr) {
    // Most candidates lie beyond the bound: one float compare rejects them (d > bound means a
    // larger key in IEEE total order, so Push would refuse it too; NaN compares false and
    // goes to Push, which drops it).
    for (size_t i = 0; i < n; ++i) {
      if (dist[i] > bound_distance_) continue;
      Push(rows[i], dist[i]);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    if (valid != nullptr) {
      const int64_t bit = valid_offset + static_cast<int64_t>(i);
      if (((valid[bit >> 3] >> (bit & 7)) & 1) == 0) continue;
    }
    Push(rows[i], dist[i]);
  }
}

void TopK::Merge(const TopK& other) {
  for (const Neighbor& n : other.items_) Push(n.row, n.distance);
}

std::vector<Neighbor> TopK::Sorted() const {
  std::vector<Neighbor> out = items_;
  std::sort(out.begin(), out.end(), NeighborBefore);
  if (out.size() > k_) out.resize(k_);
  return out;
}

std::vector<Neighbor> SelectTopK(const float* dist, size_t n, size_t k) {
  TopK top(k);
  top.Push(dist, n, 0);
  return top.Sorted();
}

}  // namespace lance::linalg
