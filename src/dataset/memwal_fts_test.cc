// query::LsmTextSearch against a model of lance 12's LSM full-text search: each source (the
// base, each flushed generation, the WAL tail / a live MemTable) scored by BM25 with its own
// statistics (every row it holds: hidden duplicates too; tombstones hold no document), the
// newest row of each key only, a key replaced or deleted by a newer source never coming back
// from an older one, a filter on the text column (a newer row failing it hides an older one
// passing it), top k best first with ties by key. Random upserts, deletes and flushes; every
// consistency; a live writer's MemTable (its in-memory INVERTED postings) answers row for row
// and score for score as the WAL tail read from storage.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dataset/memwal_test_util.h"
#include "lance/dataset/dataset.h"
#include "lance/index/fts/inverted_index.h"
#include "lance/memwal/generation.h"
#include "lance/query/lsm_text_search.h"

// A namespace of its own: the dataset tests compile in unity batches, and lsm_test has its own Model.
namespace lance::memwal::lsm_test::fts {
namespace {

// Words the default tokenizer keeps whole (no stop word, stems distinct): a token is a word.
const std::vector<std::string> kWords = {"apple", "pear", "plum", "kiwi", "lemon", "mango", "grape", "melon"};

RecordBatchPtr TextBatch(const std::vector<int64_t>& ids, const std::vector<std::string>& texts) {
  Int64Builder a(int64());
  StringBuilder b(utf8());
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_TRUE(a.Append(ids[i]).ok());
    EXPECT_TRUE(b.Append(texts[i]).ok());
  }
  return std::make_shared<RecordBatch>(Rows(), static_cast<int64_t>(ids.size()),
                                       std::vector<ArrayPtr>{*a.Finish(), *b.Finish()});
}

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    if (end > at) out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// One source's corpus: the words of every row it holds (a tombstone: none).
struct Corpus {
  std::vector<std::vector<std::string>> docs;
  void Add(const std::string& text) { docs.push_back(Split(text)); }
  void AddTombstone() { docs.emplace_back(); }
};

struct Newest {
  std::string text;
  int source = 0;  // 0 the base, g a generation, -1 the tail
};

struct Model {
  Corpus base;
  std::vector<Corpus> generations{1};  // [0] unused
  Corpus tail;
  std::map<int64_t, Newest> rows;  // live keys

  const Corpus& Of(int source) const { return source < 0 ? tail : source == 0 ? base : generations[source]; }
};

struct Hit {
  int64_t id;
  float score;
};

bool PhraseIn(const std::vector<std::string>& doc, const std::vector<std::string>& phrase) {
  if (phrase.empty() || doc.size() < phrase.size()) return false;
  for (size_t i = 0; i + phrase.size() <= doc.size(); ++i) {
    if (std::equal(phrase.begin(), phrase.end(), doc.begin() + static_cast<std::ptrdiff_t>(i))) return true;
  }
  return false;
}

// The model's answer: the newest rows matching `q` (any word; every word in order for a
// phrase) and passing the filter "s < 'm'" (when `filtered`), each scored with its source's
// statistics, best first, ties by id; `tail` false: the tail is not read (eventual).
std::vector<Hit> ModelSearch(const Model& m, const std::string& q, bool phrase, size_t k, bool filtered,
                             bool with_tail, const Model& eventual) {
  const Model& src = with_tail ? m : eventual;
  std::vector<std::string> words;
  for (const auto& w : Split(q)) {
    if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
  }
  std::vector<Hit> out;
  for (const auto& [id, row] : src.rows) {
    if (filtered && !(row.text < "m")) continue;
    const std::vector<std::string> doc = Split(row.text);
    if (phrase && !PhraseIn(doc, Split(q))) continue;
    const Corpus& c = src.Of(row.source);
    uint64_t n = 0, total = 0;
    for (const auto& d : c.docs) {
      if (d.empty()) continue;
      ++n;
      total += d.size();
    }
    const float avgdl = index::fts::Bm25AvgDocLength(total, n);
    float score = 0.0f;
    bool any = false;
    for (const auto& w : words) {
      const auto freq = static_cast<uint32_t>(std::count(doc.begin(), doc.end(), w));
      if (freq == 0) continue;
      any = true;
      uint64_t df = 0;
      for (const auto& d : c.docs) df += std::find(d.begin(), d.end(), w) != d.end();
      score += index::fts::Bm25Idf(df, n) * index::fts::Bm25DocWeight(freq, static_cast<uint32_t>(doc.size()), avgdl);
    }
    if (any) out.push_back({id, score});
  }
  std::sort(out.begin(), out.end(), [](const Hit& a, const Hit& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  });
  if (out.size() > k) out.resize(k);
  return out;
}

// `q` (k set to `k`) over the LSM: ids and scores; `filtered` adds the filter "s < 'm'".
std::vector<Hit> SearchQuery(const Table& t, query::FullTextQuery fq, size_t k, Consistency c, bool filtered,
                             const MemWalWriter* live = nullptr, query::LsmTextSearchStats* stats = nullptr) {
  LsmReadOptions o;
  o.consistency = c;
  if (live) o.live_writers = {live};
  if (filtered) o.filter = "s < 'm'";
  o.columns = {"id"};
  fq.k = static_cast<int64_t>(k);
  auto r = query::LsmTextSearch(t.store, t.root, o, fq, stats);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<Hit> out;
  if (!r.ok()) return out;
  for (const auto& b : *r) {
    EXPECT_EQ(b->num_columns(), 2);
    EXPECT_EQ(b->schema()->field(1)->name(), "_score");
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.push_back({b->column(0)->Values<int64_t>()[i], b->column(1)->Values<float>()[i]});
    }
  }
  return out;
}

