// The INVERTED index writer: the fst map encoder round-trips through the reader (and its
// checksum is the one lance 12's files carry), the params JSON and details proto equal the
// ones lance 12 wrote for the golden indexes (tests/golden/fts_index), and a written segment
// opens with InvertedIndex::Open and holds exactly the tokenized rows, with block scores and
// statistics as the reader computes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "index/fts/fst_map.h"
#include "index/fts/posting_codec.h"
#include "lance/columnar/builder.h"
#include "lance/core/thread_pool.h"
#include "lance/index/fts/inverted_index.h"
#include "lance/index/fts/inverted_writer.h"
#include "lance/index/index_metadata.h"
#include "lance/io/memory_object_store.h"
#include "lance/table/snapshot.h"

namespace lance::index::fts {
namespace {

namespace fs = std::filesystem;
const fs::path kGolden = fs::path(__FILE__).parent_path() / "../../../tests/golden/fts_index/fts.lance";

std::vector<std::pair<std::string, uint64_t>> RoundTrip(const std::vector<std::pair<std::string, uint64_t>>& in) {
  auto bytes = EncodeFstMap(in);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  if (!bytes.ok()) return {};
  const std::string& b = *bytes;
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) stored |= static_cast<uint32_t>(static_cast<uint8_t>(b[b.size() - 4 + i])) << (8 * i);
  EXPECT_EQ(FstChecksum(std::string_view(b).substr(0, b.size() - 4)), stored);
  auto out = DecodeFstMap(b, "test fst");
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<std::pair<std::string, uint64_t>>{};
}

TEST(FstEncode, RoundTripsEveryNodeKind) {
  EXPECT_TRUE(RoundTrip({}).empty());
  std::vector<std::pair<std::string, uint64_t>> one = {{"a", 0}};
  EXPECT_EQ(RoundTrip(one), one);
  // prefixes of each other, common and uncommon input bytes, values of 1..8 bytes, a node
  // with every byte value as a transition (> 32: the crate's transition index)
  std::set<std::string> keys = {"t", "te", "tea", "team", "teams", "zebra", "\xc3\xa9t\xc3\xa9", "x\x01y"};
  for (int c = 1; c < 256; ++c) keys.insert(std::string("k") + static_cast<char>(c));
  for (int c = 0; c < 40; ++c) keys.insert(std::string("m") + static_cast<char>('0' + c) + "zz");
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string k;
    const int len = 1 + static_cast<int>(rng() % 12);
    for (int j = 0; j < len; ++j) k.push_back(static_cast<char>('a' + rng() % 26));
    keys.insert(k);
  }
  std::vector<std::pair<std::string, uint64_t>> in;
  uint64_t i = 0;
  for (const auto& k : keys) in.emplace_back(k, (i++ * 2654435761ull) >> (i % 40));
  EXPECT_EQ(RoundTrip(in), in);
}

