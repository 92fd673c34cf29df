// The FM index against brute force: suffix arrays against sorting, searches of random
// documents against std::string::find under the sanitize rule, the file round trip, and
// damaged files (the fuzz target's body over its seed corpus, truncated and corrupted).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#define LLVMFuzzerTestOneInput FmFilesFuzzOne
#include "index/fm/fm_files_fuzz.cc"
#undef LLVMFuzzerTestOneInput
#include "lance/columnar/builder.h"
#include "lance/core/thread_pool.h"
#include "lance/index/fm/fm_index.h"
#include "lance/io/memory_object_store.h"
#include "table_fixtures/fuzz_seed_test_util.h"

namespace lance::index::fm {
namespace {


std::string RandomText(std::mt19937& rng, size_t len, int alphabet) {
  std::string s(len, 'a');
  for (char& c : s) c = static_cast<char>('a' + static_cast<int>(rng() % static_cast<unsigned>(alphabet)));
  return s;
}

TEST(FmSuffixArray, EqualsSortedSuffixes) {
  std::mt19937 rng(1);
  for (int round = 0; round < 304; ++round) {
    const size_t len = round < 300 ? rng() % 200 : 20000;  // the last rounds recurse deeper
    std::string text = RandomText(rng, len, 1 + static_cast<int>(rng() % 4));
    if (round % 5 == 0) text = std::string(len, 'a');
    if (round % 7 == 0) {
      text.clear();
      for (size_t i = 0; i < len; ++i) text += (i % 3 == 0) ? "ab" : "a";
    }
    text.push_back('\0');
    std::vector<int64_t> want(text.size());
    std::iota(want.begin(), want.end(), 0);
    std::sort(want.begin(), want.end(), [&](int64_t a, int64_t b) {
      return std::string_view(text).substr(static_cast<size_t>(a)) < std::string_view(text).substr(static_cast<size_t>(b));
    });
    ASSERT_EQ(FmSuffixArray(text), want) << "round " << round;
    const std::vector<int32_t> sa32 = FmSuffixArray32(text);
    ASSERT_EQ(std::vector<int64_t>(sa32.begin(), sa32.end()), want) << "round " << round;
  }
}

// The token sort's BWT and samples against the byte sorter's, on FM texts of words (short and
// long, repeated and not), empty documents, runs of separators, control bytes and high bytes.
TEST(FmBwtByTokens, EqualsTheByteSorter) {
  std::mt19937 rng(3);
  for (int round = 0; round < 400; ++round) {
    std::vector<std::string> vocab;
    const size_t words = 1 + rng() % (round % 3 == 0 ? 4 : 60);
    for (size_t w = 0; w < words; ++w) {
      std::string t = RandomText(rng, 1 + rng() % (round % 10 == 0 ? 300 : 9), 1 + static_cast<int>(rng() % 5));
      if (rng() % 8 == 0) t.push_back(static_cast<char>(0x80 + rng() % 0x7f));
      vocab.push_back(t);
    }
    std::string text;
    const size_t ndocs = round < 390 ? rng() % 60 : 3000;
    for (size_t i = 0; i < ndocs; ++i) {
      const size_t nw = rng() % 12;
      for (size_t w = 0; w < nw; ++w) {
        text += vocab[rng() % vocab.size()];
        const unsigned sep = static_cast<unsigned>(rng() % 16);
        text += sep < 12 ? ' ' : sep < 14 ? '\n' : sep == 14 ? '\t' : '\x01';
        if (rng() % 20 == 0) text += ' ';
      }
      if (rng() % 6 == 0 && !text.empty()) text.pop_back();  // a word then \xff
      text.push_back('\xff');
    }
    text.push_back('\0');
    if (text.size() < 2) continue;
    const std::vector<int64_t> sa = FmSuffixArray(text);
    std::string want_bwt(text.size(), '\0');
    std::vector<uint64_t> want_samples;
    for (size_t i = 0; i < sa.size(); ++i) {
      want_bwt[i] = text[sa[i] == 0 ? text.size() - 1 : static_cast<size_t>(sa[i]) - 1];
      if (i % kFmSampleRate == 0) want_samples.push_back(static_cast<uint64_t>(sa[i]));
    }
    std::string bwt;
    std::vector<uint64_t> samples;
    const bool long_token = std::any_of(vocab.begin(), vocab.end(), [](const std::string& v) { return v.size() + 1 > 256; });
    const bool done = FmBwtByTokens(text, &bwt, &samples, /*force=*/true);
    if (long_token) {
      // a token over 256 bytes only when a long word was used
      if (!done) continue;
    }
    ASSERT_TRUE(done) << "round " << round;
    ASSERT_EQ(bwt, want_bwt) << "round " << round;
    ASSERT_EQ(samples, want_samples) << "round " << round;
  }
  std::string bwt;
  std::vector<uint64_t> samples;
  EXPECT_FALSE(FmBwtByTokens(std::string("ab\0cd \xff\0", 8), &bwt, &samples, true));  // a \x00 inside
  EXPECT_FALSE(FmBwtByTokens(std::string("ab\0", 3), &bwt, &samples, true));             // no separator before it
  EXPECT_FALSE(FmBwtByTokens(std::string(300, 'a') + "\xff" + std::string(1, '\0'), &bwt, &samples, true));
  EXPECT_TRUE(FmBwtByTokens(std::string("\xff\0", 2), &bwt, &samples, true));
  EXPECT_EQ(bwt, std::string("\xff\0", 2));
}

TEST(FmPartition, SearchEqualsBruteForce) {
  std::mt19937 rng(2);
  for (int round = 0; round < 60; ++round) {
    std::vector<std::pair<uint64_t, std::string>> docs;
    std::vector<std::string> raw;
    const size_t ndocs = rng() % 120;
    for (size_t i = 0; i < ndocs; ++i) {
      std::string t = RandomText(rng, rng() % 40, 2 + round % 5);
      if (rng() % 9 == 0) t.push_back('\0');
      if (rng() % 9 == 0) t.insert(t.begin(), '\xff');
      if (rng() % 10 == 0) t += " b";
      raw.push_back(t);
      docs.emplace_back((uint64_t{1} << 32) * (i % 3) + i, SanitizeFm(t));
    }
    const FmPartition p = FmPartition::Build(docs);
    // Through the file's columns and metadata and back.
    uint64_t wr = 0, sb = 0;
    const auto cols = p.ToColumns(&wr, &sb);
    const KeyValueMetadata meta(p.Metadata(wr, sb));
    auto back = FmLoadedPartition::Decode(meta, cols, "round trip");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    for (int q = 0; q < 40; ++q) {
      std::string needle = RandomText(rng, 1 + rng() % 5, 2 + round % 5);
      if (q == 0) needle = "";
      if (q == 1) needle = std::string(100, 'a');
      if (q == 2) needle = " ";
      if (q == 3) needle = "a\0b";
      if (q == 4 && !raw.empty()) needle = raw[0];
      const std::string sn = SanitizeFm(needle);
      std::vector<uint64_t> want;
      for (size_t i = 0; i < docs.size(); ++i) {
        if (!sn.empty() && docs[i].second.find(sn) != std::string::npos) want.push_back(docs[i].first);
      }
      std::sort(want.begin(), want.end());
      auto got = back->Search(sn);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      std::sort(got->begin(), got->end());
      EXPECT_EQ(*got, want) << "round " << round << " needle '" << needle << "'";
      // The count is the needle's occurrences, overlapping ones too (a sanitized needle never
      // spans a document's \xFF end).
      uint64_t occurrences = 0;
      for (const auto& d : docs) {
        for (size_t at = d.second.find(sn); !sn.empty() && at != std::string::npos; at = d.second.find(sn, at + 1)) {
          ++occurrences;
        }
      }
      auto count = back->Count(sn);
      ASSERT_TRUE(count.ok()) << count.status().ToString();
      EXPECT_EQ(*count, occurrences) << "round " << round << " needle '" << needle << "'";
    }
  }
}

TEST(FmPartition, BlocksSpanSeveralRows) {
  // A text past 4096 * 64 bits makes nodes of several blocks and several SA sample blocks.
  std::mt19937 rng(3);
  std::vector<std::pair<uint64_t, std::string>> docs;
  for (uint64_t i = 0; i < 3000; ++i) docs.emplace_back(i, RandomText(rng, 200, 3));
  const FmPartition p = FmPartition::Build(docs);
  uint64_t wr = 0, sb = 0;
  const auto cols = p.ToColumns(&wr, &sb);
  EXPECT_GT(wr, p.num_nodes());
  EXPECT_EQ(sb, 5u);  // 601k bytes / 32 samples, 4096 per block
  auto back = FmLoadedPartition::Decode(KeyValueMetadata(p.Metadata(wr, sb)), cols, "blocks");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const std::string needle = docs[1234].second.substr(50, 30);
  auto got = back->Search(needle);
  ASSERT_TRUE(got.ok());
  EXPECT_NE(std::find(got->begin(), got->end(), 1234u), got->end());
  for (uint64_t r : *got) EXPECT_NE(docs[r].second.find(needle), std::string::npos);
  // A search reads only the blocks it touches: a needle that matches nothing needs wavelet
  // blocks of its bytes' nodes and no suffix-array block; the first byte needs none.
  std::set<size_t> asked;
  const FmBlockSource counting = [&](size_t row) -> Result<std::shared_ptr<const FmBlock>> {
    asked.insert(row);
    return back->blocks.at(row);
  };
  auto none = FmSearch(back->meta, counting, std::string(40, 'a'));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(asked.empty());
  for (size_t r : asked) EXPECT_LT(r, back->meta.sa_first_row);
  asked.clear();
  // "da": the range of 'a' comes from the C table, 'd' has no code: nothing is read.
  auto absent = FmSearch(back->meta, counting, "da");
  ASSERT_TRUE(absent.ok());
  EXPECT_TRUE(absent->empty());
  EXPECT_TRUE(asked.empty());

  // A one-byte needle: its range from the C table, every document located.
  auto one = FmSearch(back->meta, counting, "a");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), docs.size());
}