std::vector<Hit> Search(const Table& t, const std::string& q, bool phrase, size_t k, Consistency c, bool filtered,
                        const MemWalWriter* live = nullptr, query::LsmTextSearchStats* stats = nullptr) {
  return SearchQuery(t, phrase ? query::FullTextQuery::Phrase(q, "s") : query::FullTextQuery::Match(q, "s"), k, c,
                     filtered, live, stats);
}

bool Close(float a, float b) { return std::fabs(a - b) <= 1e-5f * std::max(1.0f, std::max(std::fabs(a), std::fabs(b))); }

// The same scores position by position, the same rows above the last score (its rows tie).
void ExpectSame(const std::vector<Hit>& got, const std::vector<Hit>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(Close(got[i].score, want[i].score))
        << what << ": row " << i << " id " << got[i].id << " score " << got[i].score << " vs " << want[i].id << " "
        << want[i].score;
  }
  if (got.empty()) return;
  const float last = want.back().score;
  auto above = [&](const std::vector<Hit>& v) {
    std::set<int64_t> s;
    for (const Hit& h : v) {
      if (h.score > last && !Close(h.score, last)) s.insert(h.id);
    }
    return s;
  };
  EXPECT_EQ(above(got), above(want)) << what;
  for (size_t i = 1; i < got.size(); ++i) {
    EXPECT_TRUE(got[i - 1].score > got[i].score || (got[i - 1].score == got[i].score && got[i - 1].id < got[i].id))
        << what << ": best first, ties by key at " << i;
  }
}

