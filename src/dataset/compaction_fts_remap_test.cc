// Compaction remaps INVERTED (full-text) indexes without stable row ids, as lance 12 does
// (index/fts/inverted_writer.h RemapInvertedIndex): the remapped segment answers every query
// exactly as an index rebuilt from the rows it covers after the compaction (same rows, same
// BM25 scores, bit for bit: the statistics lost the deleted documents), on lance 12's golden
// table (two partitions per index, rows it does not cover, deletions) and on an index we
// built (with positions, several groups, a fragment the compaction keeps, a token whose
// documents were all deleted). The files against lance 12's: interop
// table_compact_remap_fts.test.mjs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/dataset/dataset.h"
#include "lance/index/fts/inverted_index.h"
#include "lance/index/fts/inverted_writer.h"
#include "lance/index/index_metadata.h"
#include "lance/index/scalar/create.h"
#include "lance/io/memory_object_store.h"
#include "lance/table/write.h"
#include "table_fixtures/scan_test_util.h"
#include "table_fixtures/status_test_util.h"

namespace lance::dataset {
namespace {

namespace fs = std::filesystem;
using index::fts::InvertedIndex;
using index::fts::MatchMode;

const fs::path kFtsRemapGolden = fs::path(__FILE__).parent_path() / "../../tests/golden/fts_index/fts.lance";

std::string FtsRemapDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("lance_fts_remap_test_{}_{}", name, ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

const table::IndexInfo* FtsRemapIndex(const Dataset& ds, const std::string& name) {
  for (const auto& x : ds.snapshot()->manifest().indices) {
    if (x.name == name) return &x;
  }
  return nullptr;
}

// The index `info` rebuilt in memory from the live rows of `column` matching `filter`, at
// their current addresses, with `options`.
Result<std::shared_ptr<const InvertedIndex>> FtsRemapRebuild(const Dataset& ds, const std::string& column,
                                                             const std::string& filter,
                                                             const index::fts::TokenizerOptions& options) {
  query::ScanOptions o;
  o.columns = {column};
  o.filter = filter;
  o.with_row_addr = true;
  o.batch_size = table::kWholeFragment;
  o.use_index = false;
  LANCE_ASSIGN_OR_RAISE(auto scanner, ds.NewScan(o));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
  std::vector<ArrayPtr> texts;
  std::vector<uint64_t> rows;
  for (const auto& b : batches) {
    texts.push_back(b->column(0));
    const uint64_t* a = b->column(1)->Values<uint64_t>();
    rows.insert(rows.end(), a, a + b->num_rows());
  }
  auto store = index::IndexStore::Make(io::MemoryObjectStore::Make(), "rebuilt");
  LANCE_RETURN_NOT_OK(index::fts::WriteInvertedIndex(*store, options, texts, rows).status());
  return InvertedIndex::Open(store);
}

// Every match of `text` in `mode`, sorted by row id.
Result<std::vector<index::fts::ScoredRow>> FtsRemapSearch(const InvertedIndex& index, const std::string& text,
                                                          MatchMode mode) {
  LANCE_ASSIGN_OR_RAISE(auto tokenizer, index::fts::Tokenizer::Make(index.options()));
  std::vector<index::fts::Token> toks;
  LANCE_RETURN_NOT_OK(tokenizer->Tokenize(text, &toks));
  std::vector<std::string> tokens;
  std::vector<uint32_t> positions;
  for (const auto& t : toks) {
    tokens.push_back(t.text);
    positions.push_back(t.position - toks.front().position);
  }
  LANCE_ASSIGN_OR_RAISE(auto rows, index.Search(tokens, mode == MatchMode::kPhrase ? positions : std::vector<uint32_t>{},
                                                mode, nullptr, 0));
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.row_id < b.row_id; });
  return rows;
}

// The remapped `name` of `ds` equals its rebuild over the rows matching `covered`: statistics,
// documents in the new fragments only, and every query's rows and scores.
void ExpectFtsRemapEqualsRebuild(const Dataset& ds, const std::string& name, const std::string& column,
                                 const std::string& covered, const std::vector<std::string>& queries,
                                 const std::vector<uint32_t>& fragments) {
  const table::IndexInfo* info = FtsRemapIndex(ds, name);
  ASSERT_NE(info, nullptr) << name;
  EXPECT_EQ(info->fragment_ids, fragments) << name;
  TEST_ASSIGN(auto remapped, InvertedIndex::Open(index::OpenIndexStore(ds.snapshot()->location(), *info)));
  TEST_ASSIGN(auto rebuilt, FtsRemapRebuild(ds, column, covered, remapped->options()));
  EXPECT_EQ(remapped->num_docs(), rebuilt->num_docs()) << name;
  EXPECT_EQ(remapped->total_tokens(), rebuilt->total_tokens()) << name;
  size_t docs = 0;
  for (const auto& part : remapped->partitions()) {
    for (uint32_t d = 0; d < part->num_docs(); ++d, ++docs) {
      EXPECT_TRUE(std::binary_search(fragments.begin(), fragments.end(), static_cast<uint32_t>(part->RowId(d) >> 32)))
          << name << ": row " << part->RowId(d);
    }
    // Every token the partition keeps has documents.
    for (uint32_t t = 0; t < part->num_tokens(); ++t) EXPECT_GT(part->PostingLength(t), 0u) << name << " token " << t;
  }
  EXPECT_EQ(docs, rebuilt->num_docs());
  size_t matched = 0;
  for (const auto& q : queries) {
    for (MatchMode mode : {MatchMode::kAny, MatchMode::kAll, MatchMode::kPhrase}) {
      if (mode == MatchMode::kPhrase && !remapped->with_position()) continue;
      TEST_ASSIGN(auto got, FtsRemapSearch(*remapped, q, mode));
      TEST_ASSIGN(auto want, FtsRemapSearch(*rebuilt, q, mode));
      ASSERT_EQ(got.size(), want.size()) << name << ": " << q << " mode " << static_cast<int>(mode);
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].row_id, want[i].row_id) << name << ": " << q;
        EXPECT_EQ(got[i].score, want[i].score) << name << ": " << q << " row " << got[i].row_id;
      }
      matched += got.size();
    }
  }
  EXPECT_GT(matched, 0u) << name;
}

