// SA-IS (Nong, Zhang & Chan, "Two efficient algorithms for linear time suffix array
// construction"): classify suffixes as S / L, sort the LMS substrings by induced sorting,
// name them, recurse on the reduced string when names repeat, then induce the whole suffix
// array from the sorted LMS suffixes. The text ends with a unique smallest symbol (the FM
// text's \x00 terminator; the reduced strings keep that property), so no virtual sentinel is
// needed.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "lance/index/fm/fm_index.h"

namespace lance::index::fm {
namespace {

template <typename Sym>
class Sais {
 public:
  Sais(const Sym* s, int64_t* sa, int64_t n, int64_t k) : s_(s), sa_(sa), n_(n), k_(k), stype_(n) {}

  void Run() {
    if (n_ == 1) {
      sa_[0] = 0;
      return;
    }
    stype_[n_ - 1] = true;
    for (int64_t i = n_ - 2; i >= 0; --i) {
      stype_[i] = s_[i] < s_[i + 1] || (s_[i] == s_[i + 1] && stype_[i + 1]);
    }
    counts_.assign(k_, 0);
    for (int64_t i = 0; i < n_; ++i) ++counts_[static_cast<size_t>(s_[i])];

    // 1. LMS suffixes at their buckets' ends, induce, collect the sorted LMS substrings.
    std::fill(sa_, sa_ + n_, -1);
    Ends();
    for (int64_t i = n_ - 1; i >= 1; --i) {
      if (IsLms(i)) sa_[--bucket_[static_cast<size_t>(s_[i])]] = i;
    }
    InduceL();
    InduceS();
    int64_t n1 = 0;
    for (int64_t i = 0; i < n_; ++i) {
      if (IsLms(sa_[i])) sa_[n1++] = sa_[i];
    }

    // 2. Name the LMS substrings (equal substrings, equal names), in text order at the end.
    std::fill(sa_ + n1, sa_ + n_, -1);
    int64_t names = 0;
    int64_t prev = -1;
    for (int64_t i = 0; i < n1; ++i) {
      const int64_t pos = sa_[i];
      if (prev < 0 || !SameLms(pos, prev)) {
        ++names;
        prev = pos;
      }
      sa_[n1 + pos / 2] = names - 1;
    }
    for (int64_t i = n_ - 1, j = n_ - 1; i >= n1; --i) {
      if (sa_[i] >= 0) sa_[j--] = sa_[i];
    }
    int64_t* reduced = sa_ + n_ - n1;
    if (names < n1) {
      std::vector<int64_t> sub(reduced, reduced + n1);
      Sais<int64_t>(sub.data(), sa_, n1, names).Run();
    } else {
      for (int64_t i = 0; i < n1; ++i) sa_[reduced[i]] = i;
    }

    // 3. The LMS suffixes in sorted order at their buckets' ends, induce the rest.
    for (int64_t i = 1, j = 0; i < n_; ++i) {
      if (IsLms(i)) reduced[j++] = i;
    }
    for (int64_t i = 0; i < n1; ++i) sa_[i] = reduced[sa_[i]];
    std::fill(sa_ + n1, sa_ + n_, -1);
    Ends();
    for (int64_t i = n1 - 1; i >= 0; --i) {
      const int64_t j = sa_[i];
      sa_[i] = -1;
      sa_[--bucket_[static_cast<size_t>(s_[j])]] = j;
    }
    InduceL();
    InduceS();
  }

 private:
  bool IsLms(int64_t i) const { return i > 0 && stype_[i] && !stype_[i - 1]; }

  bool SameLms(int64_t a, int64_t b) const {
    for (int64_t d = 0;; ++d) {
      if (a + d >= n_ || b + d >= n_) return false;
      if (s_[a + d] != s_[b + d] || stype_[a + d] != stype_[b + d]) return false;
      if (d > 0 && (IsLms(a + d) || IsLms(b + d))) return IsLms(a + d) && IsLms(b + d);
    }
  }

  void Starts() {
    bucket_.resize(k_);
    int64_t sum = 0;
    for (int64_t c = 0; c < k_; ++c) {
      bucket_[c] = sum;
      sum += counts_[c];
    }
  }
  void Ends() {
    bucket_.resize(k_);
    int64_t sum = 0;
    for (int64_t c = 0; c < k_; ++c) {
      sum += counts_[c];
      bucket_[c] = sum;
    }
  }
  void InduceL() {
    Starts();
    for (int64_t i = 0; i < n_; ++i) {
      const int64_t j = sa_[i] - 1;
      if (sa_[i] > 0 && !stype_[j]) sa_[bucket_[static_cast<size_t>(s_[j])]++] = j;
    }
  }
  void InduceS() {
    Ends();
    for (int64_t i = n_ - 1; i >= 0; --i) {
      const int64_t j = sa_[i] - 1;
      if (sa_[i] > 0 && stype_[j]) sa_[--bucket_[static_cast<size_t>(s_[j])]] = j;
    }
  }

  const Sym* s_;
  int64_t* sa_;
  int64_t n_;
  int64_t k_;
  std::vector<bool> stype_;
  std::vector<int64_t> counts_;
  std::vector<int64_t> bucket_;
};

}  // namespace

std::vector<int64_t> FmSuffixArray(std::string_view text) {
  std::vector<int64_t> sa(text.size());
  if (text.empty()) return sa;
  Sais<uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), sa.data(), static_cast<int64_t>(text.size()), 256)
      .Run();
  return sa;
}

}  // namespace lance::index::fm