TEST(FmIndex, TrainOpenSearchWithNullsAndPartitions) {
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "idx");
  BinaryBuilder b(utf8());
  scalar::TrainingData data;
  data.type = utf8();
  for (uint64_t i = 0; i < 25000; ++i) {
    if (i % 7 == 3) {
      ASSERT_TRUE(b.AppendNulls(1).ok());
    } else {
      ASSERT_TRUE(b.Append("row " + std::to_string(i) + (i % 5 == 0 ? std::string("\0x", 2) : " y")).ok());
    }
    data.row_ids.push_back(i);
  }
  data.values.push_back(*b.Finish());
  auto trained = TrainFmIndex(*store, data);
  ASSERT_TRUE(trained.ok()) << trained.status().ToString();
  ASSERT_EQ(trained->files.size(), 3u);  // 21428 non-null values, 10000 per partition
  EXPECT_EQ(trained->files[2].path, "part_2_fm.lance");
  store->ResetStats();
  auto index = OpenFmIndex(store);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ(store->stats().files_opened, 0);  // opening lists the partitions, nothing more
  auto pool = ThreadPool::Make(2);
  ASSERT_TRUE(pool.ok());
  scalar::SearchOptions on_pool;
  on_pool.pool = pool->get();
  auto r = (*index)->Search(scalar::TextQuery{"row 2000"}, on_pool);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, RowSet::Of({2000, 20000, 20001, 20003, 20004, 20005, 20006, 20007, 20008}));
  // Warm: the same query again loads nothing (metadata and blocks come from the cache).
  const auto cold = store->stats();
  EXPECT_EQ(cold.files_opened, 3);
  EXPECT_GT(cold.pages_loaded, 3);
  // The estimate counts occurrences from the backward searches; it needs no new block.
  auto estimate = (*index)->EstimateMatches(scalar::TextQuery{"row 2000"});
  ASSERT_TRUE(estimate.ok()) << estimate.status().ToString();
  EXPECT_EQ(*estimate, std::optional<uint64_t>(9));
  EXPECT_EQ(store->stats().pages_loaded, cold.pages_loaded);
  auto again = (*index)->Search(scalar::TextQuery{"row 2000"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->rows, r->rows);
  EXPECT_EQ(store->stats().pages_loaded, cold.pages_loaded);
  EXPECT_EQ(store->stats().read_requests, cold.read_requests);
  EXPECT_GT(store->stats().cache_hits, cold.cache_hits);
  auto none = (*index)->EstimateMatches(scalar::TextQuery{"row 2000 q"});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, std::optional<uint64_t>(0));
  r = (*index)->Search(scalar::TextQuery{"0 x"});  // a space matches the stored \0
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->rows.Contains(20));  // "row 20\0x"
  EXPECT_FALSE(r->rows.Contains(21));
  EXPECT_FALSE(r->rows.Contains(10));  // null
  r = (*index)->Search(scalar::TextQuery{""});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->rows.empty());
  EXPECT_TRUE(r->null_rows.empty());

  // No non-null value: one empty partition, as lance 12 writes it.
  auto store2 = IndexStore::Make(mem, "idx2");
  BinaryBuilder nulls(utf8());
  ASSERT_TRUE(nulls.AppendNulls(2).ok());
  scalar::TrainingData empty{{*nulls.Finish()}, {0, 1}, utf8()};
  auto t2 = TrainFmIndex(*store2, empty);
  ASSERT_TRUE(t2.ok()) << t2.status().ToString();
  ASSERT_EQ(t2->files.size(), 1u);
  auto i2 = OpenFmIndex(store2);
  ASSERT_TRUE(i2.ok()) << i2.status().ToString();
  EXPECT_TRUE((*i2)->Search(scalar::TextQuery{"a"})->rows.empty());

  scalar::TrainingData ints{{}, {}, int64()};
  EXPECT_EQ(TrainFmIndex(*store2, ints).status().code(), StatusCode::kInvalidArgument);
}

void Feed(const std::string& bytes) {
  FmFilesFuzzOne(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(FmIndex, DamagedFilesAreCorruptionNeverACrash) {
  const auto seeds = lance::test::FuzzSeeds("fm_files_fuzz");
  ASSERT_GE(seeds.size(), 1u);
  for (const std::string& seed : seeds) {
    {
      auto mem = io::MemoryObjectStore::Make();
      auto store = IndexStore::Make(mem, "idx");
      ASSERT_TRUE(mem->Put(store->PathOf(FmPartitionFile(0)), seed).ok());
      auto index = OpenFmIndex(store);
      ASSERT_TRUE(index.ok()) << index.status().ToString();
      auto r = (*index)->Search(scalar::TextQuery{"a"});
      ASSERT_TRUE(r.ok()) << r.status().ToString();  // the seeds are sound files
    }
    lance::test::FeedDamaged(seed, 0, 60, 300, Feed);
  }
}

}  // namespace
}  // namespace lance::index::fm
