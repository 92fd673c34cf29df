// libFuzzer target: InvertedIndexDetails bytes (from a manifest) and params JSON (from an
// index's metadata.lance) are untrusted; decoding them must end in a Status, and any options
// accepted must make a tokenizer that tokenizes the input bytes without crashing.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "lance/index/fts/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lance::index::fts;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (auto options : {TokenizerOptions::FromInvertedIndexDetails(bytes), TokenizerOptions::FromJson(bytes)}) {
    if (!options.ok()) continue;
    if (options->base_tokenizer == "ngram" && options->max_ngram_length > 64) continue;  // output size
    auto tokenizer = Tokenizer::Make(*options);
    if (!tokenizer.ok()) continue;
    std::vector<Token> tokens;
    (void)(*tokenizer)->Tokenize(bytes, &tokens);
  }
  return 0;
}
