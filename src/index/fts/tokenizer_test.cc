// Unit tests of each stage of the full-text tokenizer, with values checked against lance 12's
// tokenize() by hand (the interop test fts_tokenizer.test.mjs compares whole corpora).
#include "lance/index/fts/tokenizer.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "index/fts/stemmer.h"
#include "index/fts/stop_words.h"
#include "index/fts/unicode.h"

namespace lance::index::fts {
namespace {

struct Tok {
  std::string text;
  uint32_t position;
  bool operator==(const Tok&) const = default;
};
void PrintTo(const Tok& t, std::ostream* os) { *os << t.text << "@" << t.position; }

TokenizerOptions Off(std::string base = "simple") {
  TokenizerOptions o = TokenizerOptions::Defaults(base);
  o.lower_case = o.stem = o.remove_stop_words = o.ascii_folding = false;
  o.max_token_length.reset();
  return o;
}

std::vector<Tok> Tokens(const TokenizerOptions& o, std::string_view text) {
  auto t = Tokenizer::Make(o);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  std::vector<Token> tokens;
  Status st = (*t)->Tokenize(text, &tokens);
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::vector<Tok> out;
  for (auto& k : tokens) out.push_back({k.text, k.position});
  return out;
}

TEST(FtsUnicode, Alphanumeric) {
  EXPECT_TRUE(IsAlphanumeric('a'));
  EXPECT_TRUE(IsAlphanumeric('7'));
  EXPECT_FALSE(IsAlphanumeric('_'));
  EXPECT_FALSE(IsAlphanumeric('\''));
  EXPECT_TRUE(IsAlphanumeric(0x65E5));   // 日
  EXPECT_FALSE(IsAlphanumeric(0x0301));  // combining acute (Mn, not Other_Alphabetic): splits
  EXPECT_TRUE(IsAlphanumeric(0x064E));   // Arabic fatha: Other_Alphabetic
  EXPECT_TRUE(IsAlphanumeric(0x00BD));   // ½ is Numeric (No)
  EXPECT_FALSE(IsAlphanumeric(0x1F600));  // 😀
  EXPECT_FALSE(IsAlphanumeric(0x00A0));   // no-break space
  EXPECT_FALSE(IsAlphanumeric(0x110000));
}

TEST(FtsUnicode, LowerCaseAndFolding) {
  std::string s;
  AppendLowerCase(0x0130, &s);  // İ -> i + combining dot above
  EXPECT_EQ(s, "i\xCC\x87");
  s.clear();
  AppendLowerCase(0x03A3, &s);  // Σ -> σ (no final-sigma context)
  EXPECT_EQ(s, "\xCF\x83");
  s.clear();
  AppendLowerCase(0xA7CB, &s);  // Unicode 16: Ɤ -> ɤ
  EXPECT_EQ(s, "\xC9\xA4");
  EXPECT_STREQ(AsciiFolding(0x00E9), "e");
  EXPECT_STREQ(AsciiFolding(0x00DF), "ss");
  EXPECT_STREQ(AsciiFolding(0x00BD), "12");
  EXPECT_STREQ(AsciiFolding(0xFB01), "fi");
  EXPECT_STREQ(AsciiFolding(0x1D400), "A");  // mathematical bold A
  EXPECT_EQ(AsciiFolding(0x65E5), nullptr);
  EXPECT_EQ(AsciiFolding('a'), nullptr);
}

TEST(FtsUnicode, Utf8Validation) {
  EXPECT_EQ(FindInvalidUtf8("plain \xC3\xA9 \xF0\x9F\x98\x80"), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("ab\xC0\xAF"), 2u);          // overlong
  EXPECT_EQ(FindInvalidUtf8("\xED\xA0\x80"), 0u);        // surrogate
  EXPECT_EQ(FindInvalidUtf8("x\xF4\x90\x80\x80"), 1u);   // past U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("\xE2\x82"), 0u);            // truncated
  auto t = Tokenizer::Make(TokenizerOptions());
  std::vector<Token> out;
  Status st = (*t)->Tokenize("ok \xFF", &out);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("byte 3"), std::string::npos) << st.ToString();
}

TEST(FtsBase, SimpleSplitsOnNonAlphanumericKeepsCjkRuns) {
  EXPECT_EQ(Tokens(Off(), "Hello, World! co-op 3.14 日本語のテキスト x_y"),
            (std::vector<Tok>{{"Hello", 0}, {"World", 1}, {"co", 2}, {"op", 3}, {"3", 4}, {"14", 5},
                              {"日本語のテキスト", 6}, {"x", 7}, {"y", 8}}));
  EXPECT_TRUE(Tokens(Off(), "").empty());
  EXPECT_TRUE(Tokens(Off(), " !? ").empty());
}

TEST(FtsBase, WhitespaceSplitsOnAsciiWhitespaceOnly) {
  EXPECT_EQ(Tokens(Off("whitespace"), "a\tb\nc\rd\fe\vf\xC2\xA0g  h"),
            (std::vector<Tok>{{"a", 0}, {"b", 1}, {"c", 2}, {"d", 3}, {"e\vf\xC2\xA0g", 4}, {"h", 5}}));
}

TEST(FtsBase, RawIsOneTokenEvenEmpty) {
  EXPECT_EQ(Tokens(Off("raw"), "Two Words"), (std::vector<Tok>{{"Two Words", 0}}));
  EXPECT_EQ(Tokens(Off("raw"), ""), (std::vector<Tok>{{"", 0}}));
}

TEST(FtsBase, NgramByStartThenLength) {
  TokenizerOptions o = Off("ngram");
  o.min_ngram_length = 1;
  o.max_ngram_length = 2;
  EXPECT_EQ(Tokens(o, "aéb"), (std::vector<Tok>{{"a", 0}, {"aé", 0}, {"é", 0}, {"éb", 0}, {"b", 0}}));
  o.prefix_only = true;
  EXPECT_EQ(Tokens(o, "aéb"), (std::vector<Tok>{{"a", 0}, {"aé", 0}}));
  o = Off("ngram");  // 3..3
  EXPECT_TRUE(Tokens(o, "ab").empty());
  EXPECT_EQ(Tokens(o, "a b"), (std::vector<Tok>{{"a b", 0}}));
  std::vector<Token> tokens;
  auto t = Tokenizer::Make(o);
  ASSERT_TRUE((*t)->Tokenize("xéyz", &tokens).ok());
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[1].offset_from, 1u);  // byte offsets
  EXPECT_EQ(tokens[1].offset_to, 5u);
}

