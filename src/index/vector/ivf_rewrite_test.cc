// SerdeJsonDouble and ReserializedStorageSchema: SQ bounds as lance 12 reads and writes them
// again when it rewrites a segment (seen on its compaction remap of an IVF_HNSW_SQ index).
#include "index/vector/ivf_rewrite.h"

#include <gtest/gtest.h>

#include "index/vector/ivf_format.h"

namespace lance::index::vector {
namespace {

TEST(SerdeJsonDouble, SeventeenDigitsAreOneUlpOffAsLance12ReadsThem) {
  // lance 12 wrote -3.9013020992279057 back for the bounds it had read as -3.9013020992279053.
  EXPECT_EQ(SerdeJsonDouble("-3.9013020992279053"), -3.9013020992279057);
  EXPECT_NE(SerdeJsonDouble("-3.9013020992279053"), -3.9013020992279053);
  // Up to 15-16 digits both are exact: the significand is a double and one division rounds.
  EXPECT_EQ(SerdeJsonDouble("3.994082450866699"), 3.994082450866699);
  EXPECT_EQ(SerdeJsonDouble("1.5"), 1.5);
  EXPECT_EQ(SerdeJsonDouble("-0.25"), -0.25);
  EXPECT_EQ(SerdeJsonDouble("0.001"), 0.001);
  EXPECT_EQ(SerdeJsonDouble("12"), 12.0);
  EXPECT_EQ(SerdeJsonDouble("2.5e3"), 2500.0);
  EXPECT_EQ(SerdeJsonDouble("1E-2"), 0.01);
}

TEST(ReserializedStorageSchema, RewritesSqBoundsOnly) {
  auto meta = std::make_shared<KeyValueMetadata>(std::vector<std::pair<std::string, std::string>>{
      {"distance_type", "l2"},
      {kStorageMetadataKey,
       R"(["{\"dim\":16,\"num_bits\":8,\"bounds\":{\"start\":-3.9013020992279053,\"end\":4}}"])"},
      {kIvfMetadataKey, "1"}});
  auto s = schema({field(kRowIdColumn, uint64(), true)}, meta);
  auto out = ReserializedStorageSchema(s);
  EXPECT_EQ(out->metadata()->Get(kStorageMetadataKey).value(),
            R"(["{\"dim\":16,\"num_bits\":8,\"bounds\":{\"start\":-3.9013020992279057,\"end\":4.0}}"])");
  EXPECT_EQ(out->metadata()->Get("distance_type").value(), "l2");
  EXPECT_EQ(out->metadata()->Get(kIvfMetadataKey).value(), "1");
  // No SQ bounds (PQ, RQ, FLAT storage): the schema as it was.
  auto pq = schema({field(kRowIdColumn, uint64(), true)},
                   std::make_shared<KeyValueMetadata>(std::vector<std::pair<std::string, std::string>>{
                       {kStorageMetadataKey, R"(["{\"codebook_position\":2}"])"}}));
  EXPECT_EQ(ReserializedStorageSchema(pq), pq);
}

}  // namespace
}  // namespace lance::index::vector
