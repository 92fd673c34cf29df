#include "cli/tokenizer_flags.h"

#include <nlohmann/json.hpp>

namespace lance::cli {

namespace fts = index::fts;

Result<bool> ParseBoolFlag(const std::string& name, const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  return Status::InvalidArgument("--{} takes true or false, got '{}'", name, v);
}

Result<fts::TokenizerOptions> BuildTokenizerOptions(const TokenizerFlags& a) {
  // Flags are folded into the params JSON so that one set of rules (the reference's) decides
  // the defaults: e.g. --base-tokenizer ngram turns stemming and stop words off unless given.
  nlohmann::json j = nlohmann::json::object();
  if (!a.config.empty()) {
    j = nlohmann::json::parse(a.config, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      return Status::InvalidArgument("--config must be a JSON object, got '{}'", a.config);
    }
  }
  if (a.base_tokenizer) j["base_tokenizer"] = *a.base_tokenizer;
  if (a.language) j["language"] = *a.language;
  if (a.max_token_length) {
    if (*a.max_token_length == "none") {
      j["max_token_length"] = nullptr;
    } else {
      try {
        size_t used = 0;
        unsigned long v = std::stoul(*a.max_token_length, &used);
        if (used != a.max_token_length->size()) throw std::invalid_argument("trailing");
        j["max_token_length"] = v;
      } catch (const std::exception&) {
        return Status::InvalidArgument("--max-token-length takes a byte count or 'none', got '{}'",
                                       *a.max_token_length);
      }
    }
  }
  const std::pair<const char*, const std::optional<std::string>*> bools[] = {
      {"lower-case", &a.lower_case},         {"stem", &a.stem},
      {"remove-stop-words", &a.remove_stop_words}, {"ascii-folding", &a.ascii_folding},
      {"prefix-only", &a.prefix_only}};
  for (const auto& [flag, value] : bools) {
    if (!*value) continue;
    LANCE_ASSIGN_OR_RAISE(bool b, ParseBoolFlag(flag, **value));
    std::string key = flag;
    for (char& c : key) c = c == '-' ? '_' : c;
    j[key] = b;
  }
  if (a.ngram_min) j["min_ngram_length"] = *a.ngram_min;
  if (a.ngram_max) j["max_ngram_length"] = *a.ngram_max;
  if (a.custom_stop_words) {
    nlohmann::json words = nlohmann::json::parse(*a.custom_stop_words, nullptr, false);
    if (words.is_discarded() || !words.is_array()) {
      return Status::InvalidArgument("--custom-stop-words takes a JSON array of strings, got '{}'",
                                     *a.custom_stop_words);
    }
    j["custom_stop_words"] = words;
  }
  return fts::TokenizerOptions::FromJson(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void AddTokenizerFlags(CLI::App* sub, TokenizerFlags* a) {
  sub->add_option("--config", a->config,
                  "tokenizer params as lance stores them in an index, a JSON object "
                  "(base_tokenizer, language, max_token_length, lower_case, stem, "
                  "remove_stop_words, custom_stop_words, ascii_folding, min_ngram_length, "
                  "max_ngram_length, prefix_only); the flags below override it");
  sub->add_option("--base-tokenizer", a->base_tokenizer, "simple (default) | whitespace | raw | ngram");
  sub->add_option("--language", a->language,
                  "stemmer and stop words: English (default), Arabic, Danish, Dutch, Finnish, French, "
                  "German, Greek, Hungarian, Italian, Norwegian, Portuguese, Romanian, Russian, "
                  "Spanish, Swedish, Tamil, Turkish");
  sub->add_option("--max-token-length", a->max_token_length,
                  "drop tokens of this many bytes or more (default 40), or 'none'");
  sub->add_option("--lower-case", a->lower_case, "true (default) | false");
  sub->add_option("--stem", a->stem, "true (default; false for ngram) | false");
  sub->add_option("--remove-stop-words", a->remove_stop_words, "true (default; false for ngram) | false");
  sub->add_option("--custom-stop-words", a->custom_stop_words,
                  "JSON array replacing the language's stop words, e.g. '[\"foo\",\"bar\"]'");
  sub->add_option("--ascii-folding", a->ascii_folding, "true (default) | false");
  sub->add_option("--ngram-min", a->ngram_min, "shortest n-gram in characters (default 3)");
  sub->add_option("--ngram-max", a->ngram_max, "longest n-gram in characters (default 3)");
  sub->add_option("--prefix-only", a->prefix_only, "ngram: only n-grams at the start (default false)");
}

}  // namespace lance::cli