// A MemWAL table (key id, text s) of `rows` base rows `text()` makes, its INVERTED index on s
// (with positions) maintained, unsharded; `wo` the writer options that maintain it.
template <typename Text>
void MakeIndexedTable(const std::string& name, int64_t rows, Text&& text, Table* tp, Model* model,
                      MemWalWriterOptions* wo) {
  Table& t = *tp;
  t.dir = fs::temp_directory_path() / (name + std::to_string(::getpid()));
  fs::remove_all(t.dir);
  fs::create_directories(t.dir);
  const std::string uri = (t.dir / "t.lance").string();
  {
    std::vector<int64_t> ids;
    std::vector<std::string> texts;
    for (int64_t i = 0; i < rows; ++i) {
      ids.push_back(i);
      texts.push_back(text());
      model->base.Add(texts.back());
      model->rows[i] = {texts.back(), 0};
    }
    ASSERT_TRUE(table::WriteDataset(uri, Rows(), {TextBatch(ids, texts)}).ok());
  }
  auto w = io::ObjectStore::FromUri(uri);
  ASSERT_TRUE(w.ok());
  t.store = w->store;
  t.root = w->path;
  {
    auto ds = dataset::Dataset::Open(t.store, t.root);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    index::scalar::CreateScalarIndexOptions fts;
    fts.type = index::scalar::ScalarIndexType::kInverted;
    fts.fts.with_position = true;
    ASSERT_TRUE((*ds)->CreateScalarIndex("s", fts).ok());
  }
  EnableOptions eo;
  eo.primary_key = {"id"};
  eo.spec = UnshardedSpec();
  ASSERT_TRUE(EnableMemWal(t.store, t.root, eo).ok());
  SetMaintainedIndexes(t, {"s_idx"});
  auto base = table::Snapshot::Open(t.store, t.root);
  ASSERT_TRUE(base.ok());
  auto maintained = MaintainedIndexesOf(**base);
  ASSERT_TRUE(maintained.ok()) << maintained.status().ToString();
  ASSERT_EQ(maintained->built.size(), 1u);
  *wo = WriterOptions(t);
  wo->generation.maintained_indexes = maintained->built;
}

TEST(LsmTextSearch, EqualsAModelOfPerSourceScoringOverTheNewestRows) {
  Table t;
  std::mt19937 rng(12);
  auto text = [&]() {
    std::uniform_int_distribution<size_t> len(1, 5), word(0, kWords.size() - 1);
    std::string s;
    for (size_t i = 0, n = len(rng); i < n; ++i) s += (i ? " " : "") + kWords[word(rng)];
    return s;
  };
  Model model;
  MemWalWriterOptions wo;
  ASSERT_NO_FATAL_FAILURE(MakeIndexedTable("lance_lsm_fts_", 200, text, &t, &model, &wo));

  const std::vector<std::pair<std::string, bool>> queries = {
      {"apple", false}, {"pear plum", false}, {"kiwi lemon mango grape", false}, {"melon", false},
      {"apple pear", true}, {"plum kiwi", true}};
  Model eventual = model;
  auto check = [&](const std::string& stage, const MemWalWriter* live) {
    for (const auto& [q, phrase] : queries) {
      for (size_t k : {1, 7, 400}) {
        for (bool filtered : {false, true}) {
          const std::string what = stage + " '" + q + "'" + (phrase ? " phrase" : "") + " k" + std::to_string(k) +
                                   (filtered ? " s < 'm'" : "");
          const auto want = ModelSearch(model, q, phrase, k, filtered, true, eventual);
          ExpectSame(Search(t, q, phrase, k, Consistency::kStrong, filtered), want, what + " strong");
          ExpectSame(Search(t, q, phrase, k, Consistency::kEventual, filtered),
                     ModelSearch(model, q, phrase, k, filtered, false, eventual), what + " eventual");
          if (!live) continue;
          // The live MemTable's in-memory postings: the WAL tail's answer, bit for bit.
          query::LsmTextSearchStats st;
          const auto in_memory = Search(t, q, phrase, k, Consistency::kStrong, filtered, live, &st);
          const auto from_storage = Search(t, q, phrase, k, Consistency::kStrong, filtered);
          EXPECT_EQ(st.memtables, 1) << what;
          ASSERT_EQ(in_memory.size(), from_storage.size()) << what;
          for (size_t i = 0; i < in_memory.size(); ++i) {
            EXPECT_EQ(in_memory[i].id, from_storage[i].id) << what << " row " << i;
            EXPECT_EQ(in_memory[i].score, from_storage[i].score) << what << " row " << i;
          }
        }
      }
    }
  };

  {
    auto writer = MemWalWriter::Open(t.store, t.root, UnshardedShardId(), wo);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    auto& wr = **writer;
    for (int round = 0; round < 4; ++round) {
      std::uniform_int_distribution<int64_t> key(0, 299);
      for (int b = 0; b < 3; ++b) {
        std::vector<int64_t> ids;
        std::vector<std::string> texts;
        std::set<int64_t> used;
        while (ids.size() < 25) {
          const int64_t id = key(rng);
          if (!used.insert(id).second) continue;
          ids.push_back(id);
          texts.push_back(text());
          model.tail.Add(texts.back());
          model.rows[id] = {texts.back(), -1};
        }
        ASSERT_TRUE(wr.AppendAndWait(*TextBatch(ids, texts)).ok());
      }
      std::vector<int64_t> gone;
      std::set<int64_t> used;
      while (gone.size() < 8) {
        const int64_t id = key(rng);
        if (used.insert(id).second) gone.push_back(id);
      }
      ASSERT_TRUE(wr.AppendAndWait(*TextBatch(gone, std::vector<std::string>(gone.size(), "x")), true).ok());
      for (int64_t id : gone) {
        model.tail.AddTombstone();
        model.rows.erase(id);
      }
      check("round " + std::to_string(round) + " live", &wr);
      if (round == 3) break;  // the last round's rows stay unflushed
      ASSERT_TRUE(wr.Flush().ok());
      // The tail became generation round + 1.
      const int g = round + 1;
      model.generations.push_back(model.tail);
      model.tail = {};
      for (auto& [id, row] : model.rows) {
        if (row.source < 0) row.source = g;
      }
      eventual = model;
    }
    ASSERT_TRUE(wr.Close(false).ok());
  }
  check("closed", nullptr);
  // Explain names every source: the tail, three generations, the base.
  LsmReadOptions o;
  auto plan = query::ExplainLsmTextSearch(t.store, t.root, o, query::FullTextQuery::Match("apple", "s"));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_NE(plan->find("WAL tail of shard"), std::string::npos) << *plan;
  EXPECT_NE(plan->find("generation 3 of shard"), std::string::npos) << *plan;
  EXPECT_NE(plan->find("the base table"), std::string::npos) << *plan;
  EXPECT_NE(plan->find("local BM25"), std::string::npos) << *plan;
  fs::remove_all(t.dir);
}

