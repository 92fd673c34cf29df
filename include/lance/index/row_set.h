// RowSet: a set of 64-bit row ids (row addresses: fragment id in the high 32 bits, row offset
// in the low 32, when the table has no stable row ids), as the scalar indexes store and
// return them.
//
// Kept as one 32-bit Roaring bitmap per fragment (the high 32 bits), which is also its
// serialized form in index files -- lance's RowIdTreeMap:
//   u32 LE number of fragments | per fragment, ascending: u32 LE fragment id, u32 LE size,
//   `size` bytes of a portable 32-bit Roaring bitmap (size 0: every row of the fragment).
// Copyable (deep copy), movable; not thread-safe for writes, safe to read concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/result.h"

namespace lance::index {

class RowSet {
 public:
  RowSet();
  ~RowSet();
  RowSet(const RowSet& other);
  RowSet& operator=(const RowSet& other);
  RowSet(RowSet&& other) noexcept;
  RowSet& operator=(RowSet&& other) noexcept;

  static RowSet Of(const std::vector<uint64_t>& rows);

  void Insert(uint64_t row);
  // Inserts `n` rows (any order; runs of one fragment are inserted in bulk).
  void InsertMany(const uint64_t* rows, size_t n);
  // Inserts rows [begin, end).
  void InsertRange(uint64_t begin, uint64_t end);
  // Adds every row of fragment `fragment` (a "full" fragment entry).
  void InsertFragment(uint32_t fragment);
  bool Contains(uint64_t row) const;
  bool empty() const;
  // Number of rows; a full fragment counts as 2^32 rows.
  uint64_t Cardinality() const;
  // The rows in ascending order. REQUIRES: no full fragment (those are never enumerated;
  // IsFull tells).
  std::vector<uint64_t> ToVector() const;
  // The fragments with at least one row, ascending.
  std::vector<uint32_t> Fragments() const;
  bool IsFull(uint32_t fragment) const;

  RowSet& operator|=(const RowSet& other);
  RowSet& operator&=(const RowSet& other);
  RowSet& operator-=(const RowSet& other);
  // Keeps only the rows of the listed fragments (`fragments` ascending).
  void RetainFragments(const std::vector<uint32_t>& fragments);
  bool operator==(const RowSet& other) const;

  // The RowIdTreeMap form above; bitmaps keep array / bitset containers (no run containers),
  // as the reference writes them.
  std::string Serialize() const;
  // Errors: Corruption naming `what` for truncated or malformed bytes (never reads past them).
  static Result<RowSet> Deserialize(std::string_view bytes, std::string_view what);

  // The RoaringTreemap form (the roaring crate's 64-bit bitmap, which NGRAM posting lists
  // store): u64 LE number of bitmaps | per fragment, ascending: u32 LE fragment id, then a
  // portable 32-bit Roaring bitmap (self-delimiting, no size prefix). REQUIRES: no full
  // fragment (the form has none).
  std::string SerializeTreemap() const;
  // Errors: Corruption naming `what` for truncated or malformed bytes.
  static Result<RowSet> DeserializeTreemap(std::string_view bytes, std::string_view what);

  // Approximate heap bytes held (for cache accounting).
  int64_t MemoryBytes() const;
  std::string ToString() const;  // "{1, 4294967297, ...}" (tests)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lance::index
