// Phrase matching over per-term position lists (declared in lance/index/fts/inverted_index.h):
// lance 12's greedy walk for indexed rows, the exhaustive check for rows the index does not cover.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "lance/index/fts/inverted_index.h"

namespace lance::index::fts {

namespace {

// The slop > 0 walk of PhraseMatches (lance 12's): cursors start at each term's first position.
bool SloppyPhraseMatches(const std::vector<const uint32_t*>& begins, const std::vector<const uint32_t*>& ends,
                         const std::vector<uint32_t>& rel, int64_t slop) {
  const size_t n = begins.size();
  std::vector<const uint32_t*> at(begins);
  const auto d = [&](size_t i) { return static_cast<int64_t>(*at[i]) - static_cast<int64_t>(rel[i]); };
  while (true) {
    int64_t move_to = INT64_MIN;
    bool holds = true;
    for (size_t i = 0; i + 1 < n; ++i) {
      if (at[i] == ends[i] || at[i + 1] == ends[i + 1]) return false;
      const int64_t a = d(i), b = d(i + 1);
      move_to = std::max(move_to, a > b ? a : std::max(a + 1, b - slop));
      if (a > b || b > a + slop) {
        holds = false;
        break;
      }
    }
    if (holds) return n == 1 ? at[0] != ends[0] : true;
    for (size_t i = 0; i < n; ++i) {
      // the first position with d >= move_to; every position at or past the cursor's start
      const int64_t least = move_to + static_cast<int64_t>(rel[i]);
      at[i] = least <= 0 ? begins[i]
                         : std::lower_bound(begins[i], ends[i], static_cast<uint64_t>(least),
                                            [](uint32_t p, uint64_t v) { return p < v; });
    }
  }
}

}  // namespace

bool PhraseMatchesAnywhere(const std::vector<const uint32_t*>& begins, const std::vector<const uint32_t*>& ends,
                           const std::vector<uint32_t>& rel, uint32_t slop) {
  if (begins.empty()) return false;
  // the offsets d reachable with term i placed, ascending (positions ascend, so do they)
  std::vector<int64_t> reach, next;
  for (const uint32_t* p = begins[0]; p != ends[0]; ++p) reach.push_back(static_cast<int64_t>(*p) - rel[0]);
  for (size_t i = 1; i < begins.size() && !reach.empty(); ++i) {
    next.clear();
    for (const uint32_t* p = begins[i]; p != ends[i]; ++p) {
      const int64_t d = static_cast<int64_t>(*p) - rel[i];
      // some reached offset in [d - slop, d]
      auto it = std::lower_bound(reach.begin(), reach.end(), d - static_cast<int64_t>(slop));
      if (it != reach.end() && *it <= d) next.push_back(d);
    }
    std::swap(reach, next);
  }
  return !reach.empty();
}

bool PhraseMatches(const std::vector<const uint32_t*>& begins, const std::vector<const uint32_t*>& ends,
                   const std::vector<uint32_t>& rel, uint32_t slop) {
  if (begins.empty()) return false;
  if (slop > 0) return SloppyPhraseMatches(begins, ends, rel, slop);
  for (const uint32_t* p = begins[0]; p != ends[0]; ++p) {
    if (*p < rel[0]) continue;
    const uint64_t start = *p - rel[0];
    bool all = true;
    for (size_t i = 1; i < begins.size() && all; ++i) {
      const uint64_t want = start + rel[i];
      all = std::binary_search(begins[i], ends[i], want, [](uint64_t a, uint64_t b) { return a < b; });
    }
    if (all) return true;
  }
  return false;
}

}  // namespace lance::index::fts
