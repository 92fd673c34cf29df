// The vector index reader and search on the indexes lance 12 built in tests/golden/vector_index
// (gen.mjs): the decoded structure (partitions tile the rows, the null vector is not stored,
// the codebook's shape). Corrupt and truncated index files give errors, never a crash. (The
// searches against the reference's answers are planned by the query layer: src/query/knn_test.cc.)
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "lance/index/vector/ivf_index.h"
#include "lance/io/memory_object_store.h"
#include "lance/io/object_store.h"
#include "lance/table/snapshot.h"

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
