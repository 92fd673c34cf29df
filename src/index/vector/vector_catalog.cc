#include "lance/index/vector/vector_catalog.h"

#include <utility>

#include <fmt/format.h>

#include "index/vector/ivf_format.h"
#include "table/proto/index_details.pb.h"
#include "lance/index/index_metadata.h"
#include "lance/index/index_store.h"

namespace lance::index::vector {

const table::IndexInfo* FindVectorIndex(const table::Manifest& manifest, int32_t field_id) {
  for (const auto& idx : manifest.indices) {
    if (idx.details_type_url == kVectorDetailsUrl && idx.fields.size() == 1 && idx.fields[0] == field_id) {
      return &idx;
    }
  }
  return nullptr;
}

std::optional<linalg::DistanceType> MetricOfDetails(const table::IndexInfo& info) {
  if (info.details.empty()) return std::nullopt;
  ::lance::index::pb::VectorIndexDetails v;
  if (!v.ParseFromString(info.details)) return std::nullopt;
  switch (static_cast<int>(v.metric_type())) {
    case DetailsMetricType(linalg::DistanceType::kL2): return linalg::DistanceType::kL2;
    case DetailsMetricType(linalg::DistanceType::kCosine): return linalg::DistanceType::kCosine;
    case DetailsMetricType(linalg::DistanceType::kDot): return linalg::DistanceType::kDot;
    case DetailsMetricType(linalg::DistanceType::kHamming): return linalg::DistanceType::kHamming;
    default: return std::nullopt;
  }
}

Result<std::shared_ptr<const IvfIndex>> OpenVectorIndex(const std::shared_ptr<IndexCache>& cache,
                                                        const table::TableLocation& location,
                                                        const table::IndexInfo& info) {
  auto open = [&]() -> Result<std::pair<std::shared_ptr<const IvfIndex>, int64_t>> {
    LANCE_ASSIGN_OR_RAISE(std::shared_ptr<IvfIndex> index,
                          IvfIndex::OpenByPartition(OpenIndexStore(location, info, cache)));
    const int64_t bytes = index->MemoryBytes();
    return std::pair<std::shared_ptr<const IvfIndex>, int64_t>(std::move(index), bytes);
  };
  if (!cache) {
    LANCE_ASSIGN_OR_RAISE(auto opened, open());
    return opened.first;
  }
  // The store's address tells two stores' equal paths apart; the directory names the segment.
  const std::string key = fmt::format("ivf:{}:{}", static_cast<const void*>(location.store().get()),
                                      IndexDirectory(location, info.uuid));
  return cache->GetOrLoadAs<IvfIndex>(key, open);
}

}  // namespace lance::index::vector
