#pragma once
// The MemTable's key index: encoded primary key -> the key's first and newest row positions.
// Open addressing (linear probing) over one arena of key bytes: no allocation, hash node or
// string per key (a std::unordered_map<std::string, ...> cost the 10k-row upsert path a
// malloc a key, and its destructor a free a key).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lance::memwal {

class KeyIndex {
 public:
  struct Entry {
    uint32_t newest = 0;
    uint32_t first = 0;  // the key's first row here
  };

  // A 64-bit hash of the key bytes (what Upsert and Find take, so that callers can hash
  // outside a lock).
  static uint64_t Hash(std::string_view key);

  // The entry of `key` (whose Hash is `hash`), inserted as {pos, pos} when absent; second:
  // whether it was inserted. The pointer holds until the next Upsert.
  std::pair<Entry*, bool> Upsert(std::string_view key, uint64_t hash, uint32_t pos);
  // The entry of `key`; null when absent.
  const Entry* Find(std::string_view key) const { return Find(key, Hash(key)); }
  const Entry* Find(std::string_view key, uint64_t hash) const;

  size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }
  // Each entry once, in insertion order.
  template <typename F>
  void ForEach(F&& f) const {
    for (const Slot& s : slots_) f(s.entry);
  }

 private:
  struct Slot {
    uint64_t hash;
    uint64_t offset;  // of the key in arena_
    uint32_t length;
    Entry entry;
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;
  bool Holds(const Slot& s, std::string_view key, uint64_t hash) const {
    return s.hash == hash && s.length == key.size() &&
           (key.empty() || std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0);
  }
  void Grow();

  std::string arena_;           // every key's bytes, one after another
  std::vector<Slot> slots_;     // insertion order
  std::vector<uint32_t> table_; // a power of two of indexes into slots_ (kEmpty: free)
};

}  // namespace lance::memwal
