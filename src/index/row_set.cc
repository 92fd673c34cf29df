#include "lance/index/row_set.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include <fmt/format.h>

namespace lance::index {

namespace {

// One fragment's rows: a bitmap, or "every row" (full).
struct FragmentRows {
  roaring_bitmap_t* bm = nullptr;
  bool full = false;

  FragmentRows() : bm(roaring_bitmap_create()) {}
  explicit FragmentRows(roaring_bitmap_t* b) : bm(b) {}
  FragmentRows(const FragmentRows& o) : bm(roaring_bitmap_copy(o.bm)), full(o.full) {}
  FragmentRows& operator=(const FragmentRows& o) {
    if (this != &o) {
      roaring_bitmap_free(bm);
      bm = roaring_bitmap_copy(o.bm);
      full = o.full;
    }
    return *this;
  }
  FragmentRows(FragmentRows&& o) noexcept : bm(o.bm), full(o.full) { o.bm = nullptr; }
  FragmentRows& operator=(FragmentRows&& o) noexcept {
    std::swap(bm, o.bm);
    std::swap(full, o.full);
    return *this;
  }
  ~FragmentRows() {
    if (bm) roaring_bitmap_free(bm);
  }
  bool empty() const { return !full && roaring_bitmap_is_empty(bm); }
};

uint32_t Hi(uint64_t r) { return static_cast<uint32_t>(r >> 32); }
uint32_t Lo(uint64_t r) { return static_cast<uint32_t>(r); }

void PutU32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }

}  // namespace

struct RowSet::Impl {
  std::map<uint32_t, FragmentRows> frags;

  FragmentRows& At(uint32_t f) { return frags[f]; }
  void Prune() {
    for (auto it = frags.begin(); it != frags.end();) {
      it = it->second.empty() ? frags.erase(it) : std::next(it);
    }
  }
};

