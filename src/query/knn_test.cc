// k-NN scans (ScanOptions::nearest, the KNN plan node): on lance 12's own indexes
// (tests/golden/vector_index, built by gen.mjs) every row id in order and every distance equal
// its answers.json (bit for bit; IVF_FLAT cosine to 1 ulp) for IVF_FLAT / IVF_PQ (and IVF_RQ l2) with l2,
// cosine and dot, nprobes 1, 2, 4 and a refine factor; on indexes we build: an IVF_FLAT index
// searched whole equals exact search, IVF_PQ with a large refine factor finds the exact
// neighbours, deleted rows are never returned and appended (unindexed) rows are searched,
// prefilter / postfilter against a model of each, the output columns, and Explain.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lance/index/vector/ivf_builder.h"
#include "lance/io/memory_object_store.h"
#include "lance/query/index_training.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"

namespace lance::query {
namespace {

namespace fs = std::filesystem;
using index::vector::IndexKind;
using index::vector::IvfBuildOptions;
using linalg::DistanceType;

constexpr int kDim = 16;

struct Hit {
  uint64_t row;
  float distance;
  bool operator==(const Hit&) const = default;
};

// The (_rowid, _distance) of a k-NN scan.
std::vector<Hit> Search(std::shared_ptr<const table::Snapshot> snap, ScanOptions o) {
  o.columns = {"_rowid"};
  auto scanner = Scanner::Make(std::move(snap), o);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  if (!scanner.ok()) return {};
  EXPECT_EQ(scanner->schema()->field(1)->name(), "_distance");
  auto batches = scanner->ToBatches().ValueOrDie();
  std::vector<Hit> out;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.push_back({b->column(0)->Values<uint64_t>()[i], b->column(1)->Values<float>()[i]});
    }
  }
  return out;
}

ScanOptions Nearest(std::vector<float> q, uint64_t k, uint64_t nprobes) {
  ScanOptions o;
  o.nearest.emplace();
  o.nearest->column = "vec";
  o.nearest->query = std::move(q);
  o.nearest->k = k;
  o.nearest->nprobes = nprobes;
  return o;
}

// --- lance 12's indexes --------------------------------------------------------------------

fs::path Golden() { return fs::path(__FILE__).parent_path() / "../../tests/golden/vector_index"; }

TEST(KnnTest, SearchOfTheReferenceIndexesEqualsItsAnswers) {
  std::ifstream in(Golden() / "answers.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const auto answers = nlohmann::json::parse(ss.str());
  int compared = 0;
  for (const auto& c : answers["cases"]) {
    const std::string type = c["type"];
    if (type != "ivf_flat" && type != "ivf_pq" && type != "ivf_rq") continue;
    const std::string name = c["name"];
    const std::string metric = c["metric"];
    const bool ulp = type == "ivf_flat" && metric == "cosine";
    std::shared_ptr<const table::Snapshot> snap =
        table::Snapshot::Open((Golden() / (name + ".lance")).string()).ValueOrDie();
    for (const auto& r : c["results"]) {
      ScanOptions o = Nearest(answers["queries"][r["query"].get<size_t>()].get<std::vector<float>>(), 10,
                              r["nprobes"].get<uint64_t>());
      if (r.contains("refineFactor")) o.nearest->refine_factor = r["refineFactor"].get<uint32_t>();
      o.nearest->metric = linalg::ParseDistanceType(metric).ValueOrDie();
      if (compared == 0) {
        auto plan = Scanner::Make(snap, o).ValueOrDie().Explain();
        EXPECT_NE(plan.find("KNN: column vec, k 10"), std::string::npos) << plan;
        EXPECT_NE(plan.find("ANN over index vec_idx (IVF_FLAT"), std::string::npos) << plan;
      }
      const auto got = Search(snap, o);
      const auto& want = r["rows"];
      ASSERT_EQ(got.size(), want.size()) << name << " " << r.dump();
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].row, want[i][0].get<uint64_t>()) << name << " " << r.dump() << " row " << i;
        const float d = want[i][1].get<float>();
        if (ulp) {
          EXPECT_NEAR(got[i].distance, d, 1.2e-7 * std::max(1.0f, std::abs(d))) << name;
        } else {
          EXPECT_EQ(got[i].distance, d) << name << " " << r.dump() << " row " << i;
        }
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 7 * 16);
}

