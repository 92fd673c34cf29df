// Stable row-id sequences (rowids.proto): segments of ranges, ranges with holes or bitmaps,
// and bit-packed arrays.
#include <cstring>

#include "lance/table/snapshot.h"
#include "table/proto/rowids.pb.h"

namespace lance::table {

namespace {

constexpr uint64_t kMaxIds = 1ULL << 32;  // a fragment never holds more rows

Status DecodeArray(const ::lance::table::pb::EncodedU64Array& a, std::vector<uint64_t>* out) {
  auto unpack = [&](const std::string& bytes, size_t width, uint64_t base) -> Status {
    if (bytes.size() % width != 0) {
      return Status::Corruption("row-id array: {} bytes is not a multiple of {}", bytes.size(), width);
    }
    const size_t n = bytes.size() / width;
    if (out->size() + n > kMaxIds) return Status::Corruption("row-id sequence too long");
    for (size_t i = 0; i < n; ++i) {
      uint64_t v = 0;
      std::memcpy(&v, bytes.data() + i * width, width);  // little-endian host
      out->push_back(base + v);
    }
    return Status::OK();
  };
  switch (a.array_case()) {
    case ::lance::table::pb::EncodedU64Array::kU16Array:
      return unpack(a.u16_array().offsets(), 2, a.u16_array().base());
    case ::lance::table::pb::EncodedU64Array::kU32Array:
      return unpack(a.u32_array().offsets(), 4, a.u32_array().base());
    case ::lance::table::pb::EncodedU64Array::kU64Array:
      return unpack(a.u64_array().values(), 8, 0);
    default:
      return Status::Corruption("row-id array: no encoding set");
  }
}

}  // namespace

Result<std::vector<uint64_t>> DecodeRowIdSequence(std::string_view bytes) {
  ::lance::table::pb::RowIdSequence seq;
  if (!seq.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("row-id sequence: the protobuf does not decode ({} bytes)",
                              bytes.size());
  }
  std::vector<uint64_t> ids;
  for (const auto& s : seq.segments()) {
    switch (s.segment_case()) {
      case ::lance::table::pb::U64Segment::kRange: {
        const uint64_t a = s.range().start(), b = s.range().end();
        if (b < a || b - a > kMaxIds - ids.size()) {
          return Status::Corruption("row-id range [{}, {}) is invalid or too long", a, b);
        }
        for (uint64_t v = a; v < b; ++v) ids.push_back(v);
        break;
      }
      case ::lance::table::pb::U64Segment::kRangeWithHoles: {
        const auto& r = s.range_with_holes();
        if (r.end() < r.start() || r.end() - r.start() > kMaxIds - ids.size()) {
          return Status::Corruption("row-id range [{}, {}) is invalid or too long", r.start(), r.end());
        }
        std::vector<uint64_t> holes;
        LANCE_RETURN_NOT_OK(DecodeArray(r.holes(), &holes));
        size_t h = 0;
        for (uint64_t v = r.start(); v < r.end(); ++v) {
          while (h < holes.size() && holes[h] < v) ++h;
          if (h < holes.size() && holes[h] == v) continue;
          ids.push_back(v);
        }
        break;
      }
      case ::lance::table::pb::U64Segment::kRangeWithBitmap: {
        const auto& r = s.range_with_bitmap();
        if (r.end() < r.start() || r.end() - r.start() > kMaxIds - ids.size() ||
            (r.end() - r.start() + 7) / 8 > r.bitmap().size()) {
          return Status::Corruption("row-id bitmap range [{}, {}) is invalid for {} bitmap bytes",
                                    r.start(), r.end(), r.bitmap().size());
        }
        const std::string& bm = r.bitmap();
        for (uint64_t i = 0; i < r.end() - r.start(); ++i) {
          if (static_cast<uint8_t>(bm[i / 8]) & (1u << (i % 8))) ids.push_back(r.start() + i);
        }
        break;
      }
      case ::lance::table::pb::U64Segment::kSortedArray:
        LANCE_RETURN_NOT_OK(DecodeArray(s.sorted_array(), &ids));
        break;
      case ::lance::table::pb::U64Segment::kArray:
        LANCE_RETURN_NOT_OK(DecodeArray(s.array(), &ids));
        break;
      default:
        return Status::Corruption("row-id sequence: a segment has no encoding");
    }
  }
  return ids;
}

}  // namespace lance::table
