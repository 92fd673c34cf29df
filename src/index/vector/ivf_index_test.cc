// The vector index reader and search on the indexes lance 12 built in tests/golden/vector_index
// (gen.mjs): the decoded structure (partitions tile the rows, the null vector is not stored,
// the codebook's shape). Corrupt and truncated index files give errors, never a crash. (The
// searches against the reference's answers are planned by the query layer: src/query/knn_test.cc.)
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "index/vector/ivf_partition.h"

#include "index/vector/hnsw.h"
#include "index/vector/pq_distance.h"
#include "lance/index/index_store.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/linalg/distance.h"
#include "lance/io/memory_object_store.h"
#include "lance/io/object_store.h"
#include "lance/table/snapshot.h"
#include "table_fixtures/fuzz_seed_test_util.h"

namespace lance::index::vector {
namespace {

namespace fs = std::filesystem;

fs::path Golden() { return fs::path(__FILE__).parent_path() / "../../../tests/golden/vector_index"; }

std::string IndexDir(const std::string& table) {
  for (const auto& e : fs::directory_iterator(Golden() / (table + ".lance") / "_indices")) {
    return e.path().string();
  }
  return "";
}

TEST(IvfIndexTest, DecodesTheReferenceFiles) {
  for (const char* name : {"ivf_flat_l2", "ivf_pq_l2", "ivf_pq_dot", "ivf_flat_cosine"}) {
    SCOPED_TRACE(name);
    auto sp = io::ObjectStore::FromUri(IndexDir(name)).ValueOrDie();
    auto index = IvfIndex::Open(sp.store, sp.path).ValueOrDie();
    EXPECT_EQ(index->dim(), 16u);
    EXPECT_EQ(index->ivf().num_partitions(), 4u);
    EXPECT_EQ(index->num_rows(), 599u);  // 600 rows, one null vector
    uint64_t next = 0;
    for (size_t p = 0; p < 4; ++p) {
      EXPECT_EQ(index->ivf().offsets[p], next);
      next += index->ivf().lengths[p];
    }
    std::vector<uint64_t> ids = index->row_ids();
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::count(ids.begin(), ids.end(), 17u), 0);
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
    if (index->kind() == IndexKind::kIvfPq) {
      ASSERT_NE(index->pq(), nullptr);
      EXPECT_EQ(index->pq()->num_sub_vectors, 4u);
      EXPECT_EQ(index->pq()->centroids.size(), 256u * 16u);
    }
  }
}

// Every truncation and a sweep of flipped bytes of both files of an index: an error or an index
// that searches without crashing.
void SweepCorruptIndex(const std::string& idx, const std::string& aux) {
  std::shared_ptr<io::ObjectStore> mem = io::MemoryObjectStore::Make();
  for (int which = 0; which < 2; ++which) {
    const std::string& orig = which == 0 ? idx : aux;
    for (size_t step = 0; step < orig.size(); step += std::max<size_t>(1, orig.size() / 97)) {
      for (int mode = 0; mode < 2; ++mode) {
        std::string bad = orig;
        if (mode == 0) bad.resize(step); else bad[step] = static_cast<char>(bad[step] ^ 0x5a);
        ASSERT_TRUE(mem->Put("x/index.idx", which == 0 ? bad : idx).ok());
        ASSERT_TRUE(mem->Put("x/auxiliary.idx", which == 1 ? bad : aux).ok());
        auto r = IvfIndex::Open(mem, "x");
        if (r.ok()) {
          AnnQuery q;
          q.vector.assign((*r)->dim(), 0.5f);
          q.nprobes = 4;
          (void)(*r)->Search(q);
        }
        // Opened by partition, the partition data is decoded by the searches: still errors.
        auto lazy = IvfIndex::OpenByPartition(IndexStore::Make(mem, "x"));
        if (lazy.ok()) {
          AnnQuery q;
          q.vector.assign((*lazy)->dim(), 0.5f);
          for (size_t np : {1, 4}) {
            q.nprobes = np;
            (void)(*lazy)->Search(q);
          }
        }
      }
    }
  }
}

// An index opened by partition answers every query as the index read whole -- the same rows in
// the same order, the same distances -- for every nprobes, refine and filter; a partition is
// read by the first search that probes it, once: the same search again reads nothing.
TEST(IvfIndexTest, OpenedByPartitionAnswersAsReadWholeAndReadsOnlyProbedPartitions) {
  for (const char* name : {"ivf_flat_l2", "ivf_flat_cosine", "ivf_flat_dot", "ivf_pq_l2", "ivf_pq_dot",
                           "ivf_pq_cosine", "ivf_hnsw_sq_l2", "ivf_hnsw_pq_l2", "ivf_rq_l2"}) {
    SCOPED_TRACE(name);
    auto sp = io::ObjectStore::FromUri(IndexDir(name)).ValueOrDie();
    auto whole = IvfIndex::Open(sp.store, sp.path).ValueOrDie();
    auto files = IndexStore::Make(sp.store, sp.path);
    auto lazy = IvfIndex::OpenByPartition(files).ValueOrDie();
    ASSERT_EQ(lazy->num_rows(), whole->num_rows());
    ASSERT_GE(whole->ivf().num_partitions(), 2u);
    std::mt19937 rng(7);
    std::normal_distribution<float> g;
    bool first = true;
    for (int qi = 0; qi < 12; ++qi) {
      AnnQuery q;
      for (size_t d = 0; d < whole->dim(); ++d) q.vector.push_back(g(rng));
      q.nprobes = 1 + static_cast<size_t>(qi) % whole->ivf().num_partitions();
      q.k = qi % 3 == 0 ? 1 : 10;
      if (qi % 4 == 1) q.refine_factor = 2;
      std::function<bool(uint64_t)> keep;
      if (qi % 5 == 2) keep = [](uint64_t r) { return r % 3 != 0; };
      files->ResetStats();
      auto a = whole->Search(q, keep).ValueOrDie();
      auto b = lazy->Search(q, keep).ValueOrDie();
      if (first && whole->kind() != IndexKind::kIvfRq) {
        EXPECT_GT(files->stats().pages_loaded, 0) << "the first search loaded no partition";
        files->ResetStats();
        EXPECT_EQ(lazy->Search(q, keep).ValueOrDie(), b);
        EXPECT_EQ(files->stats().pages_loaded, 0) << "a probed partition was loaded twice";
        first = false;
      }
      ASSERT_EQ(a.size(), b.size()) << qi;
      ASSERT_FALSE(a.empty());
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].row, b[i].row) << qi << " " << i;
        EXPECT_EQ(a[i].distance, b[i].distance) << qi << " " << i;
      }
    }
    EXPECT_FALSE(first && whole->kind() != IndexKind::kIvfRq);
    // Every partition read: the storage is the whole index's.
    if (whole->kind() == IndexKind::kIvfRq) {
      EXPECT_EQ(lazy->row_ids(), whole->row_ids());  // read whole at open
      continue;
    }
    std::vector<uint64_t> rows;
    for (size_t p = 0; p < lazy->ivf().num_partitions(); ++p) {
      auto part = lazy->Partition(p);
      ASSERT_TRUE(part.ok()) << part.status().ToString();
      rows.insert(rows.end(), (*part)->row_ids.begin(), (*part)->row_ids.end());
    }
    EXPECT_EQ(rows, whole->row_ids());
  }
}

class CorruptIndexTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CorruptIndexTest, CorruptFilesAreErrors) {
  const std::string dir = IndexDir(GetParam());
  std::ifstream a(dir + "/auxiliary.idx", std::ios::binary), i(dir + "/index.idx", std::ios::binary);
  std::stringstream sa, si;
  sa << a.rdbuf();
  si << i.rdbuf();
  SweepCorruptIndex(si.str(), sa.str());
  // index.idx without its auxiliary.idx: NotFound.
  std::shared_ptr<io::ObjectStore> mem = io::MemoryObjectStore::Make();
  ASSERT_TRUE(mem->Put("y/index.idx", si.str()).ok());
  EXPECT_TRUE(IvfIndex::Open(mem, "y").status().IsNotFound());
}

INSTANTIATE_TEST_SUITE_P(Golden, CorruptIndexTest, ::testing::Values("ivf_pq_l2", "ivf_hnsw_sq_l2", "ivf_hnsw_pq_l2", "ivf_rq_l2"));

// The same sweep over every seed of the ivf_index_fuzz corpus (4-byte length of index.idx,
// index.idx, auxiliary.idx): also our own IVF_SQ and IVF_HNSW_FLAT, which lance 12 cannot build.
TEST(CorruptIndexTest, FuzzSeedsCorruptFilesAreErrors) {
  const std::vector<std::string> seeds = test::FuzzSeeds("ivf_index_fuzz");
  ASSERT_GE(seeds.size(), 7u);
  size_t intact_open = 0;  // the seeds themselves must open (all but the legacy IVF_PQ file)
  for (const std::string& seed : seeds) {
    ASSERT_GE(seed.size(), 4u);
    uint32_t n = 0;
    std::memcpy(&n, seed.data(), 4);
    ASSERT_LE(n, seed.size() - 4);
    std::shared_ptr<io::ObjectStore> mem = io::MemoryObjectStore::Make();
    ASSERT_TRUE(mem->Put("s/index.idx", seed.substr(4, n)).ok());
    ASSERT_TRUE(mem->Put("s/auxiliary.idx", seed.substr(4 + n)).ok());
    intact_open += IvfIndex::Open(mem, "s").ok() ? 1 : 0;
    SweepCorruptIndex(seed.substr(4, n), seed.substr(4 + n));
  }
  EXPECT_EQ(intact_open, seeds.size() - 1);
}

