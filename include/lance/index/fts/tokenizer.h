// Full-text tokenizers: the text -> token stream step of the inverted index, equal to the
// reference's (lance 12.0.0) for every option it accepts.
//
// A Tokenizer is one configured pipeline, in the reference's order:
//
//   base tokenizer -> max token length -> lower case -> stemming -> stop words -> ASCII folding
//
// Base tokenizers:
//   simple      maximal runs of alphanumeric code points (Unicode Alphabetic or Numeric);
//               everything else separates. CJK text without spaces stays one token per run.
//   whitespace  maximal runs of anything but ASCII whitespace (space, \t, \n, \f, \r).
//   raw         the whole text as one token (also the empty text).
//   ngram       every substring of min..max code points of the whole text (spaces included),
//               by start then length; prefix_only keeps those that start at 0.
//
// Positions: simple and whitespace number their tokens 0, 1, 2, ... before any filter runs,
// so a removed token (too long, a stop word) leaves a gap -- phrase queries rely on that; raw
// and ngram tokens all have position 0. Offsets are byte offsets into the original text and
// are not changed by filters.
//
// Filters:
//   max_token_length  drops tokens of max_token_length bytes or more (bytes of the base
//                     token, before any other filter).
//   lower_case        per code point, full Unicode lower-case mapping (İ -> i̇), no context.
//   stem              Snowball stemmer of `language` (Debian's libstemmer).
//   remove_stop_words drops tokens (after stemming) found in the language's built-in list, or
//                     in custom_stop_words when given (which replaces the built-in list).
//   ascii_folding     per non-ASCII code point: a few letters map directly (ß -> ss, ø -> o,
//                     ł -> l, ...), others to the ASCII part of their compatibility
//                     decomposition (é -> e, ﬁ -> fi, ½ -> 12); without one they stay.
//
// A Tokenizer is not thread-safe (the stemmer keeps state): make one per thread, or Clone().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/result.h"
#include "lance/core/status.h"

namespace lance::index::fts {

// The languages the reference names (serde names of its Language enum, case-sensitive).
enum class Language : uint8_t {
  kArabic,
  kDanish,
  kDutch,
  kEnglish,
  kFinnish,
  kFrench,
  kGerman,
  kGreek,
  kHungarian,
  kItalian,
  kNorwegian,
  kPortuguese,
  kRomanian,
  kRussian,
  kSpanish,
  kSwedish,
  kTamil,
  kTurkish,
};
inline constexpr int kNumLanguages = 18;

// "English" -> kEnglish; InvalidArgument for any other spelling (as the reference).
Result<Language> ParseLanguage(std::string_view name);
std::string_view LanguageName(Language language);

// The tokenizer settings of an FTS index, named as the reference's InvertedIndexParams (the
// JSON in the index's metadata.lance "params") and InvertedIndexDetails (the manifest).
struct TokenizerOptions {
  std::string base_tokenizer = "simple";  // simple | whitespace | raw | ngram
  Language language = Language::kEnglish;
  std::optional<uint32_t> max_token_length = 40;  // nullopt: no limit
  bool lower_case = true;
  bool stem = true;
  bool remove_stop_words = true;
  std::optional<std::vector<std::string>> custom_stop_words;  // replaces the built-in list
  bool ascii_folding = true;
  uint32_t min_ngram_length = 3;
  uint32_t max_ngram_length = 3;
  bool prefix_only = false;
  bool with_position = false;  // index layout only: the token stream does not depend on it

  // The reference's defaults for a base tokenizer: ngram turns stemming and stop words off
  // (so every substring stays searchable); the others keep the defaults above.
  static TokenizerOptions Defaults(std::string_view base_tokenizer = "simple");

  // From the params JSON lance writes ({"base_tokenizer":"simple","language":"English",
  // "max_token_length":40,...}); a missing key keeps the default of the base tokenizer named,
  // `"max_token_length": null` means no limit, unknown keys are ignored (as the reference).
  static Result<TokenizerOptions> FromJson(std::string_view json);
  // From the serialized lance.table.InvertedIndexDetails of an index's manifest entry (the
  // bytes of its google.protobuf.Any value). The details carry no custom stop words: an index
  // that has them keeps them in its params JSON (FromJson).
  static Result<TokenizerOptions> FromInvertedIndexDetails(std::string_view serialized);
  // The params JSON of these options (the keys FromJson reads).
  std::string ToJson() const;
  // The params JSON lance 12 writes into an index's metadata.lance: its keys in its order,
  // with the keys these options do not model at lance 12's defaults ("lance_tokenizer":
  // "text", "block_size": 128, no identifier/numeric splitting, no preserved originals or
  // operators).
  std::string ToIndexParamsJson() const;
  // The lance.table.InvertedIndexDetails lance 12 commits for an index built with these
  // options (proto3 encoding, fields in number order, block size 128, posting format 2).
  std::string ToInvertedIndexDetails() const;

  // OK if a Tokenizer can be made of these options; else InvalidArgument naming the option.
  Status Validate() const;
};

struct Token {
  std::string text;
  uint32_t position = 0;
  uint32_t offset_from = 0;  // byte offsets into the text tokenized
  uint32_t offset_to = 0;
  bool operator==(const Token&) const = default;
};

class Tokenizer {
 public:
  static Result<std::unique_ptr<Tokenizer>> Make(const TokenizerOptions& options);
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // The token stream of `text` (UTF-8) into *out (replaced). InvalidArgument if `text` is not
  // valid UTF-8; texts of 4 GiB or more are refused (offsets are 32-bit).
  Status Tokenize(std::string_view text, std::vector<Token>* out);

  // A new tokenizer with the same options (for another thread).
  std::unique_ptr<Tokenizer> Clone() const;
  const TokenizerOptions& options() const;

  class Impl;

 private:
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lance::index::fts
