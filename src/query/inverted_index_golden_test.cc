// The reader of lance 12's inverted index against the table it indexed
// (tests/golden/fts_index/fts.lance, written by its gen.mjs through the reference): every live
// row the index covers (read through the query layer), tokenized by our tokenizer with the
// index's params, must be a document with that token count and exactly those postings
// (frequencies, positions); the statistics are the sums over the partitions. (Moved from
// src/index/fts/inverted_index_test.cc: the index layer reads no rows.)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "lance/index/fts/inverted_index.h"
#include "lance/index/index_metadata.h"
#include "lance/table/snapshot.h"
#include "table_fixtures/fts_golden_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::index::fts {
namespace {

// Documents per packed posting block (lance 12's BLOCK_SIZE; index/fts/posting_codec.h).
constexpr size_t kPackedBlock = 128;
using fts_golden::Golden;
using fts_golden::OpenGolden;

// row address -> text of the live rows of the fragments `info` covers
std::map<uint64_t, std::optional<std::string>> LiveText(const std::shared_ptr<const table::Snapshot>& snap, const table::IndexInfo& info,
                                                        const std::string& column) {
  query::ScanOptions o;
  o.columns = {column};
  o.with_row_addr = true;
  o.fragment_ids = std::vector<uint64_t>(info.fragment_ids.begin(), info.fragment_ids.end());
  auto batches = table::ScanBatches(snap, o);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  std::map<uint64_t, std::optional<std::string>> out;
  if (!batches.ok()) return out;
  for (const auto& b : *batches) {
    const Array& text = *b->column(0);
    const Array& addr = *b->column(1);
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out[addr.Values<uint64_t>()[i]] =
          text.IsValid(i) ? std::optional<std::string>(std::string(text.GetView(i))) : std::nullopt;
    }
  }
  return out;
}

void CheckIndex(const Golden& g, const std::string& name, const std::string& column, bool positions) {
  ASSERT_TRUE(g.by_name.count(name)) << name;
  const table::IndexInfo& info = *g.by_name.at(name);
  auto store = OpenIndexStore(g.snap->location(), info);
  auto index = InvertedIndex::Open(store);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  const InvertedIndex& idx = **index;
  EXPECT_EQ(idx.with_position(), positions);
  ASSERT_EQ(idx.partitions().size(), 2u) << "the golden's optimize adds a second partition";
  auto tok = Tokenizer::Make(idx.options());
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();

  // expected: per live row with tokens, token -> positions
  const auto text = LiveText(g.snap, info, column);
  std::map<uint64_t, std::map<std::string, std::vector<uint32_t>>> want;
  std::map<uint64_t, uint32_t> want_len;
  for (const auto& [addr, t] : text) {
    if (!t) continue;
    std::vector<Token> toks;
    ASSERT_TRUE((*tok)->Tokenize(*t, &toks).ok());
    if (toks.empty()) continue;
    for (const Token& k : toks) want[addr][k.text].push_back(k.position);
    want_len[addr] = static_cast<uint32_t>(toks.size());
  }
  ASSERT_GT(want.size(), 300u);

  // got: the index's documents and postings, restricted to live rows
  std::map<uint64_t, std::map<std::string, std::vector<uint32_t>>> got;
  std::map<uint64_t, uint32_t> got_len;
  uint64_t docs = 0, total = 0;
  size_t full_blocks = 0;
  for (const auto& part : idx.partitions()) {
    docs += part->num_docs();
    total += part->total_tokens();
    for (uint32_t d = 0; d < part->num_docs(); ++d) {
      if (text.count(part->RowId(d))) got_len[part->RowId(d)] = part->DocTokens(d);
    }
    for (const auto& [token, id] : part->tokens()) {
      auto pl = part->Postings(id, true);
      ASSERT_TRUE(pl.ok()) << pl.status().ToString();
      ASSERT_EQ(pl->docs.size(), part->PostingLength(id));
      EXPECT_EQ(pl->has_positions, positions);
      full_blocks += pl->docs.size() / kPackedBlock;
      float best = 0;
      for (float s : pl->block_max_scores) best = std::max(best, s);
      EXPECT_EQ(best, part->MaxScore(id)) << token;
      for (size_t i = 0; i < pl->docs.size(); ++i) {
        const uint64_t row = part->RowId(pl->docs[i]);
        if (!text.count(row)) continue;  // deleted since the index was built
        auto& v = got[row][token];
        if (positions) {
          ASSERT_EQ(pl->pos_start[i + 1] - pl->pos_start[i], pl->freqs[i]);
          v.assign(pl->positions.begin() + pl->pos_start[i], pl->positions.begin() + pl->pos_start[i + 1]);
        } else {
          v.assign(pl->freqs[i], 0);
        }
      }
    }
  }
  if (positions) {
    EXPECT_GT(full_blocks, 2u) << "the body index must hold full 128-document blocks";
  }
  EXPECT_EQ(idx.num_docs(), docs);
  EXPECT_EQ(idx.total_tokens(), total);
  EXPECT_EQ(got_len, want_len);
  if (!positions) {
    for (auto& [row, m] : want) {
      for (auto& [t, p] : m) std::fill(p.begin(), p.end(), 0u);
    }
  }
  EXPECT_TRUE(got == want) << name << ": postings differ from the tokenized rows";
}

TEST(InvertedIndexGolden, BodyWithPositions) { CheckIndex(OpenGolden(), "body_idx", "body", true); }
TEST(InvertedIndexGolden, TitleWithoutPositions) { CheckIndex(OpenGolden(), "title_idx", "title", false); }

}  // namespace
}  // namespace lance::index::fts