TEST(FtsFilters, MaxTokenLengthCountsBytesAndLeavesGaps) {
  TokenizerOptions o = Off();
  o.max_token_length = 3;
  EXPECT_EQ(Tokens(o, "ab abc éa x"), (std::vector<Tok>{{"ab", 0}, {"x", 3}}));  // "éa" is 3 bytes
  o.max_token_length = 0;
  EXPECT_TRUE(Tokens(o, "a b").empty());
}

TEST(FtsFilters, LowerCase) {
  TokenizerOptions o = Off("whitespace");
  o.lower_case = true;
  EXPECT_EQ(Tokens(o, "ÀÉÎ İSTANBUL ΣΊΣΥΦΟΣ"),
            (std::vector<Tok>{{"àéî", 0}, {"i\xCC\x87stanbul", 1}, {"σίσυφοσ", 2}}));
}

TEST(FtsFilters, StemThenStopWordsThenFold) {
  TokenizerOptions o = TokenizerOptions::Defaults();
  // Stop words are matched after stemming ("doing" -> "do"), folding comes last.
  EXPECT_EQ(Tokens(o, "Doing the running café"), (std::vector<Tok>{{"run", 2}, {"cafe", 3}}));
  o.stem = false;
  EXPECT_EQ(Tokens(o, "Doing the running"), (std::vector<Tok>{{"running", 2}}));
  o.stem = true;
  o.remove_stop_words = false;
  EXPECT_EQ(Tokens(o, "Doing"), (std::vector<Tok>{{"do", 0}}));
}

