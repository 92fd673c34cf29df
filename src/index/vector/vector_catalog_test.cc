// MetricOfDetails: the metric of a vector index from its manifest entry alone.
#include "lance/index/vector/vector_catalog.h"

#include <gtest/gtest.h>

#include "table/proto/index_details.pb.h"

namespace lance::index::vector {
namespace {

table::IndexInfo CatalogEntryWithDetails(std::string details) {
  table::IndexInfo info;
  info.details_type_url = "/lance.index.pb.VectorIndexDetails";
  info.details = std::move(details);
  return info;
}

TEST(VectorCatalog, MetricOfDetailsReadsEachMetric) {
  const std::pair<::lance::index::pb::VectorIndexDetails::MetricType, linalg::DistanceType> cases[] = {
      {::lance::index::pb::VectorIndexDetails::L2, linalg::DistanceType::kL2},
      {::lance::index::pb::VectorIndexDetails::COSINE, linalg::DistanceType::kCosine},
      {::lance::index::pb::VectorIndexDetails::DOT, linalg::DistanceType::kDot},
      {::lance::index::pb::VectorIndexDetails::HAMMING, linalg::DistanceType::kHamming},
  };
  for (const auto& [pb, want] : cases) {
    ::lance::index::pb::VectorIndexDetails v;
    v.set_metric_type(pb);
    v.mutable_pq()->set_num_bits(8);
    v.mutable_pq()->set_num_sub_vectors(4);
    const std::optional<linalg::DistanceType> got = MetricOfDetails(CatalogEntryWithDetails(v.SerializeAsString()));
    ASSERT_TRUE(got.has_value()) << static_cast<int>(pb);
    EXPECT_EQ(*got, want) << static_cast<int>(pb);
  }
}

TEST(VectorCatalog, MetricOfDetailsWithoutDetailsIsUnknown) {
  // No value (only the index file knows), a value that does not parse, a metric number lance
  // does not define: none is guessed as L2.
  EXPECT_FALSE(MetricOfDetails(CatalogEntryWithDetails("")).has_value());
  EXPECT_FALSE(MetricOfDetails(CatalogEntryWithDetails("\xff\xff")).has_value());
  ::lance::index::pb::VectorIndexDetails v;
  v.set_metric_type(static_cast<::lance::index::pb::VectorIndexDetails::MetricType>(9));
  EXPECT_FALSE(MetricOfDetails(CatalogEntryWithDetails(v.SerializeAsString())).has_value());
}

}  // namespace
}  // namespace lance::index::vector
