// The FM text's BWT and SA samples without sorting its bytes' suffixes one by one.
//
// Cut the text after every separator byte (kSeparator: bytes up to ' ', \xFF, \x00) into
// tokens: each is a run of other bytes and one separator. Such strings never have one as a
// proper prefix of another, and neither have their tails (a token from any offset on), so:
//   * two suffixes starting in tokens compare as their tails do when the tails differ, and
//     else as the suffixes starting at the tokens that follow;
//   * the suffixes starting at token boundaries compare as the token sequences do, each
//     token ranked by its bytes.
// The build: the distinct tokens' tails sorted once (a suffix array of the distinct tokens
// laid end to end: a few tens of KB per partition), the token sequence's suffix array by
// SA-IS over token ranks (a few hundred thousand symbols instead of 1.5 million bytes), then
// one pass over that suffix array in order: each word suffix's preceding token puts each of
// its positions at the next free slot of its tail's bucket. Within a bucket the positions
// arrive ordered by what follows their token, so every slot gets its final suffix, whose BWT
// byte and (every kFmSampleRate-th slot) sample are written there; the byte suffix array is
// never held. The answer is the suffix array's (it is unique), so the files equal a plain
// sort's. Texts this does not suit (a \x00 before the end, long tokens, few repeats) say
// false and take the byte sorter.
#include <divsufsort.h>

#include <algorithm>
#include <bit>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lance/index/fm/fm_index.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lance::index::fm {
namespace {

constexpr std::array<bool, 256> SeparatorTable() {
  std::array<bool, 256> t{};
  for (int c = 0; c <= 0x20; ++c) t[static_cast<size_t>(c)] = true;
  t[0xFF] = true;
  return t;
}
constexpr std::array<bool, 256> kSeparator = SeparatorTable();
constexpr uint32_t kMaxTokenBytes = 256;

// SA-IS (Nong, Zhang & Chan) over symbols below k; the text ends with a unique smallest
// symbol (the FM text's \x00 token; the reduced strings keep that), so no virtual sentinel.
// Sym: uint16_t when the symbols fit (half the random reads of the induce passes), the
// reduced strings int32_t.
template <typename Sym>
class Sais {
 public:
  Sais(const Sym* s, int32_t* sa, int32_t n, int32_t k) : s_(s), sa_(sa), n_(n), k_(k), stype_(static_cast<size_t>(n)) {}

  void Run() {
    if (n_ == 1) {
      sa_[0] = 0;
      return;
    }
    stype_[n_ - 1] = 1;
    for (int32_t i = n_ - 2; i >= 0; --i) {
      stype_[i] = s_[i] < s_[i + 1] || (s_[i] == s_[i + 1] && stype_[i + 1] != 0);
    }
    counts_.assign(static_cast<size_t>(k_), 0);
    for (int32_t i = 0; i < n_; ++i) ++counts_[static_cast<size_t>(s_[i])];
    // 1. LMS suffixes at their buckets' ends, induce, collect the sorted LMS substrings.
    std::fill(sa_, sa_ + n_, -1);
    Ends();
    for (int32_t i = n_ - 1; i >= 1; --i) {
      if (IsLms(i)) sa_[--bucket_[static_cast<size_t>(s_[i])]] = i;
    }
    InduceL();
    InduceS();
    int32_t n1 = 0;
    for (int32_t i = 0; i < n_; ++i) {
      if (IsLms(sa_[i])) sa_[n1++] = sa_[i];
    }
    // 2. Name the LMS substrings (equal substrings, equal names), in text order at the end.
    Clear(n1);
    int32_t names = 0, prev = -1;
    for (int32_t i = 0; i < n1; ++i) {
      const int32_t pos = sa_[i];
      if (prev < 0 || !SameLms(pos, prev)) {
        ++names;
        prev = pos;
      }
      sa_[n1 + pos / 2] = names - 1;
    }
    for (int32_t i = n_ - 1, j = n_ - 1; i >= n1; --i) {
      if (sa_[i] >= 0) sa_[j--] = sa_[i];
    }
    int32_t* reduced = sa_ + n_ - n1;
    if (names < n1) {
      std::vector<int32_t> sub(reduced, reduced + n1);
      Sais<int32_t>(sub.data(), sa_, n1, names).Run();
    } else {
      for (int32_t i = 0; i < n1; ++i) sa_[reduced[i]] = i;
    }
    // 3. The LMS suffixes in sorted order at their buckets' ends, induce the rest.
    for (int32_t i = 1, j = 0; i < n_; ++i) {
      if (IsLms(i)) reduced[j++] = i;
    }
    for (int32_t i = 0; i < n1; ++i) sa_[i] = reduced[sa_[i]];
    Clear(n1);
    Ends();
    for (int32_t i = n1 - 1; i >= 0; --i) {
      const int32_t j = sa_[i];
      sa_[i] = -1;
      sa_[--bucket_[static_cast<size_t>(s_[j])]] = j;
    }
    InduceL();
    InduceS();
  }

