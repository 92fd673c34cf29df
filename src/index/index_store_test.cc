// The generic index part: row sets (and their RowIdTreeMap bytes), the page cache, the index
// store's lazy opens and counters, and committing a new index's metadata through the table
// layer's commit API.
#include <gtest/gtest.h>

#include <regex>

#include "lance/columnar/builder.h"
#include "lance/index/index_metadata.h"
#include "lance/index/index_store.h"
#include "lance/index/row_set.h"
#include "lance/io/memory_object_store.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"
#include "table_fixtures/status_test_util.h"

namespace lance::index {
namespace {


TEST(RowSet, SetOperationsAndBytes) {
  RowSet a = RowSet::Of({1, 5, (7ull << 32) | 3, (7ull << 32) | 4});
  RowSet b = RowSet::Of({5, 6, (7ull << 32) | 4});
  RowSet u = a;
  u |= b;
  EXPECT_EQ(u.ToVector(), (std::vector<uint64_t>{1, 5, 6, (7ull << 32) | 3, (7ull << 32) | 4}));
  RowSet i = a;
  i &= b;
  EXPECT_EQ(i.ToVector(), (std::vector<uint64_t>{5, (7ull << 32) | 4}));
  RowSet d = a;
  d -= b;
  EXPECT_EQ(d.ToVector(), (std::vector<uint64_t>{1, (7ull << 32) | 3}));
  EXPECT_EQ(a.Fragments(), (std::vector<uint32_t>{0, 7}));
  RowSet r = a;
  r.RetainFragments({7});
  EXPECT_EQ(r.ToVector(), (std::vector<uint64_t>{(7ull << 32) | 3, (7ull << 32) | 4}));

  const std::string bytes = u.Serialize();
  auto back = RowSet::Deserialize(bytes, "test");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == u);
  // Every truncation is Corruption, never a crash.
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto t = RowSet::Deserialize(std::string_view(bytes).substr(0, n), "cut");
    EXPECT_FALSE(t.ok()) << n;
  }
}

TEST(RowSet, FullFragments) {
  RowSet s;
  s.InsertFragment(3);
  EXPECT_TRUE(s.IsFull(3));
  EXPECT_TRUE(s.Contains((3ull << 32) | 12345));
  EXPECT_FALSE(s.Contains((4ull << 32)));
  auto back = RowSet::Deserialize(s.Serialize(), "full");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->IsFull(3));
}

TEST(IndexCache, EvictsLeastRecentlyUsedByBytes) {
  IndexCache cache(100);
  int loads = 0;
  auto load = [&](int v) {
    return [&loads, v]() -> Result<std::pair<std::shared_ptr<const void>, int64_t>> {
      ++loads;
      return std::pair<std::shared_ptr<const void>, int64_t>(std::make_shared<int>(v), 40);
    };
  };
  bool hit = false;
  ASSERT_TRUE(cache.GetOrLoad("a", load(1), &hit).ok());
  EXPECT_FALSE(hit);
  ASSERT_TRUE(cache.GetOrLoad("b", load(2), &hit).ok());
  ASSERT_TRUE(cache.GetOrLoad("a", load(1), &hit).ok());  // a is now most recent
  EXPECT_TRUE(hit);
  ASSERT_TRUE(cache.GetOrLoad("c", load(3), &hit).ok());  // evicts b
  EXPECT_EQ(cache.size_bytes(), 80);
  EXPECT_EQ(cache.num_entries(), 2);
  ASSERT_TRUE(cache.GetOrLoad("a", load(1), &hit).ok());
  EXPECT_TRUE(hit);
  auto b = cache.GetOrLoad("b", load(2), &hit);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(hit);
  EXPECT_EQ(*std::static_pointer_cast<const int>(*b), 2);
  EXPECT_EQ(loads, 4);
  // A failed load is not cached.
  auto bad = cache.GetOrLoad("x", []() -> Result<std::pair<std::shared_ptr<const void>, int64_t>> {
    return Status::IOError("no");
  });
  EXPECT_FALSE(bad.ok());
  const IndexCacheStats st = cache.stats();
  EXPECT_EQ(st.hits, 2);
  EXPECT_EQ(st.misses, 5);     // a, b, c, b again, x
  EXPECT_EQ(st.evictions, 2);  // b for c, then c for b
  EXPECT_EQ(st.entries, 2);
  EXPECT_EQ(st.bytes, 80);
  EXPECT_EQ(st.capacity_bytes, 100);
}

