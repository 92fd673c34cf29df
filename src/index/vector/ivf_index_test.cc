// The vector index reader and search on the indexes lance 12 built in tests/golden/vector_index
// (gen.mjs): the decoded structure (partitions tile the rows, the null vector is not stored,
// the codebook's shape), and SearchTable's answers against the reference's answers.json --
// every row id in order and every distance (bit for bit; IVF_FLAT cosine to 1 ulp) -- for
// IVF_FLAT / IVF_PQ with l2, cosine and dot, nprobes 1, 2, 4 and a refine factor. Corrupt and
// truncated index files give errors, never a crash.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lance/index/vector/ivf_index.h"
#include "lance/index/vector/vector_search.h"
#include "lance/io/memory_object_store.h"
#include "lance/io/object_store.h"
#include "lance/table/snapshot.h"

namespace lance::index::vector {
namespace {

namespace fs = std::filesystem;

fs::path Golden() { return fs::path(__FILE__).parent_path() / "../../../tests/golden/vector_index"; }

nlohmann::json Answers() {
  std::ifstream in(Golden() / "answers.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

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

TEST(IvfIndexTest, SearchEqualsTheReference) {
  const auto answers = Answers();
  int compared = 0;
  for (const auto& c : answers["cases"]) {
    const std::string type = c["type"];
    if (type != "ivf_flat" && type != "ivf_pq") continue;
    const std::string name = c["name"];
    const std::string metric = c["metric"];
    const bool ulp = type == "ivf_flat" && metric == "cosine";
    auto snap = table::Snapshot::Open((Golden() / (name + ".lance")).string()).ValueOrDie();
    for (const auto& r : c["results"]) {
      VectorSearchOptions o;
      o.column = "vec";
      o.query.vector = answers["queries"][r["query"].get<size_t>()].get<std::vector<float>>();
      o.query.k = 10;
      o.query.nprobes = r["nprobes"];
      if (r.contains("refineFactor")) o.query.refine_factor = r["refineFactor"].get<uint32_t>();
      o.metric = linalg::ParseDistanceType(metric).ValueOrDie();
      auto got = SearchTable(*snap, o).ValueOrDie();
      ASSERT_TRUE(got.index_kind.has_value()) << name;
      const auto& want = r["rows"];
      ASSERT_EQ(got.rows.size(), want.size()) << name << " " << r.dump();
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got.rows[i].row, want[i][0].get<uint64_t>()) << name << " " << r.dump() << " row " << i;
        const float d = want[i][1].get<float>();
        if (ulp) {
          EXPECT_NEAR(got.rows[i].distance, d, 1.2e-7 * std::max(1.0f, std::abs(d))) << name;
        } else {
          EXPECT_EQ(got.rows[i].distance, d) << name << " " << r.dump() << " row " << i;
        }
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 6 * 16);
}

TEST(IvfIndexTest, CorruptFilesAreErrors) {
  std::shared_ptr<io::ObjectStore> mem = io::MemoryObjectStore::Make();
  const std::string dir = IndexDir("ivf_pq_l2");
  std::string aux, idx;
  {
    std::ifstream a(dir + "/auxiliary.idx", std::ios::binary), i(dir + "/index.idx", std::ios::binary);
    std::stringstream sa, si;
    sa << a.rdbuf();
    si << i.rdbuf();
    aux = sa.str();
    idx = si.str();
  }
  // Every truncation and a sweep of flipped bytes of both files: an error or a consistent index.
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
      }
    }
  }
  ASSERT_TRUE(mem->Put("y/index.idx", idx).ok());
  EXPECT_TRUE(IvfIndex::Open(mem, "y").status().IsNotFound());
}

}  // namespace
}  // namespace lance::index::vector
