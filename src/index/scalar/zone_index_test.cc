// ZONEMAP and BLOOMFILTER files we write, read back: zones cut as lance 12 cuts them (runs of
// live rows of one fragment, spans across deleted rows), every search a superset of the rows
// that match (brute force over the training rows) that prunes zones, exact null bitmaps, the
// bloom hash (XXH64 test vectors; 8192 items at 0.00057 -> 32 KiB as lance 12 sizes them),
// and damaged files reported as Corruption naming the file. Also the training key sort and
// grouping (key_sort.h) shared by the BTREE, BITMAP and LABEL_LIST trainers, against the
// element comparator of value.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "index/scalar/key_sort.h"
#include "index/scalar/zones.h"
#include "lance/columnar/builder.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/bloom_filter.h"
#include "lance/index/scalar/zone_map.h"
#include "lance/index/split_block_bloom.h"
#include "lance/io/memory_object_store.h"

namespace lance::index::scalar {
namespace {

TEST(SplitBlockBloom, XxHash64TestVectors) {
  EXPECT_EQ(XxHash64(""), 17241709254077376921ULL);  // the reference's own unit test value
  EXPECT_EQ(XxHash64("a"), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(XxHash64("abc"), 0x44BC2CF5AD770999ULL);
  EXPECT_EQ(XxHash64("Nobody inspects the spammish repetition"), 0xFBCEA83C8A378BF1ULL);
}

TEST(SplitBlockBloom, SizingAndMembership) {
  EXPECT_EQ(SplitBlockBloomFilter::Log2BytesFor(8192, 0.00057), 15);  // 32 KiB, as lance 12 writes
  EXPECT_EQ(SplitBlockBloomFilter::Log2BytesFor(0, 0.01), 5);          // one block
  auto f = SplitBlockBloomFilter::ForItems(16, 0.00057);
  ASSERT_TRUE(f.ok());
  for (int i = 0; i < 16; ++i) f->InsertHash(XxHash64(std::to_string(i)));
  for (int i = 0; i < 16; ++i) EXPECT_TRUE(f->MightContainHash(XxHash64(std::to_string(i))));
  int false_positives = 0;
  for (int i = 100; i < 1100; ++i) false_positives += f->MightContainHash(XxHash64(std::to_string(i)));
  EXPECT_LT(false_positives, 10);
  auto back = SplitBlockBloomFilter::Deserialize(f->Serialize(), "x");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->Serialize(), f->Serialize());
  EXPECT_FALSE(SplitBlockBloomFilter::Deserialize(std::string(33, '\0'), "zone 3").ok());
  EXPECT_FALSE(SplitBlockBloomFilter::ForItems(10, 1.0).ok());
}

// 60 rows in fragment 0 (offsets 0..69, every 7th deleted) and 20 in fragment 3; values
// v(i) = (i * 37) % 50 with nulls every 9th row.
struct Rows {
  TrainingData data;
  std::vector<std::optional<int64_t>> values;
};

Rows MakeRows() {
  Rows r;
  NumericBuilder<int64_t> b(int64());
  int i = 0;
  auto add = [&](uint64_t addr) {
    std::optional<int64_t> v;
    if (i % 9 != 4) v = (i * 37) % 50;
    r.values.push_back(v);
    (v ? b.Append(*v) : b.AppendNull()).ok();
    r.data.row_ids.push_back(addr);
    ++i;
  };
  for (uint64_t off = 0; off < 70; ++off) {
    if (off % 7 != 3) add(off);
  }
  for (uint64_t off = 0; off < 20; ++off) add((uint64_t{3} << 32) | off);
  r.data.values.push_back(*b.Finish());
  r.data.type = int64();
  return r;
}

bool Matches(const ScalarQuery& q, const std::optional<int64_t>& v) {
  return q.Matches(v ? ScalarValue::Int(*v) : ScalarValue::Null());
}

void CheckSuperset(const ScalarIndex& index, const Rows& rows, const ScalarQuery& q, bool expect_pruning) {
  auto r = index.Search(q);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->exact);
  size_t matching = 0;
  for (size_t i = 0; i < rows.values.size(); ++i) {
    if (Matches(q, rows.values[i])) {
      ++matching;
      EXPECT_TRUE(r->rows.Contains(rows.data.row_ids[i])) << q.ToString() << " row " << rows.data.row_ids[i];
    }
  }
  if (expect_pruning) {
    EXPECT_LT(r->rows.Cardinality(), 90u) << q.ToString();
  }
  (void)matching;
}

TEST(ZoneMapIndex, ZonesSpanDeletedRowsAndSearchesAreSupersets) {
  Rows rows = MakeRows();
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "t.lance/_indices/z");
  auto trained = TrainZoneMapIndex(*store, rows.data, 16);
  ASSERT_TRUE(trained.ok()) << trained.status().ToString();
  EXPECT_EQ(trained->details_type_url, "/lance.table.ZoneMapIndexDetails");
  EXPECT_EQ(trained->details, std::string("\x08\x10\x10\x00\x18\x01", 6));  // rows_per_zone 16, no seeds, null bitmap
  auto details = ZoneMapDetailsJson(trained->details);
  ASSERT_TRUE(details.ok());
  EXPECT_EQ(*details, "{\"rows_per_zone\":16,\"use_seeds\":false,\"has_null_bitmap\":true}");
  EXPECT_FALSE(ZoneMapDetailsJson(std::string("\x0a\x01", 2)).ok());
  auto reader = store->OpenFile(kZoneMapFile);
  ASSERT_TRUE(reader.ok());
  auto batch = (*reader)->ReadAll();
  ASSERT_TRUE(batch.ok());
  auto bounds = ReadZoneBounds(**batch, "x");
  ASSERT_TRUE(bounds.ok());
  // Fragment 0: 60 live rows -> zones of 16, 16, 16, 12 live rows; fragment 3: 16 + 4.
  ASSERT_EQ(bounds->size(), 6u);
  EXPECT_EQ((*bounds)[0].start, 0u);
  EXPECT_EQ((*bounds)[0].length, 19u);  // offsets 0..18 hold 16 live rows (3, 10 and 17 deleted)
  EXPECT_EQ((*bounds)[4].fragment_id, 3u);
  EXPECT_EQ((*bounds)[4].length, 16u);
  EXPECT_EQ((*bounds)[5].start, 16u);
  EXPECT_EQ((*reader)->schema()->metadata()->Get("rows_per_zone").value_or(""), "16");
  EXPECT_EQ((*reader)->schema()->metadata()->Get("null_bitmap").value_or(""), "1");

