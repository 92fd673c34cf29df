// The page encoder's dictionaries (dictionary_encoder.h).
#include "encoding/dictionary_encoder.h"

#include "lance/core/bit_util.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include <lz4.h>

namespace lance::encoding::encoder {

namespace {

// A string's hash: its bytes 8 at a time, multiplied and folded (strings of a page are
// mostly short; std::hash of a string_view costs several times as much).
uint64_t HashBytes(std::string_view s) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t h = static_cast<uint64_t>(s.size()) * kMul;
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  if (n > 0) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  return h * kMul;
}

// Distinct strings by first appearance: open addressing over (hash, index + 1) slots, the
// strings themselves views into the page. Capacity is fixed at twice `max_items`.
class StringIndex {
 public:
  explicit StringIndex(int64_t max_items) {
    size_t cap = 64;
    while (cap < static_cast<size_t>(2 * max_items + 2)) cap *= 2;
    slots_.assign(cap, Slot{0, 0});
    mask_ = cap - 1;
  }
  size_t size() const { return items_.size(); }
  // The index of `s`, added as the next one when new (*fresh).
  uint32_t FindOrAdd(std::string_view s, bool* fresh) {
    const uint64_t h = HashBytes(s);
    for (size_t at = static_cast<size_t>(h >> 32) & mask_;; at = (at + 1) & mask_) {
      Slot& slot = slots_[at];
      if (slot.index1 == 0) {
        items_.push_back(s);
        slot = Slot{static_cast<uint32_t>(h), static_cast<uint32_t>(items_.size())};
        *fresh = true;
        return slot.index1 - 1;
      }
      if (slot.hash == static_cast<uint32_t>(h) && items_[slot.index1 - 1] == s) {
        *fresh = false;
        return slot.index1 - 1;
      }
    }
  }

 private:
  struct Slot {
    uint32_t hash;
    uint32_t index1;  // 0 = empty
  };
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  std::vector<std::string_view> items_;
};

}  // namespace

Result<std::optional<StringDictionary>> BuildDictionary(const DataBlock& v) {
  const int64_t n = v.num_values;
  if (n < 64) return std::nullopt;
  // A cheap look at the first values first: most high-cardinality columns stop here.
  {
    const int64_t m = std::min<int64_t>(n, 1024);
    StringIndex probe(m);
    bool fresh;
    for (int64_t i = 0; i < m; ++i) probe.FindOrAdd(v.ValueView(i), &fresh);
    if (static_cast<int64_t>(probe.size()) * 4 > m) return std::nullopt;
  }
  StringDictionary d;
  const int64_t limit = std::min<int64_t>(n / 8, 1 << 16);
  StringIndex index(limit + 1);
  std::vector<uint32_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view s = v.ValueView(i);
    bool fresh;
    const uint32_t at = index.FindOrAdd(s, &fresh);
    if (fresh) {
      if (static_cast<int64_t>(index.size()) > limit) return std::nullopt;
      LANCE_RETURN_NOT_OK(d.items.AppendVariable(s));
    }
    idx[static_cast<size_t>(i)] = at;
  }
  // Item bytes can repeat the strings' storage only when there are few of them.
  if (d.items.offsets.back() * 2 > v.offsets.back()) return std::nullopt;
  LANCE_RETURN_NOT_OK(d.indices.AppendFixedBytes(reinterpret_cast<const uint8_t*>(idx.data()), n));
  return d;
}

std::string VariableBlock(const DataBlock& items, int offset_bits) {
  std::string out;
  const int w = offset_bits / 8;
  PutLE(&out, static_cast<uint64_t>(offset_bits), w);
  PutLE(&out, static_cast<uint64_t>(2 * w + (items.num_values + 1) * w), w);
  for (int64_t o : items.offsets) PutLE(&out, static_cast<uint64_t>(o - items.offsets.front()), w);
  out.append(items.data.data() + items.offsets.front(),
             static_cast<size_t>(items.offsets.back() - items.offsets.front()));
  return out;
}


Result<std::pair<Enc, std::string>> EncodeDictionaryItems(const DataBlock& items, int offset_bits,
                                                         int minor_version) {
  Enc inner;
  std::string block;
  if (items.kind == DataBlock::Kind::kVariable) {
    inner = VariableEncoding(offset_bits);
    block = VariableBlock(items, offset_bits);
  } else if (items.kind == DataBlock::Kind::kFixed && items.bits_per_value % 8 == 0) {
    inner = FlatEncoding(items.bits_per_value);
    block.assign(items.data.data(), static_cast<size_t>(items.num_values * items.bits_per_value / 8));
  } else {
    return Status::NotSupported("dictionary items of {} bits", items.bits_per_value);
  }
  if (minor_version < 2) return std::make_pair(std::move(inner), std::move(block));
  Enc e;
  auto* g = e.mutable_general();
  g->mutable_compression()->set_scheme(pb21::COMPRESSION_ALGORITHM_LZ4);
  *g->mutable_values() = std::move(inner);
  if (block.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) {
    return Status::NotSupported("dictionary of {} bytes", block.size());
  }
  const int bound = LZ4_compressBound(static_cast<int>(block.size()));
  std::string buf(4 + static_cast<size_t>(bound), '\0');
  const auto raw = static_cast<uint32_t>(block.size());
  std::memcpy(buf.data(), &raw, 4);
  const int got = LZ4_compress_default(block.data(), buf.data() + 4, static_cast<int>(block.size()), bound);
  if (got <= 0) return Status::Internal("lz4 compression of a dictionary failed");
  buf.resize(4 + static_cast<size_t>(got));
  return std::make_pair(std::move(e), std::move(buf));
}