TEST(IndexCache, ZeroCapacityKeepsNothingAndOversizedValuesPassThrough) {
  IndexCache off(0);
  int loads = 0;
  auto load = [&]() -> Result<IndexCache::Loaded> {
    ++loads;
    return IndexCache::Loaded(std::make_shared<int>(7), 0);
  };
  bool hit = true;
  for (int i = 0; i < 3; ++i) {
    auto v = off.GetOrLoad("k", load, &hit);
    ASSERT_TRUE(v.ok());
    EXPECT_FALSE(hit);
    EXPECT_EQ(*std::static_pointer_cast<const int>(*v), 7);
  }
  EXPECT_EQ(loads, 3);
  EXPECT_EQ(off.num_entries(), 0);
  EXPECT_EQ(off.stats().misses, 3);

  IndexCache small(10);
  auto big = small.GetOrLoad("big", []() -> Result<IndexCache::Loaded> {
    return IndexCache::Loaded(std::make_shared<int>(1), 11);
  });
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(small.size_bytes(), 0);
  EXPECT_EQ(small.num_entries(), 0);
}

TEST(IndexCache, StoresHoldTheCacheWeakly) {
  auto cache = IndexCache::Make(1 << 20);
  std::weak_ptr<IndexCache> watch = cache;
  auto store = IndexStore::Make(io::MemoryObjectStore::Make(), "t.lance/_indices/w", cache);
  auto page = [](int v) {
    return [v]() -> Result<std::pair<std::shared_ptr<const int>, int64_t>> {
      return std::pair<std::shared_ptr<const int>, int64_t>(std::make_shared<int>(v), 8);
    };
  };
  ASSERT_TRUE(store->GetPage<int>("p", page(1)).ok());
  ASSERT_TRUE(store->GetPage<int>("p", page(2)).ok());
  EXPECT_EQ(store->stats().cache_hits, 1);
  EXPECT_EQ(cache->stats().hits, 1);
  cache.reset();
  EXPECT_TRUE(watch.expired());  // the store did not keep it alive
  EXPECT_EQ(store->cache(), nullptr);
  auto again = store->GetPage<int>("p", page(3));  // loaded, not kept
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(**again, 3);
}

TEST(IndexStore, OpensEachFileOnceAndCounts) {
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "t.lance/_indices/u/");
  EXPECT_EQ(store->PathOf("a.lance"), "t.lance/_indices/u/a.lance");
  auto s = schema({field("x", int32(), false)});
  auto w = store->CreateFile("a.lance", s);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto batch = RecordBatchFromJSON(s, R"([{"x":1},{"x":2},{"x":3}])");
  ASSERT_TRUE(batch.ok());
  TEST_OK((*w)->Write(**batch));
  ASSERT_TRUE((*w)->Finish().ok());
  auto has = store->HasFile("a.lance");
  ASSERT_TRUE(has.ok() && *has);
  auto r1 = store->OpenFile("a.lance");
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  auto r2 = store->OpenFile("a.lance");
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r1->get(), r2->get());
  EXPECT_EQ((*r1)->num_rows(), 3);
  const IndexStoreStats st = store->stats();
  EXPECT_EQ(st.files_opened, 1);
  EXPECT_GE(st.read_requests, 1);
  EXPECT_GT(st.bytes_read, 0);
  auto missing = store->OpenFile("nope.lance");
  EXPECT_FALSE(missing.ok());
}

