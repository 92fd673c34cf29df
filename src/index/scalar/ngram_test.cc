// NGRAM files we write, read back: tokens encoded as lance 12 encodes them (base 37 of
// lower-cased, ASCII-folded alphanumeric trigrams), one row per token ascending, the null
// rows under token 0, posting lists in the RoaringTreemap form; every contains() search a
// superset of the rows that hold the needle (brute force over the training rows) that
// prunes; damaged files reported as Corruption.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/builder.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/ngram.h"
#include "lance/io/memory_object_store.h"

namespace lance::index::scalar {
namespace {

uint32_t Token(const char* t) {
  auto d = [](char c) -> uint32_t { return c <= '9' ? uint32_t(c - '0') + 1 : uint32_t(c - 'a') + 11; };
  return d(t[0]) * 37 * 37 + d(t[1]) * 37 + d(t[2]);
}

TEST(NGramTokens, LowerCasedFoldedAlphanumericTrigrams) {
  EXPECT_EQ(NGramTokens("ab"), std::vector<uint32_t>{});
  EXPECT_EQ(NGramTokens("abc"), std::vector<uint32_t>{Token("abc")});
  EXPECT_EQ(Token("000"), 1u * 37 * 37 + 37 + 1);
  EXPECT_EQ(Token("zzz"), 36u * 37 * 37 + 36 * 37 + 36);
  // Windows with a space or punctuation are dropped; case and accents are not significant.
  EXPECT_EQ(NGramTokens("Ab-cd E1f"), (std::vector<uint32_t>{Token("e1f")}));
  EXPECT_EQ(NGramTokens("CAFÉS"), (std::vector<uint32_t>{Token("caf"), Token("afe"), Token("fes")}));
  EXPECT_EQ(NGramTokens("aaaa"), (std::vector<uint32_t>{Token("aaa"), Token("aaa")}));
  // Non-ASCII letters without a folding break windows.
  EXPECT_EQ(NGramTokens("abдcd"), std::vector<uint32_t>{});
}

struct NgramRows {
  TrainingData data;
  std::vector<std::optional<std::string>> values;
};

NgramRows MakeNgramRows() {
  static const char* kWords[] = {"apple", "Banana", "cherry pie", "ápple tart", "grape", "pineapple", "ap", ""};
  NgramRows r;
  StringBuilder b(utf8());
  for (int i = 0; i < 90; ++i) {
    std::optional<std::string> v;
    if (i % 11 != 5) v = std::string(kWords[i % 8]) + (i % 3 == 0 ? " x" + std::to_string(i) : "");
    r.values.push_back(v);
    (v ? b.Append(*v) : b.AppendNull()).ok();
    r.data.row_ids.push_back(i < 60 ? uint64_t(i) : (uint64_t{2} << 32) | uint64_t(i - 60));
  }
  r.data.values.push_back(*b.Finish());
  r.data.type = utf8();
  return r;
}

TEST(NGramIndex, FileLayoutAndSupersetSearches) {
  NgramRows rows = MakeNgramRows();
  auto store = IndexStore::Make(io::MemoryObjectStore::Make(), "t.lance/_indices/n");
  auto trained = TrainNGramIndex(*store, rows.data);
  ASSERT_TRUE(trained.ok()) << trained.status().ToString();
  EXPECT_EQ(trained->type_name, "NGRAM");
  EXPECT_EQ(trained->details_type_url, "/lance.table.NGramIndexDetails");
  EXPECT_EQ(trained->index_version, 0);
  ASSERT_EQ(trained->files.size(), 1u);
  EXPECT_EQ(trained->files[0].path, kNGramFile);

  auto reader = store->OpenFile(kNGramFile);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->schema()->ToString(), "tokens: uint32\nposting_list: binary not null\n");
  auto batch = (*reader)->ReadAll();
  ASSERT_TRUE(batch.ok());
  const Array& tokens = *(*batch)->column(0);
  const Array& lists = *(*batch)->column(1);
  ASSERT_GT(tokens.length, 10);
  EXPECT_EQ(tokens.Values<uint32_t>()[0], 0u);  // the null rows first
  for (int64_t i = 1; i < tokens.length; ++i) EXPECT_LT(tokens.Values<uint32_t>()[i - 1], tokens.Values<uint32_t>()[i]);
  auto nulls = RowSet::DeserializeTreemap(lists.GetView(0), "nulls");
  ASSERT_TRUE(nulls.ok()) << nulls.status().ToString();
  std::vector<uint64_t> expect_nulls;
  for (size_t i = 0; i < rows.values.size(); ++i) {
    if (!rows.values[i]) expect_nulls.push_back(rows.data.row_ids[i]);
  }
  EXPECT_EQ(nulls->ToVector(), expect_nulls);

