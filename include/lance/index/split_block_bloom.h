// A split-block bloom filter (SBBF) as Parquet specifies it and lance 12 stores it, shared by
// every bloom filter of lance-cpp: the MemWAL primary-key sidecar (`bloom_filter.bin`,
// memwal/bloom_filter.h) and the BLOOMFILTER scalar index (scalar/bloom_filter.h). The two
// differ only in how a key becomes a 64-bit hash; the blocks are the same.
//
// Layout: blocks of eight little-endian u32 words (32 bytes each), the serialized filter is the
// blocks and nothing else. A hash h picks block ((h >> 32) * blocks) >> 32 and sets, in word i
// of it, bit ((u32(h) * salt[i]) >> 27) with Parquet's eight salts.
//
// Sizing by expected items and false-positive probability (ForItems) follows the Parquet
// rule lance 12 uses: the smallest power-of-two byte size (32 B .. 128 MiB) whose
// probability by Putze et al.'s formula (equation 3 of "Cache-, hash- and space-efficient
// bloom filters") is at most the one asked for. 8192 items at 0.00057 give 32 KiB.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/result.h"

namespace lance::index {

// XXH64 of `bytes` (the Parquet bloom-filter hash; lance 12 hashes index values with seed 0).
uint64_t XxHash64(std::string_view bytes, uint64_t seed = 0);

class SplitBlockBloomFilter {
 public:
  // A filter of `num_blocks` empty blocks (at least one).
  explicit SplitBlockBloomFilter(int64_t num_blocks = 1);
  // Sized for `items` distinct values at false-positive probability `fpp` (0 <= fpp < 1).
  // Errors: InvalidArgument for an fpp outside [0, 1).
  static Result<SplitBlockBloomFilter> ForItems(uint64_t items, double fpp);
  // The log2 of the byte size ForItems picks.
  static int Log2BytesFor(uint64_t items, double fpp);

  void InsertHash(uint64_t h);
  bool MightContainHash(uint64_t h) const;

  int64_t num_blocks() const { return static_cast<int64_t>(words_.size() / 8); }
  std::string Serialize() const;
  // Errors: Corruption naming `what` (a size that is not a positive multiple of 32 bytes).
  static Result<SplitBlockBloomFilter> Deserialize(std::string_view bytes, std::string_view what);

 private:
  std::vector<uint32_t> words_;
};

}  // namespace lance::index
