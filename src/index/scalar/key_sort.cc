#include "index/scalar/key_sort.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <numeric>

namespace lance::index::scalar {

Result<ArrayPtr> ConcatTrainingValues(const TrainingData& data) {
  int64_t n = 0;
  for (const auto& v : data.values) n += v->length;
  if (n != static_cast<int64_t>(data.row_ids.size())) {
    return Status::InvalidArgument("index training data: {} values but {} row ids", n,
                                   data.row_ids.size());
  }
  DataTypePtr type = data.type ? data.type : (data.values.empty() ? nullptr : data.values[0]->type);
  if (!type) return Status::InvalidArgument("index training data: no value type");
  for (const auto& v : data.values) {
    if (!v->type->Equals(*type)) {
      return Status::InvalidArgument("index training data: a chunk of type {} in a {} column",
                                     v->type->ToString(), type->ToString());
    }
  }
  if (data.values.empty()) return MakeEmptyArray(type);
  if (data.values.size() == 1) return data.values[0];
  return Concatenate(data.values);
}

namespace {

struct KeyPos {
  uint64_t key;
  int64_t pos;
};

// Stable LSD radix sort of `v` by key, 11 bits a pass (6 passes over 64 bits), skipping the
// digits that are the same in every key.
void RadixSort(std::vector<KeyPos>& v) {
  constexpr int kBits = 11;
  constexpr int kPasses = (64 + kBits - 1) / kBits;
  constexpr size_t kBuckets = size_t{1} << kBits;
  const size_t n = v.size();
  std::vector<size_t> hist(kPasses * kBuckets, 0);
  for (const KeyPos& x : v) {
    for (int d = 0; d < kPasses; ++d) ++hist[d * kBuckets + ((x.key >> (kBits * d)) & (kBuckets - 1))];
  }
  std::vector<KeyPos> tmp(n);
  for (int d = 0; d < kPasses; ++d) {
    size_t* h = hist.data() + d * kBuckets;
    if (std::any_of(h, h + kBuckets, [n](size_t c) { return c == n; })) continue;
    size_t sum = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      const size_t t = h[b];
      h[b] = sum;
      sum += t;
    }
    const int shift = kBits * d;
    for (const KeyPos& x : v) tmp[h[(x.key >> shift) & (kBuckets - 1)]++] = x;
    v.swap(tmp);
  }
}

// Reorders each run of positions with equal keys (`same(a, b)`) by row id, where the run is not
// in row-id order already (several fragments, or row ids not ascending with position).
template <typename Same>
void TiesByRowId(int64_t* begin, int64_t* end, const std::vector<uint64_t>& row_ids, Same same) {
  auto rid = [&](int64_t p) { return row_ids[static_cast<size_t>(p)]; };
  for (int64_t* run = begin; run < end;) {
    int64_t* e = run + 1;
    bool ordered = true;
    while (e < end && same(*run, *e)) {
      ordered = ordered && rid(e[-1]) < rid(*e);
      ++e;
    }
    if (!ordered) std::sort(run, e, [&](int64_t a, int64_t b) { return rid(a) < rid(b); });
    run = e;
  }
}

}  // namespace

bool InIndexOrder(const Array& values, const std::vector<uint64_t>& row_ids) {
  const int64_t n = values.length;
  if (static_cast<int64_t>(row_ids.size()) != n || values.null_count != 0) return false;
  for (int64_t i = 1; i < n; ++i) {
    if (row_ids[static_cast<size_t>(i - 1)] >= row_ids[static_cast<size_t>(i)]) return false;
  }
  constexpr int64_t kBlock = 4096;
  std::vector<uint64_t> keys;
  uint64_t prev = 0;
  for (int64_t start = 0; start < n; start += kBlock) {
    if (!OrderKeys(*values.Slice(start, std::min(kBlock, n - start)), &keys)) return false;
    if (start > 0 && keys[0] < prev) return false;
    if (!std::is_sorted(keys.begin(), keys.end())) return false;
    prev = keys.back();
  }
  return true;
}