TEST(FstEncode, RefusesUnsortedKeys) {
  EXPECT_EQ(EncodeFstMap({{"b", 0}, {"a", 1}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodeFstMap({{"a", 0}, {"a", 1}}).status().code(), StatusCode::kInvalidArgument);
}

struct GoldenIndex {
  std::shared_ptr<table::Snapshot> snap;
  const table::IndexInfo* info = nullptr;
};

GoldenIndex Golden(const std::string& name) {
  GoldenIndex g;
  auto s = table::Snapshot::Open(kGolden.string());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return g;
  g.snap = *s;
  for (const auto& info : g.snap->manifest().indices) {
    if (info.name == name) g.info = &info;
  }
  EXPECT_NE(g.info, nullptr) << name;
  return g;
}

TEST(InvertedWrite, ChecksumAndMetadataEqualTheReferences) {
  for (const auto& [name, positions] : {std::pair<std::string, bool>{"body_idx", true}, {"title_idx", false}}) {
    GoldenIndex g = Golden(name);
    ASSERT_NE(g.info, nullptr);
    auto store = OpenIndexStore(g.snap->location(), *g.info);
    TokenizerOptions o = TokenizerOptions::Defaults();
    o.with_position = positions;
    EXPECT_EQ(o.ToInvertedIndexDetails(), g.info->details) << name;
    EXPECT_EQ(g.info->details_type_url, kInvertedDetailsTypeUrl);
    EXPECT_EQ(g.info->index_version, kInvertedIndexVersion);
    auto meta = store->OpenFile("metadata.lance");
    ASSERT_TRUE(meta.ok()) << meta.status().ToString();
    EXPECT_EQ(*(*meta)->schema()->metadata()->Get("params"), o.ToIndexParamsJson()) << name;
    auto tokens = store->OpenFile("part_0_tokens.lance");
    ASSERT_TRUE(tokens.ok());
    auto tb = (*tokens)->ReadAll();
    ASSERT_TRUE(tb.ok());
    const std::string_view fst = (*tb)->column(0)->GetView(0);
    uint32_t stored = 0;
    for (int i = 0; i < 4; ++i) stored |= static_cast<uint32_t>(static_cast<uint8_t>(fst[fst.size() - 4 + i])) << (8 * i);
    EXPECT_EQ(FstChecksum(fst.substr(0, fst.size() - 4)), stored) << name;
    // _token_total_length is the summed bytes of the tokens
    auto entries = DecodeFstMap(fst, name);
    ASSERT_TRUE(entries.ok());
    uint64_t bytes = 0;
    for (const auto& e : *entries) bytes += e.first.size();
    EXPECT_EQ((*tb)->column(2)->Values<uint64_t>()[0], bytes) << name;
  }
}

ArrayPtr Texts(const std::vector<std::optional<std::string>>& v) {
  BinaryBuilder b(utf8());
  for (const auto& s : v) {
    if (s) {
      EXPECT_TRUE(b.Append(*s).ok());
    } else {
      EXPECT_TRUE(b.AppendNull().ok());
    }
  }
  return *b.Finish();
}

// Deterministic text: a small vocabulary so that tokens have several full posting blocks
std::vector<std::optional<std::string>> Corpus(size_t n) {
  static const char* words[] = {"apple", "banana", "cherry", "dog", "zebra", "running", "jumps", "quickly",
                                "the",   "lazy",   "fox",    "river", "sky", "ocean", "mountain", "forest"};
  std::mt19937 rng(11);
  std::vector<std::optional<std::string>> out;
  for (size_t i = 0; i < n; ++i) {
    if (i % 97 == 3) {
      out.push_back(std::nullopt);
      continue;
    }
    if (i % 89 == 5) {
      out.push_back(std::string(i % 2 ? "" : "the"));  // no token
      continue;
    }
    std::string s;
    const size_t len = 1 + rng() % 14;
    for (size_t j = 0; j < len; ++j) {
      if (j) s += ' ';
      s += words[rng() % (j % 3 == 0 ? 4 : 16)];
    }
    out.push_back(s);
  }
  return out;
}

void CheckWrite(bool positions) {
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "t.lance/_indices/u/");
  TokenizerOptions o = TokenizerOptions::Defaults();
  o.with_position = positions;
  const auto text = Corpus(1300);
  std::vector<uint64_t> rows(text.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = (uint64_t{1} << 32) + 3 * i;
  auto written = WriteInvertedIndex(*store, o, {Texts(text)}, rows);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  ASSERT_EQ(written->files.size(), 4u);
  EXPECT_EQ(written->files[0].path, "part_0_invert.lance");
  EXPECT_EQ(written->files[3].path, "metadata.lance");
  auto index = InvertedIndex::Open(IndexStore::Make(mem, "t.lance/_indices/u/"));
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  const InvertedIndex& idx = **index;
  EXPECT_EQ(idx.with_position(), positions);
  ASSERT_EQ(idx.partitions().size(), 1u);
  const InvertedPartition& part = *idx.partitions()[0];
  // expected postings: row -> token -> positions
  auto tok = Tokenizer::Make(o);
  ASSERT_TRUE(tok.ok());
  std::map<uint64_t, std::map<std::string, std::vector<uint32_t>>> want;
  std::map<uint64_t, uint32_t> want_len;
  uint64_t total = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!text[i]) continue;
    std::vector<Token> toks;
    ASSERT_TRUE((*tok)->Tokenize(*text[i], &toks).ok());
    if (toks.empty()) continue;
    want_len[rows[i]] = static_cast<uint32_t>(toks.size());
    total += toks.size();
    for (const auto& t : toks) want[rows[i]][t.text].push_back(positions ? t.position : 0);
  }
  EXPECT_EQ(idx.num_docs(), want_len.size());
  EXPECT_EQ(idx.total_tokens(), total);
  std::map<uint64_t, std::map<std::string, std::vector<uint32_t>>> got;
  std::map<uint64_t, uint32_t> got_len;
  for (uint32_t d = 0; d < part.num_docs(); ++d) got_len[part.RowId(d)] = part.DocTokens(d);
  EXPECT_EQ(got_len, want_len);
  const float avgdl = Bm25AvgDocLength(total, want_len.size());
  size_t multi_block = 0;
  for (const auto& [token, id] : part.tokens()) {
    auto pl = part.Postings(id, positions);
    ASSERT_TRUE(pl.ok()) << pl.status().ToString();
    const float idf = Bm25Idf(pl->docs.size(), want_len.size());
    float best = 0;
    ASSERT_EQ(pl->block_max_scores.size(), (pl->docs.size() + 127) / 128);
    multi_block += pl->block_max_scores.size() > 2;
    for (size_t b = 0; b < pl->block_max_scores.size(); ++b) {
      float bb = 0;
      for (size_t i = 128 * b; i < std::min(pl->docs.size(), 128 * b + 128); ++i) {
        bb = std::max(bb, idf * Bm25DocWeight(pl->freqs[i], part.DocTokens(pl->docs[i]), avgdl));
      }
      // lance 12 computes it in another operation order (checked bit for bit against its
      // files in tests/interop/fts_index_write.test.mjs)
      EXPECT_NEAR(pl->block_max_scores[b], bb, 1e-6 * bb) << token << " block " << b;
      best = std::max(best, pl->block_max_scores[b]);
    }
    EXPECT_EQ(part.MaxScore(id), best) << token;
    for (size_t i = 0; i < pl->docs.size(); ++i) {
      auto& v = got[part.RowId(pl->docs[i])][token];
      if (positions) {
        v.assign(pl->positions.begin() + pl->pos_start[i], pl->positions.begin() + pl->pos_start[i + 1]);
      } else {
        v.assign(pl->freqs[i], 0);
      }
    }
  }
  EXPECT_GT(multi_block, 3u) << "the corpus must give tokens several posting blocks";
  EXPECT_TRUE(got == want) << "postings differ from the tokenized rows";
}

