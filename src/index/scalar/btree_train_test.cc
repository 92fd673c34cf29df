// The BTREE trainer's sort paths (btree.cc, key_sort.h): SortKeyRows against std::stable_sort
// (one thread and two, shared digits, many ties), and page_data.lance as the trainer writes it
// -- from chunks already in order, from sorted (key, row id) pairs, or through the
// permutation of the concatenated values -- byte for byte the file written from the values
// and row ids gathered by SortPermutation (the comparator's order, value.h), with and without
// a thread pool, for chunked input with nulls, ties and row ids out of position order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "index/scalar/key_sort.h"
#include "lance/columnar/builder.h"
#include "lance/core/thread_pool.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/btree.h"
#include "lance/io/memory_object_store.h"

namespace lance::index::scalar {
namespace {

std::shared_ptr<ThreadPool> TwoThreads() {
  auto pool = ThreadPool::Make(2);
  EXPECT_TRUE(pool.ok());
  return pool.ok() ? std::shared_ptr<ThreadPool>(std::move(*pool)) : nullptr;
}

TEST(SortKeyRows, EqualsAStableSortOnOneThreadAndTwo) {
  auto pool = TwoThreads();
  ASSERT_TRUE(pool);
  std::mt19937_64 rng(11);
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{3000}, size_t{70000}, size_t{200001}}) {
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<KeyRow> v(n);
      for (size_t i = 0; i < n; ++i) {
        const uint64_t r = rng();
        // Full-width keys, few distinct keys (ties), keys sharing every digit but the lowest,
        // and one key for all.
        const uint64_t key = kind == 0 ? r : kind == 1 ? r % 37 : kind == 2 ? (0xABCDull << 40) | (r & 0x7ff) : 5;
        v[i] = KeyRow{key, i};
      }
      std::vector<KeyRow> want = v;
      std::stable_sort(want.begin(), want.end(), [](const KeyRow& a, const KeyRow& b) { return a.key < b.key; });
      for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), pool.get()}) {
        std::vector<KeyRow> got = v;
        SortKeyRows(got, p);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(got[i].key, want[i].key) << "n " << n << " kind " << kind << " at " << i;
          ASSERT_EQ(got[i].row, want[i].row) << "n " << n << " kind " << kind << " at " << i;
        }
      }
    }
  }
}

// page_data.lance as the trainer wrote it before the (key, row id) path: the concatenated
// values and row ids gathered by SortPermutation, cut into pages.
std::string GatheredPages(const TrainingData& data, int64_t batch_size) {
  auto values = ConcatTrainingValues(data);
  EXPECT_TRUE(values.ok());
  const std::vector<int64_t> perm = SortPermutation(**values, data.row_ids);
  auto sorted = GatherKeys(**values, perm);
  EXPECT_TRUE(sorted.ok());
  UInt64Builder ids(uint64());
  for (int64_t p : perm) EXPECT_TRUE(ids.Append(data.row_ids[static_cast<size_t>(p)]).ok());
  auto id_array = ids.Finish();
  EXPECT_TRUE(id_array.ok());
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "model");
  auto s = schema({field("values", (*values)->type, true), field("ids", uint64(), false)});
  auto w = store->CreateFile(kBTreePagesFile, s, {});
  EXPECT_TRUE(w.ok());
  const int64_t n = (*values)->length;
  for (int64_t start = 0; start < n; start += batch_size) {
    const int64_t len = std::min(batch_size, n - start);
    auto b = RecordBatch::Make(s, len, {(*sorted)->Slice(start, len), (*id_array)->Slice(start, len)});
    EXPECT_TRUE(b.ok());
    EXPECT_TRUE((*w)->Write(**b).ok());
  }
  EXPECT_TRUE((*w)->Finish().ok());
  auto bytes = mem->Get(store->PathOf(kBTreePagesFile));
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? std::string((*bytes)->view()) : std::string();
}

std::string TrainedPages(const TrainingData& data, int64_t batch_size, ThreadPool* pool) {
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "ours");
  BTreeTrainOptions o;
  o.batch_size = batch_size;
  o.pool = pool;
  auto t = TrainBTreeIndex(*store, data, o);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  auto bytes = mem->Get(store->PathOf(kBTreePagesFile));
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? std::string((*bytes)->view()) : std::string();
}