// --- indexes we build ----------------------------------------------------------------------

RecordBatchPtr Batch(int first, int rows, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> noise(0, 0.3f);
  std::vector<float> centres(8 * kDim);
  std::mt19937 cgen(7);
  for (auto& c : centres) c = noise(cgen) * 10;
  auto values = AllocateBuffer(rows * kDim * 4).ValueOrDie();
  auto* v = reinterpret_cast<float*>(values->mutable_data());
  for (int i = 0; i < rows; ++i) {
    for (int d = 0; d < kDim; ++d) v[i * kDim + d] = centres[((first + i) % 8) * kDim + d] + noise(gen);
  }
  auto ids = AllocateBuffer(rows * 4).ValueOrDie();
  for (int i = 0; i < rows; ++i) reinterpret_cast<int32_t*>(ids->mutable_data())[i] = first + i;
  auto vec_type = fixed_size_list(field("item", float32(), true), kDim);
  auto s = schema({field("id", int32(), false), field("vec", vec_type, true)});
  auto vec = Array::Make(vec_type, rows, {nullptr}, {Array::Make(float32(), rows * kDim, {nullptr, values})});
  return RecordBatch::Make(s, rows, {Array::Make(int32(), rows, {nullptr, ids}), vec}).ValueOrDie();
}

table::TableLocation MakeTable(int rows, uint32_t seed) {
  table::TableLocation loc(io::MemoryObjectStore::Make(), "t.lance");
  auto b = Batch(0, rows, seed);
  EXPECT_TRUE(table::WriteDataset(loc, b->schema(), {b}).ok());
  return loc;
}

std::vector<float> Query(uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> n(0, 2);
  std::vector<float> q(kDim);
  for (auto& x : q) x = n(gen);
  return q;
}

