// Names lance 12 gives the files, columns and metadata keys of its vector indexes (index file
// version 3; lance-format/lance docs/src/format/index/vector/index.md).
#pragma once

#include "lance/linalg/distance.h"

namespace lance::index::vector {

// The VectorIndexDetails.MetricType number of a distance: L2 0, COSINE 1, DOT 2, HAMMING 3.
constexpr int DetailsMetricType(linalg::DistanceType d) {
  switch (d) {
    case linalg::DistanceType::kL2: return 0;
    case linalg::DistanceType::kCosine: return 1;
    case linalg::DistanceType::kDot: return 2;
    case linalg::DistanceType::kHamming: return 3;
  }
  return 0;
}

inline constexpr const char* kVectorDetailsUrl = "/lance.index.pb.VectorIndexDetails";  // the manifest's type
inline constexpr const char* kIndexFileName = "index.idx";
inline constexpr const char* kAuxiliaryFileName = "auxiliary.idx";
inline constexpr const char* kIndexMetadataKey = "lance:index";  // {"type", "distance_type"}
inline constexpr const char* kIvfMetadataKey = "lance:ivf";      // global buffer of the IVF message
inline constexpr const char* kFlatMetadataKey = "lance:flat";    // one "" per partition
inline constexpr const char* kStorageMetadataKey = "storage_metadata";  // [quantizer JSON]
inline constexpr const char* kFlatMarkerColumn = "__flat_marker";
inline constexpr const char* kRowIdColumn = "_rowid";
inline constexpr const char* kFlatColumn = "flat";
inline constexpr const char* kPqCodeColumn = "__pq_code";
inline constexpr const char* kSqCodeColumn = "__sq_code";
inline constexpr const char* kHnswMetadataKey = "lance:hnsw";  // one JSON string per partition
inline constexpr const char* kVectorIdColumn = "__vector_id";
inline constexpr const char* kNeighborsColumn = "__neighbors";
inline constexpr const char* kDistanceColumn = "_distance";
// IVF_RQ's auxiliary.idx (docs/vector-rq.md).
inline constexpr const char* kRabitCodeColumn = "_rabit_codes";
inline constexpr const char* kRabitAddFactorsColumn = "__add_factors";
inline constexpr const char* kRabitScaleFactorsColumn = "__scale_factors";
inline constexpr const char* kRabitErrorFactorsColumn = "__error_factors";

}  // namespace lance::index::vector
