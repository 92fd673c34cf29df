// query::LsmNearest against a brute-force model of the newest rows: a base with an IVF_FLAT
// index, two flushed generations (upserts, deletes, a key written twice in one generation), a
// WAL tail (upserts, deletes); queries at the superseded vectors of replaced keys (which must
// not come back, however near), random queries, a filter on a non-key column (a newer row that
// fails it hides an older one that passes), both consistencies, exact and indexed, before and
// after merging the generations into the base.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dataset/memwal_test_util.h"
#include "lance/columnar/builder.h"
#include "lance/dataset/dataset.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/linalg/distance.h"
#include "lance/query/lsm_nearest.h"

namespace lance::memwal::lsm_test {
namespace {

constexpr int kDim = 8;

struct Row {
  std::vector<float> vec;
  int32_t tag = 0;
};
using VecModel = std::map<int64_t, Row>;

SchemaPtr VecRows() {
  return schema({field("id", int64(), false), field("vec", fixed_size_list(float32(), kDim)), field("tag", int32())});
}

RecordBatchPtr VecBatch(const std::vector<int64_t>& ids, const std::vector<std::vector<float>>& vecs, int32_t tag) {
  Int64Builder a(int64());
  FixedSizeListBuilder v(fixed_size_list(float32(), kDim), std::make_unique<FloatBuilder>(float32()));
  Int32Builder t(int32());
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_TRUE(a.Append(ids[i]).ok());
    EXPECT_TRUE(v.Append().ok());
    for (float x : vecs[i]) EXPECT_TRUE(static_cast<FloatBuilder*>(v.value_builder())->Append(x).ok());
    EXPECT_TRUE(t.Append(tag).ok());
  }
  return std::make_shared<RecordBatch>(VecRows(), static_cast<int64_t>(ids.size()),
                                       std::vector<ArrayPtr>{*a.Finish(), *v.Finish(), *t.Finish()});
}

std::vector<float> RandomVector(std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(kDim);
  for (float& x : v) x = u(*rng);
  return v;
}

std::vector<int64_t> Range(int64_t from, int64_t to) {
  std::vector<int64_t> v;
  for (int64_t i = from; i < to; ++i) v.push_back(i);
  return v;
}

// (id, distance) of the k nearest rows of the model passing `pass`, nearest first.
std::vector<std::pair<int64_t, float>> Brute(const VecModel& m, const std::vector<float>& q, size_t k,
                                             int32_t max_tag) {
  std::vector<std::pair<int64_t, float>> all;
  for (const auto& [id, row] : m) {
    if (row.tag > max_tag) continue;
    double d = 0;
    for (int i = 0; i < kDim; ++i) d += (row.vec[i] - q[i]) * static_cast<double>(row.vec[i] - q[i]);
    all.emplace_back(id, static_cast<float>(d));
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (all.size() > k) all.resize(k);
  return all;
}

std::vector<std::pair<int64_t, float>> Search(const Table& t, const std::vector<float>& q, size_t k, Consistency c,
                                              bool use_index, const std::string& filter,
                                              query::LsmNearestStats* stats = nullptr,
                                              const MemWalWriter* live = nullptr) {
  LsmReadOptions o;
  o.consistency = c;
  if (live) o.live_writers = {live};
  o.filter = filter;
  o.use_index = use_index;
  o.columns = {"id", "tag"};
  query::NearestOptions n;
  n.column = "vec";
  n.query = q;
  n.k = k;
  n.nprobes = 4;  // every partition of the base's IVF_FLAT: exact
  n.use_index = use_index;
  auto r = query::LsmNearest(t.store, t.root, o, n, stats);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<std::pair<int64_t, float>> out;
  if (!r.ok()) return out;
  for (const auto& b : *r) {
    EXPECT_EQ(b->schema()->field(0)->name(), "id");
    EXPECT_EQ(b->schema()->field(2)->name(), "_distance");
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.emplace_back(b->column(0)->Values<int64_t>()[i], b->GetColumnByName("_distance")->Values<float>()[i]);
    }
  }
  return out;
}

void ExpectSame(const std::vector<std::pair<int64_t, float>>& got, const std::vector<std::pair<int64_t, float>>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first) << what << ": row " << i;
    EXPECT_NEAR(got[i].second, want[i].second, 1e-5 * std::max(1.0f, want[i].second)) << what << ": row " << i;
  }
}

