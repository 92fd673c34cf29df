// DropIndex on a copy of tests/golden/lance_table/indexed.lance (four indexes lance 12 built):
// the dropped index leaves the section, the others stay byte for byte, rows are unchanged;
// an unknown name is NotFound. And the Dataset's index cache (lance/index/index_cache.h) over
// the same table: BTREE, BITMAP, full-text and IVF_PQ queries fill the handle's own cache,
// which other handles do not see, which stays within its capacity, which a repeated query
// hits, which goes away with the handle, and which threads share with identical answers.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "lance/dataset/dataset.h"
#include "lance/index/index_cache.h"
#include "lance/table/snapshot.h"
#include "lance/table/indexes.h"
#include "table_fixtures/json_lines_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(__FILE__).parent_path() / "../../tests/golden/lance_table/indexed.lance";

std::string CopyOfGolden(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("lance_indexes_test_" + name + "_" +
                                                    std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(kGolden, dir / "t.lance", fs::copy_options::recursive);
  return (dir / "t.lance").string();
}

TEST(Indexes, DropIndexRemovesOnlyThatIndex) {
  const std::string uri = CopyOfGolden("drop");
  auto before = Snapshot::Open(uri);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_EQ((*before)->manifest().indices.size(), 4u);
  for (const auto& x : (*before)->manifest().indices) EXPECT_FALSE(IsSystemIndex(x));

  auto ci = DropIndex(**before, "cat_idx");
  ASSERT_TRUE(ci.ok()) << ci.status().ToString();
  EXPECT_EQ(ci->version, (*before)->version() + 1);
  auto after = Snapshot::Open(uri);
  ASSERT_TRUE(after.ok());
  std::vector<std::string> names;
  for (const auto& x : (*after)->manifest().indices) {
    names.push_back(x.name);
    const IndexInfo* old = nullptr;
    for (const auto& y : (*before)->manifest().indices) {
      if (y.name == x.name) old = &y;
    }
    ASSERT_NE(old, nullptr);
    EXPECT_EQ(x.uuid, old->uuid);
    EXPECT_EQ(x.details, old->details);
    EXPECT_EQ(x.fragment_ids, old->fragment_ids);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"id_idx", "text_idx", "vec_idx"}));
  // The index files stay (cleanup removes them); the rows do not change.
  EXPECT_TRUE(fs::exists(fs::path(uri) / "_indices" / "9fd21c5e-45b0-41d8-b70b-9169521fc4ec"));
  auto a = ScanBatches((*before));
  auto b = ScanBatches((*after));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*JsonLinesOf(*a), *JsonLinesOf(*b));

  auto again = DropIndex(**after, "cat_idx");
  ASSERT_TRUE(again.status().IsNotFound()) << again.status().ToString();
  EXPECT_NE(again.status().message().find("'cat_idx'"), std::string::npos);
  EXPECT_TRUE(DropIndex(**after, "").status().IsInvalidArgument());
  fs::remove_all(fs::path(uri).parent_path());
}

TEST(Indexes, SystemIndexNames) {
  IndexInfo x;
  x.name = "__lance_frag_reuse";
  EXPECT_TRUE(IsSystemIndex(x));
  x.name = "__lance_mem_wal";
  EXPECT_TRUE(IsSystemIndex(x));
  x.name = "id_idx";
  EXPECT_FALSE(IsSystemIndex(x));
}

}  // namespace
}  // namespace lance::table