void Build(const table::TableLocation& loc, IndexKind kind, DistanceType metric, size_t parts) {
  IvfBuildOptions o;
  o.kind = kind;
  o.metric = metric;
  o.num_partitions = parts;
  o.num_sub_vectors = 4;
  o.seed = 5;
  auto snap = table::Snapshot::Open(loc);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  auto rows = [&](const table::Snapshot&, const std::string& c) { return CollectTrainingData(*snap, c); };
  auto built = index::vector::CreateVectorIndex(**snap, "vec", rows, o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
}

TEST(KnnTest, FlatIndexSearchedWholeIsExact) {
  for (auto metric : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
    SCOPED_TRACE(std::string(linalg::DistanceTypeName(metric)));
    auto loc = MakeTable(700, 1);
    Build(loc, IndexKind::kIvfFlat, metric, 6);
    std::shared_ptr<const table::Snapshot> snap = table::Snapshot::Open(loc).ValueOrDie();
    for (uint32_t qs = 0; qs < 4; ++qs) {
      ScanOptions o = Nearest(Query(qs), 15, 6);
      o.nearest->metric = metric;
      const auto ann = Search(snap, o);
      o.nearest->use_index = false;
      const auto exact = Search(snap, o);
      ASSERT_EQ(ann.size(), 15u);
      ASSERT_EQ(exact.size(), 15u);
      for (size_t i = 0; i < exact.size(); ++i) {
        EXPECT_EQ(ann[i].row, exact[i].row) << i;
        if (metric == DistanceType::kCosine) {
          EXPECT_NEAR(ann[i].distance, exact[i].distance, 1e-5);  // over unit vectors
        } else {
          EXPECT_EQ(ann[i].distance, exact[i].distance);
        }
      }
    }
  }
}

TEST(KnnTest, PqRefineFindsTheExactNeighbours) {
  auto loc = MakeTable(1500, 2);
  Build(loc, IndexKind::kIvfPq, DistanceType::kL2, 4);
  std::shared_ptr<const table::Snapshot> snap = table::Snapshot::Open(loc).ValueOrDie();
  ScanOptions o = Nearest(Query(3), 10, 4);
  o.nearest->refine_factor = 40;
  const auto ann = Search(snap, o);
  o.nearest->use_index = false;
  EXPECT_EQ(ann, Search(snap, o));
  EXPECT_EQ(ann.size(), 10u);
}

TEST(KnnTest, DeletedRowsNeverReturnedAndAppendedRowsSearched) {
  auto loc = MakeTable(800, 3);
  Build(loc, IndexKind::kIvfFlat, DistanceType::kL2, 4);
  // Append 200 rows (not indexed) and delete every 3rd row of the first fragment.
  auto extra = Batch(800, 200, 4);
  table::WriteParams append;
  append.mode = table::WriteMode::kAppend;
  ASSERT_TRUE(table::WriteDataset(loc, extra->schema(), {extra}, append).ok());
  std::vector<uint64_t> dead;
  for (uint64_t r = 0; r < 800; r += 3) dead.push_back(r);
  ASSERT_TRUE(table::DeleteRowAddresses(loc, dead).ok());
  std::shared_ptr<const table::Snapshot> snap = table::Snapshot::Open(loc).ValueOrDie();
  const std::set<uint64_t> deleted(dead.begin(), dead.end());
  for (uint32_t qs = 0; qs < 4; ++qs) {
    ScanOptions o = Nearest(Query(qs + 10), 30, 4);
    const auto ann = Search(snap, o);
    {
      auto plan = Scanner::Make(snap, o).ValueOrDie().Explain();
      EXPECT_NE(plan.find("fragments [1] not covered by the index"), std::string::npos) << plan;
    }
    o.nearest->use_index = false;
    const auto exact = Search(snap, o);
    ASSERT_EQ(ann.size(), 30u);
    EXPECT_EQ(ann, exact);  // every partition of a flat index: exact
    bool appended = false;
    for (const auto& h : ann) {
      EXPECT_EQ(deleted.count(h.row), 0u) << h.row;
      appended = appended || (h.row >> 32) == 1;
    }
    EXPECT_TRUE(appended) << "no row of the unindexed fragment among 30 of 1000";
  }
}

TEST(KnnTest, PrefilterAndPostfilter) {
  auto loc = MakeTable(900, 5);
  Build(loc, IndexKind::kIvfPq, DistanceType::kL2, 4);
  std::shared_ptr<const table::Snapshot> snap = table::Snapshot::Open(loc).ValueOrDie();
  for (uint32_t qs = 0; qs < 3; ++qs) {
    ScanOptions o = Nearest(Query(qs + 20), 10, 2);
    const auto unfiltered = Search(snap, o);
    // The model of a postfilter: the unfiltered k rows that pass, in order.
    std::vector<Hit> post_model;
    for (const auto& h : unfiltered) {
      if (h.row % 2 == 0) post_model.push_back(h);
    }
    o.filter = "id % 2 = 0";
    o.nearest->prefilter = false;
    EXPECT_EQ(Search(snap, o), post_model);
    {
      auto plan = Scanner::Make(snap, o).ValueOrDie().Explain();
      EXPECT_NE(plan.find("postfilter \"id % 2 = 0\" over the k rows"), std::string::npos) << plan;
    }
    // Prefilter: k rows, all passing; with a refine factor covering every candidate of the
    // probed partitions it equals the exact search of the passing rows of those partitions,
    // so check against the exact search of all passing rows with every partition probed.
    o.nearest->prefilter = true;
    o.nearest->nprobes = 4;
    o.nearest->refine_factor = 100;
    const auto pre = Search(snap, o);
    ASSERT_EQ(pre.size(), 10u);
    for (const auto& h : pre) EXPECT_EQ(h.row % 2, 0u);
    {
      auto plan = Scanner::Make(snap, o).ValueOrDie().Explain();
      EXPECT_NE(plan.find("only the rows of input 1 (prefilter) take a slot"), std::string::npos) << plan;
      EXPECT_NE(plan.find("Filter: \"id % 2 = 0\""), std::string::npos) << plan;
    }
    o.nearest->use_index = false;
    EXPECT_EQ(pre, Search(snap, o));
  }
}

TEST(KnnTest, OutputColumnsLimitAndErrors) {
  auto loc = MakeTable(300, 6);
  std::shared_ptr<const table::Snapshot> snap = table::Snapshot::Open(loc).ValueOrDie();
  ScanOptions o = Nearest(Query(1), 5, 1);
  o.columns = {"id"};
  o.with_row_id = true;
  auto scanner = Scanner::Make(snap, o).ValueOrDie();
  ASSERT_EQ(scanner.schema()->num_fields(), 3);
  EXPECT_EQ(scanner.schema()->field(0)->name(), "id");
  EXPECT_EQ(scanner.schema()->field(1)->name(), "_distance");
  EXPECT_EQ(scanner.schema()->field(2)->name(), "_rowid");
  EXPECT_NE(scanner.Explain().find("exact search over input 1"), std::string::npos) << scanner.Explain();
  auto batches = scanner.ToBatches().ValueOrDie();
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0]->num_rows(), 5);
  for (int64_t i = 0; i < 5; ++i) {
    // No index: row ids are addresses of fragment 0, so the id column equals the row id.
    EXPECT_EQ(static_cast<uint64_t>(batches[0]->column(0)->Values<int32_t>()[i]),
              batches[0]->column(2)->Values<uint64_t>()[i]);
    if (i > 0) {
      EXPECT_LE(batches[0]->column(1)->Values<float>()[i - 1], batches[0]->column(1)->Values<float>()[i]);
    }
  }
  o.offset = 1;
  o.limit = 2;
  auto limited = Scanner::Make(snap, o).ValueOrDie().ToBatches().ValueOrDie();
  ASSERT_EQ(limited.size(), 1u);
  ASSERT_EQ(limited[0]->num_rows(), 2);
  EXPECT_EQ(limited[0]->column(2)->Values<uint64_t>()[0], batches[0]->column(2)->Values<uint64_t>()[1]);
  ScanOptions bad = Nearest(Query(1), 0, 1);
  EXPECT_TRUE(Scanner::Make(snap, bad).status().IsInvalidArgument());
  bad = Nearest(std::vector<float>(3, 1.0f), 5, 1);
  EXPECT_TRUE(Scanner::Make(snap, bad).status().IsInvalidArgument());
  bad = Nearest(Query(1), 5, 1);
  bad.nearest->column = "id";
  EXPECT_TRUE(Scanner::Make(snap, bad).status().IsInvalidArgument());
}

