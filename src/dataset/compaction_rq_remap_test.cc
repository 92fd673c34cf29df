// Compaction remaps IVF_RQ indexes without stable row ids, as lance 12 does
// (index/vector/remap.h): the remapped segment keeps the centroids, every live row in its
// partition with its RaBitQ code and factors (codes packed again per partition), so an
// exhaustive search through it returns exactly the old index's live rows, at their new
// addresses, with the same estimated distances (but for rows moved across a partition's
// 32-row batch boundary: within the quantization). The files against lance 12's: interop
// table_compact_remap.test.mjs (d).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/dataset/dataset.h"
#include "lance/index/index_metadata.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/table/write.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/scan_test_util.h"
#include "table_fixtures/status_test_util.h"

namespace lance::dataset {
namespace {

// id -> row address of every live row.
Result<std::map<int64_t, uint64_t>> RqRemapAddresses(const Dataset& d) {
  query::ScanOptions o;
  o.columns = {"id"};
  o.with_row_addr = true;
  o.batch_size = table::kWholeFragment;
  LANCE_ASSIGN_OR_RAISE(auto scanner, d.NewScan(o));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
  std::map<int64_t, uint64_t> out;
  for (const auto& b : batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      out[b->column(0)->Values<int64_t>()[r]] = b->column(1)->Values<uint64_t>()[r];
    }
  }
  return out;
}

// 16-dimensional vectors over fragments 0..3 (150 rows each), an IVF_RQ index of 3 partitions
// (l2, then cosine), rows deleted in every fragment, all compacted into one.
TEST(Compaction, RemapsIvfRqIndexWithoutStableRowIds) {
  for (const auto metric : {linalg::DistanceType::kL2, linalg::DistanceType::kCosine}) {
    const std::string uri = table::evolve_test::FreshUri("compact_remap_rq");
    auto vschema = schema({field("id", int64(), false), field("v", fixed_size_list(field("item", float32()), 16))});
    std::vector<std::vector<float>> vecs;
    {
      std::string json = "[";
      for (int id = 0; id < 600; ++id) {
        std::vector<float> v(16);
        for (int d = 0; d < 16; ++d) v[d] = static_cast<float>(std::sin(id * 0.37 + d) * 3 + (id % 5));
        vecs.push_back(v);
        json += fmt::format("{}{{\"id\":{},\"v\":[{}]}}", id ? "," : "", id, fmt::join(v, ","));
      }
      TEST_ASSIGN(auto rows, RecordBatchFromJSON(vschema, json + "]"));
      table::WriteParams p;
      p.max_rows_per_file = 150;
      TEST_OK(table::WriteDataset(uri, vschema, {rows}, p).status());
    }
    TEST_ASSIGN(auto ds, Dataset::Open(uri));
    index::vector::IvfBuildOptions o;
    o.kind = index::vector::IndexKind::kIvfRq;
    o.metric = metric;
    o.name = "rq_idx";
    o.num_partitions = 3;
    o.num_bits = 1;
    TEST_OK(ds->CreateVectorIndex("v", o).status());
    TEST_OK(ds->Delete("id % 4 = 1 OR (id >= 200 AND id < 260)").status());
    TEST_ASSIGN(ds, Dataset::Open(uri));
    const table::IndexInfo old_info = ds->snapshot()->manifest().indices.at(0);
    const auto& loc = ds->snapshot()->location();
    TEST_ASSIGN(auto before, RqRemapAddresses(*ds));
    CompactionOptions co;
    co.target_rows_per_fragment = 1000;
    TEST_ASSIGN(auto r, ds->Compact(co));
    EXPECT_EQ(r.fragments_removed, 4u);
    TEST_ASSIGN(ds, Dataset::Open(uri));
    TEST_ASSIGN(auto after, RqRemapAddresses(*ds));
    ASSERT_EQ(after.size(), before.size());
    const table::IndexInfo& info = ds->snapshot()->manifest().indices.at(0);
    EXPECT_NE(info.uuid, old_info.uuid);
    ASSERT_EQ(ds->snapshot()->manifest().fragments.size(), 1u);
    EXPECT_EQ(info.fragment_ids, std::vector<uint32_t>{static_cast<uint32_t>(ds->snapshot()->manifest().fragments[0].id)});
    TEST_ASSIGN(auto old_index, index::vector::IvfIndex::Open(loc.store(), index::IndexDirectory(loc, old_info.uuid)));
    TEST_ASSIGN(auto new_index, index::vector::IvfIndex::Open(loc.store(), index::IndexDirectory(loc, info.uuid)));
    ASSERT_EQ(new_index->kind(), index::vector::IndexKind::kIvfRq);
    EXPECT_EQ(new_index->ivf().centroids, old_index->ivf().centroids);
    EXPECT_EQ(new_index->row_ids().size(), after.size());
    std::map<uint64_t, uint64_t> moved;  // old address -> new, for the live rows
    for (const auto& [id, addr] : before) moved[addr] = after.at(id);
    for (int qi : {5, 77, 333}) {
      index::vector::AnnQuery q;
      q.vector = vecs[qi];
      q.k = 600;
      q.nprobes = 3;
      TEST_ASSIGN(auto want_old, old_index->Search(q, [&](uint64_t a) { return moved.count(a) > 0; }));
      TEST_ASSIGN(auto got, new_index->Search(q));
      std::vector<std::pair<uint64_t, float>> want, have;
      for (const auto& n : want_old) want.emplace_back(moved.at(n.row), n.distance);
      for (const auto& n : got) have.emplace_back(n.row, n.distance);
      std::sort(want.begin(), want.end());
      std::sort(have.begin(), have.end());
      EXPECT_EQ(have.size(), after.size()) << "query " << qi;
      ASSERT_EQ(have.size(), want.size());
      // Every row with its old estimate, bit for bit, but for the few whose place moved
      // between a partition's whole 32-row batches (scored over the u8-quantized table) and
      // its tail (over the float table): theirs agree to the u8 table's quantization (within
      // 1 %: the step depends on the partitions' residual ranges, 0.3 % to 0.6 % here). At
      // most 31 rows a partition can cross each way. lance 12 packs its remap the same way
      // (the interop test compares the bytes).
      size_t differ = 0;
      for (size_t i = 0; i < have.size(); ++i) {
        EXPECT_EQ(have[i].first, want[i].first) << "query " << qi;
        if (have[i].second == want[i].second) continue;
        ++differ;
        EXPECT_LE(std::abs(have[i].second - want[i].second), 0.01f * std::max(std::abs(want[i].second), 1.0f))
            << "query " << qi << " row " << have[i].first << ": " << have[i].second << " vs " << want[i].second;
      }
      EXPECT_LE(differ, 2 * 31 * new_index->ivf().num_partitions()) << "query " << qi;
    }
  }
}

}  // namespace
}  // namespace lance::dataset