TEST(FtsFilters, CustomStopWordsReplaceTheList) {
  TokenizerOptions o = Off();
  o.remove_stop_words = true;
  o.custom_stop_words = std::vector<std::string>{"Hello"};
  EXPECT_EQ(Tokens(o, "Hello the world"), (std::vector<Tok>{{"the", 1}, {"world", 2}}));
  o.custom_stop_words = std::vector<std::string>{};
  EXPECT_EQ(Tokens(o, "the"), (std::vector<Tok>{{"the", 0}}));
}

TEST(FtsFilters, BuiltInStopWordsPerLanguage) {
  EXPECT_TRUE(BuiltInStopWords(Language::kEnglish).count("it's"));
  EXPECT_TRUE(BuiltInStopWords(Language::kEnglish).count("y"));
  EXPECT_TRUE(BuiltInStopWords(Language::kGerman).count("und"));
  EXPECT_FALSE(BuiltInStopWords(Language::kGerman).count("the"));
  EXPECT_TRUE(BuiltInStopWords(Language::kGreek).count("και"));
  EXPECT_TRUE(BuiltInStopWords(Language::kRomanian).count("acesta"));
  EXPECT_TRUE(BuiltInStopWords(Language::kTurkish).count("ama"));
  EXPECT_EQ(BuiltInStopWords(Language::kDanish).size(), 94u);
  EXPECT_EQ(BuiltInStopWords(Language::kEnglish).size(), 198u);
}

TEST(FtsStemmer, EveryLanguageHasOne) {
  for (int i = 0; i < kNumLanguages; ++i) {
    auto s = Stemmer::Make(static_cast<Language>(i));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
  }
  auto s = Stemmer::Make(Language::kSpanish);
  std::string w = "bibliotecas";
  ASSERT_TRUE((*s)->Stem(&w).ok());
  EXPECT_EQ(w, "bibliotec");
}

TEST(FtsOptions, NgramDefaultsAndValidation) {
  TokenizerOptions n = TokenizerOptions::Defaults("ngram");
  EXPECT_FALSE(n.stem);
  EXPECT_FALSE(n.remove_stop_words);
  EXPECT_TRUE(n.lower_case);
  n.min_ngram_length = 0;
  EXPECT_EQ(Tokenizer::Make(n).status().code(), StatusCode::kInvalidArgument);
  n.min_ngram_length = 4;
  EXPECT_EQ(n.Validate().code(), StatusCode::kInvalidArgument);
  TokenizerOptions s;
  s.min_ngram_length = 0;  // only ngram looks at its lengths
  EXPECT_TRUE(s.Validate().ok());
  s.base_tokenizer = "icu";
  EXPECT_EQ(s.Validate().code(), StatusCode::kNotSupported);
  s.base_tokenizer = "Simple";
  EXPECT_EQ(s.Validate().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(ParseLanguage("english").ok());
  EXPECT_EQ(*ParseLanguage("Turkish"), Language::kTurkish);
}

TEST(FtsOptions, FromJsonAsLanceWritesIt) {
  // The params of an index built with Index.fts({baseTokenizer:'ngram', ...}) by lance 12.
  auto o = TokenizerOptions::FromJson(
      R"({"lance_tokenizer":"text","base_tokenizer":"ngram","language":"French","with_position":true,)"
      R"("max_token_length":30,"lower_case":false,"stem":true,"remove_stop_words":true,)"
      R"("custom_stop_words":["foo","bar"],"ascii_folding":false,"min_ngram_length":2,)"
      R"("max_ngram_length":4,"prefix_only":true,"block_size":128,"split_identifiers":false})");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->base_tokenizer, "ngram");
  EXPECT_EQ(o->language, Language::kFrench);
  EXPECT_TRUE(o->with_position);
  EXPECT_EQ(o->max_token_length, 30u);
  EXPECT_FALSE(o->lower_case);
  EXPECT_TRUE(o->stem);
  EXPECT_EQ(o->custom_stop_words, (std::vector<std::string>{"foo", "bar"}));
  EXPECT_EQ(o->min_ngram_length, 2u);
  EXPECT_EQ(o->max_ngram_length, 4u);
  EXPECT_TRUE(o->prefix_only);
  auto again = TokenizerOptions::FromJson(o->ToJson());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ToJson(), o->ToJson());

  auto d = TokenizerOptions::FromJson(R"({"base_tokenizer":"ngram"})");
  EXPECT_FALSE(d->stem);
  auto none = TokenizerOptions::FromJson(R"({"max_token_length":null})");
  EXPECT_FALSE(none->max_token_length.has_value());
  EXPECT_EQ(TokenizerOptions::FromJson(R"({"stem":"yes"})").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TokenizerOptions::FromJson("[1]").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TokenizerOptions::FromJson("{").status().code(), StatusCode::kInvalidArgument);
}