// An index type the reader does not know -- a newer writer's, or a known name spelled otherwise
// -- is NotSupported, naming the file and the type (the golden IVF_PQ with its name changed in
// the "lance:index" metadata, same length, so the file stays well-formed).
TEST(IvfIndexTest, UnknownIndexTypeIsNotSupported) {
  const std::string dir = IndexDir("ivf_pq_l2");
  std::ifstream a(dir + "/auxiliary.idx", std::ios::binary), i(dir + "/index.idx", std::ios::binary);
  std::stringstream sa, si;
  sa << a.rdbuf();
  si << i.rdbuf();
  const std::string idx = si.str();
  const size_t at = idx.find("\"IVF_PQ\"");
  ASSERT_NE(at, std::string::npos);
  for (const char* renamed : {"\"IVF_XQ\"", "\"ivf_pq\""}) {
    std::string bad = idx;
    bad.replace(at, 8, renamed);
    std::shared_ptr<io::ObjectStore> mem = io::MemoryObjectStore::Make();
    ASSERT_TRUE(mem->Put("x/index.idx", bad).ok());
    ASSERT_TRUE(mem->Put("x/auxiliary.idx", sa.str()).ok());
    auto r = IvfIndex::Open(mem, "x");
    ASSERT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(std::string(renamed, 1, 6)), std::string::npos)
        << r.status().ToString();
    EXPECT_NE(r.status().message().find("index.idx"), std::string::npos) << r.status().ToString();
  }
  std::shared_ptr<io::ObjectStore> mem = io::MemoryObjectStore::Make();
  ASSERT_TRUE(mem->Put("x/index.idx", idx).ok());
  ASSERT_TRUE(mem->Put("x/auxiliary.idx", sa.str()).ok());
  EXPECT_TRUE(IvfIndex::Open(mem, "x").ok());
}

// lance 12's IVF_HNSW_PQ: the HNSW graphs of IVF_HNSW_SQ over IVF_PQ's transposed PQ storage.
// With ef >= every partition the walk reaches every node: the answer is then IVF_PQ's ranking
// of the probed partitions by the PQ distance of the query's residual.
TEST(IvfIndexTest, DecodesTheReferenceHnswPq) {
  auto sp = io::ObjectStore::FromUri(IndexDir("ivf_hnsw_pq_l2")).ValueOrDie();
  auto index = IvfIndex::Open(sp.store, sp.path).ValueOrDie();
  EXPECT_EQ(index->kind(), IndexKind::kIvfHnswPq);
  EXPECT_EQ(index->num_rows(), 599u);
  EXPECT_EQ(index->ivf().num_partitions(), 4u);
  ASSERT_NE(index->pq(), nullptr);
  EXPECT_EQ(index->pq()->num_sub_vectors, 4u);
  AnnQuery q;
  q.vector.assign(16, 0.5f);
  q.k = 10;
  q.nprobes = 4;
  q.ef = 9;
  EXPECT_TRUE(index->Search(q).status().IsInvalidArgument());
  q.ef = 600;
  auto got = index->Search(q).ValueOrDie();
  ASSERT_EQ(got.size(), 10u);
  std::vector<std::pair<float, uint64_t>> exact;
  for (size_t p = 0; p < index->ivf().num_partitions(); ++p) {
    std::vector<float> residual(16);
    for (size_t d = 0; d < 16; ++d) residual[d] = 0.5f - index->ivf().centroid(p)[d];
    PqDistanceTable table(linalg::DistanceType::kL2);
    table.Build(*index->pq(), residual.data());
    for (size_t j = 0; j < index->ivf().lengths[p]; ++j) {
      float d = 0;
      table.Score(index->code(index->ivf().offsets[p] + j), 1, &d);
      exact.push_back({d, index->row_ids()[index->ivf().offsets[p] + j]});
    }
  }
  std::sort(exact.begin(), exact.end());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].distance, exact[i].first) << i;
    EXPECT_EQ(got[i].row, exact[i].second) << i;
  }
}