RowSet::RowSet() : impl_(std::make_unique<Impl>()) {}
RowSet::~RowSet() = default;
RowSet::RowSet(const RowSet& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
RowSet& RowSet::operator=(const RowSet& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
RowSet::RowSet(RowSet&& other) noexcept : impl_(std::move(other.impl_)) {
  other.impl_ = std::make_unique<Impl>();
}
RowSet& RowSet::operator=(RowSet&& other) noexcept {
  std::swap(impl_, other.impl_);
  return *this;
}

RowSet RowSet::Of(const std::vector<uint64_t>& rows) {
  RowSet s;
  s.InsertMany(rows.data(), rows.size());
  return s;
}

void RowSet::Insert(uint64_t row) {
  FragmentRows& f = impl_->At(Hi(row));
  if (!f.full) roaring_bitmap_add(f.bm, Lo(row));
}

namespace {

// Sorts `lows` ascending (duplicates kept once or more; roaring ignores them). Dense values
// (a 10 % range of a fragment: the span at most 64 times the count) go through a bitset of
// the span -- linear, where a comparison sort of scattered BTree ids costs ~150 instructions
// a value.
void SortLows(std::vector<uint32_t>& lows) {
  if (std::is_sorted(lows.begin(), lows.end())) return;  // the common case: rows in order
  if (lows.size() < 64) {
    std::sort(lows.begin(), lows.end());
    return;
  }
  const auto [mn, mx] = std::minmax_element(lows.begin(), lows.end());
  const uint32_t base = *mn;
  const uint64_t span = uint64_t{*mx} - base + 1;
  if (span / 64 > lows.size()) {
    std::sort(lows.begin(), lows.end());
    return;
  }
  std::vector<uint64_t> words(static_cast<size_t>((span + 63) / 64), 0);
  for (uint32_t v : lows) words[(v - base) >> 6] |= uint64_t{1} << ((v - base) & 63);
  size_t n = 0;
  for (size_t w = 0; w < words.size(); ++w) {
    for (uint64_t bits = words[w]; bits != 0; bits &= bits - 1) {
      lows[n++] = base + static_cast<uint32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
    }
  }
  lows.resize(n);
}

}  // namespace

void RowSet::InsertMany(const uint64_t* rows, size_t n) {
  // The rows of each fragment first, then one merge per fragment: rows may interleave
  // fragments (a BTree range's ids in value order over 10 fragments change fragment at almost
  // every row, and one merge per change made a 1M-row range 100x slower than at 1 fragment).
  std::map<uint32_t, std::vector<uint32_t>> by_frag;
  std::vector<uint32_t>* last = nullptr;
  uint32_t last_frag = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t frag = Hi(rows[i]);
    if (last == nullptr || frag != last_frag) {
      last = &by_frag[frag];
      last_frag = frag;
    }
    last->push_back(Lo(rows[i]));
  }
  for (auto& [frag, lows] : by_frag) {
    FragmentRows& f = impl_->At(frag);
    if (f.full) continue;
    // Sorted adds append to one container at a time; into a non-empty bitmap the rows are
    // merged container by container (adding them one by one would splice each into an array
    // container, moving the values after it).
    SortLows(lows);
    if (roaring_bitmap_is_empty(f.bm)) {
      roaring_bitmap_add_many(f.bm, lows.size(), lows.data());
    } else {
      roaring_bitmap_t* add = roaring_bitmap_of_ptr(lows.size(), lows.data());
      if (add == nullptr) {
        roaring_bitmap_add_many(f.bm, lows.size(), lows.data());
        continue;
      }
      roaring_bitmap_or_inplace(f.bm, add);
      roaring_bitmap_free(add);
    }
  }
}

void RowSet::InsertRange(uint64_t begin, uint64_t end) {
  while (begin < end) {
    const uint32_t frag = Hi(begin);
    const uint64_t frag_end = (static_cast<uint64_t>(frag) + 1) << 32;
    const uint64_t stop = std::min(end, frag_end);
    FragmentRows& f = impl_->At(frag);
    if (!f.full) {
      roaring_bitmap_add_range(f.bm, Lo(begin), stop - (static_cast<uint64_t>(frag) << 32));
    }
    begin = stop;
    if (stop == frag_end && frag == UINT32_MAX) break;
  }
}

void RowSet::InsertFragment(uint32_t fragment) {
  FragmentRows& f = impl_->At(fragment);
  f.full = true;
  roaring_bitmap_clear(f.bm);
}

bool RowSet::Contains(uint64_t row) const {
  auto it = impl_->frags.find(Hi(row));
  if (it == impl_->frags.end()) return false;
  return it->second.full || roaring_bitmap_contains(it->second.bm, Lo(row));
}

bool RowSet::empty() const {
  for (const auto& [k, f] : impl_->frags) {
    if (!f.empty()) return false;
  }
  return true;
}

uint64_t RowSet::Cardinality() const {
  uint64_t n = 0;
  for (const auto& [k, f] : impl_->frags) {
    n += f.full ? (uint64_t{1} << 32) : roaring_bitmap_get_cardinality(f.bm);
  }
  return n;
}

std::vector<uint64_t> RowSet::ToVector() const {
  std::vector<uint64_t> out;
  out.reserve(static_cast<size_t>(Cardinality() > (uint64_t{1} << 32) ? 0 : Cardinality()));
  std::vector<uint32_t> tmp;
  for (const auto& [frag, f] : impl_->frags) {
    if (f.full) continue;
    tmp.resize(roaring_bitmap_get_cardinality(f.bm));
    if (!tmp.empty()) roaring_bitmap_to_uint32_array(f.bm, tmp.data());
    const uint64_t hi = static_cast<uint64_t>(frag) << 32;
    for (uint32_t lo : tmp) out.push_back(hi | lo);
  }
  return out;
}

std::vector<uint32_t> RowSet::Fragments() const {
  std::vector<uint32_t> out;
  for (const auto& [frag, f] : impl_->frags) {
    if (!f.empty()) out.push_back(frag);
  }
  return out;
}

bool RowSet::IsFull(uint32_t fragment) const {
  auto it = impl_->frags.find(fragment);
  return it != impl_->frags.end() && it->second.full;
}

RowSet& RowSet::operator|=(const RowSet& other) {
  for (const auto& [frag, o] : other.impl_->frags) {
    FragmentRows& f = impl_->At(frag);
    if (f.full) continue;
    if (o.full) {
      f.full = true;
      roaring_bitmap_clear(f.bm);
    } else {
      roaring_bitmap_or_inplace(f.bm, o.bm);
    }
  }
  return *this;
}

RowSet& RowSet::operator&=(const RowSet& other) {
  for (auto& [frag, f] : impl_->frags) {
    auto it = other.impl_->frags.find(frag);
    if (it == other.impl_->frags.end()) {
      f.full = false;
      roaring_bitmap_clear(f.bm);
      continue;
    }
    const FragmentRows& o = it->second;
    if (o.full) continue;
    if (f.full) {
      f.full = false;
      roaring_bitmap_overwrite(f.bm, o.bm);
    } else {
      roaring_bitmap_and_inplace(f.bm, o.bm);
    }
  }
  impl_->Prune();
  return *this;
}

RowSet& RowSet::operator-=(const RowSet& other) {
  for (auto& [frag, f] : impl_->frags) {
    auto it = other.impl_->frags.find(frag);
    if (it == other.impl_->frags.end()) continue;
    const FragmentRows& o = it->second;
    if (o.full) {
      f.full = false;
      roaring_bitmap_clear(f.bm);
    } else if (f.full) {
      // Every row but o's: the complement within the 32-bit space.
      roaring_bitmap_t* all = roaring_bitmap_create();
      roaring_bitmap_add_range(all, 0, uint64_t{1} << 32);
      roaring_bitmap_andnot_inplace(all, o.bm);
      roaring_bitmap_free(f.bm);
      f.bm = all;
      f.full = false;
    } else {
      roaring_bitmap_andnot_inplace(f.bm, o.bm);
    }
  }
  impl_->Prune();
  return *this;
}

void RowSet::RetainFragments(const std::vector<uint32_t>& fragments) {
  for (auto it = impl_->frags.begin(); it != impl_->frags.end();) {
    const bool keep = std::binary_search(fragments.begin(), fragments.end(), it->first);
    it = keep ? std::next(it) : impl_->frags.erase(it);
  }
}

bool RowSet::operator==(const RowSet& other) const {
  auto a = impl_->frags.begin();
  auto b = other.impl_->frags.begin();
  auto skip = [](auto& it, auto end) {
    while (it != end && it->second.empty()) ++it;
  };
  for (;;) {
    skip(a, impl_->frags.end());
    skip(b, other.impl_->frags.end());
    const bool ea = a == impl_->frags.end();
    const bool eb = b == other.impl_->frags.end();
    if (ea || eb) return ea == eb;
    if (a->first != b->first || a->second.full != b->second.full) return false;
    if (!a->second.full && !roaring_bitmap_equals(a->second.bm, b->second.bm)) return false;
    ++a;
    ++b;
  }
}

std::string RowSet::Serialize() const {
  std::string out;
  uint32_t n = 0;
  for (const auto& [frag, f] : impl_->frags) n += f.empty() ? 0 : 1;
  PutU32(out, n);
  for (const auto& [frag, f] : impl_->frags) {
    if (f.empty()) continue;
    PutU32(out, frag);
    if (f.full) {
      PutU32(out, 0);
      continue;
    }
    const size_t size = roaring_bitmap_portable_size_in_bytes(f.bm);
    PutU32(out, static_cast<uint32_t>(size));
    const size_t at = out.size();
    out.resize(at + size);
    roaring_bitmap_portable_serialize(f.bm, out.data() + at);
  }
  return out;
}

namespace {

// The portable Roaring bitmap of fragment `frag`, `size` bytes at `p` (already checked to fit);
// `container` ("set" / "treemap") names the encoding in the error.
Result<FragmentRows> DecodeBitmap(const char* p, size_t size, std::string_view what,
                                  std::string_view container, uint32_t frag) {
  roaring_bitmap_t* bm = roaring_bitmap_portable_deserialize_safe(p, size);
  if (bm == nullptr) {
    return Status::Corruption("{}: row id {} bitmap of fragment {} does not decode", what,
                              container, frag);
  }
  return FragmentRows(bm);
}

}  // namespace

Result<RowSet> RowSet::Deserialize(std::string_view bytes, std::string_view what) {
  auto u32 = [&](size_t pos) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + pos, 4);
    return v;
  };
  if (bytes.size() < 4) {
    return Status::Corruption("{}: row id set of {} bytes (expected at least a 4-byte count)",
                              what, bytes.size());
  }
  const uint32_t n = u32(0);
  size_t pos = 4;
  RowSet out;
  int64_t prev = -1;
  for (uint32_t i = 0; i < n; ++i) {
    if (bytes.size() - pos < 8) {
      return Status::Corruption("{}: row id set entry {} of {} truncated at byte {}", what, i, n,
                                pos);
    }
    const uint32_t frag = u32(pos);
    const uint32_t size = u32(pos + 4);
    pos += 8;
    if (static_cast<int64_t>(frag) <= prev) {
      return Status::Corruption("{}: row id set fragments not ascending ({} after {})", what,
                                frag, prev);
    }
    prev = frag;
    if (size == 0) {
      out.InsertFragment(frag);
      continue;
    }
    if (bytes.size() - pos < size) {
      return Status::Corruption("{}: row id set bitmap of fragment {} needs {} bytes, {} left",
                                what, frag, size, bytes.size() - pos);
    }
    const char* p = bytes.data() + pos;
    const size_t need = roaring_bitmap_portable_deserialize_size(p, size);
    if (need == 0 || need != size) {
      return Status::Corruption("{}: row id set bitmap of fragment {} is not a portable Roaring "
                                "bitmap of {} bytes",
                                what, frag, size);
    }
    LANCE_ASSIGN_OR_RAISE(out.impl_->frags[frag], DecodeBitmap(p, size, what, "set", frag));
    pos += size;
  }
  if (pos != bytes.size()) {
    return Status::Corruption("{}: {} trailing bytes after the row id set", what,
                              bytes.size() - pos);
  }
  return out;
}

