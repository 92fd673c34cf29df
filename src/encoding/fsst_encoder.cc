#include "encoding/fsst_encoder.h"

#include <algorithm>
#include <cstring>

namespace lance::encoding {

namespace {

constexpr uint64_t kFsstMagic = 0x46535354;  // "FSST"
constexpr int kMaxSymbols = 255;
constexpr int kRounds = 5;

uint64_t Mask(int len) { return len >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1; }

int LengthOf(uint16_t entry) { return (entry >> 8) & 0xf; }

}  // namespace

void FsstEncoder::BuildIndex() {
  single_.fill(kEscapeEntry);
  for (size_t c = 0; c < symbols_.size(); ++c) {
    if (lengths_[c] == 1) single_[symbols_[c] & 0xff] = static_cast<uint16_t>(c | 1 << 8);
  }
  // Each run of 256 entries with one second byte starts as single_, then the 2-byte symbols.
  short_.resize(65536);
  for (size_t b1 = 0; b1 < 256; ++b1) std::memcpy(short_.data() + 256 * b1, single_.data(), 256 * sizeof(uint16_t));
  slots_.resize(kSlots);
  const uint32_t zero_slot = SlotOf(0);  // (SlotOf(1) differs)
  for (size_t s = 0; s < kSlots; ++s) slots_[s] = Slot{uint64_t{s == zero_slot ? 1u : 0u} << 40, 40, 0};
  // Train picks at most one symbol of 3+ bytes per slot (slot_taken), so none is overwritten.
  for (size_t c = 0; c < symbols_.size(); ++c) {
    const int len = lengths_[c];
    if (len == 2) {
      short_[symbols_[c] & 0xffff] = static_cast<uint16_t>(c | 2 << 8);
    } else if (len >= 3) {
      const uint32_t s = SlotOf(symbols_[c]);
      const uint32_t shift = static_cast<uint32_t>(64 - 8 * len);
      slots_[s] = Slot{symbols_[c] << shift, shift, static_cast<uint16_t>(c | static_cast<size_t>(len) << 8)};
    }
  }
}

[[gnu::always_inline]] inline uint16_t FsstEncoder::MatchTail(uint64_t word, size_t left) const {
  const Slot& slot = slots_[SlotOf(word)];
  if (static_cast<size_t>(LengthOf(slot.entry)) <= left && (word << slot.shift) == slot.key) return slot.entry;
  return left >= 2 ? short_[word & 0xffff] : single_[word & 0xff];
}

[[gnu::always_inline]] inline uint16_t FsstEncoder::MatchFull(const Slot* slots, const uint16_t* shorts,
                                                           uint64_t word) {
  const Slot& slot = slots[SlotOf(word)];
  // Both answers loaded, then a select (a conditional move, not a branch: whether a long
  // symbol matches is a coin toss).
  const uint16_t two = shorts[word & 0xffff];
  const uint16_t long_entry = slot.entry;
  return (word << slot.shift) == slot.key ? long_entry : two;
}

// (Inlined into each caller: emit's output pointer then stays in a register, where a call
// would make every byte stored through it a possible write to the pointer itself.)
template <typename Emit>
[[gnu::always_inline]] inline void FsstEncoder::Encode(const uint8_t* p, size_t n, Emit&& emit) const {
  const uint8_t* const end = p + n;
  // (The tables' addresses in locals: a store through emit's byte pointer might otherwise
  // change them, as far as the compiler knows, and they would be loaded again per code.)
  const Slot* const slots = slots_.data();
  const uint16_t* const shorts = short_.data();
  // With 8 bytes left every symbol fits: one load, both lookups, a select.
  while (end - p >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    const uint16_t entry = MatchFull(slots, shorts, word);
    emit(entry, static_cast<uint8_t>(word));
    p += LengthOf(entry);
  }
  // The last bytes, copied once past zeros; a symbol must fit in what is left.
  const size_t tail = static_cast<size_t>(end - p);
  if (tail == 0) return;
  uint8_t buf[16] = {};
  std::memcpy(buf, p, tail);
  for (size_t at = 0; at < tail;) {
    uint64_t word;
    std::memcpy(&word, buf + at, 8);
    const uint16_t entry = MatchTail(word, tail - at);
    emit(entry, static_cast<uint8_t>(word));
    at += static_cast<size_t>(LengthOf(entry));
  }
}

FsstEncoder FsstEncoder::Train(const std::vector<std::string_view>& sample) {
  FsstEncoder enc;
  enc.BuildIndex();
  // Codes 0..254 are symbols, 256 + b the literal byte b.
  constexpr int kCodes = 512;
  // Pair counts are dense (one increment each) but only the pairs seen are visited and
  // cleared: a round costs the sample's length, not 512 * 512. So the 1 MiB of pair counts
  // is all zeros between rounds and between calls: each thread keeps one (a page's training
  // would otherwise spend more on zeroing and faulting it in than on a round).
  thread_local std::vector<uint32_t> count2;
  count2.resize(static_cast<size_t>(kCodes) * kCodes);
  std::vector<uint32_t> count1(kCodes);
  std::vector<uint32_t> seen;  // indices of count2 that are non-zero
  auto text_of = [&](int code, uint64_t* sym, int* len) {
    if (code >= 256) {
      *sym = static_cast<uint64_t>(code - 256);
      *len = 1;
    } else {
      *sym = enc.symbols_[static_cast<size_t>(code)];
      *len = enc.lengths_[static_cast<size_t>(code)];
    }
  };
  struct Gain {
    uint64_t sym;
    uint64_t gain;
    int len;
  };
  std::vector<Gain> gains;
  std::vector<int32_t> table;  // slots into gains, -1 empty
  std::vector<bool> slot_taken(kSlots);
  for (int round = 0; round < kRounds; ++round) {
    std::fill(count1.begin(), count1.end(), 0);
    for (std::string_view s : sample) {
      int prev = -1;
      enc.Encode(reinterpret_cast<const uint8_t*>(s.data()), s.size(), [&](uint16_t entry, uint8_t literal)
                                                                           __attribute__((always_inline)) {
        const int code = entry >> 12 ? 256 + literal : entry & 0xff;
        ++count1[static_cast<size_t>(code)];
        if (prev >= 0) {
          const uint32_t at = static_cast<uint32_t>(prev) * kCodes + static_cast<uint32_t>(code);
          if (count2[at]++ == 0) seen.push_back(at);
        }
        prev = code;
      });
    }
    // Candidates (a symbol's text is its little-endian u64 and length) by gain = count * length,
    // summed over the ways a candidate arises.
    gains.clear();
    for (int c = 0; c < kCodes; ++c) {
      if (count1[static_cast<size_t>(c)] == 0) continue;
      uint64_t sym;
      int len;
      text_of(c, &sym, &len);
      gains.push_back({sym, uint64_t{count1[static_cast<size_t>(c)]} * static_cast<uint64_t>(len), len});
    }
    // A pair seen once adds at most 8 to a candidate's gain: when there are plenty of pairs
    // seen twice or more, those seen once are left out (most pairs of a large sample are seen
    // once, and they would fill the tables below for nothing).
    size_t repeated = 0;
    for (const uint32_t at : seen) repeated += count2[at] >= 2;
    const uint32_t min_count = repeated >= 4 * kMaxSymbols ? 2 : 1;
    for (const uint32_t at : seen) {
      const uint32_t count = count2[at];
      count2[at] = 0;
      if (count < min_count) continue;
      uint64_t sa, sb;
      int la, lb;
      text_of(static_cast<int>(at / kCodes), &sa, &la);
      if (la >= 8) continue;
      text_of(static_cast<int>(at % kCodes), &sb, &lb);
      const int len = std::min(8, la + lb);
      gains.push_back({(sa | (sb << (8 * la))) & Mask(len), uint64_t{count} * static_cast<uint64_t>(len), len});
    }
    seen.clear();
    // Equal candidates summed through an open-addressing table (no sort of every pair).
    size_t cap = 1024;
    while (cap < 2 * gains.size()) cap *= 2;
    table.assign(cap, -1);
    size_t unique = 0;
    for (size_t i = 0; i < gains.size(); ++i) {
      const Gain g = gains[i];
      size_t h = static_cast<size_t>(((g.sym ^ static_cast<uint64_t>(g.len) << 61) * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
      while (true) {
        const int32_t at = table[h];
        if (at < 0) {
          table[h] = static_cast<int32_t>(unique);
          gains[unique++] = g;
          break;
        }
        Gain& u = gains[static_cast<size_t>(at)];
        if (u.sym == g.sym && u.len == g.len) {
          u.gain += g.gain;
          break;
        }
        h = (h + 1) & (cap - 1);
      }
    }
    gains.resize(unique);
    const auto better = [](const Gain& x, const Gain& y) {
      if (x.gain != y.gain) return x.gain > y.gain;
      if (x.len != y.len) return x.len > y.len;
      return x.sym < y.sym;
    };
    // The best candidates in order, skipping one of 3+ bytes whose hash slot a better one
    // holds. Only a head of the order is sorted unless the skips use it up.
    size_t sorted = std::min<size_t>(gains.size(), 2 * kMaxSymbols);
    if (sorted < gains.size()) {
      std::nth_element(gains.begin(), gains.begin() + static_cast<std::ptrdiff_t>(sorted), gains.end(), better);
    }
    std::sort(gains.begin(), gains.begin() + static_cast<std::ptrdiff_t>(sorted), better);
    enc.symbols_.clear();
    enc.lengths_.clear();
    std::fill(slot_taken.begin(), slot_taken.end(), false);
    for (size_t i = 0; i < gains.size() && enc.symbols_.size() < kMaxSymbols; ++i) {
      if (i == sorted) {
        std::sort(gains.begin() + static_cast<std::ptrdiff_t>(sorted), gains.end(), better);
        sorted = gains.size();
      }
      const Gain& g = gains[i];
      if (g.len >= 3) {
        const uint32_t s = SlotOf(g.sym);
        if (slot_taken[s]) continue;
        slot_taken[s] = true;
      }
      enc.symbols_.push_back(g.sym);
      enc.lengths_.push_back(static_cast<uint8_t>(g.len));
    }
    enc.BuildIndex();
  }
  return enc;
}

std::string FsstEncoder::SymbolTable() const {
  std::string out(kFsstSymbolTableBytes, '\0');
  const uint64_t n = symbols_.size();
  const uint64_t header = kFsstMagic << 32 | uint64_t{1} << 24 | (n & 0xff) << 16 | n;
  std::memcpy(out.data(), &header, 8);
  std::memcpy(out.data() + 8, symbols_.data(), 8 * n);
  std::memcpy(out.data() + 8 + 8 * n, lengths_.data(), n);
  return out;
}

void FsstEncoder::Compress(std::string_view in, std::string* out) const {
  const size_t start = out->size();
  out->resize(start + 2 * in.size());
  const size_t wrote = CompressInto(reinterpret_cast<const uint8_t*>(in.data()), in.size(),
                                    reinterpret_cast<uint8_t*>(out->data() + start));
  out->resize(start + wrote);
}

size_t FsstEncoder::CompressInto(const uint8_t* p, size_t n, uint8_t* out) const {
  uint8_t* o = out;
  // Both bytes are written every time; the second counts only after an escape (the 2 * n
  // room holds the extra byte: each code's bytes are at most twice the input it consumes).
  Encode(p, n, [&o](uint16_t entry, uint8_t literal) {
    o[0] = static_cast<uint8_t>(entry);
    o[1] = literal;
    o += 1 + (entry >> 12);
  });
  return static_cast<size_t>(o - out);
}

namespace {

// One run of values that CompressValues compresses: the value at hand (p to end), where its
// codes go (o), the next value (i) and the run's last (last).
struct Run {
  const uint8_t* p;
  const uint8_t* end;
  uint8_t* o;
  int64_t i;
  int64_t last;
};

}  // namespace

size_t FsstEncoder::CompressValues(const uint8_t* base, size_t base_size, const int64_t* offsets,
                                   int64_t n, uint8_t* out, int64_t* ends) const {
  if (n <= 0) return 0;
  const uint8_t* const readable = base + base_size;
  const Slot* const slots = slots_.data();  // (locals: see Encode)
  const uint16_t* const shorts = short_.data();
  const int64_t first_byte = offsets[0];
  // Four runs of about equal bytes; run r writes from twice the input bytes before it (its
  // codes cannot reach the next run's), and the runs are moved together at the end.
  constexpr int kRuns = 4;
  const int64_t total = offsets[n] - first_byte;
  Run runs[kRuns];
  uint8_t* starts[kRuns];
  int64_t v = 0;
  for (int r = 0; r < kRuns; ++r) {
    const int64_t lo = v;
    const int64_t want = first_byte + total * (r + 1) / kRuns;
    while (v < n && (offsets[v + 1] <= want || r == kRuns - 1)) ++v;
    starts[r] = out + 2 * (offsets[lo] - first_byte);
    runs[r] = Run{base + offsets[lo], base + offsets[lo], starts[r], lo, v};
  }
  // One code of a run with 8+ bytes left in its value.
  auto code = [&](Run& run) __attribute__((always_inline)) {
    uint64_t word;
    std::memcpy(&word, run.p, 8);
    const uint16_t entry = MatchFull(slots, shorts, word);
    run.o[0] = static_cast<uint8_t>(entry);
    run.o[1] = static_cast<uint8_t>(word);
    run.o += 1 + (entry >> 12);
    run.p += LengthOf(entry);
  };
  // Codes the last (fewer than 8) bytes of the run's value, records its end and goes on with
  // the next values until one has 8+ bytes left; false when the run has no values left.
  auto refill = [&](Run& run) -> bool {
    while (true) {
      while (run.p < run.end) {
        const size_t left = static_cast<size_t>(run.end - run.p);
        if (left >= 8) return true;
        uint64_t word = 0;
        if (readable - run.p >= 8) {
          std::memcpy(&word, run.p, 8);
          word &= ~uint64_t{0} >> (64 - 8 * left);
        } else {
          std::memcpy(&word, run.p, left);
        }
        const uint16_t entry = MatchTail(word, left);
        run.o[0] = static_cast<uint8_t>(entry);
        run.o[1] = static_cast<uint8_t>(word);
        run.o += 1 + (entry >> 12);
        run.p += LengthOf(entry);
      }
      ends[run.i - 1] = run.o - out;
      if (run.i == run.last) return false;
      run.p = base + offsets[run.i];
      run.end = base + offsets[run.i + 1];
      ++run.i;
    }
  };
  // 0 or 1, not bool: the lockstep loop ands all four without a branch between them.
  auto room = [](const Run& run) -> unsigned { return run.end - run.p >= 8; };
  bool live[kRuns];
  for (int r = 0; r < kRuns; ++r) {
    Run& run = runs[r];
    live[r] = run.i < run.last;
    if (!live[r]) continue;
    run.end = base + offsets[run.i + 1];
    ++run.i;
    live[r] = refill(run);
  }
  // In lockstep while every run has values; then the runs left, one by one.
  while (live[0] && live[1] && live[2] && live[3]) {
    while (room(runs[0]) & room(runs[1]) & room(runs[2]) & room(runs[3])) {
      code(runs[0]);
      code(runs[1]);
      code(runs[2]);
      code(runs[3]);
    }
    for (int r = 0; r < kRuns; ++r) {
      if (!room(runs[r])) live[r] = refill(runs[r]);
    }
  }
  for (int r = 0; r < kRuns; ++r) {
    while (live[r]) {
      while (room(runs[r])) code(runs[r]);
      live[r] = refill(runs[r]);
    }
  }
  // Each run's codes moved up behind the run before, and its ends with them.
  uint8_t* at = starts[0] + (runs[0].o - starts[0]);
  for (int r = 1; r < kRuns; ++r) {
    const size_t bytes = static_cast<size_t>(runs[r].o - starts[r]);
    const int64_t shift = starts[r] - at;
    if (shift != 0) {
      std::memmove(at, starts[r], bytes);
      for (int64_t i = runs[r - 1].last; i < runs[r].last; ++i) ends[i] -= shift;
    }
    at += bytes;
  }
  return static_cast<size_t>(at - out);
}

}  // namespace lance::encoding