// lance 12's golden: fragments 0 and 1 indexed as two partitions (with deletions they hold),
// fragment 2 unindexed. [0, 1] is compacted into one fragment; both indexes keep their two
// partitions over it.
TEST(Compaction, RemapsLanceInvertedIndexesWithTwoPartitions) {
  const std::string dir = FtsRemapDir("golden");
  fs::copy(kFtsRemapGolden, dir + "/fts.lance", fs::copy_options::recursive);
  const std::string uri = dir + "/fts.lance";
  TEST_ASSIGN(auto ds, Dataset::Open(uri));
  ASSERT_EQ(ds->snapshot()->manifest().fragments.size(), 3u);
  ASSERT_EQ(FtsRemapIndex(*ds, "body_idx")->fragment_ids, (std::vector<uint32_t>{0, 1}));
  const uint64_t old_docs = [&] {
    auto x = InvertedIndex::Open(index::OpenIndexStore(ds->snapshot()->location(), *FtsRemapIndex(*ds, "body_idx")));
    return x.ok() ? (*x)->num_docs() : 0;
  }();
  CompactionOptions o;
  o.target_rows_per_fragment = 100000;
  TEST_ASSIGN(auto r, ds->Compact(o));
  EXPECT_EQ(r.fragments_removed, 2u);
  TEST_ASSIGN(ds, Dataset::Open(uri));
  ASSERT_EQ(ds->snapshot()->manifest().fragments.size(), 2u);
  const auto frag = static_cast<uint32_t>(ds->snapshot()->manifest().fragments[0].id);
  EXPECT_EQ(frag, 3u);
  const std::vector<std::string> queries = {"lance", "quick fox", "the data", "vector search index", "zebra",
                                            "columnar format fast", "brown dog jumps"};
  // Rows 0..549 were indexed (550.. appended after the index).
  ExpectFtsRemapEqualsRebuild(*ds, "body_idx", "body", "id < 550", queries, {frag});
  ExpectFtsRemapEqualsRebuild(*ds, "title_idx", "title", "id < 550", queries, {frag});
  TEST_ASSIGN(auto body,
              InvertedIndex::Open(index::OpenIndexStore(ds->snapshot()->location(), *FtsRemapIndex(*ds, "body_idx"))));
  EXPECT_EQ(body->partitions().size(), 2u);
  EXPECT_LT(body->num_docs(), old_docs);  // the rows deleted after the build are gone
  fs::remove_all(dir);
}