  auto index = OpenZoneMapIndex(store);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  for (const ScalarQuery& q :
       {ScalarQuery::Equals(ScalarValue::Int(7)), ScalarQuery::GreaterEq(ScalarValue::Int(45)),
        ScalarQuery::Between(ScalarValue::Int(10), ScalarValue::Int(12)),
        ScalarQuery::In({ScalarValue::Int(1), ScalarValue::Int(49), ScalarValue::Null()}),
        ScalarQuery::LessThan(ScalarValue::Float(0.5)), ScalarQuery::IsNotNull()}) {
    CheckSuperset(**index, rows, q, false);
  }
  CheckSuperset(**index, rows, ScalarQuery::Equals(ScalarValue::Int(1000)), true);
  auto none = (*index)->Search(ScalarQuery::Equals(ScalarValue::Int(1000)));
  EXPECT_TRUE(none->rows.empty());
  // IS NULL is the exact null bitmap.
  auto nulls = (*index)->Search(ScalarQuery::IsNull());
  ASSERT_TRUE(nulls.ok());
  RowSet want;
  for (size_t i = 0; i < rows.values.size(); ++i) {
    if (!rows.values[i]) want.Insert(rows.data.row_ids[i]);
  }
  EXPECT_EQ(nulls->rows, want);
}

