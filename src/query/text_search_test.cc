// Full-text search plans (lance/query/text_search.h) on lance 12's golden FTS table
// (tests/golden/fts_index/fts.lance): each row returned is scored again here from its text
// (tokenized with the index's tokenizer) and the corpus statistics -- the index's for the
// fragments it covers, the index's plus the live unindexed rows' for the others -- and must
// match exactly; every live row holding a query token comes back; deleted rows never; the
// filter selects the rows searched; k cuts the list; errors name what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "lance/index/fts/inverted_index.h"
#include "lance/index/index_metadata.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::query {
namespace {

namespace fs = std::filesystem;
namespace fts = index::fts;
const fs::path kTextSearchGolden = fs::path(__FILE__).parent_path() / "../../tests/golden/fts_index/fts.lance";

std::shared_ptr<const table::Snapshot> Golden() {
  auto s = table::Snapshot::Open(kTextSearchGolden.string());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

struct TextHit {
  int64_t id;
  uint64_t addr;
  float score;
};

Result<std::vector<TextHit>> TextSearchRows(const std::shared_ptr<const table::Snapshot>& snap, FullTextQuery q,
                                std::string filter = "") {
  query::ScanOptions o;
  o.columns = {"id"};
  o.with_row_addr = true;
  o.filter = std::move(filter);
  o.full_text = std::move(q);
  LANCE_ASSIGN_OR_RAISE(Scanner sc, Scanner::Make(snap, o));
  EXPECT_EQ(sc.schema()->field(sc.schema()->num_fields() - 1)->name(), "_score");
  LANCE_ASSIGN_OR_RAISE(auto batches, sc.ToBatches());
  std::vector<TextHit> out;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.push_back({b->column(0)->Values<int64_t>()[i], b->column(1)->Values<uint64_t>()[i],
                     b->column(2)->Values<float>()[i]});
    }
  }
  return out;
}

// The expected hits of an OR / AND match on `column`, computed from the rows' text.
std::vector<TextHit> Expected(const std::shared_ptr<const table::Snapshot>& snap, const std::string& index_name,
                          const std::string& column, const std::string& text, bool all, const std::set<int64_t>* only) {
  const table::IndexInfo* info = nullptr;
  for (const auto& i : snap->manifest().indices) {
    if (i.name == index_name) info = &i;
  }
  EXPECT_NE(info, nullptr);
  auto idx = fts::InvertedIndex::Open(index::OpenIndexStore(snap->location(), *info));
  EXPECT_TRUE(idx.ok()) << idx.status().ToString();
  auto tok = fts::Tokenizer::Make((*idx)->options());
  std::vector<fts::Token> qt;
  EXPECT_TRUE((*tok)->Tokenize(text, &qt).ok());
  const std::set<uint32_t> covered(info->fragment_ids.begin(), info->fragment_ids.end());

  query::ScanOptions o;
  o.columns = {"id", column};
  o.with_row_addr = true;
  auto batches = table::ScanBatches(snap, o);
  EXPECT_TRUE(batches.ok());
  struct Doc {
    int64_t id;
    uint64_t addr;
    bool indexed;
    uint32_t len;
    std::map<std::string, uint32_t> freq;
  };
  std::vector<Doc> docs;
  uint64_t flat_docs = 0, flat_tokens = 0;
  std::map<std::string, uint64_t> flat_with;
  for (const auto& b : *batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      const int64_t id = b->column(0)->Values<int64_t>()[r];
      if (only && !only->count(id)) continue;
      if (b->column(1)->IsNull(r)) continue;
      std::vector<fts::Token> toks;
      EXPECT_TRUE((*tok)->Tokenize(b->column(1)->GetView(r), &toks).ok());
      if (toks.empty()) continue;
      Doc d{id, b->column(2)->Values<uint64_t>()[r], false, static_cast<uint32_t>(toks.size()), {}};
      d.indexed = covered.count(static_cast<uint32_t>(d.addr >> 32)) != 0;
      for (const auto& t : toks) ++d.freq[t.text];
      if (!d.indexed) {
        ++flat_docs;
        flat_tokens += toks.size();
        for (const auto& [t, f] : d.freq) ++flat_with[t];
      }
      docs.push_back(std::move(d));
    }
  }
  std::vector<TextHit> out;
  for (const Doc& d : docs) {
    const uint64_t n_docs = (*idx)->num_docs() + (d.indexed ? 0 : flat_docs);
    const uint64_t n_tokens = (*idx)->total_tokens() + (d.indexed ? 0 : flat_tokens);
    const float avgdl = fts::Bm25AvgDocLength(n_tokens, n_docs);
    float score = 0;
    size_t present = 0;
    for (const auto& t : qt) {
      auto it = d.freq.find(t.text);
      if (it == d.freq.end()) continue;
      ++present;
      const uint64_t with = (*idx)->DocsWithToken(t.text) + (d.indexed ? 0 : flat_with[t.text]);
      score += fts::Bm25Idf(with, n_docs) * fts::Bm25DocWeight(it->second, d.len, avgdl);
    }
    if (present == 0 || (all && present != qt.size())) continue;
    out.push_back({d.id, d.addr, score});
  }
  std::sort(out.begin(), out.end(), [](const TextHit& a, const TextHit& b) {
    return a.score != b.score ? a.score > b.score : a.addr < b.addr;
  });
  return out;
}

