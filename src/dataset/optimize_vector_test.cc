// Dataset::OptimizeIndices on IVF_FLAT / IVF_SQ / IVF_PQ / IVF_HNSW_* indexes (l2, cosine, dot), as lance
// 12's optimize does: after an append, one new segment covering every fragment, keeping the
// old dataset_version, details and centroids; each partition holds its old rows unchanged (ids
// and stored vectors / codes, in order) then the new rows, each in the partition of its
// nearest centroid; a search over every partition with a full refine equals the exact search
// (ids and distances; for the HNSW kinds through the graphs built anew over each partition's
// rows); a second optimize does nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/dataset/dataset.h"
#include "lance/index/index_metadata.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/table/indexes.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/json_lines_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::dataset {
namespace {

using index::vector::IndexKind;
using linalg::DistanceType;

SchemaPtr VecOptSchema() {
  return schema({field("id", int64(), false), field("v", fixed_size_list(field("item", float32()), 4))});
}

// Rows [start, start + n): distinct vectors in a few clusters.
RecordBatchPtr VecOptRows(int start, int n) {
  std::string json = "[";
  for (int id = start; id < start + n; ++id) {
    json += fmt::format("{}{{\"id\":{},\"v\":[{},{},{}.5,{}]}}", id > start ? "," : "", id, id % 7, id % 3, id / 10,
                        1 + id % 2);
  }
  auto b = RecordBatchFromJSON(VecOptSchema(), json + "]");
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : nullptr;
}

// The k nearest of `q` as JSON lines (id, _distance), through the index or exactly.
std::string VecOptKnn(const Dataset& ds, const std::vector<float>& q, bool use_index, uint64_t rows,
                      DistanceType metric) {
  query::ScanOptions o;
  o.columns = {"id"};
  o.nearest = query::NearestOptions{};
  o.nearest->column = "v";
  o.nearest->query = q;
  o.nearest->k = 25;
  o.nearest->nprobes = 1000;
  o.nearest->refine_factor = static_cast<uint32_t>(rows / 25 + 1);
  o.nearest->use_index = use_index;
  o.nearest->metric = metric;
  auto scanner = ds.NewScan(o);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  if (!scanner.ok()) return "";
  if (use_index) {
    EXPECT_EQ(scanner->Explain().find("FragmentScan"), std::string::npos) << scanner->Explain();
  }
  auto batches = scanner->ToBatches();
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  if (!batches.ok()) return "";
  auto lines = table::JsonLinesOf(*batches);
  EXPECT_TRUE(lines.ok());
  std::string all;
  if (lines.ok()) {
    for (const auto& l : *lines) all += l + "\n";
  }
  return all;
}

// The stored form of row i of `x` (PQ code, or vector bytes for IVF_FLAT; empty for SQ).
std::vector<uint8_t> VecOptStored(const index::vector::IvfIndex& x, size_t i) {
  if (x.pq()) return {x.code(i), x.code(i) + x.pq()->num_sub_vectors};
  if (x.kind() == IndexKind::kIvfFlat || x.kind() == IndexKind::kIvfHnswFlat) {
    const auto* v = reinterpret_cast<const uint8_t*>(x.stored_vector(i));
    return {v, v + 4 * x.dim()};
  }
  return {};
}

struct VecOptCase {
  IndexKind kind;
  DistanceType metric;
};

TEST(OptimizeVectorIndices, AppendedRowsMergedIntoTheExistingPartitions) {
  const std::vector<VecOptCase> cases = {{IndexKind::kIvfFlat, DistanceType::kL2},
                                         {IndexKind::kIvfSq, DistanceType::kL2},
                                         {IndexKind::kIvfPq, DistanceType::kL2},
                                         {IndexKind::kIvfPq, DistanceType::kCosine},
                                         {IndexKind::kIvfFlat, DistanceType::kDot},
                                         {IndexKind::kIvfHnswSq, DistanceType::kL2},
                                         {IndexKind::kIvfHnswPq, DistanceType::kL2},
                                         {IndexKind::kIvfHnswFlat, DistanceType::kCosine}};
  for (const auto& c : cases) {
    SCOPED_TRACE(fmt::format("{} {}", index::vector::IndexKindName(c.kind), linalg::DistanceTypeName(c.metric)));
    const std::string uri = table::evolve_test::FreshUri("optimize_vector");
    {
      table::WriteParams p;
      p.max_rows_per_file = 300;  // fragments 0, 1
      VectorRecordBatchReader in(VecOptSchema(), {VecOptRows(0, 600)});
      TEST_OK(Dataset::Write(uri, in, p).status());
    }
    TEST_ASSIGN(auto ds, Dataset::Open(uri));
    index::vector::IvfBuildOptions o;
    o.kind = c.kind;
    o.metric = c.metric;
    o.name = "v_idx";
    o.num_partitions = 4;
    o.num_sub_vectors = 2;
    TEST_OK(ds->CreateVectorIndex("v", o).status());
    TEST_ASSIGN(ds, Dataset::Open(uri));
    const table::IndexInfo old_info = ds->snapshot()->manifest().indices.at(0);
    {
      VectorRecordBatchReader in(VecOptSchema(), {VecOptRows(600, 250)});
      TEST_OK(ds->Append(in).status());
    }
    TEST_ASSIGN(auto r, ds->OptimizeIndices());
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].outcome, OptimizedIndex::Outcome::kMerged) << r[0].reason;
    EXPECT_EQ(r[0].replaced_uuid, old_info.uuid);
    EXPECT_EQ(r[0].fragment_ids, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(r[0].new_fragment_ids, (std::vector<uint32_t>{2}));
    EXPECT_EQ(r[0].num_indexed_rows, 850u);

    TEST_ASSIGN(ds, Dataset::Open(uri));
    const table::Manifest& m = ds->snapshot()->manifest();
    ASSERT_EQ(m.indices.size(), 1u);
    const table::IndexInfo& info = m.indices[0];
    EXPECT_EQ(info.uuid, r[0].uuid);
    EXPECT_NE(info.uuid, old_info.uuid);
    EXPECT_EQ(info.fragment_ids, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(info.dataset_version, old_info.dataset_version);
    EXPECT_EQ(info.details, old_info.details);
    EXPECT_EQ(info.index_version, old_info.index_version);

    TEST_ASSIGN(auto loc, table::TableLocation::FromUri(uri));
    TEST_ASSIGN(auto before, index::vector::IvfIndex::Open(loc.store(), index::IndexDirectory(loc, old_info.uuid)));
    TEST_ASSIGN(auto after, index::vector::IvfIndex::Open(loc.store(), index::IndexDirectory(loc, info.uuid)));
    ASSERT_EQ(after->kind(), c.kind);
    EXPECT_EQ(after->ivf().centroids, before->ivf().centroids);
    if (c.kind == IndexKind::kIvfPq || c.kind == IndexKind::kIvfHnswPq) {
      EXPECT_EQ(after->pq()->centroids, before->pq()->centroids);
    }
    ASSERT_EQ(after->num_rows(), 850u);
    const auto& bi = before->ivf();
    const auto& ai = after->ivf();
    ASSERT_EQ(ai.num_partitions(), bi.num_partitions());
    size_t new_rows = 0;
    for (size_t p = 0; p < ai.num_partitions(); ++p) {
      ASSERT_GE(ai.lengths[p], bi.lengths[p]) << p;
      for (uint32_t j = 0; j < ai.lengths[p]; ++j) {
        const size_t a = ai.offsets[p] + j;
        if (j < bi.lengths[p]) {
          const size_t b = bi.offsets[p] + j;
          EXPECT_EQ(after->row_ids()[a], before->row_ids()[b]) << p << " " << j;
          EXPECT_EQ(VecOptStored(*after, a), VecOptStored(*before, b)) << p << " " << j;
          continue;
        }
        // A new row: fragment 2, in the partition FindPartitions puts its vector in.
        const uint64_t id = after->row_ids()[a];
        EXPECT_EQ(id >> 32, 2u);
        const int row = 600 + static_cast<int>(id & 0xffffffffu);
        std::vector<float> v = {float(row % 7), float(row % 3), float(row / 10) + 0.5f, float(1 + row % 2)};
        if (c.metric == DistanceType::kCosine) v = index::vector::NormalizeVector(v.data(), v.size());
        EXPECT_EQ(after->FindPartitions(v.data(), 1).at(0), p) << row;
        if (c.kind == IndexKind::kIvfFlat || c.kind == IndexKind::kIvfHnswFlat) {
          EXPECT_EQ(std::vector<float>(after->stored_vector(a), after->stored_vector(a) + 4), v) << row;
        }
        ++new_rows;
      }
    }
    EXPECT_EQ(new_rows, 250u);

    for (const std::vector<float>& q : {std::vector<float>{3.3f, 1.2f, 12.7f, 0.9f},
                                        std::vector<float>{0.1f, 2.0f, 70.0f, 2.0f},
                                        std::vector<float>{6.0f, 0.0f, 40.5f, 1.5f}}) {
      const std::string exact = VecOptKnn(*ds, q, false, 850, c.metric);
      EXPECT_FALSE(exact.empty());
      EXPECT_EQ(VecOptKnn(*ds, q, true, 850, c.metric), exact);
    }
    TEST_ASSIGN(auto again, ds->OptimizeIndices());
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].outcome, OptimizedIndex::Outcome::kUpToDate);
  }
}

}  // namespace
}  // namespace lance::dataset
