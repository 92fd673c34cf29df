// The primary-key bloom filter of a flushed generation, `bloom_filter.bin` (mem_wal.md
// "Primary-key sidecars"; FORMAT-NOTES.md 10.5 for lance 12's exact bytes): a Parquet-style
// split-block bloom filter -- blocks of eight little-endian u32 words, the file is the blocks
// and nothing else -- of 1024 blocks (32 KiB) up to 8192 keys, more (a power of two) above.
// A key's hash is Rust's DefaultHasher (SipHash-1-3, zero keys) over, per key column, an is-null
// byte (1: null, nothing follows; 0: the value follows), then the value as Rust's Hash writes it: integers little-endian,
// strings their bytes then 0xff, binary a u64 length then the bytes, bool one byte. The block
// is ((h >> 32) * blocks) >> 32, the bits in it come from the low 32 bits with the Parquet salts
// (the blocks are index::SplitBlockBloomFilter, shared with the BLOOMFILTER scalar index).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/index/split_block_bloom.h"

namespace lance::memwal {

// SipHash-1-3 with zero keys (Rust's DefaultHasher::new()) of `bytes`.
uint64_t SipHash13(std::string_view bytes);

class PrimaryKeyBloomFilter {
 public:
  // Sized for `num_keys` keys.
  explicit PrimaryKeyBloomFilter(int64_t num_keys);
  // Adds / tests row `row` of the key columns. Errors: NotSupported for a column type without
  // a hash.
  Status Insert(const std::vector<ArrayPtr>& key_columns, int64_t row);
  Result<bool> MightContain(const std::vector<ArrayPtr>& key_columns, int64_t row) const;
  void InsertHash(uint64_t h);
  bool MightContainHash(uint64_t h) const;
  // The key hash of a row.
  static Result<uint64_t> Hash(const std::vector<ArrayPtr>& key_columns, int64_t row);

  int64_t num_blocks() const { return blocks_.num_blocks(); }
  std::string Serialize() const;
  // Errors: Corruption (a size that is not a positive multiple of 32 bytes).
  static Result<PrimaryKeyBloomFilter> Deserialize(std::string_view bytes, std::string_view what);

 private:
  explicit PrimaryKeyBloomFilter(index::SplitBlockBloomFilter blocks) : blocks_(std::move(blocks)) {}
  index::SplitBlockBloomFilter blocks_;
};

}  // namespace lance::memwal