// Our index with positions over fragments 0..3 (100 rows each), rows deleted in 0, 1 and 3
// (among them every 'zebra' there), a fragment appended unindexed; the compaction rewrites
// [0, 1] and [3] and keeps 2, so the remapped documents are moved and unmoved rows.
TEST(Compaction, RemapsOurInvertedIndexWithPositions) {
  const std::string dir = FtsRemapDir("ours");
  const std::string uri = dir + "/t.lance";
  auto sch = schema({field("id", int64(), false), field("body", utf8())});
  const std::vector<std::string> words = {"apple", "banana", "cherry", "dog", "egg", "fig", "grape", "house"};
  auto rows = [&](int lo, int n) {
    std::string json = "[";
    for (int i = lo; i < lo + n; ++i) {
      std::string body = fmt::format("\"{} {} the {} {} w{}{}\"", words[i % 8], words[(i * 3) % 8], words[(i * 5) % 7],
                                     words[i % 8], i % 13, i % 40 == 0 && (i < 200 || i >= 300) ? " zebra" : "");
      if (i % 17 == 4) body = "null";
      json += fmt::format("{}{{\"id\":{},\"body\":{}}}", i > lo ? "," : "", i, body);
    }
    return RecordBatchFromJSON(sch, json + "]");
  };
  {
    TEST_ASSIGN(auto b, rows(0, 400));
    table::WriteParams p;
    p.max_rows_per_file = 100;
    TEST_OK(table::WriteDataset(uri, sch, std::vector<RecordBatchPtr>{b}, p).status());
  }
  TEST_ASSIGN(auto ds, Dataset::Open(uri));
  index::scalar::CreateScalarIndexOptions io;
  io.type = index::scalar::ScalarIndexType::kInverted;
  io.fts = index::fts::TokenizerOptions::Defaults();
  io.fts.with_position = true;
  TEST_OK(ds->CreateScalarIndex("body", io).status());
  {
    TEST_ASSIGN(auto b, rows(400, 60));
    table::WriteParams p;
    p.mode = table::WriteMode::kAppend;
    TEST_OK(table::WriteDataset(uri, sch, std::vector<RecordBatchPtr>{b}, p).status());  // fragment 4, unindexed
  }
  TEST_ASSIGN(ds, Dataset::Open(uri));
  TEST_OK(ds->Delete("(id < 200 AND (id % 7 = 3 OR id % 40 = 0)) OR (id >= 300 AND id < 330) OR (id >= 330 AND id % 40 = 0)").status());
  const std::string old_uuid = FtsRemapIndex(*ds, "body_idx")->uuid;
  CompactionOptions o;
  o.target_rows_per_fragment = 100;
  TEST_ASSIGN(auto r, ds->Compact(o));
  TEST_ASSIGN(ds, Dataset::Open(uri));
  const table::IndexInfo* info = FtsRemapIndex(*ds, "body_idx");
  ASSERT_NE(info, nullptr);
  EXPECT_NE(info->uuid, old_uuid);
  // [0, 1] -> 5 (100 rows), 6; 2 kept (no deletions, not small); [3] -> 7; the unindexed [4]
  // -> 8 (a group of its own: groups never mix index coverage).
  std::vector<std::pair<uint64_t, uint64_t>> frags;
  for (const auto& f : ds->snapshot()->manifest().fragments) frags.emplace_back(f.id, f.physical_rows);
  EXPECT_EQ(frags, (std::vector<std::pair<uint64_t, uint64_t>>{{5, 100}, {6, 67}, {2, 100}, {7, 69}, {8, 58}}));
  ExpectFtsRemapEqualsRebuild(*ds, "body_idx", "body", "id < 400",
                              {"apple", "dog egg", "zebra", "banana the cherry", "w3 house", "fig grape w12"},
                              {2, 5, 6, 7});
  // Every 'zebra' row was deleted: the token left the dictionary (the old segment had it).
  TEST_ASSIGN(auto remapped, InvertedIndex::Open(index::OpenIndexStore(ds->snapshot()->location(), *info)));
  TEST_ASSIGN(auto before, InvertedIndex::Open(index::OpenIndexStore(ds->snapshot()->location(), old_uuid)));
  EXPECT_EQ(before->DocsWithToken("zebra"), 7u);  // ids 0, 40, .., 160, 320, 360
  EXPECT_EQ(remapped->DocsWithToken("zebra"), 0u);
  ASSERT_EQ(remapped->partitions().size(), 1u);
  EXPECT_FALSE(remapped->partitions()[0]->TokenId("zebra").has_value());
  EXPECT_EQ(remapped->partitions()[0]->num_tokens() + 1, before->partitions()[0]->num_tokens());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lance::dataset