namespace {

using bit_util::Mix64;

// Whether a random sample already shows that more than `limit` of the n 64-bit values are
// distinct. With D distinct values among n, two distinct positions drawn at random hold
// equal values with probability sum f(f - 1) / (n (n - 1)) >= (n / D - 1) / (n - 1); for
// D <= limit (< 0.3 n) about s^2 / n repeats are expected among s sampled positions. A sample
// with under an eighth of that cannot come from such a page except with negligible probability
// (a page of nearly all-distinct values, like ids, shows almost none), so the exact count that
// would run to `limit` before giving up is skipped. Positions come from a fixed-seed generator:
// the decision depends on the data only.
bool SampleSaysTooManyDistinct(const char* p, int64_t n, int64_t limit) {
  constexpr int64_t kSample = 8192;
  if (n < 16 * kSample) return false;
  std::vector<int64_t> pos(kSample);
  uint64_t state = 0x853c49e6748fea9bULL;
  for (auto& q : pos) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    q = static_cast<int64_t>((Mix64(state) >> 11) % static_cast<uint64_t>(n));
  }
  std::sort(pos.begin(), pos.end());
  pos.erase(std::unique(pos.begin(), pos.end()), pos.end());
  std::vector<uint64_t> vals(pos.size());
  for (size_t i = 0; i < pos.size(); ++i) vals[i] = LoadT<uint64_t>(p + pos[i] * 8);
  std::sort(vals.begin(), vals.end());
  int64_t repeats = 0;
  for (size_t i = 1; i < vals.size(); ++i) repeats += vals[i] == vals[i - 1] ? 1 : 0;
  const double s = static_cast<double>(vals.size());
  const double nd = static_cast<double>(n);
  const double per_pair = (nd / static_cast<double>(limit) - 1.0) / (nd - 1.0);
  const double expected = s * (s - 1.0) / 2.0 * per_pair;
  return static_cast<double>(repeats) * 8.0 < expected;
}


}  // namespace

Result<std::optional<FixedDictionary>> BuildFixedDictionary(const DataBlock& v) {
  const int64_t n = v.num_values;
  if (v.kind != DataBlock::Kind::kFixed || v.bits_per_value != 64 || n < 100 || n > UINT32_MAX) {
    return std::nullopt;
  }
  const int64_t limit = (n * 3 - 1) / 10;  // largest count with count * 10 < n * 3
  const char* p = v.data.data();
  if (limit <= 0 || SampleSaysTooManyDistinct(p, n, limit)) return std::nullopt;
  // Open addressing on the mixed value bits, one 16-byte slot per entry (key and index + 1,
  // 0 = empty) so that a probe touches one cache line; the table doubles at half load.
  struct Slot {
    uint64_t key;
    uint64_t index1;
  };
  int shift = 64 - 12;
  std::vector<Slot> table(size_t{1} << 12, Slot{0, 0});
  size_t mask = table.size() - 1;
  FixedDictionary d;
  LANCE_RETURN_NOT_OK(d.indices.data.ResizeForOverwrite(static_cast<size_t>(n) * 4));
  auto* idx = reinterpret_cast<uint32_t*>(d.indices.data.mutable_data());
  std::vector<uint64_t> items;
  auto grow = [&] {
    std::vector<Slot> bigger(table.size() * 2, Slot{0, 0});
    --shift;
    const size_t m = bigger.size() - 1;
    for (const Slot& s : table) {
      if (s.index1 == 0) continue;
      size_t h = static_cast<size_t>(Mix64(s.key) >> shift);
      while (bigger[h].index1 != 0) h = (h + 1) & m;
      bigger[h] = s;
    }
    table.swap(bigger);
    mask = m;
  };
  // Slots are found at random: the one of the value kAhead places on is fetched meanwhile.
  constexpr int64_t kAhead = 16;
  for (int64_t i = 0; i < n; ++i) {
    if (i + kAhead < n) {
      __builtin_prefetch(&table[static_cast<size_t>(Mix64(LoadT<uint64_t>(p + (i + kAhead) * 8)) >> shift)]);
    }
    const uint64_t x = LoadT<uint64_t>(p + i * 8);
    size_t h = static_cast<size_t>(Mix64(x) >> shift);
    while (table[h].index1 != 0 && table[h].key != x) h = (h + 1) & mask;
    if (table[h].index1 != 0) {
      idx[i] = static_cast<uint32_t>(table[h].index1 - 1);
      continue;
    }
    if (static_cast<int64_t>(items.size()) >= limit) return std::nullopt;
    idx[i] = static_cast<uint32_t>(items.size());
    items.push_back(x);
    table[h] = Slot{x, items.size()};
    if (items.size() * 2 > table.size()) grow();
  }
  LANCE_RETURN_NOT_OK(d.items.AppendFixedBytes(reinterpret_cast<const uint8_t*>(items.data()),
                                               static_cast<int64_t>(items.size())));
  d.indices.num_values = n;
  return d;
}


}  // namespace lance::encoding::encoder
