// CreateVectorIndex on a table written in memory: the files we write decode back (partitions
// tile the rows, null vectors skipped, PQ codes equal re-encoding the stored vectors), the
// manifest names the index with VectorIndexDetails, the same seed gives the same index, and bad
// requests are refused. (Searches over built indexes: src/query/knn_test.cc.)
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "index/vector/ivf_partition.h"
#include "index/vector/rabitq.h"
#include "index/vector/rabitq_index.h"
#include "lance/columnar/array.h"
#include "lance/index/index_store.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/io/memory_object_store.h"
#include "lance/linalg/flat_search.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"

namespace lance::index::vector {
namespace {

constexpr int kDim = 16;

// A one-fragment table without deletions and the batch written: its training rows are the
// batch's columns with row ids 0..rows-1 (the addresses of fragment 0).
struct Table {
  table::TableLocation loc;
  RecordBatchPtr batch;

  Result<IvfBuildSummary> Build(const std::string& column, const IvfBuildOptions& o) const {
    auto snap = table::Snapshot::Open(loc);
    if (!snap.ok()) return snap.status();
    auto rows = [this](const table::Snapshot&, const std::string& c) -> Result<scalar::TrainingData> {
      scalar::TrainingData d;
      d.values = {batch->GetColumnByName(c)};
      for (int64_t i = 0; i < batch->num_rows(); ++i) d.row_ids.push_back(static_cast<uint64_t>(i));
      d.type = d.values[0]->type;
      return d;
    };
    return CreateVectorIndex(**snap, column, rows, o);
  }
};

Table MakeTable(int rows, uint32_t seed) {
  auto store = io::MemoryObjectStore::Make();
  table::TableLocation loc(store, "t.lance");
  std::mt19937 gen(seed);
  std::normal_distribution<float> noise(0, 0.3f);
  std::vector<float> centres(8 * kDim);
  for (auto& c : centres) c = noise(gen) * 10;
  auto values = AllocateBuffer(rows * kDim * 4).ValueOrDie();
  auto* v = reinterpret_cast<float*>(values->mutable_data());
  for (int i = 0; i < rows; ++i) {
    for (int d = 0; d < kDim; ++d) v[i * kDim + d] = centres[(i % 8) * kDim + d] + noise(gen);
  }
  auto validity = AllocateBuffer((rows + 7) / 8).ValueOrDie();
  std::memset(validity->mutable_data(), 0xff, static_cast<size_t>(validity->size()));
  validity->mutable_data()[0] = static_cast<uint8_t>(~(1u << 3));  // row 3 is null
  auto item = field("item", float32(), true);
  auto vec_type = fixed_size_list(item, kDim);
  auto ids = AllocateBuffer(rows * 4).ValueOrDie();
  for (int i = 0; i < rows; ++i) reinterpret_cast<int32_t*>(ids->mutable_data())[i] = i;
  auto s = schema({field("id", int32(), false), field("vec", vec_type, true)});
  auto vec = Array::Make(vec_type, rows, {validity}, {Array::Make(float32(), rows * kDim, {nullptr, values})});
  // Array::Make computes no null count; set it for the one null.
  const_cast<Array*>(vec.get())->null_count = 1;
  auto batch = RecordBatch::Make(s, rows, {Array::Make(int32(), rows, {nullptr, ids}), vec}).ValueOrDie();
  EXPECT_TRUE(table::WriteDataset(loc, s, {batch}).ok());
  return {loc, batch};
}

// `rows` binary vectors of kDim bytes around 6 random ones (row 3 null).
Table MakeBinaryTable(int rows, uint32_t seed) {
  auto store = io::MemoryObjectStore::Make();
  table::TableLocation loc(store, "b.lance");
  std::mt19937 gen(seed);
  std::vector<uint8_t> centres(6 * kDim);
  for (auto& c : centres) c = static_cast<uint8_t>(gen());
  auto values = AllocateBuffer(rows * kDim).ValueOrDie();
  for (int i = 0; i < rows; ++i) {
    for (int d = 0; d < kDim; ++d) {
      // about one bit in eight flipped
      const uint8_t flips = static_cast<uint8_t>(gen() & gen() & gen());
      values->mutable_data()[i * kDim + d] = static_cast<uint8_t>(centres[(i % 6) * kDim + d] ^ flips);
    }
  }
  auto validity = AllocateBuffer((rows + 7) / 8).ValueOrDie();
  std::memset(validity->mutable_data(), 0xff, static_cast<size_t>(validity->size()));
  validity->mutable_data()[0] = static_cast<uint8_t>(~(1u << 3));
  auto vec_type = fixed_size_list(field("item", uint8(), true), kDim);
  auto s = schema({field("vec", vec_type, true)});
  auto vec = Array::Make(vec_type, rows, {validity}, {Array::Make(uint8(), rows * kDim, {nullptr, values})});
  const_cast<Array*>(vec.get())->null_count = 1;
  auto batch = RecordBatch::Make(s, rows, {vec}).ValueOrDie();
  EXPECT_TRUE(table::WriteDataset(loc, s, {batch}).ok());
  return {loc, batch};
}

// Hamming IVF_FLAT over uint8 vectors (lance 12's layout: a uint8 centroids tensor, a uint8
// `flat` column): it decodes back, and with every partition probed its answers are exact
// search's (linalg::FlatSearch) row for row; a query value that is not a uint8 is refused.
TEST(IvfBuilderTest, HammingFlatIndexDecodesAndSearchesExactly) {
  const Table t = MakeBinaryTable(900, 5);
  IvfBuildOptions o;
  o.kind = IndexKind::kIvfFlat;
  o.metric = linalg::DistanceType::kHamming;
  o.num_partitions = 5;
  o.seed = 4;
  auto built = t.Build("vec", o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  auto index = IvfIndex::Open(t.loc.store(), t.loc.Path("_indices/" + built->uuid)).ValueOrDie();
  EXPECT_EQ(index->metric(), linalg::DistanceType::kHamming);
  EXPECT_EQ(index->num_rows(), 899u);
  EXPECT_EQ(index->ivf().binary_centroids.size(), 5u * kDim);
  EXPECT_TRUE(index->ivf().centroids.empty());
  const uint8_t* all = t.batch->column(0)->children[0]->Values<uint8_t>();
  for (size_t i = 0; i < index->num_rows(); ++i) {
    const uint64_t row = index->row_ids()[i];
    ASSERT_NE(row, 3u);
    ASSERT_EQ(0, std::memcmp(index->stored_binary_vector(i), all + row * kDim, kDim)) << "row " << row;
  }
  // Each row is in the partition of its nearest centroid.
  for (size_t p = 0; p < index->ivf().num_partitions(); ++p) {
    for (uint64_t i = index->ivf().offsets[p]; i < index->ivf().offsets[p] + index->ivf().lengths[p]; ++i) {
      const float mine = linalg::Hamming(index->stored_binary_vector(i), &index->ivf().binary_centroids[p * kDim], kDim);
      for (size_t c = 0; c < index->ivf().num_partitions(); ++c) {
        ASSERT_LE(mine, linalg::Hamming(index->stored_binary_vector(i), &index->ivf().binary_centroids[c * kDim], kDim));
      }
    }
  }
  AnnQuery q;
  q.vector.assign(all + 100 * kDim, all + 101 * kDim);
  q.vector[0] = static_cast<float>(static_cast<uint8_t>(q.vector[0]) ^ 5);
  q.nprobes = 5;
  q.k = 30;
  linalg::FlatSearchOptions fo;
  fo.distance_type = linalg::DistanceType::kHamming;
  fo.k = 30;
  EXPECT_EQ(index->Search(q).ValueOrDie(), linalg::FlatSearch(*t.batch->column(0), q.vector, fo).ValueOrDie());
  q.nprobes = 1;
  const auto one = index->Search(q).ValueOrDie();
  EXPECT_EQ(one[0].row, 100u);
  EXPECT_EQ(one[0].distance, 2.0f);
  q.vector[2] = 300;
  EXPECT_TRUE(index->Search(q).status().IsInvalidArgument());
}

// A hamming IVF_FLAT opened by partition (IvfIndex::OpenByPartition: a partition's row ids and
// binary vectors read by the first search that probes it) answers every query as the index read
// whole -- rows, order, bit counts -- for nprobes 1 .. all, k 1 / 10 / 40, a refine and a
// filter; the first search reads only what it probes, the same search again reads nothing, and
// once every partition is loaded the stored rows are the whole index's.
TEST(IvfBuilderTest, HammingFlatIndexOpenedByPartitionAnswersAsReadWhole) {
  const Table t = MakeBinaryTable(1200, 8);
  IvfBuildOptions o;
  o.kind = IndexKind::kIvfFlat;
  o.metric = linalg::DistanceType::kHamming;
  o.num_partitions = 6;
  o.seed = 2;
  auto built = t.Build("vec", o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const std::string dir = t.loc.Path("_indices/" + built->uuid);
  auto whole = IvfIndex::Open(t.loc.store(), dir).ValueOrDie();
  auto files = IndexStore::Make(t.loc.store(), dir);
  auto lazy = IvfIndex::OpenByPartition(files).ValueOrDie();
  ASSERT_EQ(lazy->metric(), linalg::DistanceType::kHamming);
  ASSERT_EQ(lazy->num_rows(), whole->num_rows());
  ASSERT_EQ(lazy->ivf().binary_centroids, whole->ivf().binary_centroids);
  const uint8_t* all = t.batch->column(0)->children[0]->Values<uint8_t>();
  std::mt19937 gen(5);
  bool first = true;
  size_t compared = 0;
  for (int qi = 0; qi < 18; ++qi) {
    AnnQuery q;
    const size_t from = gen() % 1200;
    for (int d = 0; d < kDim; ++d) {
      q.vector.push_back(static_cast<float>(static_cast<uint8_t>(all[from * kDim + static_cast<size_t>(d)] ^ (gen() & gen()))));
    }
    q.nprobes = 1 + static_cast<size_t>(qi) % 6;
    q.k = qi % 3 == 0 ? 1 : qi % 3 == 1 ? 10 : 40;
    if (qi % 4 == 1) q.refine_factor = 2;
    std::function<bool(uint64_t)> keep;
    if (qi % 5 == 2) keep = [](uint64_t r) { return r % 3 != 0; };
    files->ResetStats();
    auto a = whole->Search(q, keep).ValueOrDie();
    auto b = lazy->Search(q, keep).ValueOrDie();
    if (first) {
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
      ++compared;
    }
  }
  EXPECT_GT(compared, 200u);
  // A value that is not a uint8 is refused by the lazy index too.
  AnnQuery bad;
  bad.vector.assign(kDim, 1.0f);
  bad.vector[1] = 256;
  EXPECT_TRUE(lazy->Search(bad).status().IsInvalidArgument());
  // Every partition read: the stored rows are the whole index's.
  for (size_t p = 0; p < lazy->ivf().num_partitions(); ++p) {
    auto part = lazy->Partition(p);
    ASSERT_TRUE(part.ok()) << part.status().ToString();
    const size_t first = whole->ivf().offsets[p];
    ASSERT_EQ((*part)->size(), whole->ivf().lengths[p]);
    for (size_t j = 0; j < (*part)->size(); ++j) {
      ASSERT_EQ((*part)->row_ids[j], whole->row_ids()[first + j]);
      ASSERT_EQ(0, std::memcmp((*part)->binary_vectors.data() + j * kDim, whole->stored_binary_vector(first + j), kDim))
          << p << " " << j;
    }
  }
}

// An index opened by partition keeps each partition as its own cache entry: with a cache far
// smaller than the segment (room for ~3 of its 12 partitions), queries that probe the same two
// partitions read them once and then hit the cache every time, a query elsewhere evicts and
// reads, the hot partitions come back after one read, and every answer equals the index read
// whole (rows, order, distances) -- for IVF_FLAT, IVF_PQ, IVF_SQ and IVF_HNSW_SQ.
TEST(IvfBuilderTest, SmallCacheKeepsHotPartitionsOfALargerSegment) {
  const Table t = MakeTable(6000, 9);
  for (IndexKind kind : {IndexKind::kIvfFlat, IndexKind::kIvfPq, IndexKind::kIvfSq, IndexKind::kIvfHnswSq}) {
    SCOPED_TRACE(std::string(IndexKindName(kind)));
    IvfBuildOptions o;
    o.kind = kind;
    o.num_partitions = 12;
    o.num_sub_vectors = 4;
    o.seed = 3;
    o.name = "vec_" + std::string(IndexKindName(kind));  // one table, one index per kind
    auto built = t.Build("vec", o);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    const std::string dir = t.loc.Path("_indices/" + built->uuid);
    auto whole = IvfIndex::Open(t.loc.store(), dir).ValueOrDie();
    // The partitions' sizes, to size the cache: about three of them.
    int64_t total = 0, largest = 0;
    for (size_t p = 0; p < whole->ivf().num_partitions(); ++p) {
      const int64_t b = whole->Partition(p).ValueOrDie()->MemoryBytes();
      total += b;
      largest = std::max(largest, b);
    }
    const int64_t capacity = 3 * largest + (1 << 10);
    ASSERT_LT(capacity, total / 2) << "the segment must be larger than the cache";
    auto cache = IndexCache::Make(capacity);
    auto files = IndexStore::Make(t.loc.store(), dir, cache);
    auto lazy = IvfIndex::OpenByPartition(files).ValueOrDie();
    ASSERT_LT(lazy->MemoryBytes(), capacity) << "the opened index alone must fit";

    const float* all = t.batch->column(1)->children[0]->Values<float>();
    auto query_near = [&](size_t row, size_t nprobes, float shift = 0.01f) {
      AnnQuery q;
      q.vector.assign(all + row * kDim, all + (row + 1) * kDim);
      q.vector[0] += shift;
      q.k = 10;
      q.nprobes = nprobes;
      return q;
    };
    auto same = [&](const AnnQuery& q) {
      auto a = whole->Search(q).ValueOrDie();
      auto b = lazy->Search(q);
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      ASSERT_EQ(a.size(), b->size());
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].row, (*b)[i].row) << i;
        EXPECT_EQ(a[i].distance, (*b)[i].distance) << i;
      }
    };
    // Hot: 20 queries next to row 8 (centre 0), probing the same 2 partitions.
    std::vector<AnnQuery> hot;
    for (int i = 0; i < 20; ++i) hot.push_back(query_near(8, 2, 0.001f * static_cast<float>(i)));
    const auto hot_parts = whole->FindPartitions(hot[0].vector.data(), 2);
    for (const AnnQuery& q : hot) {
      ASSERT_EQ(whole->FindPartitions(q.vector.data(), 2), hot_parts) << "the hot queries probe other partitions";
    }
    same(hot[0]);
    files->ResetStats();
    for (const AnnQuery& q : hot) same(q);
    EXPECT_EQ(files->stats().pages_loaded, 0) << "a hot partition was loaded again";
    EXPECT_GE(files->stats().cache_hits, static_cast<int64_t>(2 * hot.size()));
    // Every partition probed once: the cache stays within its capacity and evicts.
    const int64_t evicted_before = cache->stats().evictions;
    for (size_t c = 1; c < 8; ++c) same(query_near(c, whole->ivf().num_partitions()));
    EXPECT_LE(cache->size_bytes(), capacity);
    EXPECT_GT(cache->stats().evictions, evicted_before);
    // The hot partitions are read again (at most) once, then stay.
    files->ResetStats();
    for (const AnnQuery& q : hot) same(q);
    EXPECT_LE(files->stats().pages_loaded, 2);
    files->ResetStats();
    for (const AnnQuery& q : hot) same(q);
    EXPECT_EQ(files->stats().pages_loaded, 0);
    // Evicted while a search holds nothing: the index itself is still usable and answers alike.
    cache->Clear();
    same(hot[3]);
  }
}

TEST(IvfBuilderTest, PqIndexDecodesAndRetrainsTheSame) {
  const Table t = MakeTable(1500, 2);
  const auto& loc = t.loc;
  IvfBuildOptions o;
  o.kind = IndexKind::kIvfPq;
  o.num_partitions = 4;
  o.num_sub_vectors = 4;
  o.seed = 9;
  auto built = t.Build("vec", o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  auto snap = table::Snapshot::Open(loc).ValueOrDie();
  const auto& info = snap->manifest().indices[0];
  EXPECT_EQ(table::IndexTypeName(info), "IVF_PQ");
  auto index = IvfIndex::Open(loc.store(), loc.Path("_indices/" + info.uuid)).ValueOrDie();
  EXPECT_EQ(index->num_rows(), 1499u);
  EXPECT_EQ(index->pq()->num_sub_vectors, 4u);
  uint64_t total = 0;
  for (size_t p = 0; p < index->ivf().num_partitions(); ++p) {
    EXPECT_EQ(index->ivf().offsets[p], total);
    total += index->ivf().lengths[p];
  }
  EXPECT_EQ(total, 1499u);
  // Every 4th row's codes, re-encoded from its residual, equal what was stored.
  const float* all = t.batch->GetColumnByName("vec")->children[0]->Values<float>();
  size_t part = 0;
  for (size_t i = 0; i < index->num_rows(); i += 4) {
    while (i >= index->ivf().offsets[part] + index->ivf().lengths[part]) ++part;
    const uint64_t row = index->row_ids()[i];
    std::vector<float> resid(kDim);
    for (int d = 0; d < kDim; ++d) resid[d] = all[row * kDim + d] - index->ivf().centroid(part)[d];
    for (size_t s = 0; s < 4; ++s) {
      float best = INFINITY;
      size_t arg = 0;
      for (size_t c = 0; c < 256; ++c) {
        const float dd = linalg::L2(&resid[s * 4], index->pq()->centroid(s, c), 4);
        if (dd < best) { best = dd; arg = c; }
      }
      EXPECT_EQ(index->code(i)[s], arg) << "row " << row << " sub-vector " << s;
    }
  }
  // The same seed trains the same index.
  o.name = "again";
  auto again = t.Build("vec", o).ValueOrDie();
  auto index2 = IvfIndex::Open(loc.store(), loc.Path("_indices/" + again.uuid)).ValueOrDie();
  EXPECT_EQ(index2->ivf().centroids, index->ivf().centroids);
  EXPECT_EQ(index2->pq()->centroids, index->pq()->centroids);
  EXPECT_EQ(index2->row_ids(), index->row_ids());
}

// Rows around `clusters` well-separated centres (row i in cluster i % clusters), no nulls.
Table MakeClusteredTable(int rows, int clusters, uint32_t seed) {
  auto store = io::MemoryObjectStore::Make();
  table::TableLocation loc(store, "c.lance");
  std::mt19937 gen(seed);
  std::normal_distribution<float> unit(0, 1);
  std::vector<float> centres(static_cast<size_t>(clusters) * kDim);
  for (auto& c : centres) c = unit(gen) * 10;
  auto values = AllocateBuffer(rows * kDim * 4).ValueOrDie();
  auto* v = reinterpret_cast<float*>(values->mutable_data());
  for (int i = 0; i < rows; ++i) {
    for (int d = 0; d < kDim; ++d) v[i * kDim + d] = centres[static_cast<size_t>(i % clusters) * kDim + d] + 0.3f * unit(gen);
  }
  auto vec_type = fixed_size_list(field("item", float32(), true), kDim);
  auto s = schema({field("vec", vec_type, true)});
  auto vec = Array::Make(vec_type, rows, {nullptr}, {Array::Make(float32(), rows * kDim, {nullptr, values})});
  auto batch = RecordBatch::Make(s, rows, {vec}).ValueOrDie();
  EXPECT_TRUE(table::WriteDataset(loc, s, {batch}).ok());
  return {loc, batch};
}

// How many partitions hold rows of more than one cluster (row r is in cluster r % clusters).
size_t MixedPartitions(const IvfIndex& index, int clusters) {
  size_t mixed = 0, at = 0;
  for (size_t p = 0; p < index.ivf().num_partitions(); ++p) {
    std::vector<int> seen;
    for (uint32_t j = 0; j < index.ivf().lengths[p]; ++j, ++at) {
      const int c = static_cast<int>(index.row_ids()[at] % static_cast<uint64_t>(clusters));
      if (std::find(seen.begin(), seen.end(), c) == seen.end()) seen.push_back(c);
    }
    mixed += seen.size() > 1 ? 1 : 0;
  }
  return mixed;
}

// The IVF k-means starts from k-means++ for l2 (ivf_builder.h): with a partition per
// well-separated cluster no partition mixes two clusters, on every seed; lance 12's random
// starts (still there as Init::kRandom) leave some cluster without a centre, so two clusters
// share a partition -- the partitions behind the IVF_PQ recall study in src/index/README.md.
TEST(IvfBuilderTest, KMeansPlusPlusStartsGiveEveryClusterItsOwnPartitions) {
  constexpr int kClusters = 64;
  const Table t = MakeClusteredTable(6400, kClusters, 5);
  size_t random_mixed = 0;
  for (uint64_t seed : {1, 2, 3}) {
    for (bool plus_plus : {true, false}) {
      IvfBuildOptions o;
      o.kind = IndexKind::kIvfFlat;
      o.num_partitions = kClusters;
      o.seed = seed;
      o.name = "seed" + std::to_string(seed) + (plus_plus ? "pp" : "random");
      if (!plus_plus) o.ivf_init = linalg::KMeansOptions::Init::kRandom;
      auto built = t.Build("vec", o);
      ASSERT_TRUE(built.ok()) << built.status().ToString();
      auto index = IvfIndex::Open(t.loc.store(), t.loc.Path("_indices/" + built->uuid)).ValueOrDie();
      const size_t mixed = MixedPartitions(*index, kClusters);
      if (plus_plus) {
        EXPECT_EQ(mixed, 0u) << "seed " << seed;
      } else {
        random_mixed += mixed;
      }
    }
  }
  EXPECT_GT(random_mixed, 0u) << "random starts happened to separate every cluster: the data no longer tells the starts apart";
}

// IVF_HNSW_PQ: IVF_PQ's storage (codes of the residuals) under one graph per partition, in
// lance 12's layout: it decodes back as IVF_HNSW_PQ with every graph covering its partition,
// and a search with ef above every partition's size ranks the probed rows by PQ distance.
TEST(IvfBuilderTest, HnswPqIndexDecodesAndSearches) {
  const Table t = MakeTable(1500, 4);
  IvfBuildOptions o;
  o.kind = IndexKind::kIvfHnswPq;
  o.num_partitions = 4;
  o.num_sub_vectors = 4;
  o.seed = 5;
  auto built = t.Build("vec", o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->num_sub_vectors, 4u);
  auto snap = table::Snapshot::Open(t.loc).ValueOrDie();
  const auto& info = snap->manifest().indices[0];
  EXPECT_EQ(table::IndexTypeName(info), "IVF_HNSW_PQ");
  auto index = IvfIndex::Open(t.loc.store(), t.loc.Path("_indices/" + info.uuid)).ValueOrDie();
  EXPECT_EQ(index->kind(), IndexKind::kIvfHnswPq);
  EXPECT_EQ(index->num_rows(), 1499u);
  AnnQuery q;
  const float* all = t.batch->GetColumnByName("vec")->children[0]->Values<float>();
  q.vector.assign(all + 7 * kDim, all + 8 * kDim);
  q.k = 10;
  q.nprobes = 4;
  q.ef = 2000;
  auto got = index->Search(q).ValueOrDie();
  ASSERT_EQ(got.size(), 10u);
  for (size_t i = 1; i < got.size(); ++i) EXPECT_LE(got[i - 1].distance, got[i].distance);
  // The query's own row is among them.
  EXPECT_TRUE(std::any_of(got.begin(), got.end(), [](const linalg::Neighbor& x) { return x.row == 7; }));
  // A small ef still walks to near rows: most of the exact top 10 found.
  q.ef = 20;
  auto walk = index->Search(q).ValueOrDie();
  size_t shared = 0;
  for (const auto& a : walk) {
    for (const auto& b : got) shared += a.row == b.row;
  }
  EXPECT_GE(shared, 7u);
}

// IVF_RQ: the stored codes and factors are the re-encoding of each stored row against its
// partition's centroid with the stored rotation, the same seed writes the same files, and the
// estimates rank the true nearest row first for a query at a stored vector.
TEST(IvfBuilderTest, RqIndexDecodesToItsOwnEncoding) {
  const Table t = MakeTable(1000, 5);
  IvfBuildOptions o;
  o.kind = IndexKind::kIvfRq;
  o.num_bits = 1;
  o.num_partitions = 4;
  o.seed = 2;
  auto built = t.Build("vec", o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->num_rows, 999u);
  auto index = IvfIndex::Open(t.loc.store(), t.loc.Path("_indices/" + built->uuid)).ValueOrDie();
  ASSERT_EQ(index->kind(), IndexKind::kIvfRq);
  const auto snap = table::Snapshot::Open(t.loc).ValueOrDie();
  ASSERT_EQ(snap->manifest().indices.size(), 1u);
  EXPECT_EQ(snap->manifest().indices[0].index_version, 2);  // as lance 12 records IVF_RQ
  const RabitqStorage& s = *index->rq();
  const float* all = t.batch->GetColumnByName("vec")->children[0]->Values<float>();
  std::vector<float> rc(kDim);
  std::vector<uint8_t> code(s.model.code_bytes());
  for (size_t p = 0; p < index->ivf().num_partitions(); ++p) {
    const float* c = index->ivf().centroid(p);
    RabitqRotate(s.model, c, kDim, rc.data());
    for (size_t j = index->ivf().offsets[p]; j < index->ivf().offsets[p] + index->ivf().lengths[p]; ++j) {
      const float* v = all + index->row_ids()[j] * kDim;
      const RabitqFactors f = RabitqEncodeVector(s.model, v, c, kDim, rc.data(), code.data());
      ASSERT_TRUE(std::equal(code.begin(), code.end(), s.codes.begin() + static_cast<std::ptrdiff_t>(j * code.size()))) << j;
      ASSERT_EQ(f.add, s.add[j]);
      ASSERT_EQ(f.scale, s.scale[j]);
      ASSERT_EQ(f.error, s.error[j]);
    }
  }
  AnnQuery q;
  q.vector.assign(all + 42 * kDim, all + 43 * kDim);
  q.k = 10;
  q.nprobes = 4;
  const auto got = index->Search(q).ValueOrDie();
  ASSERT_EQ(got.size(), 10u);
  EXPECT_NE(std::find_if(got.begin(), got.end(), [](const linalg::Neighbor& n) { return n.row == 42; }), got.end());
  o.replace = true;
  auto again = t.Build("vec", o).ValueOrDie();
  auto index2 = IvfIndex::Open(t.loc.store(), t.loc.Path("_indices/" + again.uuid)).ValueOrDie();
  EXPECT_EQ(index2->rq()->codes, s.codes);
  EXPECT_EQ(index2->rq()->model.signs, s.model.signs);
  // 4 bits: the same rotation and sign codes (the seed), plus each row's ex code and factors as
  // RabitqEncodeVector gives them; its search finds the query's own row first.
  o.num_bits = 4;
  auto four = t.Build("vec", o);
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  auto index4 = IvfIndex::Open(t.loc.store(), t.loc.Path("_indices/" + four->uuid)).ValueOrDie();
  const RabitqStorage& s4 = *index4->rq();
  EXPECT_EQ(s4.model.num_bits, 4u);
  EXPECT_EQ(s4.codes, s.codes);
  EXPECT_EQ(s4.model.signs, s.model.signs);
  ASSERT_EQ(s4.ex_codes.size(), index4->num_rows() * s4.model.ex_code_bytes());
  size_t same_ex = 0;
  for (size_t p = 0; p < index4->ivf().num_partitions(); ++p) {
    const float* c = index4->ivf().centroid(p);
    std::vector<float> rc(kDim);
    RabitqRotate(s4.model, c, kDim, rc.data());
    for (size_t j = index4->ivf().offsets[p]; j < index4->ivf().offsets[p] + index4->ivf().lengths[p]; ++j) {
      std::vector<uint8_t> code(s4.model.code_bytes()), ex(s4.model.ex_code_bytes());
      const RabitqFactors f = RabitqEncodeVector(s4.model, all + index4->row_ids()[j] * kDim, c, kDim, rc.data(),
                                                 code.data(), false, ex.data());
      same_ex += std::equal(ex.begin(), ex.end(), s4.ex_codes.begin() + static_cast<std::ptrdiff_t>(j * ex.size())) &&
                 f.add_ex == s4.add_ex[j] && f.scale_ex == s4.scale_ex[j];
    }
  }
  EXPECT_EQ(same_ex, index4->num_rows());
  const auto got4 = index4->Search(q).ValueOrDie();
  ASSERT_EQ(got4.size(), 10u);
  EXPECT_EQ(got4[0].row, 42u);
  o.num_bits = 10;
  EXPECT_TRUE(t.Build("vec", o).status().IsInvalidArgument());
  o.num_bits = 1;
  // Dot: the same codes (the residuals' signs do not depend on the metric) with lance 12's dot
  // factors (interop vector_rq checks them against its search).
  o.metric = linalg::DistanceType::kDot;
  auto dot = t.Build("vec", o);
  ASSERT_TRUE(dot.ok()) << dot.status().ToString();
  auto dot_index = IvfIndex::Open(t.loc.store(), t.loc.Path("_indices/" + dot->uuid)).ValueOrDie();
  EXPECT_EQ(dot_index->metric(), linalg::DistanceType::kDot);
  EXPECT_NE(dot_index->rq()->add, index2->rq()->add);
  const auto dot_got = dot_index->Search(q).ValueOrDie();
  ASSERT_EQ(dot_got.size(), 10u);
  EXPECT_TRUE(std::is_sorted(dot_got.begin(), dot_got.end(), linalg::NeighborBefore));
  o.metric = linalg::DistanceType::kHamming;
  EXPECT_TRUE(t.Build("vec", o).status().IsNotSupported());
}

// IVF_SQ: IVF_HNSW_SQ's storage under a flat sub-index: it decodes back as IVF_SQ, the manifest
// names it so, and a search with every partition probed ranks rows by their SQ distance (the
// row at the query first).
TEST(IvfBuilderTest, SqIndexDecodesAndSearches) {
  const Table t = MakeTable(800, 6);
  IvfBuildOptions o;
  o.kind = IndexKind::kIvfSq;
  o.num_partitions = 4;
  auto built = t.Build("vec", o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const auto snap = table::Snapshot::Open(t.loc).ValueOrDie();
  EXPECT_EQ(table::IndexTypeName(snap->manifest().indices[0]), "IVF_SQ");
  auto index = IvfIndex::Open(t.loc.store(), t.loc.Path("_indices/" + built->uuid)).ValueOrDie();
  EXPECT_EQ(index->kind(), IndexKind::kIvfSq);
  EXPECT_EQ(index->num_rows(), 799u);
  const float* all = t.batch->GetColumnByName("vec")->children[0]->Values<float>();
  AnnQuery q;
  q.vector.assign(all + 100 * kDim, all + 101 * kDim);
  q.nprobes = 4;
  const auto got = index->Search(q).ValueOrDie();
  ASSERT_EQ(got.size(), 10u);
  EXPECT_EQ(got[0].row, 100u);
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), linalg::NeighborBefore));
  const auto odd = index->Search(q, [](uint64_t r) { return r % 2 == 1; }).ValueOrDie();
  for (const auto& n : odd) EXPECT_EQ(n.row % 2, 1u);
  o.metric = linalg::DistanceType::kDot;
  o.replace = true;
  EXPECT_TRUE(t.Build("vec", o).status().IsNotSupported());
}