  auto index = OpenNGramIndex(store);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ((*index)->type_name(), "NGRAM");
  EXPECT_FALSE((*index)->CanAnswer(ScalarQuery::Equals(ScalarValue::Bytes("apple"))));
  for (const std::string needle : {"apple", "APP", "ppl", "pie", "ple t", "x33", "grape x", "zzz", "ápp"}) {
    auto r = (*index)->Search(TextQuery{needle});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_FALSE(r->exact);
    std::string folded = needle == "APP" ? "app" : needle == "ápp" ? "app" : needle;
    size_t matching = 0;
    for (size_t i = 0; i < rows.values.size(); ++i) {
      const auto& v = rows.values[i];
      if (!v) {
        EXPECT_FALSE(r->rows.Contains(rows.data.row_ids[i])) << needle;
        continue;
      }
      std::string lower = *v;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      if (v->find(needle) != std::string::npos || lower.find(folded) != std::string::npos) {
        ++matching;
        EXPECT_TRUE(r->rows.Contains(rows.data.row_ids[i])) << needle << " row " << i;
      }
    }
    if (needle == "zzz") {
      EXPECT_TRUE(r->rows.empty());
    }
    if (needle == "pie" || needle == "x33") {
      EXPECT_LT(r->rows.Cardinality(), 20u) << needle;
    }
    (void)matching;
  }
  // A needle without a token narrows nothing (rows without a token are not in the file):
  // not answered.
  for (const std::string needle : {"a", "", "x3", "an-a", "é-b"}) {
    EXPECT_FALSE(NGramNarrows(needle)) << needle;
    EXPECT_FALSE((*index)->CanAnswer(TextQuery{needle})) << needle;
    EXPECT_EQ((*index)->Search(TextQuery{needle}).status().code(), StatusCode::kNotSupported) << needle;
  }
  EXPECT_TRUE(NGramNarrows("an-abc"));
  // Fragment restriction.
  SearchOptions only2;
  only2.fragments = std::vector<uint32_t>{2};
  auto r2 = (*index)->Search(TextQuery{"apple"}, only2);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->rows.Fragments(), std::vector<uint32_t>{2});
}

TEST(NGramIndex, RejectsNonStringsAndDamagedFiles) {
  auto store = IndexStore::Make(io::MemoryObjectStore::Make(), "n");
  TrainingData ints;
  ints.type = int64();
  EXPECT_EQ(TrainNGramIndex(*store, ints).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RowSet::DeserializeTreemap(std::string("\x01\0\0\0\0\0\0\0\x05\0\0\0", 12), "p").status().code(),
            StatusCode::kCorruption);
  EXPECT_EQ(RowSet::DeserializeTreemap("abc", "p").status().code(), StatusCode::kCorruption);
  RowSet s = RowSet::Of({1, 5, (uint64_t{7} << 32) | 3});
  auto back = RowSet::DeserializeTreemap(s.SerializeTreemap(), "p");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, s);
  std::string bytes = s.SerializeTreemap();
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x02\0\0\0\0\0\0\0", 8));
  EXPECT_FALSE(RowSet::DeserializeTreemap(bytes.substr(0, bytes.size() - 1), "p").ok());
  EXPECT_FALSE(RowSet::DeserializeTreemap(bytes + "x", "p").ok());
}

}  // namespace
}  // namespace lance::index::scalar