TEST(IvfIndexTest, DecodesTheReferenceHnswSq) {
  auto sp = io::ObjectStore::FromUri(IndexDir("ivf_hnsw_sq_l2")).ValueOrDie();
  auto index = IvfIndex::Open(sp.store, sp.path).ValueOrDie();
  EXPECT_EQ(index->kind(), IndexKind::kIvfHnswSq);
  EXPECT_EQ(index->num_rows(), 599u);
  EXPECT_EQ(index->ivf().num_partitions(), 4u);
  // ef below k x refine is refused, as lance 12 refuses it.
  AnnQuery q;
  q.vector.assign(16, 0.5f);
  q.k = 10;
  q.ef = 9;
  EXPECT_TRUE(index->Search(q).status().IsInvalidArgument());
  // With ef >= every partition's size the graph walk reaches every row: the answer is the
  // exact ranking by SQ distance over the probed partitions.
  q.ef = 600;
  q.nprobes = 4;
  auto got = index->Search(q).ValueOrDie();
  ASSERT_EQ(got.size(), 10u);
  for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1].distance, got[i].distance);
}

TEST(SqTest, CodesAndDistances) {
  const SqBounds b{-1.0, 3.0};
  const float v[] = {-2.0f, -1.0f, 0.0f, 0.99f, 1.0f, 2.999f, 3.0f, 7.0f};
  uint8_t c[8];
  SqEncode(v, 8, b, c);
  // Truncated (lance 12's codes), saturated outside the bounds.
  EXPECT_EQ(std::vector<int>(c, c + 8), (std::vector<int>{0, 0, 63, 126, 127, 254, 255, 255}));
  const float step = 4.0f / 255.0f;
  EXPECT_EQ(SqDistanceScale(b), step * step);
  const uint8_t a[] = {0, 10, 255}, d[] = {3, 10, 250};
  EXPECT_EQ(SqL2(a, d, 3), 9u + 0u + 25u);
}

