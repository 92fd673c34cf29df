// Full-text tokenizer throughput: our pipeline (src/index/fts) over a corpus file written by
// bench/fts_tokenizer_peer.mjs (one JSON string per line), for the option sets that peer times
// in the reference. Run through bench/run_fts_tokenizer_bench.sh, which prints the ratios.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lance/index/fts/tokenizer.h"
#include "process_cpu.h"

namespace {

using lance::index::fts::Token;
using lance::index::fts::Tokenizer;
using lance::index::fts::TokenizerOptions;

const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> docs = [] {
    std::vector<std::string> out;
    const char* path = std::getenv("LANCE_BENCH_FTS_CORPUS");
    if (path == nullptr) return out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line).get<std::string>());
    return out;
  }();
  return docs;
}

void Run(benchmark::State& state, const char* config) {
  const auto& docs = Corpus();
  if (docs.empty()) {
    state.SkipWithError("set LANCE_BENCH_FTS_CORPUS (bench/run_fts_tokenizer_bench.sh does)");
    return;
  }
  auto options = TokenizerOptions::FromJson(config);
  auto tokenizer = Tokenizer::Make(*options);
  std::vector<Token> tokens;
  size_t total = 0, bytes = 0;
  const double cpu0 = lance::bench::ProcessCpuSeconds();
  for (auto _ : state) {
    for (const auto& d : docs) {
      if (!(*tokenizer)->Tokenize(d, &tokens).ok()) state.SkipWithError("tokenize failed");
      total += tokens.size();
      bytes += d.size();
    }
  }
  state.counters["tokens_per_s"] = benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
  state.counters["MB_per_s"] = benchmark::Counter(static_cast<double>(bytes) / 1e6, benchmark::Counter::kIsRate);
  state.counters["process_cpu_s"] = lance::bench::ProcessCpuSeconds() - cpu0;
}

// The same option sets as fts_tokenizer_peer.mjs (keys of the params JSON).
#define FTS_BENCH(name, json) \
  void BM_FtsTokenize_##name(benchmark::State& s) { Run(s, json); } \
  BENCHMARK(BM_FtsTokenize_##name)->Unit(benchmark::kMillisecond);

FTS_BENCH(default, R"({})")
FTS_BENCH(simple_plain, R"({"stem":false,"remove_stop_words":false,"ascii_folding":false,"lower_case":false})")
FTS_BENCH(whitespace, R"({"base_tokenizer":"whitespace"})")
FTS_BENCH(raw, R"({"base_tokenizer":"raw","max_token_length":null})")
FTS_BENCH(ngram3, R"({"base_tokenizer":"ngram"})")

}  // namespace
