#include "lance/index/split_block_bloom.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace lance::index {

namespace {

constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kP5 = 0x27D4EB2F165667C5ULL;

uint64_t Load64(const char* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, 8);  // little-endian hosts (x86-64 / aarch64)
  return v;
}

uint32_t Load32(const char* p) {
  uint32_t v = 0;
  std::memcpy(&v, p, 4);
  return v;
}

uint64_t Round(uint64_t acc, uint64_t lane) {
  acc += lane * kP2;
  acc = std::rotl(acc, 31);
  return acc * kP1;
}

uint64_t MergeRound(uint64_t acc, uint64_t v) {
  acc ^= Round(0, v);
  return acc * kP1 + kP4;
}

// Expected false-positive rate of `items` values in 2^log2_bytes bytes: the Poisson-weighted
// chance that all eight lanes of a block already hold the probed bit.
double FalsePositiveRate(uint64_t items, int log2_bytes) {
  if (items == 0) return 0.0;
  const double bits = std::ldexp(1.0, log2_bytes) * 8.0;
  const double n = static_cast<double>(items);
  if (n / bits > 2.0) return 1.0;
  const double lambda = 256.0 / (bits / n);  // bits of a block / bits per value
  const double log_lambda = std::log(lambda);
  double sum = 0.0;
  for (int i = 749; i >= 0; --i) {
    const double log_p = i * log_lambda - lambda - std::lgamma(static_cast<double>(i) + 1.0);
    const double log_inner = 8.0 * std::log(1.0 - std::pow(1.0 - 1.0 / 32.0, i));
    sum += std::exp(log_p + log_inner);
  }
  return std::min(sum, 1.0);
}

}  // namespace

uint64_t XxHash64(std::string_view bytes, uint64_t seed) {
  const char* p = bytes.data();
  const size_t n = bytes.size();
  const char* end = p + n;
  uint64_t h;
  if (n >= 32) {
    uint64_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
    const char* limit = end - 32;
    do {
      v1 = Round(v1, Load64(p));
      v2 = Round(v2, Load64(p + 8));
      v3 = Round(v3, Load64(p + 16));
      v4 = Round(v4, Load64(p + 24));
      p += 32;
    } while (p <= limit);
    h = std::rotl(v1, 1) + std::rotl(v2, 7) + std::rotl(v3, 12) + std::rotl(v4, 18);
    h = MergeRound(h, v1);
    h = MergeRound(h, v2);
    h = MergeRound(h, v3);
    h = MergeRound(h, v4);
  } else {
    h = seed + kP5;
  }
  h += static_cast<uint64_t>(n);
  for (; p + 8 <= end; p += 8) {
    h ^= Round(0, Load64(p));
    h = std::rotl(h, 27) * kP1 + kP4;
  }
  if (p + 4 <= end) {
    h ^= static_cast<uint64_t>(Load32(p)) * kP1;
    h = std::rotl(h, 23) * kP2 + kP3;
    p += 4;
  }
  for (; p < end; ++p) {
    h ^= static_cast<uint64_t>(static_cast<uint8_t>(*p)) * kP5;
    h = std::rotl(h, 11) * kP1;
  }
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

SplitBlockBloomFilter::SplitBlockBloomFilter(int64_t num_blocks) {
  words_.assign(static_cast<size_t>(std::max<int64_t>(1, num_blocks)) * 8, 0);
}

int SplitBlockBloomFilter::Log2BytesFor(uint64_t items, double fpp) {
  // Binary search of the smallest size meeting fpp, over 2^0 .. 2^64 bytes, then clamped.
  int low = 0, high = 64;
  while (high > low + 1) {
    const int mid = (low + high) / 2;
    if (FalsePositiveRate(items, mid) <= fpp) {
      high = mid;
    } else {
      low = mid;
    }
  }
  return std::clamp(high, 5, 27);
}

Result<SplitBlockBloomFilter> SplitBlockBloomFilter::ForItems(uint64_t items, double fpp) {
  if (!(fpp >= 0.0 && fpp < 1.0)) {
    return Status::InvalidArgument("bloom filter: false-positive probability {} (expected [0, 1))", fpp);
  }
  return SplitBlockBloomFilter(int64_t{1} << (Log2BytesFor(items, fpp) - 5));
}

void SplitBlockBloomFilter::InsertHash(uint64_t h) {
  const uint64_t blocks = words_.size() / 8;
  const uint64_t block = ((h >> 32) * blocks) >> 32;
  const uint32_t x = static_cast<uint32_t>(h);
  for (int i = 0; i < 8; ++i) words_[block * 8 + static_cast<uint64_t>(i)] |= 1U << ((x * kSalt[i]) >> 27);
}

bool SplitBlockBloomFilter::MightContainHash(uint64_t h) const {
  const uint64_t blocks = words_.size() / 8;
  const uint64_t block = ((h >> 32) * blocks) >> 32;
  const uint32_t x = static_cast<uint32_t>(h);
  for (int i = 0; i < 8; ++i) {
    if (!(words_[block * 8 + static_cast<uint64_t>(i)] & (1U << ((x * kSalt[i]) >> 27)))) return false;
  }
  return true;
}

std::string SplitBlockBloomFilter::Serialize() const {
  std::string out(words_.size() * 4, '\0');
  for (size_t i = 0; i < words_.size(); ++i) {
    for (int k = 0; k < 4; ++k) out[i * 4 + static_cast<size_t>(k)] = static_cast<char>((words_[i] >> (8 * k)) & 0xff);
  }
  return out;
}

Result<SplitBlockBloomFilter> SplitBlockBloomFilter::Deserialize(std::string_view bytes,
                                                                 std::string_view what) {
  if (bytes.empty() || bytes.size() % 32 != 0) {
    return Status::Corruption("{}: a bloom filter of {} bytes (expected a positive multiple of 32)",
                              what, bytes.size());
  }
  SplitBlockBloomFilter f(static_cast<int64_t>(bytes.size() / 32));
  for (size_t i = 0; i < f.words_.size(); ++i) {
    uint32_t w = 0;
    for (int k = 0; k < 4; ++k) w |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i * 4 + static_cast<size_t>(k)])) << (8 * k);
    f.words_[i] = w;
  }
  return f;
}

}  // namespace lance::index