std::vector<int64_t> SortPermutation(const Array& values, const std::vector<uint64_t>& row_ids) {
  const int64_t n = values.length;
  std::vector<int64_t> perm;
  perm.reserve(static_cast<size_t>(n));
  // Nulls first, then the valid values in order.
  for (int64_t i = 0; i < n; ++i) {
    if (values.IsNull(i)) perm.push_back(i);
  }
  const size_t num_nulls = perm.size();
  TiesByRowId(perm.data(), perm.data() + num_nulls, row_ids, [](int64_t, int64_t) { return true; });
  std::vector<uint64_t> keys;
  if (OrderKeys(values, &keys)) {
    // Already in order (an id column): the positions as they are, nothing moved.
    bool sorted = true;
    const uint64_t* prev = nullptr;
    for (int64_t i = 0; i < n && sorted; ++i) {
      if (values.IsNull(i)) continue;
      const uint64_t* k = &keys[static_cast<size_t>(i)];
      sorted = prev == nullptr || *prev <= *k;
      prev = k;
    }
    if (sorted) {
      for (int64_t i = 0; i < n; ++i) {
        if (values.IsValid(i)) perm.push_back(i);
      }
      TiesByRowId(perm.data() + num_nulls, perm.data() + perm.size(), row_ids,
                  [&](int64_t a, int64_t b) { return keys[static_cast<size_t>(a)] == keys[static_cast<size_t>(b)]; });
      return perm;
    }
    std::vector<KeyPos> v;
    v.reserve(static_cast<size_t>(n) - num_nulls);
    for (int64_t i = 0; i < n; ++i) {
      if (values.IsValid(i)) v.push_back(KeyPos{keys[static_cast<size_t>(i)], i});
    }
    keys = std::vector<uint64_t>();  // freed before the sort's second buffer is taken
    RadixSort(v);
    // Ties found on the sorted pairs, in order (through keys[perm[i]] each lookup missed the
    // cache: the positions are scattered).
    for (size_t r = 0; r < v.size();) {
      size_t e = r + 1;
      bool ordered = true;
      while (e < v.size() && v[e].key == v[r].key) {
        ordered = ordered && row_ids[static_cast<size_t>(v[e - 1].pos)] < row_ids[static_cast<size_t>(v[e].pos)];
        ++e;
      }
      if (!ordered) {
        std::sort(v.begin() + static_cast<std::ptrdiff_t>(r), v.begin() + static_cast<std::ptrdiff_t>(e),
                  [&](const KeyPos& a, const KeyPos& b) {
                    return row_ids[static_cast<size_t>(a.pos)] < row_ids[static_cast<size_t>(b.pos)];
                  });
      }
      r = e;
    }
    for (const KeyPos& x : v) perm.push_back(x.pos);
    return perm;
  }
  // Byte strings: by their first 8 bytes as a big-endian integer, then the whole bytes, then
  // the row id.
  std::vector<std::string_view> views(static_cast<size_t>(n));
  keys.assign(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (values.IsNull(i)) continue;
    const std::string_view s = values.GetView(i);
    views[static_cast<size_t>(i)] = s;
    uint64_t k = 0;
    for (size_t b = 0; b < 8; ++b) {
      k = (k << 8) | (b < s.size() ? static_cast<unsigned char>(s[b]) : 0u);
    }
    keys[static_cast<size_t>(i)] = k;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (values.IsValid(i)) perm.push_back(i);
  }
  std::sort(perm.begin() + static_cast<std::ptrdiff_t>(num_nulls), perm.end(), [&](int64_t a, int64_t b) {
    const uint64_t ka = keys[static_cast<size_t>(a)], kb = keys[static_cast<size_t>(b)];
    if (ka != kb) return ka < kb;
    const int c = views[static_cast<size_t>(a)].compare(views[static_cast<size_t>(b)]);
    if (c != 0) return c < 0;
    return row_ids[static_cast<size_t>(a)] < row_ids[static_cast<size_t>(b)];
  });
  return perm;
}

namespace {

// uint64 key -> group, open addressing with linear probing (power-of-two slots, at most half
// full, Fibonacci hashing): the lookup per value of GroupEqualValues, about 4x cheaper than
// std::unordered_map's for the few keys of a label or category column.
class U64GroupIndex {
 public:
  U64GroupIndex() { Grow(16); }
  // The group of `key`, `next` (and fresh = true) when it is new.
  std::pair<uint32_t, bool> try_emplace(uint64_t key, uint32_t next) {
    for (size_t i = Slot(key);; i = (i + 1) & mask_) {
      if (!used_[i]) {
        if (2 * (size_ + 1) > keys_.size()) {
          Grow(keys_.size() * 2);
          return try_emplace(key, next);
        }
        used_[i] = 1;
        keys_[i] = key;
        groups_[i] = next;
        ++size_;
        return {next, true};
      }
      if (keys_[i] == key) return {groups_[i], false};
    }
  }

 private:
  size_t Slot(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_); }
  void Grow(size_t slots) {
    std::vector<uint64_t> keys = std::move(keys_);
    std::vector<uint32_t> groups = std::move(groups_);
    std::vector<uint8_t> used = std::move(used_);
    keys_.assign(slots, 0);
    groups_.assign(slots, 0);
    used_.assign(slots, 0);
    mask_ = slots - 1;
    shift_ = 64 - std::countr_zero(slots);
    size_ = 0;
    for (size_t i = 0; i < used.size(); ++i) {
      if (used[i]) try_emplace(keys[i], groups[i]);
    }
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> groups_;
  std::vector<uint8_t> used_;
  size_t mask_ = 0;
  int shift_ = 0;
  size_t size_ = 0;
};

}  // namespace