TEST(ZoneMapIndex, NaNMaxAndAllNullZones) {
  NumericBuilder<double> b(float64());
  TrainingData d;
  for (int i = 0; i < 8; ++i) {
    if (i < 4) {
      b.AppendNull().ok();
    } else {
      b.Append(i == 6 ? std::nan("") : i * 1.5).ok();
    }
    d.row_ids.push_back(static_cast<uint64_t>(i));
  }
  d.values.push_back(*b.Finish());
  d.type = float64();
  auto store = IndexStore::Make(io::MemoryObjectStore::Make(), "z");
  ASSERT_TRUE(TrainZoneMapIndex(*store, d, 4).ok());
  auto index = OpenZoneMapIndex(store);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  auto r = (*index)->Search(ScalarQuery::Equals(ScalarValue::Float(6.0)));
  EXPECT_EQ(r->rows, RowSet::Of({4, 5, 6, 7}));  // second zone [6, NaN]; the all-null zone is pruned
  r = (*index)->Search(ScalarQuery::Equals(ScalarValue::Float(std::nan(""))));
  EXPECT_EQ(r->rows, RowSet::Of({4, 5, 6, 7}));
  r = (*index)->Search(ScalarQuery::GreaterThan(ScalarValue::Float(100.0)));
  EXPECT_EQ(r->rows, RowSet::Of({4, 5, 6, 7}));  // NaN sorts above every number
  r = (*index)->Search(ScalarQuery::LessThan(ScalarValue::Float(6.0)));
  EXPECT_TRUE(r->rows.empty());
}

TEST(BloomFilterIndex, HashesByColumnTypeAndPrunesZones) {
  Rows rows = MakeRows();
  auto store = IndexStore::Make(io::MemoryObjectStore::Make(), "t.lance/_indices/b");
  auto trained = TrainBloomFilterIndex(*store, rows.data, 16, 0.00057);
  ASSERT_TRUE(trained.ok()) << trained.status().ToString();
  EXPECT_EQ(trained->details_type_url, "/lance.index.pb.BloomFilterIndexDetails");
  EXPECT_EQ(trained->details, "");
  auto reader = store->OpenFile(kBloomFilterFile);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->schema()->metadata()->Get("bloomfilter_item").value_or(""), "16");
  EXPECT_EQ((*reader)->schema()->metadata()->Get("bloomfilter_probability").value_or(""), "0.00057");
  auto index = OpenBloomFilterIndex(store, int64());
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_FALSE((*index)->CanAnswer(ScalarQuery::LessThan(ScalarValue::Int(3))));
  for (int v = 0; v < 50; ++v) CheckSuperset(**index, rows, ScalarQuery::Equals(ScalarValue::Int(v)), true);
  CheckSuperset(**index, rows, ScalarQuery::In({ScalarValue::Int(3), ScalarValue::Float(7.0)}), true);
  EXPECT_TRUE((*index)->Search(ScalarQuery::Equals(ScalarValue::Int(5000)))->rows.empty());
  EXPECT_TRUE((*index)->Search(ScalarQuery::Equals(ScalarValue::Float(3.5)))->rows.empty());
  EXPECT_FALSE(OpenBloomFilterIndex(store, nullptr).ok());

  EXPECT_EQ(BloomKeyBytes(ScalarValue::Int(1), *int32()), std::string("\x01\x00\x00\x00", 4));
  EXPECT_EQ(BloomKeyBytes(ScalarValue::Int(-1), *int16()), std::string("\xff\xff", 2));
  EXPECT_EQ(BloomKeyBytes(ScalarValue::Int(1), *float64()), std::string("\x00\x00\x00\x00\x00\x00\xf0\x3f", 8));
  EXPECT_EQ(BloomKeyBytes(ScalarValue::Bytes("ab"), *utf8()), "ab");
  EXPECT_FALSE(BloomKeyBytes(ScalarValue::Int(300), *uint8()).has_value());
  EXPECT_FALSE(BloomKeyBytes(ScalarValue::Bytes("1"), *int64()).has_value());
  TrainingData bools;
  BooleanBuilder bb;
  bb.Append(true).ok();
  bools.values.push_back(*bb.Finish());
  bools.row_ids = {0};
  bools.type = boolean();
  EXPECT_FALSE(TrainBloomFilterIndex(*store, bools).ok());
}

TEST(ZoneIndexFiles, DamagedFilesNameTheFile) {
  Rows rows = MakeRows();
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "t.lance/_indices/q");
  ASSERT_TRUE(mem->Put(store->PathOf(kZoneMapFile), "garbage").ok());
  auto z = OpenZoneMapIndex(store);
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.status().ToString().find("t.lance/_indices/q/zonemap.lance"), std::string::npos) << z.status().ToString();
  // A zone map file missing its zone columns (a BTree page lookup under the zone map's name).
  auto other = IndexStore::Make(mem, "t.lance/_indices/r");
  ASSERT_TRUE(TrainBloomFilterIndex(*other, rows.data, 16).ok());
  auto bytes = mem->Get(other->PathOf(kBloomFilterFile));
  ASSERT_TRUE(bytes.ok());
  auto third = IndexStore::Make(mem, "t.lance/_indices/s");
  ASSERT_TRUE(mem->Put(third->PathOf(kZoneMapFile), std::string_view(reinterpret_cast<const char*>((*bytes)->data()),
                                                                    static_cast<size_t>((*bytes)->size()))).ok());
  auto w = OpenZoneMapIndex(third);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kCorruption);
  EXPECT_NE(w.status().ToString().find("zonemap.lance"), std::string::npos) << w.status().ToString();
}

