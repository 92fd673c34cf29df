// Top-k selection of the nearest vectors, in lance 12's order.
//
// lance 12 sorts a flat search by `_distance` ascending and then by `_rowid` ascending (its
// TopK sort keys), comparing floats in IEEE total order (so -inf < finite < +inf), and drops
// rows whose distance is null (null vectors) or NaN before it takes the k first. TopK keeps
// exactly that: NaN distances are never admitted, ties are broken by the smaller row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace lance::linalg {

struct Neighbor {
  uint64_t row = 0;  // a row position or row id: whatever the caller numbers rows by
  float distance = 0;

  bool operator==(const Neighbor&) const = default;
};

// Sort key of a distance in IEEE total order (as an unsigned integer).
inline uint32_t DistanceKey(float d) {
  uint32_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

// a before b in lance 12's order.
inline bool NeighborBefore(const Neighbor& a, const Neighbor& b) {
  const uint32_t ka = DistanceKey(a.distance), kb = DistanceKey(b.distance);
  return ka != kb ? ka < kb : a.row < b.row;
}

// Keeps the k best of everything pushed. Not thread-safe: one per thread, then Merge.
class TopK {
 public:
  explicit TopK(size_t k);

  size_t k() const { return k_; }

  // Candidates rows first_row, first_row + 1, ... with distances dist[0..n). `valid`, when
  // not null, is an Arrow validity bitmap: bit (valid_offset + i) clear skips candidate i.
  void Push(const float* dist, size_t n, uint64_t first_row, const uint8_t* valid = nullptr,
            int64_t valid_offset = 0);
  void Push(uint64_t row, float distance);
  // Candidates with explicit rows (any order); `valid` as above.
  void Push(const float* dist, const uint64_t* rows, size_t n, const uint8_t* valid = nullptr,
            int64_t valid_offset = 0);
  void Merge(const TopK& other);

  // The k best (fewer when fewer were admitted), nearest first.
  std::vector<Neighbor> Sorted() const;

  // No distance above this can still be admitted (+inf until the first prune; a candidate
  // equal to it may be, by row). For callers that skip work on candidates that cannot enter.
  float bound() const { return bound_distance_; }

 private:
  void Prune();
  bool Admits(uint32_t key, uint64_t row) const {
    return key < bound_key_ || (key == bound_key_ && row < bound_row_);
  }

  size_t k_;
  std::vector<Neighbor> items_;
  // Everything after (bound_key_, bound_row_) is out: the k-th best once k are held.
  uint32_t bound_key_ = 0xffffffffu;
  uint64_t bound_row_ = UINT64_MAX;
  float bound_distance_ = std::numeric_limits<float>::infinity();
};

// The k best of `dist` (rows 0..n), nearest first; a convenience over TopK.
std::vector<Neighbor> SelectTopK(const float* dist, size_t n, size_t k);

}  // namespace lance::linalg