ValueGroups GroupValues(const Array& values) {
  const int64_t n = values.length;
  ValueGroups out;
  out.group_of.resize(static_cast<size_t>(n));
  uint32_t null_group = ValueGroups::kNone;
  auto group_by = [&](auto& index, auto key_of) {
    // Consecutive equal values (sorted or clustered columns) skip the hash lookup.
    uint32_t last = ValueGroups::kNone;
    decltype(key_of(int64_t{0})) last_key{};
    for (int64_t i = 0; i < n; ++i) {
      uint32_t g;
      if (values.IsNull(i)) {
        if (null_group == ValueGroups::kNone) {
          null_group = static_cast<uint32_t>(out.sizes.size());
          out.first.push_back(i);
          out.sizes.push_back(0);
        }
        g = null_group;
      } else {
        const auto k = key_of(i);
        if (last == ValueGroups::kNone || !(k == last_key)) {
          const uint32_t next = static_cast<uint32_t>(out.sizes.size());
          if constexpr (std::is_same_v<std::decay_t<decltype(index)>, U64GroupIndex>) {
            last = index.try_emplace(k, next).first;
          } else {
            last = index.try_emplace(k, next).first->second;
          }
          if (last == next) {
            out.first.push_back(i);
            out.sizes.push_back(0);
          }
          last_key = k;
        }
        g = last;
      }
      out.group_of[static_cast<size_t>(i)] = g;
      ++out.sizes[g];
    }
  };
  std::vector<uint64_t> keys;
  if (OrderKeys(values, &keys)) {
    U64GroupIndex index;
    group_by(index, [&](int64_t i) { return keys[static_cast<size_t>(i)]; });
  } else {
    // Byte strings of at most 7 bytes (labels, short categories) as one integer: the bytes and
    // the length in the top byte, so "a" and "a\0" differ. Longer ones by their bytes.
    bool short_strings = true;
    for (int64_t i = 0; i < n && short_strings; ++i) short_strings = values.IsNull(i) || values.GetView(i).size() <= 7;
    if (short_strings) {
      U64GroupIndex index;
      group_by(index, [&](int64_t i) {
        const std::string_view v = values.GetView(i);
        uint64_t k = uint64_t{v.size()} << 56;
        std::memcpy(&k, v.data(), v.size());  // the low bytes (little-endian); the top one is the length
        return k;
      });
    } else {
      std::unordered_map<std::string_view, uint32_t> index;
      group_by(index, [&](int64_t i) { return values.GetView(i); });
    }
  }
  return out;
}

std::vector<std::vector<uint64_t>> GatherByGroup(const ValueGroups& groups, const uint64_t* rows, uint64_t skip) {
  std::vector<std::vector<uint64_t>> out(groups.sizes.size());
  for (size_t g = 0; g < out.size(); ++g) out[g].reserve(static_cast<size_t>(groups.sizes[g]));
  for (size_t i = 0; i < groups.group_of.size(); ++i) {
    if (rows[i] != skip) out[groups.group_of[i]].push_back(rows[i]);
  }
  return out;
}

std::vector<std::vector<int64_t>> GroupEqualValues(const Array& values) {
  const ValueGroups g = GroupValues(values);
  std::vector<std::vector<int64_t>> out(g.sizes.size());
  for (size_t k = 0; k < out.size(); ++k) out[k].reserve(static_cast<size_t>(g.sizes[k]));
  for (size_t i = 0; i < g.group_of.size(); ++i) out[g.group_of[i]].push_back(static_cast<int64_t>(i));
  // The null group last.
  for (size_t k = 0; k < out.size(); ++k) {
    if (values.IsNull(g.first[k])) {
      std::rotate(out.begin() + static_cast<std::ptrdiff_t>(k), out.begin() + static_cast<std::ptrdiff_t>(k) + 1, out.end());
      break;
    }
  }
  return out;
}

KeyValueMetadataPtr MakeMetadata(std::vector<std::pair<std::string, std::string>> pairs) {
  return std::make_shared<KeyValueMetadata>(std::move(pairs));
}

std::optional<std::string> PrefixSuccessor(std::string prefix) {
  while (!prefix.empty()) {
    auto& c = reinterpret_cast<unsigned char&>(prefix.back());
    if (c != 0xff) {
      ++c;
      return prefix;
    }
    prefix.pop_back();
  }
  return std::nullopt;
}

}  // namespace lance::index::scalar