namespace lance::dataset {
namespace {

namespace fs = std::filesystem;

// The queries of the cache tests: each answered through one of the golden's four indexes.
std::vector<query::ScanOptions> IndexedQueries() {
  std::vector<query::ScanOptions> out;
  query::ScanOptions by_id;
  by_id.filter = "id = 17 OR id BETWEEN 250 AND 260";
  out.push_back(by_id);
  query::ScanOptions by_cat;
  by_cat.filter = "cat = 'c3'";
  by_cat.columns = {"id", "cat"};
  out.push_back(by_cat);
  query::ScanOptions fts;
  fts.columns = {"id", "text"};
  fts.full_text = query::FullTextQuery{"kiwi apple", {"text"}, 15, false, false};
  out.push_back(fts);
  query::ScanOptions knn;
  knn.columns = {"id"};
  knn.nearest = query::NearestOptions{};
  knn.nearest->column = "vec";
  knn.nearest->query = {3, 1, 12, 1};
  knn.nearest->k = 7;
  out.push_back(knn);
  return out;
}

// Every query's rows as JSON lines, one string per query.
std::vector<std::string> Answers(const Dataset& ds) {
  std::vector<std::string> out;
  for (const auto& o : IndexedQueries()) {
    auto scanner = ds.NewScan(o);
    EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
    if (!scanner.ok()) return out;
    auto batches = scanner->ToBatches();
    EXPECT_TRUE(batches.ok()) << batches.status().ToString();
    if (!batches.ok()) return out;
    auto lines = table::JsonLinesOf(*batches);
    EXPECT_TRUE(lines.ok());
    std::string all;
    for (const auto& l : *lines) all += l + "\n";
    EXPECT_FALSE(all.empty());
    out.push_back(std::move(all));
  }
  return out;
}

std::shared_ptr<Dataset> OpenOrDie(const std::string& uri, OpenOptions o = {}) {
  auto ds = Dataset::Open(uri, std::move(o));
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return ds.ok() ? *ds : nullptr;
}

TEST(IndexCache, EachDatasetHasItsOwnAndARepeatedQueryHitsIt) {
  const std::string uri = table::CopyOfGolden("cache_own");
  auto a = OpenOrDie(uri);
  auto b = OpenOrDie(uri);
  ASSERT_TRUE(a && b);
  ASSERT_NE(a->index_cache(), nullptr);
  ASSERT_NE(a->index_cache(), b->index_cache());
  EXPECT_EQ(a->index_cache()->capacity_bytes(), index::kDefaultIndexCacheBytes);

  const auto first = Answers(*a);
  ASSERT_EQ(first.size(), 4u);
  const index::IndexCacheStats after_first = a->index_cache()->stats();
  EXPECT_GT(after_first.misses, 0);
  EXPECT_GT(after_first.entries, 0);
  EXPECT_GT(after_first.bytes, 0);
  // Nothing of a's queries is in b's cache.
  EXPECT_EQ(b->index_cache()->stats().misses, 0);
  EXPECT_EQ(b->index_cache()->stats().entries, 0);

  // The same queries again: answered from the cache, nothing loaded.
  EXPECT_EQ(Answers(*a), first);
  const index::IndexCacheStats after_second = a->index_cache()->stats();
  EXPECT_EQ(after_second.misses, after_first.misses);
  EXPECT_GE(after_second.hits, after_first.hits + 4);  // catalog, bitmap / page, FTS segment, IVF
  EXPECT_EQ(after_second.entries, after_first.entries);

  // b loads for itself; its answers are a's.
  EXPECT_EQ(Answers(*b), first);
  EXPECT_EQ(b->index_cache()->stats().misses, after_first.misses);
  EXPECT_EQ(b->index_cache()->stats().hits, after_first.hits);

  // A checkout and a count share the handle's cache.
  auto co = a->Checkout(a->version());
  ASSERT_TRUE(co.ok());
  EXPECT_EQ((*co)->index_cache(), a->index_cache());
  auto n = (*co)->CountRows("cat = 'c3'");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 60u);
  EXPECT_EQ(a->index_cache()->stats().misses, after_first.misses);
  fs::remove_all(fs::path(uri).parent_path());
}

TEST(IndexCache, CapacityBoundsItAndZeroDisablesIt) {
  const std::string uri = table::CopyOfGolden("cache_bound");
  auto reference = OpenOrDie(uri);
  ASSERT_TRUE(reference);
  const auto expected = Answers(*reference);
  const int64_t full = reference->index_cache()->stats().bytes;
  ASSERT_GT(full, 0);

  OpenOptions small;
  small.index_cache_bytes = full / 3;
  auto bounded = OpenOrDie(uri, small);
  ASSERT_TRUE(bounded);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(Answers(*bounded), expected);
    const index::IndexCacheStats st = bounded->index_cache()->stats();
    EXPECT_LE(st.bytes, full / 3);
    EXPECT_EQ(st.capacity_bytes, full / 3);
  }
  // What did not fit was loaded again.
  EXPECT_GT(bounded->index_cache()->stats().misses, reference->index_cache()->stats().misses);