TEST(IvfBuilderTest, RefusesBadRequests) {
  const Table t = MakeTable(300, 3);
  const auto& loc = t.loc;
  IvfBuildOptions o;
  o.kind = IndexKind::kIvfPq;
  o.num_partitions = 2;
  EXPECT_TRUE(t.Build("nope", o).status().IsInvalidArgument());
  EXPECT_TRUE(t.Build("id", o).status().IsInvalidArgument());
  o.num_sub_vectors = 3;
  EXPECT_TRUE(t.Build("vec", o).status().IsInvalidArgument());
  o.num_sub_vectors = 4;
  o.num_partitions = 400;
  EXPECT_TRUE(t.Build("vec", o).status().IsInvalidArgument());
  o.num_partitions = 2;
  o.metric = linalg::DistanceType::kHamming;  // over float vectors; and as lance 12, IVF_FLAT only
  for (IndexKind k : {IndexKind::kIvfHnswSq, IndexKind::kIvfHnswPq, IndexKind::kIvfRq, IndexKind::kIvfPq}) {
    o.kind = k;
    EXPECT_TRUE(t.Build("vec", o).status().IsNotSupported()) << IndexKindName(k);
  }
  o.kind = IndexKind::kIvfFlat;
  EXPECT_TRUE(t.Build("vec", o).status().IsInvalidArgument());
  o.metric = linalg::DistanceType::kL2;
  o.kind = IndexKind::kIvfFlat;
  ASSERT_TRUE(t.Build("vec", o).ok());
  EXPECT_TRUE(t.Build("vec", o).status().IsAlreadyExists());
  o.replace = true;
  EXPECT_TRUE(t.Build("vec", o).ok());
  EXPECT_EQ(table::Snapshot::Open(loc).ValueOrDie()->manifest().indices.size(), 1u);
}

}  // namespace
}  // namespace lance::index::vector
