#include "lance/memwal/bloom_filter.h"

#include <bit>
#include <cstring>

namespace lance::memwal {

namespace {

struct Sip {
  uint64_t v0 = 0x736f6d6570736575ULL, v1 = 0x646f72616e646f6dULL;
  uint64_t v2 = 0x6c7967656e657261ULL, v3 = 0x7465646279746573ULL;
  void Round() {
    v0 += v1; v1 = std::rotl(v1, 13); v1 ^= v0; v0 = std::rotl(v0, 32);
    v2 += v3; v3 = std::rotl(v3, 16); v3 ^= v2;
    v0 += v3; v3 = std::rotl(v3, 21); v3 ^= v0;
    v2 += v1; v1 = std::rotl(v1, 17); v1 ^= v2; v2 = std::rotl(v2, 32);
  }
};

void LittleEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

uint64_t SipHash13(std::string_view bytes) {
  Sip s;
  const size_t n = bytes.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t m = 0;
    std::memcpy(&m, bytes.data() + i, 8);  // little-endian host (x86-64 / aarch64)
    s.v3 ^= m;
    s.Round();
    s.v0 ^= m;
  }
  uint64_t b = static_cast<uint64_t>(n) << 56;
  for (size_t k = 0; i + k < n; ++k) b |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i + k])) << (8 * k);
  s.v3 ^= b;
  s.Round();
  s.v0 ^= b;
  s.v2 ^= 0xff;
  s.Round();
  s.Round();
  s.Round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

namespace {
int64_t BlocksFor(int64_t num_keys) {
  int64_t blocks = 1024;
  while (blocks * 8 < num_keys && blocks < (int64_t{1} << 22)) blocks *= 2;  // >= 8 keys a block
  return blocks;
}
}  // namespace

PrimaryKeyBloomFilter::PrimaryKeyBloomFilter(int64_t num_keys) : blocks_(BlocksFor(num_keys)) {}

Result<uint64_t> PrimaryKeyBloomFilter::Hash(const std::vector<ArrayPtr>& key_columns, int64_t row) {
  std::string bytes;
  for (const ArrayPtr& col : key_columns) {
    const Array& a = *col;
    // An is-null byte: 1 for null (nothing follows), 0 then the value.
    if (a.IsNull(row)) {
      bytes.push_back('\x01');
      continue;
    }
    bytes.push_back('\0');
    switch (a.type_id()) {
      case TypeId::kBool: bytes.push_back(a.BoolValue(row) ? '\x01' : '\0'); break;
      case TypeId::kInt8: case TypeId::kUInt8: LittleEndian(a.Values<uint8_t>()[row], 1, &bytes); break;
      case TypeId::kInt16: case TypeId::kUInt16: LittleEndian(a.Values<uint16_t>()[row], 2, &bytes); break;
      case TypeId::kInt32: case TypeId::kUInt32: case TypeId::kDate32: case TypeId::kTime32:
        LittleEndian(a.Values<uint32_t>()[row], 4, &bytes);
        break;
      case TypeId::kInt64: case TypeId::kUInt64: case TypeId::kDate64: case TypeId::kTime64:
      case TypeId::kTimestamp: case TypeId::kDuration:
        LittleEndian(a.Values<uint64_t>()[row], 8, &bytes);
        break;
      case TypeId::kString: case TypeId::kLargeString:
        bytes.append(a.GetView(row));
        bytes.push_back('\xff');
        break;
      case TypeId::kBinary: case TypeId::kLargeBinary: {
        const std::string_view v = a.GetView(row);
        LittleEndian(v.size(), 8, &bytes);
        bytes.append(v);
        break;
      }
      default:
        return Status::NotSupported("no bloom-filter hash for primary-key type {}", a.type->ToString());
    }
  }
  return SipHash13(bytes);
}

void PrimaryKeyBloomFilter::InsertHash(uint64_t h) { blocks_.InsertHash(h); }

bool PrimaryKeyBloomFilter::MightContainHash(uint64_t h) const { return blocks_.MightContainHash(h); }

Status PrimaryKeyBloomFilter::Insert(const std::vector<ArrayPtr>& key_columns, int64_t row) {
  LANCE_ASSIGN_OR_RAISE(uint64_t h, Hash(key_columns, row));
  InsertHash(h);
  return Status::OK();
}

Result<bool> PrimaryKeyBloomFilter::MightContain(const std::vector<ArrayPtr>& key_columns,
                                                 int64_t row) const {
  LANCE_ASSIGN_OR_RAISE(uint64_t h, Hash(key_columns, row));
  return MightContainHash(h);
}

std::string PrimaryKeyBloomFilter::Serialize() const { return blocks_.Serialize(); }

Result<PrimaryKeyBloomFilter> PrimaryKeyBloomFilter::Deserialize(std::string_view bytes,
                                                                 std::string_view what) {
  LANCE_ASSIGN_OR_RAISE(index::SplitBlockBloomFilter blocks, index::SplitBlockBloomFilter::Deserialize(bytes, what));
  return PrimaryKeyBloomFilter(std::move(blocks));
}

}  // namespace lance::memwal