  OpenOptions off;
  off.index_cache_bytes = 0;
  auto disabled = OpenOrDie(uri, off);
  ASSERT_TRUE(disabled);
  EXPECT_EQ(Answers(*disabled), expected);
  EXPECT_EQ(Answers(*disabled), expected);
  EXPECT_EQ(disabled->index_cache()->stats().entries, 0);
  EXPECT_EQ(disabled->index_cache()->stats().bytes, 0);
  EXPECT_EQ(disabled->index_cache()->stats().hits, 0);
  // Every lookup of both runs loaded (the reference's one run: its misses and hits).
  const index::IndexCacheStats ref = reference->index_cache()->stats();
  EXPECT_EQ(disabled->index_cache()->stats().misses, 2 * (ref.misses + ref.hits));

  // An engine's own cache, shared by two handles: the second one's queries hit.
  auto shared = index::IndexCache::Make(64 << 20);
  OpenOptions with;
  with.index_cache = shared;
  auto one = OpenOrDie(uri, with);
  auto two = OpenOrDie(uri, with);
  ASSERT_TRUE(one && two);
  EXPECT_EQ(one->index_cache(), shared);
  EXPECT_EQ(Answers(*one), expected);
  const int64_t loaded = shared->stats().misses;
  EXPECT_EQ(Answers(*two), expected);
  EXPECT_EQ(shared->stats().misses, loaded);
  fs::remove_all(fs::path(uri).parent_path());
}

TEST(IndexCache, DroppingTheDatasetFreesIt) {
  const std::string uri = table::CopyOfGolden("cache_drop");
  std::weak_ptr<index::IndexCache> watch;
  std::vector<std::string> answers;
  {
    auto ds = OpenOrDie(uri);
    ASSERT_TRUE(ds);
    watch = ds->index_cache();
    answers = Answers(*ds);
    EXPECT_GT(ds->index_cache()->stats().bytes, 0);
    // A scanner keeps the cache while it lives.
    auto scanner = ds->NewScan(IndexedQueries()[0]);
    ASSERT_TRUE(scanner.ok());
    ds.reset();
    EXPECT_FALSE(watch.expired());
    auto batches = scanner->ToBatches();
    ASSERT_TRUE(batches.ok());
  }
  // What the cache held (opened segments and catalogs holding index stores) did not keep it.
  EXPECT_TRUE(watch.expired());
  auto again = OpenOrDie(uri);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->index_cache()->stats().entries, 0);
  EXPECT_EQ(Answers(*again), answers);
  fs::remove_all(fs::path(uri).parent_path());
}

TEST(IndexCache, ConcurrentQueriesOnOneDatasetAgree) {
  const std::string uri = table::CopyOfGolden("cache_threads");
  const auto expected = Answers(*OpenOrDie(uri));
  auto ds = OpenOrDie(uri);
  ASSERT_TRUE(ds);
  constexpr int kThreads = 4;
  std::vector<std::vector<std::string>> got(kThreads * 3);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 3; ++r) got[static_cast<size_t>(t * 3 + r)] = Answers(*ds);
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, expected);
  const index::IndexCacheStats st = ds->index_cache()->stats();
  EXPECT_GT(st.hits, 0);
  // Racing first loads may load one value twice; one is kept.
  EXPECT_LE(st.entries, st.misses);
  fs::remove_all(fs::path(uri).parent_path());
}

}  // namespace
}  // namespace lance::dataset
