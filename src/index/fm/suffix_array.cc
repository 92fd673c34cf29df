// SA-IS (Nong, Zhang & Chan, "Two efficient algorithms for linear time suffix array
// construction"): classify suffixes as S / L, sort the LMS substrings by induced sorting,
// name them, recurse on the reduced string when names repeat, then induce the whole suffix
// array from the sorted LMS suffixes. The text ends with a unique smallest symbol (the FM
// text's \x00 terminator; the reduced strings keep that property), so no virtual sentinel is
// needed. Indices are 32-bit when the text allows (half the memory traffic of 64-bit ones),
// the S / L types one byte each.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "lance/index/fm/fm_index.h"

namespace lance::index::fm {
namespace {

template <typename Sym, typename Idx>
class Sais {
 public:
  Sais(const Sym* s, Idx* sa, Idx n, Idx k) : s_(s), sa_(sa), n_(n), k_(k), stype_(static_cast<size_t>(n)) {}

  void Run() {
    if (n_ == 1) {
      sa_[0] = 0;
      return;
    }
    stype_[n_ - 1] = true;
    for (Idx i = n_ - 2; i >= 0; --i) {
      stype_[i] = s_[i] < s_[i + 1] || (s_[i] == s_[i + 1] && stype_[i + 1] != 0);
    }
    counts_.assign(k_, 0);
    for (Idx i = 0; i < n_; ++i) ++counts_[static_cast<size_t>(s_[i])];

    // 1. LMS suffixes at their buckets' ends, induce, collect the sorted LMS substrings.
    std::fill(sa_, sa_ + n_, -1);
    Ends();
    for (Idx i = n_ - 1; i >= 1; --i) {
      if (IsLms(i)) sa_[--bucket_[static_cast<size_t>(s_[i])]] = i;
    }
    InduceL();
    InduceS();
    Idx n1 = 0;
    for (Idx i = 0; i < n_; ++i) {
      if (IsLms(sa_[i])) sa_[n1++] = sa_[i];
    }

    // 2. Name the LMS substrings (equal substrings, equal names), in text order at the end.
    std::fill(sa_ + n1, sa_ + n_, -1);
    Idx names = 0;
    Idx prev = -1;
    for (Idx i = 0; i < n1; ++i) {
      const Idx pos = sa_[i];
      if (prev < 0 || !SameLms(pos, prev)) {
        ++names;
        prev = pos;
      }
      sa_[n1 + pos / 2] = names - 1;
    }
    for (Idx i = n_ - 1, j = n_ - 1; i >= n1; --i) {
      if (sa_[i] >= 0) sa_[j--] = sa_[i];
    }
    Idx* reduced = sa_ + n_ - n1;
    if (names < n1) {
      std::vector<Idx> sub(reduced, reduced + n1);
      Sais<Idx, Idx>(sub.data(), sa_, n1, names).Run();
    } else {
      for (Idx i = 0; i < n1; ++i) sa_[reduced[i]] = i;
    }

    // 3. The LMS suffixes in sorted order at their buckets' ends, induce the rest.
    for (Idx i = 1, j = 0; i < n_; ++i) {
      if (IsLms(i)) reduced[j++] = i;
    }
    for (Idx i = 0; i < n1; ++i) sa_[i] = reduced[sa_[i]];
    std::fill(sa_ + n1, sa_ + n_, -1);
    Ends();
    for (Idx i = n1 - 1; i >= 0; --i) {
      const Idx j = sa_[i];
      sa_[i] = -1;
      sa_[--bucket_[static_cast<size_t>(s_[j])]] = j;
    }
    InduceL();
    InduceS();
  }

 private:
  bool IsLms(Idx i) const { return i > 0 && stype_[i] && !stype_[i - 1]; }

  bool SameLms(Idx a, Idx b) const {
    for (Idx d = 0;; ++d) {
      if (a + d >= n_ || b + d >= n_) return false;
      if (s_[a + d] != s_[b + d] || stype_[a + d] != stype_[b + d]) return false;
      if (d > 0 && (IsLms(a + d) || IsLms(b + d))) return IsLms(a + d) && IsLms(b + d);
    }
  }

  void Starts() {
    bucket_.resize(k_);
    Idx sum = 0;
    for (Idx c = 0; c < k_; ++c) {
      bucket_[c] = sum;
      sum += counts_[c];
    }
  }
  void Ends() {
    bucket_.resize(k_);
    Idx sum = 0;
    for (Idx c = 0; c < k_; ++c) {
      sum += counts_[c];
      bucket_[c] = sum;
    }
  }
  void InduceL() {
    Starts();
    for (Idx i = 0; i < n_; ++i) {
      const Idx j = sa_[i] - 1;
      if (sa_[i] > 0 && !stype_[j]) sa_[bucket_[static_cast<size_t>(s_[j])]++] = j;
    }
  }
  void InduceS() {
    Ends();
    for (Idx i = n_ - 1; i >= 0; --i) {
      const Idx j = sa_[i] - 1;
      if (sa_[i] > 0 && stype_[j]) sa_[--bucket_[static_cast<size_t>(s_[j])]] = j;
    }
  }

  const Sym* s_;
  Idx* sa_;
  Idx n_;
  Idx k_;
  std::vector<uint8_t> stype_;
  std::vector<Idx> counts_;
  std::vector<Idx> bucket_;
};

}  // namespace

std::vector<int64_t> FmSuffixArray(std::string_view text) {
  std::vector<int64_t> sa(text.size());
  if (text.empty()) return sa;
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  if (text.size() < static_cast<size_t>(INT32_MAX)) {
    std::vector<int32_t> sa32(text.size());
    Sais<uint8_t, int32_t>(s, sa32.data(), static_cast<int32_t>(text.size()), 256).Run();
    std::copy(sa32.begin(), sa32.end(), sa.begin());
  } else {
    Sais<uint8_t, int64_t>(s, sa.data(), static_cast<int64_t>(text.size()), 256).Run();
  }
  return sa;
}

}  // namespace lance::index::fm