// The graph search against exact search on random vectors, and the build's reproducibility.
TEST(HnswTest, RecallAgainstExactSearchAndSameSeedSameGraph) {
  constexpr size_t kN = 3000, kDim = 16, kQueries = 50, kK = 10;
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> data(kN * kDim), queries(kQueries * kDim);
  for (float& x : data) x = u(gen);
  for (float& x : queries) x = u(gen);
  auto between = [&](uint32_t a, uint32_t b) {
    return linalg::L2(&data[a * kDim], &data[b * kDim], kDim);
  };
  HnswParams p;
  p.m = 16;
  p.ef_construction = 100;
  const HnswGraph g = HnswBuild(kN, between, p, 42);
  EXPECT_EQ(g.levels[0].nodes.size(), kN);
  EXPECT_EQ(g.entry_point, 0u);
  for (size_t l = 0; l < g.levels.size(); ++l) {
    for (uint32_t i = 0; i < kN; ++i) EXPECT_LE(g.levels[l].starts[i + 1] - g.levels[l].starts[i], l == 0 ? 32u : 16u);
  }
  const HnswGraph again = HnswBuild(kN, between, p, 42);
  for (size_t l = 0; l < g.levels.size(); ++l) {
    EXPECT_EQ(g.levels[l].ids, again.levels[l].ids);
    EXPECT_EQ(g.levels[l].nodes, again.levels[l].nodes);
  }
  double recall = 0, recall_odd = 0;
  for (size_t qi = 0; qi < kQueries; ++qi) {
    const float* q = &queries[qi * kDim];
    std::vector<std::pair<float, uint32_t>> exact(kN);
    for (uint32_t i = 0; i < kN; ++i) exact[i] = {linalg::L2(q, &data[i * kDim], kDim), i};
    std::partial_sort(exact.begin(), exact.begin() + kK, exact.end());
    auto dist = [&](uint32_t i) { return linalg::L2(q, &data[i * kDim], kDim); };
    auto found = HnswSearch(g, dist, 64, nullptr);
    ASSERT_EQ(found.size(), 64u);
    for (size_t i = 1; i < found.size(); ++i) EXPECT_LE(found[i - 1].first, found[i].first);
    found.resize(kK);
    size_t hit = 0;
    for (const auto& e : std::vector(exact.begin(), exact.begin() + kK)) {
      hit += std::count_if(found.begin(), found.end(), [&](const auto& f) { return f.second == e.second; });
    }
    recall += static_cast<double>(hit) / kK;
    // Only odd nodes accepted: every result odd, still near the odd rows' exact answer.
    auto odd = HnswSearch(g, dist, 64, [](uint32_t i) { return i % 2 == 1; });
    std::vector<std::pair<float, uint32_t>> exact_odd;
    for (const auto& e : exact) {
      if (e.second % 2 == 1) exact_odd.push_back(e);
    }
    std::sort(exact_odd.begin(), exact_odd.end());
    size_t hit_odd = 0;
    for (size_t i = 0; i < kK; ++i) {
      ASSERT_EQ(odd[i].second % 2, 1u);
      hit_odd += std::count_if(odd.begin(), odd.begin() + kK, [&](const auto& f) { return f.second == exact_odd[i].second; });
    }
    recall_odd += static_cast<double>(hit_odd) / kK;
  }
  recall /= kQueries;
  recall_odd /= kQueries;
  EXPECT_GE(recall, 0.95) << "recall@10 at ef 64";
  EXPECT_GE(recall_odd, 0.9) << "recall@10 over the odd rows at ef 64";
}


// HnswSearchSq (its codes scored all at once in a small partition, as met in a large one)
// returns HnswSearch's answers with the SQ distance: every (distance, node) pair, in order,
// with and without an accept mask.
TEST(HnswTest, SqSearchEqualsTheGenericWalkOnDenseAndSparsePaths) {
  constexpr size_t kDim = 32;
  for (uint32_t n : {50u, 700u, 5000u}) {
    std::mt19937 gen(n);
    std::vector<uint8_t> codes(size_t{n} * kDim), queries(20 * kDim);
    for (auto& c : codes) c = static_cast<uint8_t>(gen() % 200);
    for (auto& c : queries) c = static_cast<uint8_t>(gen());
    const float scale = 0.013f;
    HnswParams p;
    p.m = 8;
    p.ef_construction = 60;
    const HnswGraph g = HnswBuildSq(codes.data(), n, kDim, scale, p, 3);
    std::vector<uint8_t> accept(n);
    for (uint32_t i = 0; i < n; ++i) accept[i] = (i % 3 != 0) ? 1 : 0;
    for (size_t qi = 0; qi < 20; ++qi) {
      const uint8_t* q = queries.data() + qi * kDim;
      auto dist = [&](uint32_t i) {
        return static_cast<float>(SqL2(codes.data() + size_t{i} * kDim, q, kDim)) * scale;
      };
      // ef 15 at 5000 nodes walks (5000 > 2 x 15 x 16); ef 40 at 700 scores densely.
      for (size_t ef : {15, 40}) {
        EXPECT_EQ(HnswSearchSq(g, codes.data(), kDim, q, scale, ef, nullptr), HnswSearch(g, dist, ef, nullptr))
            << "n " << n << " ef " << ef << " query " << qi;
        EXPECT_EQ(HnswSearchSq(g, codes.data(), kDim, q, scale, ef, accept.data()),
                  HnswSearch(g, dist, ef, [&](uint32_t i) { return accept[i] != 0; }))
            << "n " << n << " ef " << ef << " query " << qi << " (accept)";
      }
    }
  }
}

}  // namespace
}  // namespace lance::index::vector