 private:
  // sa_[from..n_) = -1 (a loop: GCC 12 warns about a std::fill it cannot bound)
  void Clear(int32_t from) {
    for (int32_t i = from; i < n_; ++i) sa_[i] = -1;
  }
  bool IsLms(int32_t i) const { return i > 0 && stype_[i] && !stype_[i - 1]; }
  bool SameLms(int32_t a, int32_t b) const {
    for (int32_t d = 0;; ++d) {
      if (a + d >= n_ || b + d >= n_) return false;
      if (s_[a + d] != s_[b + d] || stype_[a + d] != stype_[b + d]) return false;
      if (d > 0 && (IsLms(a + d) || IsLms(b + d))) return IsLms(a + d) && IsLms(b + d);
    }
  }
  void Starts() {
    bucket_.resize(static_cast<size_t>(k_));
    int32_t sum = 0;
    for (int32_t c = 0; c < k_; ++c) {
      bucket_[c] = sum;
      sum += counts_[c];
    }
  }
  void Ends() {
    bucket_.resize(static_cast<size_t>(k_));
    int32_t sum = 0;
    for (int32_t c = 0; c < k_; ++c) {
      sum += counts_[c];
      bucket_[c] = sum;
    }
  }
  void InduceL() {
    Starts();
    for (int32_t i = 0; i < n_; ++i) {
      const int32_t j = sa_[i] - 1;
      if (sa_[i] > 0 && !stype_[j]) sa_[bucket_[static_cast<size_t>(s_[j])]++] = j;
    }
  }
  void InduceS() {
    Ends();
    for (int32_t i = n_ - 1; i >= 0; --i) {
      const int32_t j = sa_[i] - 1;
      if (sa_[i] > 0 && stype_[j]) sa_[--bucket_[static_cast<size_t>(s_[j])]] = j;
    }
  }

  const Sym* s_;
  int32_t* sa_;
  int32_t n_, k_;
  std::vector<uint8_t> stype_;
  std::vector<int32_t> counts_, bucket_;
};

struct Token {
  uint32_t start, id;
};

// A hash of the token's bytes, 8 at a time (`room`: the bytes readable from p).
inline uint64_t HashToken(const uint8_t* p, uint32_t len, size_t room) {
  uint64_t h = 0x9E3779B97F4A7C15ull * (len + 1);
  uint32_t left = len;
  for (; left >= 8; p += 8, left -= 8, room -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
  }
  if (left > 0) {
    uint64_t w = 0;
    if (std::endian::native == std::endian::little && room >= 8) {
      std::memcpy(&w, p, 8);
      w &= ~uint64_t{0} >> (64 - 8 * left);  // the first `left` bytes
    } else {
      std::memcpy(&w, p, left);
    }
    h = (h ^ w) * 0x94d049bb133111ebull;
    h ^= h >> 31;
  }
  return h;
}

// Distinct tokens by their bytes (open addressing over (hash, id)), their bytes kept end to end
// in `bytes` (token id t at [starts[t], starts[t + 1])): a lookup compares against that small
// array, not the text where the token was first seen.
class TokenTable {
 public:
  TokenTable() {
    Resize(1u << 14);
    starts.push_back(0);
  }