// Random arrays of every key representation, with nulls, many ties and row ids that are not
// in position order: the radix / prefix sort gives the comparator's order (ties by row id), and
// the groups are exactly the runs of equal elements.
// The sorted-input shortcut of BTREE training: true exactly where the permutation is the
// identity, checked across its 4096-key blocks (a drop at a block boundary), and false for
// nulls, row ids out of order, byte strings.
TEST(KeySort, InIndexOrderOnlyWhereThePermutationIsTheIdentity) {
  constexpr int64_t n = 10000;
  auto make = [&](auto value_of, int64_t null_at) {
    NumericBuilder<int64_t> b(int64());
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_TRUE((i == null_at ? b.AppendNull() : b.Append(value_of(i))).ok());
    }
    auto a = b.Finish();
    EXPECT_TRUE(a.ok());
    return *a;
  };
  std::vector<uint64_t> rows(static_cast<size_t>(n));
  std::iota(rows.begin(), rows.end(), uint64_t{100});
  auto identity = [&](const Array& a, const std::vector<uint64_t>& r) {
    const auto perm = SortPermutation(a, r);
    for (int64_t i = 0; i < n; ++i) {
      if (perm[static_cast<size_t>(i)] != i) return false;
    }
    return a.null_count == 0;
  };
  const auto ascending = make([](int64_t i) { return i - 5000; }, -1);
  const auto ties = make([](int64_t i) { return i / 7; }, -1);
  const auto drop_at_block = make([](int64_t i) { return i == 4096 ? int64_t{-1} : i; }, -1);
  const auto drop_inside = make([](int64_t i) { return i == 777 ? int64_t{0} : i; }, -1);
  const auto with_null = make([](int64_t i) { return i; }, 9000);
  for (const auto* a : {&ascending, &ties, &drop_at_block, &drop_inside, &with_null}) {
    EXPECT_EQ(InIndexOrder(**a, rows), identity(**a, rows));
  }
  EXPECT_TRUE(InIndexOrder(*ascending, rows));
  EXPECT_TRUE(InIndexOrder(*ties, rows));
  EXPECT_FALSE(InIndexOrder(*drop_at_block, rows));
  EXPECT_FALSE(InIndexOrder(*drop_inside, rows));
  EXPECT_FALSE(InIndexOrder(*with_null, rows));
  std::vector<uint64_t> swapped = rows;
  std::swap(swapped[15], swapped[16]);  // a tie of `ties` (15 / 7 == 16 / 7) out of row-id order
  EXPECT_FALSE(InIndexOrder(*ties, swapped));
  EXPECT_FALSE(identity(*ties, swapped));
  StringBuilder sb(utf8());
  for (int64_t i = 0; i < 3; ++i) ASSERT_TRUE(sb.Append(std::string(1, static_cast<char>('a' + i))).ok());
  auto strs = sb.Finish();
  ASSERT_TRUE(strs.ok());
  EXPECT_FALSE(InIndexOrder(**strs, {0, 1, 2}));
}