TEST(InvertedWrite, SegmentHoldsTheTokenizedRows) { CheckWrite(false); }
TEST(InvertedWrite, SegmentHoldsPositions) { CheckWrite(true); }

// A build tokenized in parallel runs (arrays sliced across runs) holds exactly what one thread
// writes: the same documents in row order, token ids, postings, frequencies and positions.
TEST(InvertedWrite, ParallelRunsWriteWhatOneThreadWrites) {
  const auto text = Corpus(30000);
  std::vector<std::optional<std::string>> a(text.begin(), text.begin() + 7001), b(text.begin() + 7001, text.end());
  std::vector<uint64_t> rows(text.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = (uint64_t{3} << 32) + i;
  TokenizerOptions o = TokenizerOptions::Defaults();
  o.with_position = true;
  auto pool = ThreadPool::Make(3);
  ASSERT_TRUE(pool.ok());
  auto mem = io::MemoryObjectStore::Make();
  ASSERT_TRUE(WriteInvertedIndex(*IndexStore::Make(mem, "t.lance/_indices/one/"), o, {Texts(a), Texts(b)}, rows).ok());
  ASSERT_TRUE(WriteInvertedIndex(*IndexStore::Make(mem, "t.lance/_indices/par/"), o, {Texts(a), Texts(b)}, rows,
                                 pool->get())
                  .ok());
  auto one = InvertedIndex::Open(IndexStore::Make(mem, "t.lance/_indices/one/"));
  auto par = InvertedIndex::Open(IndexStore::Make(mem, "t.lance/_indices/par/"));
  ASSERT_TRUE(one.ok() && par.ok());
  const InvertedPartition& p1 = *(*one)->partitions()[0];
  const InvertedPartition& p2 = *(*par)->partitions()[0];
  ASSERT_EQ(p1.num_docs(), p2.num_docs());
  EXPECT_EQ(p1.total_tokens(), p2.total_tokens());
  for (uint32_t d = 0; d < p1.num_docs(); ++d) {
    ASSERT_EQ(p1.RowId(d), p2.RowId(d)) << d;
    ASSERT_EQ(p1.DocTokens(d), p2.DocTokens(d)) << d;
  }
  EXPECT_EQ(p1.tokens(), p2.tokens());
  for (const auto& [token, id] : p1.tokens()) {
    auto x = p1.Postings(id, true);
    auto y = p2.Postings(id, true);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_EQ(x->docs, y->docs) << token;
    EXPECT_EQ(x->freqs, y->freqs) << token;
    EXPECT_EQ(x->positions, y->positions) << token;
    EXPECT_EQ(x->block_max_scores, y->block_max_scores) << token;
  }
}

TEST(InvertedWrite, RefusesNonTextColumns) {
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "t.lance/_indices/u/");
  Int32Builder b(int32());
  ASSERT_TRUE(b.Append(1).ok());
  auto r = WriteInvertedIndex(*store, TokenizerOptions::Defaults(), {*b.Finish()}, {0});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

TEST(PostingCodec, LengthCodesAsTheReferenceStoresThem) {
  // observed in lance 12's impacts: exact below 16, then 4 significant bits
  const std::pair<uint32_t, uint32_t> seen[] = {{1, 1}, {7, 7}, {8, 8}, {15, 15}, {16, 16}, {17, 16}, {18, 17},
                                                {19, 17}, {20, 18}, {22, 19}, {23, 19}, {25, 20}};
  for (auto [len, code] : seen) EXPECT_EQ(LengthCode(len), code) << len;
  EXPECT_EQ(LengthCode(0), 0u);
  EXPECT_EQ(LengthCode(0xffffffffu), (29u << 3) | 7u);
}

TEST(PostingCodec, ImpactsAsTheReferenceEncodesThem) {
  // golden body_idx part 0, token 6 block 0: (1,4) (2,6) (3,9) (4,15) (5,16), last doc 235
  const uint32_t f[] = {1, 5, 2, 3, 4, 1, 2, 3};
  const uint32_t l[] = {4, 16, 6, 9, 15, 7, 8, 20};
  auto p = ParetoImpacts(f, l, 8);
  std::vector<std::pair<uint32_t, uint32_t>> want = {{1, 4}, {2, 6}, {3, 9}, {4, 15}, {5, 16}};
  EXPECT_EQ(p, want);
  const std::string e = EncodeImpacts(235, p);
  EXPECT_EQ(e, std::string("\xeb\x01\x05\x01\x04\x01\x02\x01\x03\x01\x06\x00", 12));
}

// Top-k OR search (MaxScore) on an index we write: the same rows and scores as every match
// sorted (Better) and cut, and a common token beside a rarer one is looked up for the rarer
// one's documents instead of being walked: most of its postings are never scored.
TEST(InvertedSearch, TopKOrScoresFewPostings) {
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "t.lance/_indices/k/");
  std::mt19937 rng(5);
  std::vector<std::optional<std::string>> text;
  const size_t n = 100000;
  for (size_t i = 0; i < n; ++i) {
    std::string s;
    const int len = 5 + static_cast<int>(rng() % 11);
    for (int j = 0; j < len; ++j) {
      const double x = std::uniform_real_distribution<double>(0, 1)(rng);
      s += (j ? " w" : "w") + std::to_string(static_cast<int>(x * x * x * 300));
    }
    text.push_back(std::move(s));
  }
  std::vector<uint64_t> rows(n);
  for (size_t i = 0; i < n; ++i) rows[i] = i;
  ASSERT_TRUE(WriteInvertedIndex(*store, TokenizerOptions::Defaults(), {Texts(text)}, rows).ok());
  auto opened = InvertedIndex::Open(IndexStore::Make(mem, "t.lance/_indices/k/"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const InvertedIndex& idx = **opened;
  const std::vector<std::vector<std::string>> queries = {
      {"w0", "w150"}, {"w0", "w1"}, {"w150", "w0", "w150"}, {"w2", "w40", "w250"}, {"w299", "w0"}};
  for (const auto& q : queries) {
    for (size_t k : {1, 10, 100}) {
      SearchStats top_stats, all_stats;
      auto top = idx.Search(q, {}, MatchMode::kAny, nullptr, k, nullptr, 0, &top_stats);
      auto all = idx.Search(q, {}, MatchMode::kAny, nullptr, 0, nullptr, 0, &all_stats);
      ASSERT_TRUE(top.ok() && all.ok());
      std::sort(all->begin(), all->end(), Better);
      ASSERT_GT(all->size(), k);
      all->resize(k);
      ASSERT_EQ(top->size(), k);
      for (size_t i = 0; i < k; ++i) {
        EXPECT_EQ((*top)[i].row_id, (*all)[i].row_id) << q[0] << " " << q[1] << " k " << k << " #" << i;
        EXPECT_EQ((*top)[i].score, (*all)[i].score) << q[0] << " " << q[1] << " k " << k << " #" << i;
      }
      EXPECT_LE(top_stats.scored, all_stats.scored);
      if (q == queries[0] && k == 10) {
        // every posting of w0 and w150 is a scored document without pruning
        uint64_t postings = idx.DocsWithToken("w0") + idx.DocsWithToken("w150");
        EXPECT_GE(all_stats.scored, idx.DocsWithToken("w0"));
        EXPECT_LT(top_stats.scored * 5, postings) << "scored " << top_stats.scored << " of " << postings;
      }
    }
  }
  // rows a filter refuses take no slot
  SearchStats st;
  auto even = idx.Search({"w0", "w150"}, {}, MatchMode::kAny, [](uint64_t r) { return r % 2 == 0; }, 10, nullptr, 0, &st);
  ASSERT_TRUE(even.ok());
  ASSERT_EQ(even->size(), 10u);
  for (const auto& h : *even) EXPECT_EQ(h.row_id % 2, 0u);
}

// Block-max top-k (one frequent token: most blocks skipped undecoded) and AND / phrase top-k
// (the rarest token walks, the others are sought, positions only for documents that could
// enter): the same rows and scores as every match sorted (Better) and cut, with and without a
// filter, on an index with positions we write.
TEST(InvertedSearch, BlockMaxAndPhraseTopKEqualEveryMatch) {
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "t.lance/_indices/p/");
  std::mt19937 rng(9);
  std::vector<std::optional<std::string>> text;
  const size_t n = 60000;
  for (size_t i = 0; i < n; ++i) {
    std::string s;
    const int len = 5 + static_cast<int>(rng() % 16);
    for (int j = 0; j < len; ++j) {
      const double x = std::uniform_real_distribution<double>(0, 1)(rng);
      s += (j ? " w" : "w") + std::to_string(static_cast<int>(x * x * x * 200));
    }
    text.push_back(std::move(s));
  }
  std::vector<uint64_t> rows(n);
  for (size_t i = 0; i < n; ++i) rows[i] = (uint64_t{2} << 32) + i;
  TokenizerOptions o = TokenizerOptions::Defaults();
  o.with_position = true;
  ASSERT_TRUE(WriteInvertedIndex(*store, o, {Texts(text)}, rows).ok());
  auto opened = InvertedIndex::Open(IndexStore::Make(mem, "t.lance/_indices/p/"));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const InvertedIndex& idx = **opened;
  struct Q {
    std::vector<std::string> tokens;
    std::vector<uint32_t> positions;
    MatchMode mode;
  };
  const std::vector<Q> queries = {{{"w0"}, {}, MatchMode::kAny},
                                  {{"w0", "w1"}, {0, 1}, MatchMode::kAll},
                                  {{"w0", "w90"}, {0, 1}, MatchMode::kAll},
                                  {{"w0", "w1"}, {0, 1}, MatchMode::kPhrase},
                                  {{"w1", "w0", "w2"}, {0, 1, 2}, MatchMode::kPhrase},
                                  {{"w3", "w150"}, {0, 1}, MatchMode::kPhrase}};
  const std::function<bool(uint64_t)> odd = [](uint64_t r) { return r % 2 == 1; };
  for (const auto& q : queries) {
    for (const auto* keep : {static_cast<const std::function<bool(uint64_t)>*>(nullptr), &odd}) {
      for (size_t k : {1, 10, 50}) {
        const std::function<bool(uint64_t)> none;
        SearchStats top_stats, all_stats;
        auto top = idx.Search(q.tokens, q.positions, q.mode, keep ? *keep : none, k, nullptr, 0, &top_stats);
        auto all = idx.Search(q.tokens, q.positions, q.mode, keep ? *keep : none, 0, nullptr, 0, &all_stats);
        ASSERT_TRUE(top.ok() && all.ok()) << top.status().ToString() << all.status().ToString();
        std::sort(all->begin(), all->end(), Better);
        ASSERT_GT(all->size(), 10u) << q.tokens[0] << " " << static_cast<int>(q.mode);
        all->resize(std::min(k, all->size()));
        ASSERT_EQ(top->size(), all->size());
        for (size_t i = 0; i < all->size(); ++i) {
          EXPECT_EQ((*top)[i].row_id, (*all)[i].row_id) << q.tokens[0] << " mode " << static_cast<int>(q.mode) << " k " << k << " #" << i;
          EXPECT_EQ((*top)[i].score, (*all)[i].score) << q.tokens[0] << " mode " << static_cast<int>(q.mode) << " k " << k << " #" << i;
        }
        EXPECT_LE(top_stats.scored, all_stats.scored);
        if (q.tokens.size() == 1 && k == 10 && !keep) {
          // w0 is in most rows: block-max leaves most of its blocks unscored
          EXPECT_LT(top_stats.scored * 5, idx.DocsWithToken("w0")) << "scored " << top_stats.scored;
        }
      }
    }
  }
}

// Two frequent tokens OR-ed (the rarer one essential, passed over a decoded block at a time
// while its exact score plus the other's block bound stays below the k-th score), on several
// random corpora with short documents repeating a word: top k equals every match sorted and
// cut, with and without a filter.
TEST(InvertedSearch, TwoFrequentOrTopKEqualsEveryMatch) {
  for (uint32_t seed : {11u, 23u, 47u}) {
    auto mem = io::MemoryObjectStore::Make();
    auto store = IndexStore::Make(mem, "t.lance/_indices/f/");
    std::mt19937 rng(seed);
    std::vector<std::optional<std::string>> text;
    const size_t n = 40000;
    for (size_t i = 0; i < n; ++i) {
      std::string s;
      const int len = 2 + static_cast<int>(rng() % 20);
      for (int j = 0; j < len; ++j) {
        const double x = std::uniform_real_distribution<double>(0, 1)(rng);
        s += (j ? " w" : "w") + std::to_string(static_cast<int>(x * x * 100));
      }
      text.push_back(std::move(s));
    }
    std::vector<uint64_t> rows(n);
    for (size_t i = 0; i < n; ++i) rows[i] = i;
    ASSERT_TRUE(WriteInvertedIndex(*store, TokenizerOptions::Defaults(), {Texts(text)}, rows).ok());
    auto opened = InvertedIndex::Open(IndexStore::Make(mem, "t.lance/_indices/f/"));
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    const InvertedIndex& idx = **opened;
    const std::function<bool(uint64_t)> none;
    const std::function<bool(uint64_t)> third = [](uint64_t r) { return r % 3 != 0; };
    const std::vector<std::vector<std::string>> queries = {{"w0", "w1"}, {"w1", "w0"}, {"w0", "w3"}, {"w2", "w5", "w2"}};
    for (const auto& q : queries) {
      for (const auto* keep : {&none, &third}) {
        for (size_t k : {1, 10, 50}) {
          SearchStats top_stats, all_stats;
          auto top = idx.Search(q, {}, MatchMode::kAny, *keep, k, nullptr, 0, &top_stats);
          auto all = idx.Search(q, {}, MatchMode::kAny, *keep, 0, nullptr, 0, &all_stats);
          ASSERT_TRUE(top.ok() && all.ok());
          std::sort(all->begin(), all->end(), Better);
          ASSERT_GT(all->size(), k);
          all->resize(k);
          ASSERT_EQ(top->size(), k);
          for (size_t i = 0; i < k; ++i) {
            EXPECT_EQ((*top)[i].row_id, (*all)[i].row_id) << "seed " << seed << " " << q[0] << " " << q[1] << " k " << k << " #" << i;
            EXPECT_EQ((*top)[i].score, (*all)[i].score) << "seed " << seed << " " << q[0] << " " << q[1] << " k " << k << " #" << i;
          }
          EXPECT_LE(top_stats.scored, all_stats.scored);
        }
      }
    }
  }
}

// An index of two partitions (the second half's segment as part_1_*, the metadata listing
// both) answers every top-k as one partition over the same rows: the same statistics, so the
// same rows and scores bit for bit; its bounds come from the blocks' `_impacts` (the stored
// block scores are over each partition's own statistics). OR, AND and phrase, k 1 / 10 / 50.
TEST(InvertedSearch, TwoPartitionsTopKEqualsOne) {
  auto mem = io::MemoryObjectStore::Make();
  std::mt19937 rng(7);
  const size_t n = 60000;
  std::vector<std::optional<std::string>> all, half[2];
  for (size_t i = 0; i < n; ++i) {
    std::string s;
    const int len = 2 + static_cast<int>(rng() % 24);
    for (int j = 0; j < len; ++j) {
      const double x = std::uniform_real_distribution<double>(0, 1)(rng);
      s += (j ? " w" : "w") + std::to_string(static_cast<int>(x * x * 300));
    }
    all.push_back(s);
    half[i < n / 2 ? 0 : 1].push_back(std::move(s));
  }
  std::vector<uint64_t> rows(n), rows_half[2];
  for (size_t i = 0; i < n; ++i) {
    rows[i] = i;
    rows_half[i < n / 2 ? 0 : 1].push_back(i);
  }
  TokenizerOptions o = TokenizerOptions::Defaults();
  o.with_position = true;
  ASSERT_TRUE(WriteInvertedIndex(*IndexStore::Make(mem, "t.lance/_indices/one/"), o, {Texts(all)}, rows).ok());
  ASSERT_TRUE(WriteInvertedIndex(*IndexStore::Make(mem, "t.lance/_indices/two/"), o, {Texts(half[0])}, rows_half[0]).ok());
  ASSERT_TRUE(WriteInvertedIndex(*IndexStore::Make(mem, "t.lance/_indices/b/"), o, {Texts(half[1])}, rows_half[1]).ok());
  for (const char* f : {"tokens", "docs", "invert"}) {
    auto bytes = mem->Get(std::string("t.lance/_indices/b/part_0_") + f + ".lance");
    ASSERT_TRUE(bytes.ok());
    ASSERT_TRUE(mem->Put(std::string("t.lance/_indices/two/part_1_") + f + ".lance",
                         std::string_view(reinterpret_cast<const char*>((*bytes)->data()), (*bytes)->size()))
                    .ok());
  }
  {
    auto two = IndexStore::Make(mem, "t.lance/_indices/two/");
    auto reader = two->OpenFile("metadata.lance");
    ASSERT_TRUE(reader.ok());
    auto batch = (*reader)->ReadAll();
    ASSERT_TRUE(batch.ok());
    auto meta = std::make_shared<KeyValueMetadata>(*(*reader)->schema()->metadata());
    meta->Set("partitions", "[0,1]");
    auto s = (*reader)->schema()->WithMetadata(meta);
    auto writer = two->CreateFile("metadata.lance", s);
    ASSERT_TRUE(writer.ok());
    auto rb = RecordBatch::Make(s, (*batch)->num_rows(), {(*batch)->column(0)});
    ASSERT_TRUE(rb.ok());
    ASSERT_TRUE((*writer)->Write(**rb).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  auto one = InvertedIndex::Open(IndexStore::Make(mem, "t.lance/_indices/one/"));
  auto two = InvertedIndex::Open(IndexStore::Make(mem, "t.lance/_indices/two/"));
  ASSERT_TRUE(one.ok() && two.ok()) << two.status().ToString();
  ASSERT_EQ((*two)->partitions().size(), 2u);
  ASSERT_EQ((*two)->num_docs(), (*one)->num_docs());
  const std::vector<std::vector<std::string>> queries = {{"w0", "w1"}, {"w1", "w7"}, {"w3", "w90"},
                                                         {"w2", "w5", "w2"}, {"w150", "w0"}};
  size_t compared = 0;
  for (const auto& q : queries) {
    std::vector<uint32_t> rel(q.size());
    for (size_t i = 0; i < q.size(); ++i) rel[i] = static_cast<uint32_t>(i);
    for (MatchMode mode : {MatchMode::kAny, MatchMode::kAll, MatchMode::kPhrase}) {
      for (size_t k : {1, 10, 50}) {
        auto a = (*one)->Search(q, rel, mode, nullptr, k);
        auto b = (*two)->Search(q, rel, mode, nullptr, k);
        ASSERT_TRUE(a.ok() && b.ok()) << b.status().ToString();
        ASSERT_EQ(a->size(), b->size()) << q[0] << " " << q[1] << " mode " << static_cast<int>(mode) << " k " << k;
        for (size_t i = 0; i < a->size(); ++i) {
          EXPECT_EQ((*a)[i].row_id, (*b)[i].row_id) << q[0] << " " << q[1] << " k " << k << " #" << i;
          EXPECT_EQ((*a)[i].score, (*b)[i].score) << q[0] << " " << q[1] << " k " << k << " #" << i;
        }
        compared += a->size();
      }
    }
  }
  EXPECT_GT(compared, 500u);
}

TEST(PostingCodec, ImpactsDecodeWhatTheyEncode) {
  const std::vector<std::pair<uint32_t, uint32_t>> pairs = {{1, 4}, {2, 6}, {3, 9}, {4, 15}, {5, 16}, {900, 200}};
  const std::string e = EncodeImpacts(70000, pairs);
  uint32_t last = 0;
  std::vector<std::pair<uint32_t, uint32_t>> got;
  ASSERT_TRUE(DecodeImpacts(e, &last, &got, "t").ok());
  EXPECT_EQ(last, 70000u);
  EXPECT_EQ(got, pairs);
  for (size_t cut = 0; cut < e.size(); ++cut) {
    got.clear();
    EXPECT_TRUE(DecodeImpacts(e.substr(0, cut), &last, &got, "t").IsCorruption()) << cut;
  }
  got.clear();
  EXPECT_TRUE(DecodeImpacts(e + "x", &last, &got, "t").IsCorruption());
  got.clear();
  EXPECT_TRUE(DecodeImpacts(std::string("\x01\x00", 2), &last, &got, "t").IsCorruption());  // no pair
  // the shortest length of each code: codes of lengths 1..5000 never exceed it
  for (uint32_t len = 1; len < 5000; ++len) {
    EXPECT_LE(MinLengthOfCode(LengthCode(len)), len) << len;
    EXPECT_EQ(LengthCode(MinLengthOfCode(LengthCode(len))), LengthCode(len)) << len;
  }
  EXPECT_EQ(MinLengthOfCode(LengthCode(0xffffffffu)), 0xf0000000u);
}

}  // namespace
}  // namespace lance::index::fts
