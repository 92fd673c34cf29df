#include "lance/memwal/key_index.h"

#include <cstring>

#include "lance/core/bit_util.h"

namespace lance::memwal {

namespace {

using bit_util::Mix64;

}  // namespace

uint64_t KeyIndex::Hash(std::string_view key) {
  if (key.size() >= 8 && key.size() <= 16) {
    // Short keys (an int64 key is 9 bytes): the first and the last 8 bytes (overlapping).
    uint64_t a, b;
    std::memcpy(&a, key.data(), 8);
    std::memcpy(&b, key.data() + key.size() - 8, 8);
    return Mix64(a * 0x9e3779b97f4a7c15ULL ^ Mix64(b ^ (uint64_t{key.size()} << 59)));
  }
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (key.size() * 0x100000001b3ULL);
  const char* p = key.data();
  size_t n = key.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ Mix64(w)) * 0x9e3779b97f4a7c15ULL;
  }
  if (n > 0) {
    // The last 1-7 bytes (a byte loop: a memcpy of a variable length is a libc call).
    uint64_t w = uint64_t{n} << 56;
    for (size_t i = 0; i < n; ++i) w |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
    h = (h ^ Mix64(w)) * 0x9e3779b97f4a7c15ULL;
  }
  return Mix64(h);
}

void KeyIndex::Grow() {
  const size_t cap = table_.empty() ? 1024 : table_.size() * 2;
  table_.assign(cap, kEmpty);
  const size_t mask = cap - 1;
  for (size_t i = 0; i < slots_.size(); ++i) {
    size_t at = static_cast<size_t>(slots_[i].hash) & mask;
    while (table_[at] != kEmpty) at = (at + 1) & mask;
    table_[at] = static_cast<uint32_t>(i);
  }
}

std::pair<KeyIndex::Entry*, bool> KeyIndex::Upsert(std::string_view key, uint64_t hash, uint32_t pos) {
  // At most half full: short probe runs.
  if ((slots_.size() + 1) * 2 > table_.size()) Grow();
  const size_t mask = table_.size() - 1;
  size_t at = static_cast<size_t>(hash) & mask;
  for (; table_[at] != kEmpty; at = (at + 1) & mask) {
    Slot& s = slots_[table_[at]];
    if (Holds(s, key, hash)) return {&s.entry, false};
  }
  table_[at] = static_cast<uint32_t>(slots_.size());
  slots_.push_back(Slot{hash, arena_.size(), static_cast<uint32_t>(key.size()), Entry{pos, pos}});
  arena_.append(key);
  return {&slots_.back().entry, true};
}

const KeyIndex::Entry* KeyIndex::Find(std::string_view key, uint64_t hash) const {
  if (table_.empty()) return nullptr;
  const size_t mask = table_.size() - 1;
  for (size_t at = static_cast<size_t>(hash) & mask; table_[at] != kEmpty; at = (at + 1) & mask) {
    const Slot& s = slots_[table_[at]];
    if (Holds(s, key, hash)) return &s.entry;
  }
  return nullptr;
}

}  // namespace lance::memwal