void ExpectSame(const std::vector<TextHit>& got, const std::vector<TextHit>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, want[i].id) << what << " row " << i;
    EXPECT_EQ(got[i].addr, want[i].addr) << what << " row " << i;
    EXPECT_EQ(got[i].score, want[i].score) << what << " row " << i << " id " << got[i].id;
  }
}

TEST(TextSearch, MatchesScoredFromTheText) {
  auto snap = Golden();
  ASSERT_NE(snap, nullptr);
  for (const auto& [text, all] : std::vector<std::pair<std::string, bool>>{
           {"lance", false}, {"lance search", false}, {"lance search", true}, {"river storm zebra", false},
           {"Running", false}, {"café", false}}) {
    auto got = TextSearchRows(snap, {text, {"body"}, 1000, all, false});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectSame(*got, Expected(snap, "body_idx", "body", text, all, nullptr), text);
    EXPECT_FALSE(got->empty()) << text;
    // the best k are the head of the list
    auto top = TextSearchRows(snap, {text, {"body"}, 3, all, false});
    ASSERT_TRUE(top.ok());
    ExpectSame(*top, std::vector<TextHit>(got->begin(), got->begin() + std::min<size_t>(3, got->size())), text + " k=3");
  }
  auto title = TextSearchRows(snap, {"search engine", {"title"}, 1000, false, false});
  ASSERT_TRUE(title.ok());
  ExpectSame(*title, Expected(snap, "title_idx", "title", "search engine", false, nullptr), "title");
}

TEST(TextSearch, FilterSelectsTheRowsSearched) {
  auto snap = Golden();
  auto got = TextSearchRows(snap, {"lance search", {"body"}, 1000, false, false}, "id % 3 = 1");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  std::set<int64_t> only;
  for (int64_t i = 1; i < 1000; i += 3) only.insert(i);
  ExpectSame(*got, Expected(snap, "body_idx", "body", "lance search", false, &only), "filtered");
}

TEST(TextSearch, PhraseIsAnOrderedAllMatch) {
  auto snap = Golden();
  auto phrase = TextSearchRows(snap, {"quick fox", {"body"}, 1000, false, true});
  auto both = TextSearchRows(snap, {"quick fox", {"body"}, 1000, true, false});
  ASSERT_TRUE(phrase.ok()) << phrase.status().ToString();
  ASSERT_TRUE(both.ok());
  ASSERT_FALSE(phrase->empty());
  EXPECT_LT(phrase->size(), both->size());
  // a phrase hit is an AND hit with the same score
  std::map<uint64_t, float> and_scores;
  for (const TextHit& h : *both) and_scores[h.addr] = h.score;
  for (const TextHit& h : *phrase) {
    ASSERT_TRUE(and_scores.count(h.addr)) << h.id;
    EXPECT_EQ(and_scores[h.addr], h.score);
  }
}

TEST(TextSearch, Errors) {
  auto snap = Golden();
  auto st = [&](FullTextQuery q, int64_t offset = 0) {
    query::ScanOptions o;
    o.full_text = std::move(q);
    o.offset = offset;
    auto sc = Scanner::Make(snap, o);
    if (!sc.ok()) return sc.status();
    return sc->ToBatches().status();
  };
  EXPECT_TRUE(st({"lance", {"body"}, 10, false, false}, 2).IsInvalidArgument());
  EXPECT_TRUE(st({"lance", {"body"}, 0, false, false}).IsInvalidArgument());
  EXPECT_TRUE(st({"lance", {"id"}, 10, false, false}).IsInvalidArgument());
  EXPECT_TRUE(st({"lance search", {}, 10, false, true}).IsInvalidArgument()) << "a phrase, two indexed columns";
  const Status phrase = st({"search engine", {"title"}, 10, false, true});
  EXPECT_TRUE(phrase.IsInvalidArgument()) << phrase.ToString();
  EXPECT_NE(phrase.message().find("without positions"), std::string::npos) << phrase.ToString();
  // words no row holds, stop words only: no rows, no error
  EXPECT_TRUE(st({"nonexistentword", {"body"}, 10, false, false}).ok());
  EXPECT_TRUE(st({"the", {"body"}, 10, false, false}).ok());
}

TEST(TextSearch, Explain) {
  auto snap = Golden();
  query::ScanOptions o;
  o.full_text = FullTextQuery{"lance", {"body"}, 5, true, false};
  o.filter = "id > 3";
  auto sc = Scanner::Make(snap, o);
  ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  const std::string plan = sc->Explain();
  EXPECT_NE(plan.find("FullTextSearch: match query [lance] on column body by body_idx@"), std::string::npos) << plan;
  EXPECT_NE(plan.find("operator AND"), std::string::npos) << plan;
  EXPECT_NE(plan.find("flat search of unindexed fragments"), std::string::npos) << plan;
  EXPECT_NE(plan.find("prefilter \"id > 3\""), std::string::npos) << plan;
}

}  // namespace
}  // namespace lance::query