TEST(FtsOptions, FromInvertedIndexDetails) {
  // The details lance 12 wrote for the index above (protoc --decode_raw: 1:"ngram"
  // 2:"\"French\"" 3:1 4:30 6:1 7:1 9:2 10:4 11:1 12:128 15:2).
  const std::string details =
      std::string("\x0a\x05ngram\x12\x08\"French\"\x18\x01\x20\x1e\x30\x01\x38\x01\x48\x02\x50\x04"
                  "\x58\x01\x60\x80\x01\x78\x02");
  auto o = TokenizerOptions::FromInvertedIndexDetails(details);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->base_tokenizer, "ngram");
  EXPECT_EQ(o->language, Language::kFrench);
  EXPECT_TRUE(o->with_position);
  EXPECT_EQ(o->max_token_length, 30u);
  EXPECT_FALSE(o->lower_case);
  EXPECT_TRUE(o->stem);
  EXPECT_TRUE(o->remove_stop_words);
  EXPECT_FALSE(o->ascii_folding);
  EXPECT_EQ(o->min_ngram_length, 2u);
  EXPECT_EQ(o->max_ngram_length, 4u);
  EXPECT_TRUE(o->prefix_only);
  // Empty details (indexes older than the tokenizer fields) mean the defaults.
  auto empty = TokenizerOptions::FromInvertedIndexDetails("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->ToJson(), TokenizerOptions().ToJson());
  // Absent max_token_length: no limit.
  auto nolimit = TokenizerOptions::FromInvertedIndexDetails(std::string("\x0a\x06simple\x12\x09\"English\"", 19));
  ASSERT_TRUE(nolimit.ok()) << nolimit.status().ToString();
  EXPECT_FALSE(nolimit->max_token_length.has_value());
  EXPECT_EQ(TokenizerOptions::FromInvertedIndexDetails(details.substr(0, 5)).status().code(),
            StatusCode::kCorruption);
  EXPECT_EQ(TokenizerOptions::FromInvertedIndexDetails(std::string("\x0a\x05ngram\x12\x05French", 14)).status().code(),
            StatusCode::kCorruption);  // language not JSON
  EXPECT_EQ(TokenizerOptions::FromInvertedIndexDetails(std::string("\x08\x01", 2)).status().code(),
            StatusCode::kCorruption);  // base_tokenizer as a varint
}

TEST(FtsTokenizer, CloneTokenizesTheSame) {
  auto t = Tokenizer::Make(TokenizerOptions::Defaults());
  auto c = (*t)->Clone();
  ASSERT_NE(c, nullptr);
  std::vector<Token> a, b;
  ASSERT_TRUE((*t)->Tokenize("Running dogs in Straße", &a).ok());
  ASSERT_TRUE(c->Tokenize("Running dogs in Straße", &b).ok());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.back().text, "strasse");
}

}  // namespace
}  // namespace lance::index::fts