TEST(LsmNearest, EqualsBruteForceOverTheNewestRows) {
  Table t;
  t.dir = fs::temp_directory_path() / ("lance_lsm_knn_" + std::to_string(::getpid()));
  fs::remove_all(t.dir);
  fs::create_directories(t.dir);
  const std::string uri = (t.dir / "t.lance").string();
  std::mt19937 rng(42);
  VecModel model;
  std::map<int64_t, std::vector<float>> superseded;  // a replaced or deleted vector per key
  auto upsert = [&](VecModel* m, const std::vector<int64_t>& ids, int32_t tag) {
    std::vector<std::vector<float>> vecs;
    for (int64_t id : ids) {
      vecs.push_back(RandomVector(&rng));
      if (m->count(id)) superseded[id] = (*m)[id].vec;
      (*m)[id] = Row{vecs.back(), tag};
    }
    return VecBatch(ids, vecs, tag);
  };
  auto erase = [&](VecModel* m, const std::vector<int64_t>& ids) {
    for (int64_t id : ids) {
      if (m->count(id)) superseded[id] = (*m)[id].vec;
      m->erase(id);
    }
    return VecBatch(ids, std::vector<std::vector<float>>(ids.size(), std::vector<float>(kDim, 0.0f)), 9);
  };
  ASSERT_TRUE(table::WriteDataset(uri, VecRows(), {upsert(&model, Range(0, 300), 0)}).ok());
  {
    auto ds = dataset::Dataset::Open(uri);
    ASSERT_TRUE(ds.ok());
    index::vector::IvfBuildOptions o;
    o.kind = index::vector::IndexKind::kIvfFlat;
    o.name = "vec_idx";
    o.num_partitions = 4;
    ASSERT_TRUE((*ds)->CreateVectorIndex("vec", o).ok());
  }
  auto w = io::ObjectStore::FromUri(uri);
  ASSERT_TRUE(w.ok());
  t.store = w->store;
  t.root = w->path;
  EnableOptions eo;
  eo.primary_key = {"id"};
  eo.spec = UnshardedSpec();
  ASSERT_TRUE(EnableMemWal(t.store, t.root, eo).ok());

  VecModel eventual;
  {
    auto writer = MemWalWriter::Open(t.store, t.root, UnshardedShardId(), WriterOptions(t));
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    auto& wr = **writer;
    // Generation 1: new keys, updates of base keys (tag 1), deletes.
    ASSERT_TRUE(wr.AppendAndWait(*upsert(&model, Range(280, 340), 1)).ok());
    ASSERT_TRUE(wr.AppendAndWait(*erase(&model, Range(0, 10)), true).ok());
    ASSERT_TRUE(wr.Flush().ok());
    // Generation 2: deleted keys back, a key twice in one generation, more deletes; tag 2
    // rows hide their older tag 0 / 1 rows from a "tag < 2" filter.
    ASSERT_TRUE(wr.AppendAndWait(*upsert(&model, Range(0, 5), 2)).ok());
    ASSERT_TRUE(wr.AppendAndWait(*upsert(&model, Range(300, 310), 2)).ok());
    ASSERT_TRUE(wr.AppendAndWait(*upsert(&model, {305, 50, 51}, 2)).ok());
    ASSERT_TRUE(wr.AppendAndWait(*erase(&model, Range(320, 330)), true).ok());
    ASSERT_TRUE(wr.Flush().ok());
    eventual = model;
    // The WAL tail (unflushed): updates of base and generation keys, deletes, a key twice.
    ASSERT_TRUE(wr.AppendAndWait(*upsert(&model, Range(100, 120), 1)).ok());
    ASSERT_TRUE(wr.AppendAndWait(*erase(&model, Range(280, 290)), true).ok());
    ASSERT_TRUE(wr.AppendAndWait(*upsert(&model, {330, 110, 60}, 3)).ok());
    // The writer live in this process: its MemTable is searched in memory (flat), equal to
    // brute force as the WAL tail's search is.
    std::mt19937 qrng(7);
    for (int qi = 0; qi < 4; ++qi) {
      const std::vector<float> q = RandomVector(&qrng);
      for (size_t k : {1, 10, 40}) {
        query::LsmNearestStats ls;
        ExpectSame(Search(t, q, k, Consistency::kStrong, true, "", &ls, &wr), Brute(model, q, k, 9),
                   "live writer k" + std::to_string(k));
        ExpectSame(Search(t, q, k, Consistency::kStrong, false, "tag < 2", nullptr, &wr), Brute(model, q, k, 1),
                   "live writer, tag < 2, k" + std::to_string(k));
      }
    }
    ASSERT_TRUE(wr.Close(false).ok());
  }
  std::vector<std::vector<float>> queries;
  for (int i = 0; i < 6; ++i) queries.push_back(RandomVector(&rng));
  for (int64_t id : {0, 5, 50, 100, 110, 280, 285, 300, 305, 320, 330}) queries.push_back(superseded.at(id));
  auto check = [&](const std::string& stage, bool with_tail) {
    for (size_t qi = 0; qi < queries.size(); ++qi) {
      for (size_t k : {1, 10, 40}) {
        for (bool use_index : {true, false}) {
          const std::string what = stage + " q" + std::to_string(qi) + " k" + std::to_string(k) +
                                   (use_index ? " indexed" : " exact");
          ExpectSame(Search(t, queries[qi], k, Consistency::kStrong, use_index, ""), Brute(model, queries[qi], k, 9),
                     what + " strong");
          ExpectSame(Search(t, queries[qi], k, Consistency::kEventual, use_index, ""),
                     Brute(with_tail ? eventual : model, queries[qi], k, 9), what + " eventual");
          ExpectSame(Search(t, queries[qi], k, Consistency::kStrong, use_index, "tag < 2"),
                     Brute(model, queries[qi], k, 1), what + " strong, tag < 2");
        }
      }
    }
  };
  check("generations", true);
  // The superseded vector's key does not come back at distance 0 (its newest row is elsewhere).
  query::LsmNearestStats st;
  auto top = Search(t, superseded.at(300), 1, Consistency::kStrong, true, "", &st);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_GT(top[0].second, 0.0f);
  EXPECT_EQ(st.sources, 4);  // the tail, two generations, the base
  EXPECT_GT(st.replaced, 0);
  // The generations' keys answered by their sidecars: the bloom filter for every older
  // candidate, the _pk_index for those it may hold (key 300's older rows among them).
  EXPECT_GT(st.bloom_tests, 0);
  EXPECT_GT(st.pk_index_searches, 0);
  EXPECT_LE(st.pk_index_searches, st.bloom_tests);

  ASSERT_TRUE(MergeGenerations(t.store, t.root).ok());
  check("merged", true);  // (the WAL tail is still unflushed)
  fs::remove_all(t.dir);
}