// The fragment scans under `node`, depth first.
void FragmentScans(const PlanNodePtr& node, std::vector<const FragmentScanNode*>* out) {
  if (node->kind() == PlanNode::Kind::kFragmentScan) out->push_back(static_cast<const FragmentScanNode*>(node.get()));
  for (const auto& in : node->inputs()) FragmentScans(in, out);
}

// Exact search reads the whole vector column every query: its scan keeps the pages it maps
// for the next query (ScanOptions::keep_mapped_pages), where a plain scan lets them go; the
// answers of repeated queries over one snapshot stay those of the first, with and without a
// filter and over the rows an index leaves uncovered.
TEST(KnnTest, ExactSearchScanKeepsItsMappedPagesAndAnswersAlike) {
  auto loc = MakeTable(900, 8);
  std::shared_ptr<const table::Snapshot> snap = table::Snapshot::Open(loc).ValueOrDie();
  const Planner planner(snap);
  {
    ScanOptions plain;
    plain.columns = {"vec"};
    std::vector<const FragmentScanNode*> scans;
    FragmentScans(planner.PlanScan(plain).ValueOrDie().root(), &scans);
    ASSERT_EQ(scans.size(), 1u);
    EXPECT_FALSE(scans[0]->keep_mapped_pages()) << "a plain scan releases its pages";
  }
  for (const char* filter : {"", "id % 3 = 1"}) {
    SCOPED_TRACE(filter);
    ScanOptions o = Nearest(Query(4), 12, 1);
    o.nearest->use_index = false;
    o.filter = filter;
    auto plan = planner.PlanNearest(o).ValueOrDie();
    ASSERT_EQ(plan.root()->kind(), PlanNode::Kind::kKnn);
    const auto& knn = static_cast<const KnnNode&>(*plan.root());
    ASSERT_NE(knn.exact_rows(), nullptr);
    std::vector<const FragmentScanNode*> scans;
    FragmentScans(knn.exact_rows(), &scans);
    ASSERT_EQ(scans.size(), 1u);
    EXPECT_TRUE(scans[0]->keep_mapped_pages());
    const auto first = Search(snap, o);
    ASSERT_EQ(first.size(), 12u);
    for (int r = 0; r < 3; ++r) EXPECT_EQ(Search(snap, o), first) << r;
    // Every row of the filter model is a candidate: the answers pass it.
    if (*filter) {
      for (const auto& h : first) EXPECT_EQ(h.row % 3, 1u) << h.row;
    }
  }
}

}  // namespace
}  // namespace lance::query
