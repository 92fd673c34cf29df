// `lance tokenize`: run the full-text tokenizer of an FTS index on text and print the tokens,
// so that analyzer settings can be checked before an index is built (and so that tests can
// compare our token streams with the reference's tokenize()).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/tokenizer_flags.h"
#include "lance/index/fts/tokenizer.h"

namespace lance::cli {

namespace {

namespace fts = index::fts;

struct TokenizeArgs {
  std::optional<std::string> text;
  TokenizerFlags tok;
  bool jsonl = false;
  bool offsets = false;
  bool index_positions = false;
};

nlohmann::ordered_json TokensJson(const std::vector<fts::Token>& tokens, const TokenizeArgs& a) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  // The reference's tokenize() reports positions counted from its first token kept; the
  // index stores them as the base tokenizer numbered them (--index-positions).
  const uint32_t first = tokens.empty() || a.index_positions ? 0 : tokens.front().position;
  for (const auto& t : tokens) {
    nlohmann::ordered_json o;
    o["text"] = t.text;
    o["position"] = t.position - first;
    if (a.offsets) {
      o["offset_from"] = t.offset_from;
      o["offset_to"] = t.offset_to;
    }
    out.push_back(std::move(o));
  }
  return out;
}

Status Emit(const std::string& line) {
  if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size() || std::fputc('\n', stdout) == EOF) {
    return Status::IOError("cannot write to stdout: {}", std::strerror(errno));
  }
  return Status::OK();
}

Status RunTokenize(const TokenizeArgs& a) {
  LANCE_ASSIGN_OR_RAISE(fts::TokenizerOptions options, BuildTokenizerOptions(a.tok));
  LANCE_ASSIGN_OR_RAISE(auto tokenizer, fts::Tokenizer::Make(options));
  std::vector<fts::Token> tokens;
  if (a.jsonl) {
    if (a.text) return Status::InvalidArgument("--jsonl reads the texts from stdin: give no TEXT");
    std::string line;
    size_t line_no = 0;
    while (std::getline(std::cin, line)) {
      ++line_no;
      nlohmann::json text = nlohmann::json::parse(line, nullptr, false);
      if (text.is_discarded() || !text.is_string()) {
        return Status::InvalidArgument("stdin line {}: expected a JSON string", line_no);
      }
      Status st = tokenizer->Tokenize(text.get_ref<const std::string&>(), &tokens);
      if (!st.ok()) return Status::InvalidArgument("stdin line {}: {}", line_no, st.ToString());
      LANCE_RETURN_NOT_OK(Emit(TokensJson(tokens, a).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    }
  } else {
    std::string text;
    if (a.text) {
      text = *a.text;
    } else {
      text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    LANCE_RETURN_NOT_OK(tokenizer->Tokenize(text, &tokens));
    LANCE_RETURN_NOT_OK(Emit(TokensJson(tokens, a).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  }
  if (std::fflush(stdout) != 0) return Status::IOError("cannot flush stdout");
  return Status::OK();
}

}  // namespace

void RegisterTokenizeCommand(CLI::App& app, CommandRegistry& registry) {
  auto* sub = app.add_subcommand(
      "tokenize",
      "Print the token stream of an FTS tokenizer as a JSON array of {\"text\", \"position\"}");
  sub->footer(
      "The tokenizer is the one an FTS index with the same settings uses, equal to lance 12's:\n"
      "  base tokenizer -> drop tokens of >= max-token-length bytes -> lower case -> stem\n"
      "  -> drop stop words (matched after stemming) -> fold to ASCII.\n"
      "Base tokenizers: simple (runs of letters and digits, any script), whitespace (split at\n"
      "ASCII whitespace only), raw (the whole text, one token), ngram (every substring of\n"
      "ngram-min..ngram-max characters, spaces included; --prefix-only keeps the ones at the\n"
      "start). ngram turns stemming and stop words off unless you set them.\n"
      "Positions count tokens before filtering, so a dropped stop word leaves a gap (phrase\n"
      "queries rely on it); like the reference's tokenize(), the first printed token is at 0\n"
      "(--index-positions prints the positions an index stores). ngram and raw tokens are all\n"
      "at position 0.\n"
      "Examples:\n"
      "  lance tokenize 'The running dogs'              [{\"text\":\"run\",\"position\":0},...]\n"
      "  lance tokenize --language German --stem false 'Die Straße'\n"
      "  lance tokenize --base-tokenizer ngram --ngram-min 2 --ngram-max 3 'abc'\n"
      "  lance tokenize --config '{\"base_tokenizer\":\"whitespace\",\"stem\":false}' < doc.txt\n"
      "  printf '\"one\"\\n\"two\"\\n' | lance tokenize --jsonl          (one array per line)");
  auto a = std::make_shared<TokenizeArgs>();
  sub->add_option("TEXT", a->text, "the text (default: all of stdin)");
  AddTokenizerFlags(sub, &a->tok);
  sub->add_flag("--jsonl", a->jsonl, "read one JSON string per stdin line, print one array per line");
  sub->add_flag("--offsets", a->offsets, "add the byte offsets offset_from / offset_to");
  sub->add_flag("--index-positions", a->index_positions,
                "print positions as the index stores them (not rebased to the first token)");
  registry.OnRun(sub, [a] { return RunTokenize(*a); });
}

}  // namespace lance::cli