  // The id of the token `p[0, len)` with hash h (a new one: the next id).
  uint32_t Intern(const uint8_t* p, uint32_t len, uint64_t h) {
    const auto h32 = static_cast<uint32_t>(h);
    for (size_t at = h32 & mask_;; at = (at + 1) & mask_) {
      Slot& sl = slots_[at];
      if (sl.id == kEmpty) {
        const auto id = static_cast<uint32_t>(starts.size() - 1);
        sl = Slot{h32, id};
        bytes.append(reinterpret_cast<const char*>(p), len);
        starts.push_back(static_cast<uint32_t>(bytes.size()));
        if (starts.size() * 2 > slots_.size()) Resize(slots_.size() * 2);
        return id;
      }
      if (sl.hash == h32 && starts[sl.id + 1] - starts[sl.id] == len &&
          std::memcmp(bytes.data() + starts[sl.id], p, len) == 0) {
        return sl.id;
      }
    }
  }
  size_t size() const { return starts.size() - 1; }
  uint32_t len(uint32_t t) const { return starts[t + 1] - starts[t]; }

  std::string bytes;
  std::vector<uint32_t> starts;

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint32_t hash = 0;
    uint32_t id = kEmpty;
  };
  void Resize(size_t size) {
    std::vector<Slot> old(size);
    old.swap(slots_);
    mask_ = size - 1;
    for (const Slot& sl : old) {
      if (sl.id == kEmpty) continue;
      size_t at = sl.hash & mask_;
      while (slots_[at].id != kEmpty) at = (at + 1) & mask_;
      slots_[at] = sl;
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

}  // namespace

bool FmBwtByTokens(std::string_view text, std::string* bwt, std::vector<uint64_t>* samples, bool force) {
  const size_t n = text.size();
  if (n < 2 || n >= static_cast<size_t>(INT32_MAX) || text[n - 1] != '\0' ||
      !kSeparator[static_cast<unsigned char>(text[n - 2])]) {
    return false;
  }
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  // 1. The tokens in text order (start, distinct id); the last is the lone \x00.
  TokenTable table;
  std::vector<Token> toks;
  toks.reserve(n / 6 + 16);
  uint32_t start = 0;
  bool ok = true;
  const auto token_ends_at = [&](uint32_t i) {
    const uint32_t len = i + 1 - start;
    ok = ok && len <= kMaxTokenBytes && (s[i] != 0 || i + 1 == n);  // the terminator unique
    if (!ok) return;
    toks.push_back(Token{start, table.Intern(s + start, len, HashToken(s + start, len, n - start))});
    start = i + 1;
  };
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i v20 = _mm_set1_epi8(0x20), vff = _mm_set1_epi8(static_cast<char>(0xFF));
  for (; i + 16 <= n && ok; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i sep = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, v20), x), _mm_cmpeq_epi8(x, vff));
    for (auto mask = static_cast<uint32_t>(_mm_movemask_epi8(sep)); mask != 0; mask &= mask - 1) {
      token_ends_at(static_cast<uint32_t>(i) + static_cast<uint32_t>(std::countr_zero(mask)));
    }
  }
