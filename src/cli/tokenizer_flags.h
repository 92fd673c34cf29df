// The tokenizer options of `lance tokenize` and `lance create-index --type inverted`, as
// flags: each one unset keeps the reference's default (which may depend on the base tokenizer:
// ngram turns stemming and stop words off unless given).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "lance/core/result.h"
#include "lance/index/fts/tokenizer.h"

namespace lance::cli {

struct TokenizerFlags {
  std::string config;
  std::optional<std::string> base_tokenizer, language, max_token_length, lower_case, stem,
      remove_stop_words, ascii_folding, prefix_only, custom_stop_words;
  std::optional<uint32_t> ngram_min, ngram_max;
};

// Registers --config, --base-tokenizer, --language, --max-token-length, --lower-case, --stem,
// --remove-stop-words, --custom-stop-words, --ascii-folding, --ngram-min, --ngram-max and
// --prefix-only on `sub`, bound to *flags.
void AddTokenizerFlags(CLI::App* sub, TokenizerFlags* flags);

// true | false for flag `name`; InvalidArgument otherwise.
Result<bool> ParseBoolFlag(const std::string& name, const std::string& v);

// The options the flags give. Errors: InvalidArgument naming the flag.
Result<index::fts::TokenizerOptions> BuildTokenizerOptions(const TokenizerFlags& flags);

}  // namespace lance::cli