TEST(KeySort, SortAndGroupsEqualTheComparator) {
  std::mt19937_64 rng(7);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double specials[] = {0.0, -0.0, nan, -nan, INFINITY, -INFINITY, 1.5, -1.5, 1e300, -1e-300};
  for (int round = 0; round < 27; ++round) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % 3000);
    const int kind = round % 9;
    auto valid = [&] { return rng() % 7 != 0; };
    NumericBuilder<int8_t> i8(int8());
    NumericBuilder<int32_t> i32(int32());
    NumericBuilder<int64_t> i64(int64());
    NumericBuilder<uint64_t> u64(uint64());
    NumericBuilder<float> f32(float32());
    NumericBuilder<double> f64(float64());
    BooleanBuilder bools;
    StringBuilder strs(utf8());
    ArrayBuilder* builder = nullptr;
    for (int64_t i = 0; i < n; ++i) {
      const bool v = valid();
      const uint64_t r = rng();
      Status st;
      switch (kind) {
        case 0: st = v ? i8.Append(static_cast<int8_t>(r)) : i8.AppendNull(); builder = &i8; break;
        case 1: st = v ? i32.Append(static_cast<int32_t>(r % 50) - 25) : i32.AppendNull(); builder = &i32; break;
        case 2: st = v ? i64.Append(static_cast<int64_t>(r)) : i64.AppendNull(); builder = &i64; break;
        case 3: st = v ? u64.Append(r % 3 == 0 ? r : r % 100) : u64.AppendNull(); builder = &u64; break;
        case 4: st = v ? f32.Append(static_cast<float>(specials[r % 10] * (r % 3 ? 1 : 0.25))) : f32.AppendNull(); builder = &f32; break;
        case 5: st = v ? f64.Append(r % 4 ? specials[r % 10] : static_cast<double>(r % 1000) / 7) : f64.AppendNull(); builder = &f64; break;
        case 6: st = v ? bools.Append(r % 2) : bools.AppendNull(); builder = &bools; break;
        case 8: {
          // Only strings of up to 7 bytes (grouped as one integer each): trailing and embedded
          // zero bytes must keep "a", "a\0" and "a\0\0" apart.
          static const std::string shorts[] = {"", std::string("\0", 1), "a", std::string("a\0", 2),
                                               std::string("a\0\0", 3), std::string("\0a", 2), "abcdefg",
                                               std::string("abcdef\0", 7), "\xff"};
          st = v ? strs.Append(shorts[r % 9]) : strs.AppendNull();
          builder = &strs;
          break;
        }
        default: {
          // Shared 8-byte prefixes, embedded zero bytes, empty strings, high bytes.
          static const char* parts[] = {"", "abcdefgh", "abcdefghi", "abcdefgh\0", "\xff\x01", "a", "abc"};
          std::string x = std::string(parts[r % 7], r % 7 == 3 ? 9 : std::char_traits<char>::length(parts[r % 7])) +
                          std::string(static_cast<size_t>((r >> 8) % 3), static_cast<char>('a' + (r >> 16) % 3));
          st = v ? strs.Append(x) : strs.AppendNull();
          builder = &strs;
        }
      }
      ASSERT_TRUE(st.ok());
    }
    auto arr = builder->Finish();
    ASSERT_TRUE(arr.ok());
    const Array& a = **arr;
    std::vector<uint64_t> row_ids(static_cast<size_t>(n));
    std::iota(row_ids.begin(), row_ids.end(), uint64_t{0});
    if (round % 3 != 0) std::shuffle(row_ids.begin(), row_ids.end(), rng);  // e.g. fragments out of order
    std::vector<int64_t> want(static_cast<size_t>(n));
    std::iota(want.begin(), want.end(), int64_t{0});
    std::sort(want.begin(), want.end(), [&](int64_t x, int64_t y) {
      const int c = CompareElements(a, x, y);
      return c != 0 ? c < 0 : row_ids[static_cast<size_t>(x)] < row_ids[static_cast<size_t>(y)];
    });
    EXPECT_EQ(SortPermutation(a, row_ids), want) << "round " << round << " type " << a.type->ToString();
    // Groups: each holds equal elements in position order, and elements of different groups differ.
    const auto groups = GroupEqualValues(a);
    std::vector<int64_t> seen;
    for (const auto& g : groups) {
      ASSERT_FALSE(g.empty());
      EXPECT_TRUE(std::is_sorted(g.begin(), g.end()));
      for (int64_t i : g) EXPECT_EQ(CompareElements(a, g.front(), i), 0) << "round " << round;
      seen.insert(seen.end(), g.begin(), g.end());
    }
    for (size_t x = 0; x < groups.size(); ++x) {
      for (size_t y = x + 1; y < groups.size(); ++y) {
        EXPECT_NE(CompareElements(a, groups[x].front(), groups[y].front()), 0) << "round " << round;
      }
    }
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> all(static_cast<size_t>(n));
    std::iota(all.begin(), all.end(), int64_t{0});
    EXPECT_EQ(seen, all) << "every position in exactly one group";
  }
}

}  // namespace
}  // namespace lance::index::scalar
