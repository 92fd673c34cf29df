// lance 12's commit-time migration of older vector index entries (index_migration.h), and the
// reader of the legacy IVF_PQ index file it needs (legacy_ivf_pq.h).
#include "lance/index/vector/index_migration.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include <fmt/format.h>

#include "index/vector/ivf_format.h"
#include "index/vector/legacy_ivf_pq.h"
#include "lance/index/index_metadata.h"
#include "lance/index/vector/ivf_index.h"
#include "file/proto/deterministic.h"
#include "table/proto/index_details.pb.h"

namespace lance::index::vector {

namespace {

constexpr const char* kOldVectorDetailsUrl = "/lance.table.VectorIndexDetails";

// Whether the writer of `m` was lance before 0.8.15 or is not recorded (lance 12 does not
// trust the fragment bitmaps of those writers).
bool UntrustedBitmapWriter(const table::Manifest& m) {
  if (m.writer_library.empty() && m.writer_version.empty()) return true;
  if (m.writer_library != "lance") return false;
  unsigned major = 0, minor = 0, patch = 0;
  if (std::sscanf(m.writer_version.c_str(), "%u.%u.%u", &major, &minor, &patch) != 3) return true;
  return std::make_tuple(major, minor, patch) < std::make_tuple(0u, 8u, 15u);
}

// Names of the indexes whose entries list some fragment twice.
std::set<std::string> OverlappingNames(const std::vector<table::IndexInfo>& indices) {
  std::map<std::string, std::set<uint32_t>> seen;
  std::set<std::string> out;
  for (const auto& x : indices) {
    if (!x.has_fragment_bitmap) continue;
    auto& s = seen[x.name];
    for (uint32_t f : x.fragment_ids) {
      if (!s.insert(f).second) out.insert(x.name);
    }
  }
  return out;
}

bool OnVectorColumn(const table::Manifest& m, const table::IndexInfo& x) {
  if (x.fields.size() != 1) return false;
  for (const auto& f : m.fields) {
    if (f.id == x.fields[0]) return f.logical_type.starts_with("fixed_size_list:");
  }
  return false;
}

// What the index files say: the details lance 12 records and the fragments of the row ids.
struct Read {
  std::optional<std::string> details;  // a serialized VectorIndexDetails, when the kind has one
  std::vector<uint32_t> fragments;      // ascending
};

::lance::index::pb::VectorIndexDetails::MetricType MetricOf(linalg::DistanceType d) {
  return static_cast<::lance::index::pb::VectorIndexDetails::MetricType>(DetailsMetricType(d));
}

std::vector<uint32_t> FragmentsOf(const std::vector<uint64_t>& row_ids) {
  std::set<uint32_t> s;
  for (uint64_t r : row_ids) s.insert(static_cast<uint32_t>(r >> 32));
  return {s.begin(), s.end()};
}

Result<Read> ReadIndex(const table::TableLocation& location, const table::IndexInfo& x) {
  auto files = OpenIndexStore(location, x);
  LANCE_ASSIGN_OR_RAISE(std::optional<LegacyIvfPq> legacy, ReadLegacyIvfPq(*files->object_store(), files->PathOf(kIndexFileName)));
  Read out;
  ::lance::index::pb::VectorIndexDetails d;
  if (legacy) {
    d.set_metric_type(MetricOf(legacy->metric));
    d.mutable_pq()->set_num_bits(legacy->num_bits);
    d.mutable_pq()->set_num_sub_vectors(legacy->num_sub_vectors);
    out.details = ::lance::proto::SerializeDeterministic(d);
    LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ids,
                          ReadLegacyIvfPqRowIds(*files->object_store(), files->PathOf(kIndexFileName), *legacy));
    out.fragments = FragmentsOf(ids);
    return out;
  }
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<IvfIndex> index, IvfIndex::Open(files));
  d.set_metric_type(MetricOf(index->metric()));
  if (index->kind() == IndexKind::kIvfPq && index->pq() != nullptr) {
    d.mutable_pq()->set_num_bits(index->pq()->num_bits);
    d.mutable_pq()->set_num_sub_vectors(static_cast<uint32_t>(index->pq()->num_sub_vectors));
    out.details = ::lance::proto::SerializeDeterministic(d);
  } else if (index->kind() == IndexKind::kIvfFlat) {
    d.mutable_flat();
    out.details = ::lance::proto::SerializeDeterministic(d);
  }
  out.fragments = FragmentsOf(index->row_ids());
  return out;
}

}  // namespace

Status MigrateVectorIndexEntries(const table::TableLocation& location, const table::Manifest* previous,
                                 table::Manifest* m) {
  const std::set<std::string> overlapping = OverlappingNames(m->indices);
  const bool untrusted_writer = previous != nullptr && UntrustedBitmapWriter(*previous);
  for (auto& x : m->indices) {
    if (table::IsSystemIndex(x) || x.base_id || x.uuid.empty()) continue;
    const bool vector = x.details_type_url == kOldVectorDetailsUrl || x.details_type_url == kVectorDetailsUrl ||
                        (x.details_type_url.empty() && x.details.empty() && OnVectorColumn(*m, x));
    if (!vector) continue;
    const bool details = x.details_type_url != kVectorDetailsUrl && x.details.empty();
    const bool bitmap = !x.has_fragment_bitmap || overlapping.count(x.name) > 0 || untrusted_writer;
    if (!details && !bitmap) continue;
    Result<Read> read = ReadIndex(location, x);
    if (!read.ok()) {
      return read.status().WithContext(
          fmt::format("{}: index '{}' ({}): reading it to record its details and fragments as lance 12 "
                      "does on commit",
                      location.display(), x.name, x.uuid));
    }
    if (details && read->details) {
      x.details_type_url = kVectorDetailsUrl;
      x.details = *read->details;
    }
    if (bitmap) {
      x.fragment_ids = std::move(read->fragments);
      x.has_fragment_bitmap = true;
    }
  }
  return Status::OK();
}

}  // namespace lance::index::vector
