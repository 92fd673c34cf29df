// Stable row-id sequences and row-version runs (row_ids.h; rowids.proto): the only place
// they are parsed or serialized.
#include "lance/table/row_ids.h"

#include <bit>
#include <cstring>

#include "table/proto/rowids.pb.h"

namespace lance::table {

namespace {

constexpr uint64_t kMaxIds = 1ULL << 32;  // a fragment never holds more rows

// An EncodedU64Array's packed values: their bytes, width and base, checked to hold whole values.
struct Packed {
  const std::string* bytes;
  size_t width;
  uint64_t base;
  size_t size() const { return bytes->size() / width; }
  uint64_t at(size_t i) const {
    uint64_t v = 0;
    std::memcpy(&v, bytes->data() + i * width, width);  // little-endian host
    return base + v;
  }
};

Result<Packed> PackedOf(const ::lance::table::pb::EncodedU64Array& a) {
  Packed p{};
  switch (a.array_case()) {
    case ::lance::table::pb::EncodedU64Array::kU16Array:
      p = {&a.u16_array().offsets(), 2, a.u16_array().base()};
      break;
    case ::lance::table::pb::EncodedU64Array::kU32Array:
      p = {&a.u32_array().offsets(), 4, a.u32_array().base()};
      break;
    case ::lance::table::pb::EncodedU64Array::kU64Array:
      p = {&a.u64_array().values(), 8, 0};
      break;
    default:
      return Status::Corruption("row-id array: no encoding set");
  }
  if (p.bytes->size() % p.width != 0) {
    return Status::Corruption("row-id array: {} bytes is not a multiple of {}", p.bytes->size(), p.width);
  }
  return p;
}

Status DecodeArray(const ::lance::table::pb::EncodedU64Array& a, std::vector<uint64_t>* out) {
  LANCE_ASSIGN_OR_RAISE(Packed p, PackedOf(a));  // the sequence's length was checked by CountIds
  for (size_t i = 0; i < p.size(); ++i) out->push_back(p.at(i));
  return Status::OK();
}

// How many ids a segment holds, without expanding it, and every check of the segment: the
// decoder runs this first, so a claimed count is checked before anything of its size is
// allocated.
Result<uint64_t> SegmentLength(const ::lance::table::pb::U64Segment& s) {
  auto checked_range = [](uint64_t start, uint64_t end) -> Result<uint64_t> {
    if (end < start || end - start > kMaxIds) {
      return Status::Corruption("row-id range [{}, {}) is invalid or too long", start, end);
    }
    return end - start;
  };
  switch (s.segment_case()) {
    case ::lance::table::pb::U64Segment::kRange:
      return checked_range(s.range().start(), s.range().end());
    case ::lance::table::pb::U64Segment::kRangeWithHoles: {
      const auto& r = s.range_with_holes();
      LANCE_ASSIGN_OR_RAISE(uint64_t len, checked_range(r.start(), r.end()));
      LANCE_ASSIGN_OR_RAISE(Packed holes, PackedOf(r.holes()));
      // The decoder walks the holes in their stored order and skips an id of the range only
      // when the hole it reaches equals it: a hole counts when it lies in the range and is
      // above every hole stored before it.
      uint64_t inside = 0, max_before = 0;
      for (size_t i = 0; i < holes.size(); ++i) {
        const uint64_t h = holes.at(i);
        if (h >= r.start() && h < r.end() && (i == 0 || h > max_before)) ++inside;
        if (i == 0 || h > max_before) max_before = h;
      }
      return len - inside;
    }
    case ::lance::table::pb::U64Segment::kRangeWithBitmap: {
      const auto& r = s.range_with_bitmap();
      if (r.end() < r.start() || r.end() - r.start() > kMaxIds ||
          (r.end() - r.start() + 7) / 8 > r.bitmap().size()) {
        return Status::Corruption("row-id bitmap range [{}, {}) is invalid for {} bitmap bytes",
                                  r.start(), r.end(), r.bitmap().size());
      }
      const uint64_t bits = r.end() - r.start();
      uint64_t set = 0;
      for (uint64_t i = 0; i < bits / 8; ++i) set += std::popcount(static_cast<uint8_t>(r.bitmap()[i]));
      for (uint64_t i = bits / 8 * 8; i < bits; ++i) {
        set += (static_cast<uint8_t>(r.bitmap()[i / 8]) >> (i % 8)) & 1u;
      }
      return set;
    }
    case ::lance::table::pb::U64Segment::kSortedArray: {
      LANCE_ASSIGN_OR_RAISE(Packed p, PackedOf(s.sorted_array()));
      return p.size();
    }
    case ::lance::table::pb::U64Segment::kArray: {
      LANCE_ASSIGN_OR_RAISE(Packed p, PackedOf(s.array()));
      return p.size();
    }
    default:
      return Status::Corruption("row-id sequence: a segment has no encoding");
  }
}

Result<::lance::table::pb::RowIdSequence> ParseRowIdSequence(std::string_view bytes) {
  ::lance::table::pb::RowIdSequence seq;
  if (!seq.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("row-id sequence: the protobuf does not decode ({} bytes)",
                              bytes.size());
  }
  return seq;
}

// The ids of every segment together, each segment checked (SegmentLength).
Result<uint64_t> CountIds(const ::lance::table::pb::RowIdSequence& seq) {
  uint64_t total = 0;
  for (const auto& s : seq.segments()) {
    LANCE_ASSIGN_OR_RAISE(uint64_t len, SegmentLength(s));
    total += len;
    if (total > kMaxIds) return Status::Corruption("row-id sequence: more than 2^32 ids");
  }
  return total;
}

}  // namespace

Result<uint64_t> RowIdSequenceLength(std::string_view bytes) {
  LANCE_ASSIGN_OR_RAISE(auto seq, ParseRowIdSequence(bytes));
  return CountIds(seq);
}

Result<std::vector<uint64_t>> DecodeRowIdSequence(std::string_view bytes) {
  LANCE_ASSIGN_OR_RAISE(auto seq, ParseRowIdSequence(bytes));
  LANCE_ASSIGN_OR_RAISE(uint64_t total, CountIds(seq));  // every segment checked here
  std::vector<uint64_t> ids;
  ids.reserve(total);
  for (const auto& s : seq.segments()) {
    switch (s.segment_case()) {
      case ::lance::table::pb::U64Segment::kRange:
        for (uint64_t v = s.range().start(); v < s.range().end(); ++v) ids.push_back(v);
        break;
      case ::lance::table::pb::U64Segment::kRangeWithHoles: {
        const auto& r = s.range_with_holes();
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
        const std::string& bm = r.bitmap();
        for (uint64_t i = 0; i < r.end() - r.start(); ++i) {
          if (static_cast<uint8_t>(bm[i / 8]) & (1u << (i % 8))) ids.push_back(r.start() + i);
        }
        break;
      }
      case ::lance::table::pb::U64Segment::kSortedArray:
        LANCE_RETURN_NOT_OK(DecodeArray(s.sorted_array(), &ids));
        break;
      default:  // kArray: CountIds refused segments without an encoding
        LANCE_RETURN_NOT_OK(DecodeArray(s.array(), &ids));
        break;
    }
  }
  return ids;
}

std::string EncodeRowIdSequence(const std::vector<uint64_t>& ids) {
  ::lance::table::pb::RowIdSequence seq;
  std::string loose;  // little-endian u64 values not in a long run
  auto flush_loose = [&] {
    if (loose.empty()) return;
    seq.add_segments()->mutable_array()->mutable_u64_array()->set_values(loose);
    loose.clear();
  };
  size_t i = 0;
  while (i < ids.size()) {
    size_t j = i + 1;
    while (j < ids.size() && ids[j] == ids[j - 1] + 1) ++j;
    if (j - i >= 4) {
      flush_loose();
      auto* r = seq.add_segments()->mutable_range();
      r->set_start(ids[i]);
      r->set_end(ids[j - 1] + 1);
    } else {
      for (size_t k = i; k < j; ++k) {
        char b[8];
        std::memcpy(b, &ids[k], 8);
        loose.append(b, 8);
      }
    }
    i = j;
  }
  flush_loose();
  return seq.SerializeAsString();
}

std::string RowIdRange(uint64_t start, uint64_t n) {
  ::lance::table::pb::RowIdSequence seq;
  auto* r = seq.add_segments()->mutable_range();
  r->set_start(start);
  r->set_end(start + n);
  return seq.SerializeAsString();
}

namespace {

// A fragment's version runs as (rows, version), checked to cover exactly its rows; without
// runs, as lance 12 takes them: every row created at version 1 and last updated when created.
Result<std::vector<std::pair<uint64_t, uint64_t>>> CheckedVersionRuns(const FragmentInfo& f,
                                                                       bool created_at) {
  const uint64_t n = f.physical_rows;
  const std::string& inline_bytes = created_at ? f.inline_created_at_versions : f.inline_last_updated_at_versions;
  const bool external = created_at ? f.external_created_at_versions.has_value()
                                   : f.external_last_updated_at_versions.has_value();
  const char* what = created_at ? "created-at" : "last-updated-at";
  if (n > kMaxIds) {
    return Status::Corruption("fragment {}: physical_rows is {}, more than the 2^32 rows a "
                              "fragment can address",
                              f.id, n);
  }
  if (external && inline_bytes.empty()) {
    return Status::NotSupported("fragment {}: {} versions in an external file are not supported",
                                f.id, what);
  }
  if (inline_bytes.empty()) {
    if (!created_at) return CheckedVersionRuns(f, true);
    return std::vector<std::pair<uint64_t, uint64_t>>{{n, 1}};
  }
  ::lance::table::pb::RowLatestUpdateVersionSequence seq;
  if (!seq.ParseFromString(inline_bytes)) {
    return Status::Corruption("fragment {}: the {} version sequence does not decode", f.id, what);
  }
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  uint64_t covered = 0;
  for (const auto& run : seq.runs()) {
    LANCE_ASSIGN_OR_RAISE(uint64_t len, SegmentLength(run.span()));
    covered += len;
    if (covered > n) break;
    runs.emplace_back(len, run.version());
  }
  if (covered != n) {
    return Status::Corruption("fragment {}: the {} version runs cover {} rows{}, the fragment has "
                              "{}",
                              f.id, what, covered, covered > n ? " or more" : "", n);
  }
  return runs;
}

}  // namespace

Result<std::vector<uint64_t>> RowVersions(const FragmentInfo& f, bool created_at) {
  LANCE_ASSIGN_OR_RAISE(auto runs, CheckedVersionRuns(f, created_at));
  std::vector<uint64_t> out;
  out.reserve(f.physical_rows);
  for (const auto& [len, version] : runs) out.insert(out.end(), len, version);
  return out;
}

Status ValidateRowVersions(const FragmentInfo& f, bool created_at) {
  return CheckedVersionRuns(f, created_at).status();
}

std::string EncodeVersionRuns(const uint64_t* versions, size_t n) {
  ::lance::table::pb::RowLatestUpdateVersionSequence seq;
  for (size_t start = 0; start < n;) {
    size_t end = start + 1;
    while (end < n && versions[end] == versions[start]) ++end;
    auto* run = seq.add_runs();
    auto* range = run->mutable_span()->mutable_range();
    range->set_start(start);
    range->set_end(end);
    run->set_version(versions[start]);
    start = end;
  }
  return seq.SerializeAsString();
}

std::string VersionRun(uint64_t n, uint64_t version) {
  ::lance::table::pb::RowLatestUpdateVersionSequence seq;
  auto* run = seq.add_runs();
  run->mutable_span()->mutable_range()->set_end(n);
  run->set_version(version);
  return seq.SerializeAsString();
}

Status AssignRowIds(std::vector<FragmentInfo>* fragments, const std::vector<uint64_t>& ids) {
  size_t pos = 0;
  for (auto& f : *fragments) {
    const size_t n = static_cast<size_t>(f.physical_rows);
    if (pos + n > ids.size()) {
      return Status::Internal("row ids: {} ids for more rows", ids.size());
    }
    f.inline_row_ids = EncodeRowIdSequence(std::vector<uint64_t>(
        ids.begin() + static_cast<std::ptrdiff_t>(pos), ids.begin() + static_cast<std::ptrdiff_t>(pos + n)));
    pos += n;
  }
  if (pos != ids.size()) return Status::Internal("row ids: {} ids for {} rows", ids.size(), pos);
  return Status::OK();
}

}  // namespace lance::table