// Without a metric in the request every source ranks by the base index's metric (read from
// its manifest entry): a cosine IVF_FLAT base, a generation and a WAL tail answer as brute
// force by cosine distance, not by L2.
TEST(LsmNearest, RanksEverySourceByTheBaseIndexMetric) {
  Table t;
  t.dir = fs::temp_directory_path() / ("lance_lsm_knn_cos_" + std::to_string(::getpid()));
  fs::remove_all(t.dir);
  fs::create_directories(t.dir);
  const std::string uri = (t.dir / "t.lance").string();
  std::mt19937 rng(5);
  std::map<int64_t, std::vector<float>> model;
  auto upsert = [&](const std::vector<int64_t>& ids) {
    std::vector<std::vector<float>> vecs;
    for (int64_t id : ids) {
      vecs.push_back(RandomVector(&rng));
      for (float& x : vecs.back()) x *= static_cast<float>(1 + id % 7);  // norms differ: L2 ranks otherwise
      model[id] = vecs.back();
    }
    return VecBatch(ids, vecs, 0);
  };
  ASSERT_TRUE(table::WriteDataset(uri, VecRows(), {upsert(Range(0, 200))}).ok());
  {
    auto ds = dataset::Dataset::Open(uri);
    ASSERT_TRUE(ds.ok());
    index::vector::IvfBuildOptions o;
    o.kind = index::vector::IndexKind::kIvfFlat;
    o.name = "vec_idx";
    o.num_partitions = 4;
    o.metric = linalg::DistanceType::kCosine;
    ASSERT_TRUE((*ds)->CreateVectorIndex("vec", o).ok());
  }
  auto w = io::ObjectStore::FromUri(uri);
  ASSERT_TRUE(w.ok());
  t.store = w->store;
  t.root = w->path;
  EnableOptions eo;
  eo.primary_key = {"id"};
  eo.spec = UnshardedSpec();
  ASSERT_TRUE(EnableMemWal(t.store, t.root, eo).ok());
  {
    auto writer = MemWalWriter::Open(t.store, t.root, UnshardedShardId(), WriterOptions(t));
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->AppendAndWait(*upsert(Range(150, 260))).ok());
    ASSERT_TRUE((*writer)->Flush().ok());
    ASSERT_TRUE((*writer)->AppendAndWait(*upsert(Range(240, 280))).ok());
    ASSERT_TRUE((*writer)->Close(false).ok());
  }
  std::mt19937 qrng(11);
  for (int qi = 0; qi < 5; ++qi) {
    const std::vector<float> q = RandomVector(&qrng);
    std::vector<std::pair<int64_t, float>> want;
    for (const auto& [id, v] : model) want.emplace_back(id, linalg::CosineDistance(v.data(), q.data(), kDim));
    std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    want.resize(10);
    ExpectSame(Search(t, q, 10, Consistency::kStrong, true, ""), want, "cosine q" + std::to_string(qi));
  }
  fs::remove_all(t.dir);
}

}  // namespace
}  // namespace lance::memwal::lsm_test