// Every query kind the base answers -- fuzzy matches (edit distance, prefix, expansion cap,
// AND), boolean, boost, multi-match, boosted leaves, phrases inside trees -- over unflushed
// rows (the WAL tail read from storage, and a live writer's MemTable through its in-memory
// postings and term dictionary) equals the same search once those rows are flushed to a
// generation (our full-text search of that Lance dataset, its index's statistics): the rows,
// their order and their scores, with and without a filter, top k and every match.
TEST(LsmTextSearch, FuzzyAndCompoundQueriesOverUnflushedRowsEqualTheFlushedGeneration) {
  using query::FullTextQuery;
  using query::Occur;
  Table t;
  std::mt19937 rng(99);
  auto text = [&]() {
    std::uniform_int_distribution<size_t> len(1, 6), word(0, kWords.size() - 1);
    std::string s;
    for (size_t i = 0, n = len(rng); i < n; ++i) s += (i ? " " : "") + kWords[word(rng)];
    return s;
  };
  Model model;
  MemWalWriterOptions wo;
  ASSERT_NO_FATAL_FAILURE(MakeIndexedTable("lance_lsm_fts_tree_", 120, text, &t, &model, &wo));

  auto fuzzy = [](std::string q, uint32_t f, uint32_t prefix = 0, size_t expansions = 50, bool all = false) {
    FullTextQuery m = FullTextQuery::Match(std::move(q), "s", all);
    m.fuzziness = f;
    m.prefix_length = prefix;
    m.max_expansions = expansions;
    return m;
  };
  auto boosted = [](FullTextQuery q, float b) {
    q.boost = b;
    return q;
  };
  // The default tokenizer stems "apple" to "appl"; a fuzzy query is not stemmed.
  const std::vector<std::pair<std::string, FullTextQuery>> queries = {
      {"fuzzy appl~1", fuzzy("appl", 1)},
      {"fuzzy pearr~1", fuzzy("pearr", 1)},
      {"fuzzy lemon melon~2 (expansions repeat)", fuzzy("lemon melon", 2)},
      {"fuzzy plun kiwo~1 AND", fuzzy("plun kiwo", 1, 0, 50, true)},
      {"fuzzy melon~2 prefix 2", fuzzy("melon", 2, 2)},
      {"fuzzy lemon melon~2 one expansion", fuzzy("lemon melon", 2, 0, 1)},
      {"boolean must apple should pear must_not kiwi",
       FullTextQuery::Boolean({{Occur::kMust, FullTextQuery::Match("apple", "s")},
                               {Occur::kShould, FullTextQuery::Match("pear", "s")},
                               {Occur::kMustNot, FullTextQuery::Match("kiwi", "s")}})},
      {"boolean should phrase plum kiwi, should mango lemon",
       FullTextQuery::Boolean({{Occur::kShould, FullTextQuery::Phrase("plum kiwi", "s")},
                               {Occur::kShould, FullTextQuery::Match("mango lemon", "s")}})},
      {"boolean must fuzzy grapf~1 must_not melon",
       FullTextQuery::Boolean({{Occur::kMust, fuzzy("grapf", 1)}, {Occur::kMustNot, FullTextQuery::Match("melon", "s")}})},
      {"boost apple pear minus 0.3 plum",
       FullTextQuery::Boost(FullTextQuery::Match("apple pear", "s"), FullTextQuery::Match("plum", "s"), 0.3f)},
      {"multi-match apple melon boosts 1, 2.5", FullTextQuery::MultiMatch("apple melon", {"s", "s"}, {1.0f, 2.5f})},
      {"match kiwi grape boost 2", boosted(FullTextQuery::Match("kiwi grape", "s"), 2.0f)},
  };
  auto search = [&](const FullTextQuery& q, size_t k, Consistency c, bool filtered, const MemWalWriter* live,
                    const std::string& what, query::LsmTextSearchStats* st = nullptr) {
    SCOPED_TRACE(what);
    return SearchQuery(t, q, k, c, filtered, live, st);
  };
  std::map<std::string, std::vector<Hit>> unflushed;
  size_t matched = 0;
  {
    auto writer = MemWalWriter::Open(t.store, t.root, UnshardedShardId(), wo);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    auto& wr = **writer;
    std::uniform_int_distribution<int64_t> key(0, 179);
    for (int b = 0; b < 4; ++b) {
      std::vector<int64_t> ids;
      std::vector<std::string> texts;
      std::set<int64_t> used;
      while (ids.size() < 30) {
        const int64_t id = key(rng);
        if (!used.insert(id).second) continue;
        ids.push_back(id);
        texts.push_back(text());
      }
      ASSERT_TRUE(wr.AppendAndWait(*TextBatch(ids, texts)).ok());
    }
    ASSERT_TRUE(wr.AppendAndWait(*TextBatch({3, 50, 130}, {"x", "x", "x"}), true).ok());
    for (const auto& [name, q] : queries) {
      for (size_t k : {3, 1000}) {
        for (bool filtered : {false, true}) {
          const std::string what = name + " k" + std::to_string(k) + (filtered ? " s < 'm'" : "");
          const auto stored = search(q, k, Consistency::kStrong, filtered, nullptr, what + " (WAL tail)");
          query::LsmTextSearchStats st;
          const auto in_memory = search(q, k, Consistency::kStrong, filtered, &wr, what + " (MemTable)", &st);
          EXPECT_EQ(st.memtables, 1) << what;
          ASSERT_EQ(in_memory.size(), stored.size()) << what;
          for (size_t i = 0; i < stored.size(); ++i) {
            EXPECT_EQ(in_memory[i].id, stored[i].id) << what << " row " << i;
            EXPECT_EQ(in_memory[i].score, stored[i].score) << what << " row " << i;
          }
          // Rows the tail holds come back (the search of unflushed rows is not a no-op).
          if (k == 1000 && !filtered && !stored.empty()) ++matched;
          unflushed[what] = stored;
        }
      }
    }
    ASSERT_TRUE(wr.Flush().ok());
    ASSERT_TRUE(wr.Close(false).ok());
  }
  EXPECT_EQ(matched, queries.size()) << "every query matches rows";
  for (const auto& [name, q] : queries) {
    for (size_t k : {3, 1000}) {
      for (bool filtered : {false, true}) {
        const std::string what = name + " k" + std::to_string(k) + (filtered ? " s < 'm'" : "");
        ExpectSame(unflushed[what], search(q, k, Consistency::kEventual, filtered, nullptr, what + " flushed"),
                   what + ": unflushed = flushed");
      }
    }
  }
  fs::remove_all(t.dir);
}

