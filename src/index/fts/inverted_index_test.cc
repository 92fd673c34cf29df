// The reader of lance 12's inverted index on the table it indexed
// (tests/golden/fts_index/fts.lance, written by its gen.mjs through the reference): phrase
// queries need positions, top k is the head of every match; BM25's formulas; damaged posting
// blocks and FST maps are Corruption. (Every document and posting against the indexed rows:
// src/query/inverted_index_golden_test.cc, which may read rows.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "index/fts/fst_map.h"
#include "index/fts/posting_codec.h"
#include "lance/index/fts/inverted_index.h"
#include "lance/index/index_metadata.h"
#include "lance/table/snapshot.h"
#include "table_fixtures/fts_golden_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::index::fts {
namespace {

using fts_golden::Golden;
using fts_golden::OpenGolden;

TEST(InvertedIndexGolden, PhraseNeedsPositions) {
  Golden g = OpenGolden();
  auto index = InvertedIndex::Open(OpenIndexStore(g.snap->location(), *g.by_name.at("title_idx")));
  ASSERT_TRUE(index.ok());
  auto r = (*index)->Search({"lanc", "search"}, {0, 1}, MatchMode::kPhrase, nullptr);
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
}

TEST(InvertedIndexGolden, TopKIsTheHeadOfEveryMatch) {
  Golden g = OpenGolden();
  auto index = InvertedIndex::Open(OpenIndexStore(g.snap->location(), *g.by_name.at("body_idx")));
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  for (MatchMode mode : {MatchMode::kAny, MatchMode::kAll, MatchMode::kPhrase}) {
    auto all = (*index)->Search({"quick", "fox"}, {0, 1}, mode, nullptr);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    std::sort(all->begin(), all->end(), Better);
    ASSERT_GT(all->size(), 3u);
    for (size_t k : {1u, 3u, 1000u}) {
      auto top = (*index)->Search({"quick", "fox"}, {0, 1}, mode, nullptr, k);
      ASSERT_TRUE(top.ok());
      ASSERT_EQ(top->size(), std::min(k, all->size()));
      for (size_t i = 0; i < top->size(); ++i) {
        EXPECT_EQ((*top)[i].row_id, (*all)[i].row_id) << k << " " << i;
        EXPECT_EQ((*top)[i].score, (*all)[i].score) << k << " " << i;
      }
    }
  }
}

TEST(FuzzyMatch, EditDistanceOverCodePoints) {
  EXPECT_EQ(BoundedEditDistance("lance", "lance", 2), 0u);
  EXPECT_EQ(BoundedEditDistance("lanse", "lance", 2), 1u);   // substitute
  EXPECT_EQ(BoundedEditDistance("lace", "lance", 2), 1u);    // insert
  EXPECT_EQ(BoundedEditDistance("quikc", "quick", 2), 2u);   // a transposition is two edits
  EXPECT_EQ(BoundedEditDistance("quikc", "quick", 1), std::nullopt);
  EXPECT_EQ(BoundedEditDistance("café", "cafe", 1), 1u);     // é is one code point (two bytes)
  EXPECT_EQ(BoundedEditDistance("日本語", "日本", 1), 1u);
  EXPECT_EQ(BoundedEditDistance("", "ab", 2), 2u);
  EXPECT_EQ(BoundedEditDistance("abcdef", "a", 4), std::nullopt);  // lengths alone are 5 apart
  EXPECT_EQ(BoundedEditDistance("a\xff", "a\xfe", 1), 1u);          // stray bytes count one each
}

// Expansion over a partition's dictionary: every token within the distance, in byte order,
// the prefix kept, lance 12's cap over every query token, each expansion's query token.
TEST(FuzzyMatch, ExpandsOverEachPartitionsDictionary) {
  Golden g = OpenGolden();
  auto index = InvertedIndex::Open(OpenIndexStore(g.snap->location(), *g.by_name.at("body_idx")));
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  const InvertedPartition& part = *(*index)->partitions().at(0);
  std::vector<std::string> want;
  for (const std::string* t : part.SortedTokens()) {
    if (BoundedEditDistance("rn", *t, 2)) want.push_back(*t);
  }
  ASSERT_GE(want.size(), 2u);
  for (size_t i = 1; i < part.SortedTokens().size(); ++i) {
    ASSERT_LT(*part.SortedTokens()[i - 1], *part.SortedTokens()[i]);
  }
  EXPECT_EQ(ExpandFuzzy(part, {"rn"}, {2, 50, 0}), want);
  EXPECT_EQ(ExpandFuzzy(part, {"rn"}, {2, 2, 0}), std::vector<std::string>(want.begin(), want.begin() + 2));
  // the cap is over every query token: reached by the first, the second adds nothing
  std::vector<uint32_t> origin;
  EXPECT_EQ(ExpandFuzzy(part, {"rn", "lanse"}, {2, 2, 0}, &origin), std::vector<std::string>(want.begin(), want.begin() + 2));
  EXPECT_EQ(origin, (std::vector<uint32_t>{0, 0}));
  // each expansion's query token; repeats kept
  const auto lanse = ExpandFuzzy(part, {"lanse"}, {2, 50, 0});
  ASSERT_FALSE(lanse.empty());
  auto both = ExpandFuzzy(part, {"lanse", "rn", "lanse"}, {2, 1000, 0}, &origin);
  ASSERT_EQ(both.size(), 2 * lanse.size() + want.size());
  EXPECT_EQ(std::vector<std::string>(both.begin(), both.begin() + lanse.size()), lanse);
  EXPECT_EQ(std::vector<std::string>(both.end() - lanse.size(), both.end()), lanse);
  EXPECT_EQ(origin[lanse.size()], 1u);
  EXPECT_EQ(origin.back(), 2u);
  // prefix: only tokens starting with the query's first bytes
  for (const auto& t : ExpandFuzzy(part, {"lanse"}, {2, 50, 2})) EXPECT_TRUE(t.starts_with("la")) << t;
  EXPECT_TRUE(ExpandFuzzy(part, {"xanc"}, {1, 50, 1}).empty());  // lanc, one edit away, starts otherwise
  EXPECT_FALSE(ExpandFuzzy(part, {"xanc"}, {1, 50, 0}).empty());
}

TEST(Bm25, LanceFormulas) {
  // idf(1 of 10) = ln(9.5 / 1.5 + 1); doc weight at avgdl = 2.2 f / (f + 1.2)
  EXPECT_FLOAT_EQ(Bm25Idf(1, 10), std::log(9.5f / 1.5f + 1.0f));
  EXPECT_FLOAT_EQ(Bm25DocWeight(2, 10, 10.0f), 2.2f * 2 / (2 + 1.2f));
  EXPECT_FLOAT_EQ(Bm25AvgDocLength(7, 2), 3.5f);
}

TEST(PostingCodec, Pack4xRoundTripsEveryWidth) {
  for (int bits = 0; bits <= 32; ++bits) {
    uint32_t in[kPackedBlock], out[kPackedBlock];
    for (size_t i = 0; i < kPackedBlock; ++i) {
      const uint64_t v = (i * 2654435761u) ^ (i << 7);
      in[i] = bits == 32 ? static_cast<uint32_t>(v) : static_cast<uint32_t>(v & ((1ull << bits) - 1));
    }
    std::vector<uint8_t> buf(16 * static_cast<size_t>(bits) + 1, 0);
    Pack4x(in, bits, buf.data());
    Unpack4x(buf.data(), bits, out);
    for (size_t i = 0; i < kPackedBlock; ++i) ASSERT_EQ(in[i], out[i]) << bits << " " << i;
  }
}

TEST(PostingCodec, DamagedBlocksAreCorruption) {
  std::vector<uint32_t> d, f;
  float s;
  // a tail block of 2 documents: score, varints 5, 3 | 1, 2
  const std::string ok("\0\0\x80\x3f\x05\x03\x01\x02", 8);
  ASSERT_TRUE(DecodePostingBlock(ok, 2, kPackedBlock, &d, &f, &s, "t").ok());
  EXPECT_EQ(d, (std::vector<uint32_t>{5, 8}));
  EXPECT_EQ(f, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(s, 1.0f);
  for (size_t cut = 0; cut < ok.size(); ++cut) {
    EXPECT_TRUE(DecodePostingBlock(ok.substr(0, cut), 2, kPackedBlock, &d, &f, &s, "t").IsCorruption());
  }
  EXPECT_TRUE(DecodePostingBlock(ok + "x", 2, kPackedBlock, &d, &f, &s, "t").IsCorruption());
  // a full block whose width byte says 40 bits
  std::string full(8, '\0');
  full += '\x28';
  EXPECT_TRUE(DecodePostingBlock(full, kPackedBlock, kPackedBlock, &d, &f, &s, "t").IsCorruption());
}

TEST(FstMap, GoldenDictionaryAndDamage) {
  Golden g = OpenGolden();
  auto store = OpenIndexStore(g.snap->location(), *g.by_name.at("body_idx"));
  auto reader = store->OpenFile("part_0_tokens.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto b = (*reader)->ReadAll();
  ASSERT_TRUE(b.ok());
  const std::string bytes((*b)->column(0)->GetView(0));
  auto map = DecodeFstMap(bytes, "t");
  ASSERT_TRUE(map.ok()) << map.status().ToString();
  std::set<uint64_t> ids;
  for (size_t i = 0; i < map->size(); ++i) {
    if (i > 0) {
      EXPECT_LT((*map)[i - 1].first, (*map)[i].first);
    }
    ids.insert((*map)[i].second);
  }
  EXPECT_EQ(ids.size(), map->size());
  EXPECT_EQ(*ids.rbegin() + 1, map->size()) << "token ids are dense";
  bool found = false;
  for (const auto& [k, v] : *map) found |= k == "lanc";
  EXPECT_TRUE(found);
  // every truncation and every single-byte change: an error or a map, never a crash
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(DecodeFstMap(bytes.substr(0, cut), "t").ok());
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string m = bytes;
    m[i] = static_cast<char>(m[i] ^ 0x5a);
    (void)DecodeFstMap(m, "t");
  }
}


// Slop as lance 12 decides it (cases found by probing the reference): over the index a greedy
// walk (PhraseMatches), over unindexed rows an exhaustive one (PhraseMatchesAnywhere).
TEST(PhraseSlop, GreedyOverTheIndexExhaustiveElsewhere) {
  struct Case {
    std::vector<std::vector<uint32_t>> positions;  // per query term, in the document
    std::vector<uint32_t> rel;                     // the terms' positions in the query
    uint32_t slop;
    bool greedy, anywhere;
  };
  const std::vector<Case> cases = {
      // adjacent: every slop
      {{{0}, {1}}, {0, 1}, 0, true, true},
      {{{0}, {1}}, {0, 1}, 2, true, true},
      // one word between: slop 1 and up
      {{{0}, {2}}, {0, 1}, 0, false, false},
      {{{0}, {2}}, {0, 1}, 1, true, true},
      // out of order never matches
      {{{1}, {0}}, {0, 1}, 3, false, false},
      // slop is per pair: gaps of 2 and 2 with slop 2
      {{{0}, {3}, {6}}, {0, 1, 2}, 2, true, true},
      {{{0}, {3}, {6}}, {0, 1, 2}, 1, false, false},
      // a stop word inside the query keeps its gap: "gamma the beta" is gamma@0 beta@2
      {{{0}, {2}}, {0, 2}, 0, true, true},
      {{{0}, {1}}, {0, 2}, 0, false, false},
      // the greedy walk misses an exact phrase when a term's first position is before the
      // phrase: alpha@1 gamma@2 beta@{0,3} delta@4, slop 1 (slop 0 checks exactly)
      {{{1}, {2}, {0, 3}, {4}}, {0, 1, 2, 3}, 1, false, true},
      {{{1}, {2}, {0, 3}, {4}}, {0, 1, 2, 3}, 0, true, true},
      // repeated terms: "alpha beta beta" over alpha beta beta, slop 1: lance 12's walk misses it
      {{{0}, {1, 2}, {1, 2}}, {0, 1, 2}, 1, false, true},
      // "alpha alpha beta" over alpha alpha beta, slop 1: found
      {{{0, 1}, {0, 1}, {2}}, {0, 1, 2}, 1, true, true},
      // "gamma gamma" over gamma x gamma: slop 1
      {{{0, 2}, {0, 2}}, {0, 1}, 1, true, true},
      {{{0, 2}, {0, 2}}, {0, 1}, 0, false, false},
      // an exhaustive search finds gamma@1 beta@3,4 gamma@6 within slop 1 ("gamma the beta gamma")
      {{{1, 6}, {0, 3, 4, 5}, {1, 6}}, {0, 2, 3}, 1, false, true},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    std::vector<const uint32_t*> b, e;
    for (const auto& p : c.positions) {
      b.push_back(p.data());
      e.push_back(p.data() + p.size());
    }
    EXPECT_EQ(PhraseMatches(b, e, c.rel, c.slop), c.greedy) << "case " << i;
    EXPECT_EQ(PhraseMatchesAnywhere(b, e, c.rel, c.slop), c.anywhere) << "case " << i;
  }
}

}  // namespace
}  // namespace lance::index::fts
