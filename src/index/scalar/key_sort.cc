#include "index/scalar/key_sort.h"

#include <algorithm>
#include <string_view>
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
    } else {
      std::vector<KeyPos> v;
      v.reserve(static_cast<size_t>(n) - num_nulls);
      for (int64_t i = 0; i < n; ++i) {
        if (values.IsValid(i)) v.push_back(KeyPos{keys[static_cast<size_t>(i)], i});
      }
      RadixSort(v);
      for (const KeyPos& x : v) perm.push_back(x.pos);
    }
    TiesByRowId(perm.data() + num_nulls, perm.data() + perm.size(), row_ids,
                [&](int64_t a, int64_t b) { return keys[static_cast<size_t>(a)] == keys[static_cast<size_t>(b)]; });
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

std::vector<std::vector<int64_t>> GroupEqualValues(const Array& values) {
  const int64_t n = values.length;
  std::vector<std::vector<int64_t>> groups;
  std::vector<int64_t> nulls;
  auto group_by = [&](auto& index, auto key_of) {
    // Consecutive equal values (sorted or clustered columns) skip the hash lookup.
    size_t last = SIZE_MAX;
    decltype(key_of(int64_t{0})) last_key{};
    for (int64_t i = 0; i < n; ++i) {
      if (values.IsNull(i)) {
        nulls.push_back(i);
        continue;
      }
      const auto k = key_of(i);
      if (last == SIZE_MAX || !(k == last_key)) {
        auto [it, fresh] = index.try_emplace(k, groups.size());
        if (fresh) groups.emplace_back();
        last = it->second;
        last_key = k;
      }
      groups[last].push_back(i);
    }
  };
  std::vector<uint64_t> keys;
  if (OrderKeys(values, &keys)) {
    std::unordered_map<uint64_t, size_t> index;
    group_by(index, [&](int64_t i) { return keys[static_cast<size_t>(i)]; });
  } else {
    std::unordered_map<std::string_view, size_t> index;
    group_by(index, [&](int64_t i) { return values.GetView(i); });
  }
  if (!nulls.empty()) groups.push_back(std::move(nulls));
  return groups;
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