// A mapped file is one whole-file read at open; its reads are slices of that one buffer (no
// further request), and they equal the ranged reader's. A missing file names its path.
TEST(IndexStore, MappedFileIsOneReadAndAnswersAsTheRangedOne) {
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "t.lance/_indices/u");
  auto s = schema({field("x", int32(), false)});
  auto w = store->CreateFile("a.lance", s);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto batch = RecordBatchFromJSON(s, R"([{"x":5},{"x":6},{"x":7},{"x":8}])");
  ASSERT_TRUE(batch.ok());
  TEST_OK((*w)->Write(**batch));
  ASSERT_TRUE((*w)->Finish().ok());
  auto mapped = store->OpenMappedFile("a.lance");
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  auto head = mem->Head("t.lance/_indices/u/a.lance");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(store->stats().read_requests, 1);
  EXPECT_EQ(store->stats().bytes_read, head->size);
  auto again = store->OpenMappedFile("a.lance");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(mapped->get(), again->get());
  store->ResetStats();
  auto part = (*mapped)->ReadRange(1, 2, {0});
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  EXPECT_EQ(store->stats().read_requests, 0);
  auto ranged = store->OpenFile("a.lance");
  ASSERT_TRUE(ranged.ok());
  EXPECT_NE(ranged->get(), mapped->get());
  auto want = (*ranged)->ReadRange(1, 2, {0});
  ASSERT_TRUE(want.ok());
  EXPECT_EQ((*part)->column(0)->Values<int32_t>()[0], 6);
  EXPECT_EQ((*part)->column(0)->Values<int32_t>()[1], 7);
  EXPECT_EQ((*want)->column(0)->Values<int32_t>()[1], 7);
  auto missing = store->OpenMappedFile("nope.lance");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope.lance"), std::string::npos) << missing.status().ToString();
}

TEST(IndexMetadata, UuidAndCommit) {
  const std::string u = NewIndexUuid();
  EXPECT_TRUE(std::regex_match(u, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"))) << u;
  EXPECT_NE(u, NewIndexUuid());

  auto mem = io::MemoryObjectStore::Make();
  table::TableLocation loc(mem, "t.lance");
  auto s = schema({field("id", int64(), false)});
  auto batch = RecordBatchFromJSON(s, R"([{"id":1},{"id":2}])");
  ASSERT_TRUE(batch.ok());
  auto wr = table::WriteDataset(loc, s, {*batch});
  ASSERT_TRUE(wr.ok()) << wr.status().ToString();

  NewIndexSegment seg;
  seg.uuid = NewIndexUuid();
  seg.name = DefaultIndexName("id");
  seg.fields = {0};
  seg.fragment_ids = {0};
  seg.details_type_url = "/lance.table.BTreeIndexDetails";
  seg.files = {{"page_data.lance", 10}, {"page_lookup.lance", 20}};
  auto c = CommitNewIndex(loc, wr->commit.version, seg, /*replace=*/false);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->version, 2u);
  auto snap = table::Snapshot::Open(loc);
  ASSERT_TRUE(snap.ok());
  const auto& m = (*snap)->manifest();
  ASSERT_EQ(m.indices.size(), 1u);
  const table::IndexInfo& x = m.indices[0];
  EXPECT_EQ(x.uuid, seg.uuid);
  EXPECT_EQ(x.name, "id_idx");
  EXPECT_EQ(x.fields, std::vector<int32_t>{0});
  EXPECT_EQ(x.dataset_version, 1u);
  EXPECT_EQ(x.fragment_ids, std::vector<uint32_t>{0});
  EXPECT_EQ(table::IndexTypeName(x), "BTREE");
  EXPECT_EQ(x.index_version, 0);
  ASSERT_EQ(x.files.size(), 2u);
  EXPECT_EQ(x.files[1].path, "page_lookup.lance");
  EXPECT_TRUE(x.created_at_ms.has_value());
  ASSERT_EQ(FindIndexSegments(m, "id_idx").size(), 1u);

  // Same name: refused unless replacing; replacing leaves one index, the new one.
  auto again = CommitNewIndex(loc, 2, seg, false);
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  NewIndexSegment seg2 = seg;
  seg2.uuid = NewIndexUuid();
  auto rep = CommitNewIndex(loc, 2, seg2, true);
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  auto snap3 = table::Snapshot::Open(loc);
  ASSERT_TRUE(snap3.ok());
  ASSERT_EQ((*snap3)->manifest().indices.size(), 1u);
  EXPECT_EQ((*snap3)->manifest().indices[0].uuid, seg2.uuid);
}

}  // namespace
}  // namespace lance::index