TEST(BTreeTrain, PagesEqualTheGatherBySortPermutation) {
  auto pool = TwoThreads();
  ASSERT_TRUE(pool);
  std::mt19937_64 rng(3);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double specials[] = {0.0, -0.0, nan, -nan, INFINITY, -INFINITY, 1.5, -1.5, 1e300, -1e-300};
  for (int round = 0; round < 24; ++round) {
    const int kind = round % 8;
    // 0: ids in order (no sort), 1: in order with a tie and a chunk edge, else random.
    const bool ascending = kind == 0;
    const int64_t n = round < 16 ? 70000 + static_cast<int64_t>(rng() % 5000) : 1 + static_cast<int64_t>(rng() % 900);
    TrainingData data;
    int64_t made = 0;
    while (made < n) {
      const int64_t len = std::min<int64_t>(n - made, 1 + static_cast<int64_t>(rng() % 9000));
      NumericBuilder<int64_t> i64(int64());
      NumericBuilder<int32_t> i32(int32());
      NumericBuilder<uint8_t> u8(uint8());
      NumericBuilder<double> f64(float64());
      NumericBuilder<float> f32(float32());
      BooleanBuilder bools;
      StringBuilder strs(utf8());
      ArrayBuilder* b = nullptr;
      for (int64_t i = 0; i < len; ++i) {
        const uint64_t r = rng();
        const bool valid = ascending || kind == 1 || r % 9 != 0;
        Status st;
        switch (kind) {
          case 0: st = i64.Append(made + i); b = &i64; break;
          case 1: st = i64.Append((made + i) / 2); b = &i64; break;
          case 2: st = valid ? i64.Append(static_cast<int64_t>(r >> 20) - (int64_t{1} << 43)) : i64.AppendNull(); b = &i64; break;
          case 3: st = valid ? i32.Append(static_cast<int32_t>(r % 1000) - 500) : i32.AppendNull(); b = &i32; break;
          case 4: st = valid ? u8.Append(static_cast<uint8_t>(r)) : u8.AppendNull(); b = &u8; break;
          case 5: st = valid ? f64.Append(r % 5 ? static_cast<double>(r % 100000) / 3.0 - 1e4 : specials[r % 10]) : f64.AppendNull(); b = &f64; break;
          case 6: st = valid ? f32.Append(static_cast<float>(r % 5 ? static_cast<double>(r % 5000) / 7.0 : specials[r % 10])) : f32.AppendNull(); b = &f32; break;
          default: st = valid ? strs.Append("k" + std::to_string(r % 3000)) : strs.AppendNull(); b = &strs; break;
        }
        ASSERT_TRUE(st.ok());
      }
      auto a = b->Finish();
      ASSERT_TRUE(a.ok());
      data.values.push_back(*a);
      made += len;
    }
    if (round == 8) {  // in order, and the chunks slices of one buffer (viewed as one, not copied)
      auto whole = Concatenate(data.values);
      ASSERT_TRUE(whole.ok());
      data.values.clear();
      for (int64_t at = 0; at < n; at += 5000) data.values.push_back((*whole)->Slice(at, std::min<int64_t>(5000, n - at)));
    }
    data.type = data.values[0]->type;
    data.row_ids.resize(static_cast<size_t>(n));
    std::iota(data.row_ids.begin(), data.row_ids.end(), uint64_t{100});
    if (!ascending && kind != 1 && round % 3 != 0) std::shuffle(data.row_ids.begin(), data.row_ids.end(), rng);
    const int64_t batch = round % 2 ? 4096 : 100;
    const std::string want = GatheredPages(data, batch);
    ASSERT_FALSE(want.empty());
    EXPECT_TRUE(TrainedPages(data, batch, nullptr) == want) << "round " << round << " " << data.type->ToString();
    EXPECT_TRUE(TrainedPages(data, batch, pool.get()) == want) << "round " << round << " (2 threads)";
  }
}

}  // namespace
}  // namespace lance::index::scalar
