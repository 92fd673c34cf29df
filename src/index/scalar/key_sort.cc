#include "index/scalar/key_sort.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <numeric>

#include "lance/core/thread_pool.h"

namespace lance::index::scalar {

Result<DataTypePtr> TrainingValueType(const TrainingData& data) {
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
  return type;
}

Result<ArrayPtr> ConcatTrainingValues(const TrainingData& data) {
  LANCE_ASSIGN_OR_RAISE(DataTypePtr type, TrainingValueType(data));
  if (data.values.empty()) return MakeEmptyArray(type);
  if (data.values.size() == 1) return data.values[0];
  return Concatenate(data.values);
}

namespace {

// A stable LSD radix sort of a[0, n) with tmp as the other buffer; returns the buffer that
// holds the result (a or tmp). 8-bit digits: eight passes at most, but each one's 256 write
// positions stay in L1 (measured on 500k float64 keys: 8 bits ~10-15 ms of CPU where 11
// bits, six passes, took ~11-20 and 13 or 16 bits more).
KeyRow* LsdRadix(KeyRow* a, KeyRow* tmp, size_t n) {
  constexpr int kBits = 8;
  constexpr int kPasses = (64 + kBits - 1) / kBits;
  constexpr size_t kBuckets = size_t{1} << kBits;
  std::vector<size_t> hist(kPasses * kBuckets, 0);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t k = a[i].key;
    for (int d = 0; d < kPasses; ++d) ++hist[d * kBuckets + ((k >> (kBits * d)) & (kBuckets - 1))];
  }
  for (int d = 0; d < kPasses; ++d) {
    size_t* h = hist.data() + d * kBuckets;
    if (std::any_of(h, h + kBuckets, [n](size_t c) { return c == n; })) continue;  // a shared digit
    size_t sum = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      const size_t t = h[b];
      h[b] = sum;
      sum += t;
    }
    const int shift = kBits * d;
    for (size_t i = 0; i < n; ++i) tmp[h[(a[i].key >> shift) & (kBuckets - 1)]++] = a[i];
    std::swap(a, tmp);
  }
  return a;
}

// Merges sorted x[0, nx) and y[0, ny) into out, x first among equal keys. out may be the
// buffer y lies at the end of (out + nx == y): an element is written only where it was read
// or below what is still unread.
void MergeKeyRows(const KeyRow* x, size_t nx, const KeyRow* y, size_t ny, KeyRow* out) {
  size_t i = 0, j = 0, k = 0;
  while (i < nx && j < ny) {
    const bool take_y = y[j].key < x[i].key;
    out[k++] = take_y ? y[j] : x[i];
    j += take_y ? 1 : 0;
    i += take_y ? 0 : 1;
  }
  while (i < nx) out[k++] = x[i++];
  if (out + k != y + j) {
    while (j < ny) out[k++] = y[j++];
  }
}

}  // namespace

void SortKeyRows(std::vector<KeyRow>& v, ThreadPool* pool) {
  const size_t n = v.size();
  if (n < 2) return;
  std::vector<KeyRow> tmp(n);
  constexpr size_t kParallelMin = size_t{1} << 16;
  if (pool == nullptr || pool->num_threads() == 0 || n < kParallelMin) {
    if (LsdRadix(v.data(), tmp.data(), n) != v.data()) v.swap(tmp);
    return;
  }
  // Two halves on two threads, then one merge (stable: the first half wins ties).
  const size_t h = n / 2;
  KeyRow* done[2];
  ParallelFor(pool, 2, [&](int64_t part) {
    const size_t off = part == 0 ? 0 : h, len = part == 0 ? h : n - h;
    done[part] = LsdRadix(v.data() + off, tmp.data() + off, len);
  });
  KeyRow* const first = done[0];
  KeyRow* const second = done[1];
  const bool second_in_v = second == v.data() + h;
  const bool first_in_v = first == v.data();
  // Into the buffer of the second half when the halves ended apart, else the other buffer.
  const bool out_in_v = first_in_v != second_in_v ? second_in_v : !first_in_v;
  MergeKeyRows(first, h, second, n - h, out_in_v ? v.data() : tmp.data());
  if (!out_in_v) v.swap(tmp);
}

namespace {

// Reorders each run of equal keys of sorted `v` by `order_of(x.row)` where it is not in that
// order already. Found on the sorted pairs, in order (not through scattered positions).
template <typename OrderOf>
void TiesBy(std::vector<KeyRow>& v, const OrderOf& order_of) {
  for (size_t r = 0; r < v.size();) {
    size_t e = r + 1;
    bool ordered = true;
    while (e < v.size() && v[e].key == v[r].key) {
      ordered = ordered && order_of(v[e - 1].row) < order_of(v[e].row);
      ++e;
    }
    if (!ordered) {
      std::sort(v.begin() + static_cast<std::ptrdiff_t>(r), v.begin() + static_cast<std::ptrdiff_t>(e),
                [&](const KeyRow& a, const KeyRow& b) { return order_of(a.row) < order_of(b.row); });
    }
    r = e;
  }
}

}  // namespace

void TiesByRow(std::vector<KeyRow>& v) {
  TiesBy(v, [](uint64_t row) { return row; });
}

namespace {

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

bool InIndexOrder(const std::vector<ArrayPtr>& values, const std::vector<uint64_t>& row_ids) {
  int64_t n = 0;
  for (const auto& c : values) {
    if (c->null_count != 0) return false;
    n += c->length;
  }
  if (static_cast<int64_t>(row_ids.size()) != n) return false;
  for (int64_t i = 1; i < n; ++i) {
    if (row_ids[static_cast<size_t>(i - 1)] >= row_ids[static_cast<size_t>(i)]) return false;
  }
  constexpr int64_t kBlock = 4096;
  std::vector<uint64_t> keys;
  bool any = false;
  uint64_t prev = 0;
  for (const auto& c : values) {
    for (int64_t start = 0; start < c->length; start += kBlock) {
      if (!OrderKeys(*c->Slice(start, std::min(kBlock, c->length - start)), &keys)) return false;
      if (any && keys[0] < prev) return false;
      if (!std::is_sorted(keys.begin(), keys.end())) return false;
      prev = keys.back();
      any = true;
    }
  }
  return true;
}

bool InIndexOrder(const Array& values, const std::vector<uint64_t>& row_ids) {
  // A view of `values` as the one chunk (the vector does not own it beyond this call).
  const std::vector<ArrayPtr> chunks{ArrayPtr(ArrayPtr(), &values)};
  return InIndexOrder(chunks, row_ids);
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
    std::vector<KeyRow> v;
    v.reserve(static_cast<size_t>(n) - num_nulls);
    for (int64_t i = 0; i < n; ++i) {
      if (values.IsValid(i)) v.push_back(KeyRow{keys[static_cast<size_t>(i)], static_cast<uint64_t>(i)});
    }
    keys = std::vector<uint64_t>();  // freed before the sort's second buffer is taken
    SortKeyRows(v);
    TiesBy(v, [&](uint64_t pos) { return row_ids[pos]; });  // ties by row id (`row` holds a position)
    for (const KeyRow& x : v) perm.push_back(static_cast<int64_t>(x.row));
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