std::string RowSet::SerializeTreemap() const {
  std::string out;
  uint64_t n = 0;
  for (const auto& [frag, f] : impl_->frags) n += f.empty() ? 0 : 1;
  out.append(reinterpret_cast<const char*>(&n), 8);
  for (const auto& [frag, f] : impl_->frags) {
    if (f.empty()) continue;
    PutU32(out, frag);
    const size_t size = roaring_bitmap_portable_size_in_bytes(f.bm);
    const size_t at = out.size();
    out.resize(at + size);
    roaring_bitmap_portable_serialize(f.bm, out.data() + at);
  }
  return out;
}

Result<RowSet> RowSet::DeserializeTreemap(std::string_view bytes, std::string_view what) {
  if (bytes.size() < 8) {
    return Status::Corruption("{}: row id treemap of {} bytes (expected at least an 8-byte count)",
                              what, bytes.size());
  }
  uint64_t n;
  std::memcpy(&n, bytes.data(), 8);
  size_t pos = 8;
  RowSet out;
  int64_t prev = -1;
  for (uint64_t i = 0; i < n; ++i) {
    if (bytes.size() - pos < 4) {
      return Status::Corruption("{}: row id treemap entry {} of {} truncated at byte {}", what, i,
                                n, pos);
    }
    uint32_t frag;
    std::memcpy(&frag, bytes.data() + pos, 4);
    pos += 4;
    if (static_cast<int64_t>(frag) <= prev) {
      return Status::Corruption("{}: row id treemap fragments not ascending ({} after {})", what,
                                frag, prev);
    }
    prev = frag;
    const char* p = bytes.data() + pos;
    const size_t size = roaring_bitmap_portable_deserialize_size(p, bytes.size() - pos);
    if (size == 0) {
      return Status::Corruption("{}: row id treemap bitmap of fragment {} is not a portable "
                                "Roaring bitmap within the {} bytes left",
                                what, frag, bytes.size() - pos);
    }
    LANCE_ASSIGN_OR_RAISE(out.impl_->frags[frag], DecodeBitmap(p, size, what, "treemap", frag));
    pos += size;
  }
  if (pos != bytes.size()) {
    return Status::Corruption("{}: {} trailing bytes after the row id treemap", what,
                              bytes.size() - pos);
  }
  return out;
}

int64_t RowSet::MemoryBytes() const {
  int64_t n = static_cast<int64_t>(sizeof(Impl));
  for (const auto& [frag, f] : impl_->frags) {
    n += 64 + static_cast<int64_t>(roaring_bitmap_size_in_bytes(f.bm));
  }
  return n;
}

std::string RowSet::ToString() const {
  std::string s = "{";
  bool first = true;
  for (const auto& [frag, f] : impl_->frags) {
    if (!f.full) continue;
    s += fmt::format("{}fragment {} (all)", first ? "" : ", ", frag);
    first = false;
  }
  for (uint64_t r : ToVector()) {
    s += fmt::format("{}{}", first ? "" : ", ", r);
    first = false;
  }
  return s + "}";
}

}  // namespace lance::index