#endif
  for (; i < n && ok; ++i) {
    if (kSeparator[s[i]]) token_ends_at(static_cast<uint32_t>(i));
  }
  if (!ok) return false;
  const size_t m = toks.size();
  const size_t d = table.size();
  // 2. The distinct tokens end to end (the table's bytes); their suffix array orders every
  // tail (a tail runs to its token's separator; equal tails sit side by side), ranked densely
  // into buckets.
  const std::vector<uint32_t>& cstart = table.starts;
  const size_t p = cstart[d];
  if (!force && p * 4 > n) return false;  // few repeats: the byte sorter is as quick
  const std::string& ctext = table.bytes;
  std::vector<uint32_t> cend(p);  // per tail: where it ends in ctext
  for (size_t t = 0; t < d; ++t) {
    for (uint32_t q = cstart[t]; q < cstart[t + 1]; ++q) cend[q] = cstart[t + 1];
  }
  std::vector<int32_t> csa(p);
  divsufsort(reinterpret_cast<const sauchar_t*>(ctext.data()), csa.data(), static_cast<saidx_t>(p));
  std::vector<uint32_t> prank(p);
  uint32_t buckets = 0;
  for (size_t i = 0; i < p; ++i) {
    const auto q = static_cast<uint32_t>(csa[i]);
    if (i > 0) {
      const auto q0 = static_cast<uint32_t>(csa[i - 1]);
      const uint32_t len = cend[q] - q;
      if (cend[q0] - q0 != len || std::memcmp(ctext.data() + q, ctext.data() + q0, len) != 0) ++buckets;
    }
    prank[q] = buckets;
  }
  ++buckets;
  // 3. The token sequence's symbols: the whole tokens' ranks, dense (the \x00 token is 0).
  std::vector<int32_t> dense(buckets, -1);
  for (size_t t = 0; t < d; ++t) dense[prank[cstart[t]]] = 0;
  int32_t symbols = 0;
  for (auto& v : dense) {
    if (v == 0) v = symbols++;
  }
  std::vector<int32_t> wsa(m);
  const auto word_sa = [&](auto sym) {
    using Sym = decltype(sym);
    std::vector<Sym> seq(m);
    for (size_t k = 0; k < m; ++k) seq[k] = static_cast<Sym>(dense[prank[cstart[toks[k].id]]]);
    if (seq[m - 1] != 0) return false;
    Sais<Sym>(seq.data(), wsa.data(), static_cast<int32_t>(m), symbols).Run();
    return true;
  };
  if (!(symbols <= 65536 ? word_sa(uint16_t{0}) : word_sa(int32_t{0}))) return false;
  // 4. Bucket starts: each tail's count is its token's occurrences.
  std::vector<uint32_t> occ(d, 0);
  for (const Token& tk : toks) ++occ[tk.id];
  std::vector<uint32_t> next(buckets + 1, 0);
  for (size_t t = 0; t < d; ++t) {
    for (uint32_t q = cstart[t]; q < cstart[t + 1]; ++q) next[prank[q] + 1] += occ[t];
  }
  for (size_t b = 0; b < buckets; ++b) next[b + 1] += next[b];
  // 5. Token k's positions, by ascending suffix of token k + 1 (the last token's first: what
  // follows it is empty).
  bwt->assign(n, '\0');
  samples->assign((n + kFmSampleRate - 1) / kFmSampleRate, 0);
  char* out = bwt->data();
  uint64_t* smp = samples->data();
  const auto place = [&](size_t k) {
    const uint32_t t = toks[k].id;
    const uint32_t at = toks[k].start;
    const uint32_t* pr = prank.data() + cstart[t];
    const uint32_t len = table.len(t);
    for (uint32_t o = 0; o < len; ++o) {
      const uint32_t slot = next[pr[o]]++;
      const uint32_t pos = at + o;
      out[slot] = text[pos == 0 ? n - 1 : pos - 1];
      if (slot % kFmSampleRate == 0) smp[slot / kFmSampleRate] = pos;
    }
  };
  place(m - 1);
  // wsa's tokens are random in the text: their entries fetched ahead, then their bytes and
  // tails' ranks
  constexpr size_t kAhead = 16;
  for (size_t j = 0; j < m; ++j) {
    if (j + kAhead < m && wsa[j + kAhead] > 0) __builtin_prefetch(&toks[static_cast<size_t>(wsa[j + kAhead] - 1)]);
    if (j + kAhead / 2 < m && wsa[j + kAhead / 2] > 0) {
      const Token& tk = toks[static_cast<size_t>(wsa[j + kAhead / 2] - 1)];
      __builtin_prefetch(s + tk.start);
      __builtin_prefetch(prank.data() + cstart[tk.id]);
    }
    const int32_t w = wsa[j];
    if (w > 0) place(static_cast<size_t>(w - 1));
  }
  return true;
}

}  // namespace lance::index::fm