// The in-memory postings count in the MemTable's bytes and keep the base index's tokenizer.
TEST(LsmTextSearch, MemTablePostingsAreCountedAndTokenizedAsTheBaseIndex) {
  auto wal_schema = schema({field("id", int64(), false), field("s", utf8()), field("_tombstone", boolean(), false)});
  index::fts::TokenizerOptions opts = index::fts::TokenizerOptions::Defaults();
  opts.with_position = true;
  auto plain = MemTable::Make(wal_schema, {"id"}, 1);
  auto mt = MemTable::Make(wal_schema, {"id"}, 1, {MemTableIndexSpec{"s_idx", "s", opts}});
  ASSERT_TRUE(plain.ok() && mt.ok()) << mt.status().ToString();
  EXPECT_EQ((*mt)->indexes().size(), 0u);
  ASSERT_EQ((*mt)->text_indexes().size(), 1u);
  auto batch = [&](std::vector<int64_t> ids, std::vector<std::string> texts) {
    Int64Builder a(int64());
    StringBuilder b(utf8());
    BooleanBuilder c(boolean());
    for (size_t i = 0; i < ids.size(); ++i) {
      EXPECT_TRUE(a.Append(ids[i]).ok());
      EXPECT_TRUE(b.Append(texts[i]).ok());
      EXPECT_TRUE(c.Append(false).ok());
    }
    return std::make_shared<RecordBatch>(wal_schema, static_cast<int64_t>(ids.size()),
                                         std::vector<ArrayPtr>{*a.Finish(), *b.Finish(), *c.Finish()});
  };
  for (auto* m : {&*plain, &*mt}) {
    ASSERT_TRUE((*m)->Insert(batch({1, 2, 3}, {"The Apples fell", "a pear and an apple", "plums"}), 1).ok());
    ASSERT_TRUE((*m)->Insert(batch({2}, {"apple apple"}), 2).ok());
  }
  EXPECT_GT((*mt)->bytes(), (*plain)->bytes());
  EXPECT_GT((*mt)->index_bytes(), 0);
  // "The Apples fell" -> apple, fell ("the" a stop word); "apples" stems to the query's token.
  auto m = (*mt)->MatchText((*mt)->num_rows(), "s", {"appl"});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->num_docs, 4u);           // every row, the hidden one of key 2 too
  EXPECT_EQ(m->total_tokens, 2u + 2u + 1u + 2u);  // stop words removed
  EXPECT_EQ(m->docs_with, std::vector<uint64_t>{3});
  ASSERT_EQ(m->docs.size(), 2u);        // key 1 and key 2's newest row
  EXPECT_EQ(m->docs[0].position, 0u);
  EXPECT_EQ(m->docs[1].position, 3u);
  EXPECT_EQ(m->docs[1].freq, std::vector<uint32_t>{2});
  EXPECT_EQ(m->docs[1].positions[0], (std::vector<uint32_t>{0, 1}));
  // As of the first batch: key 2's first row is its newest, the statistics of 3 rows.
  auto first = (*mt)->MatchText(3, "s", {"appl"});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->num_docs, 3u);
  ASSERT_EQ(first->docs.size(), 2u);
  EXPECT_EQ(first->docs[1].position, 1u);
  EXPECT_FALSE((*mt)->MatchText(4, "id", {"1"}).ok());
}

}  // namespace
}  // namespace lance::memwal::lsm_test::fts
