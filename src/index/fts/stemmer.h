// The stemming filter: Snowball stemmers through Debian's libstemmer (2.2.0).
//
// The reference stems with newer generated Snowball code (3.x revisions): for Spanish,
// Portuguese, Russian, Arabic and Hungarian the two agree on whole Debian word lists; for the
// other languages Snowball 3 changed rules (English -ogist, German -erin/-innen, the
// Kraaij-Pohlmann Dutch stemmer, apostrophes in Danish/Italian/Turkish, ...) and a minority
// of words stem differently (src/index/README.md has the measured rates). That difference is
// the one known gap of these tokenizers.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "lance/core/result.h"
#include "lance/index/fts/tokenizer.h"

struct sb_stemmer;

namespace lance::index::fts {

class Stemmer {
 public:
  static Result<std::unique_ptr<Stemmer>> Make(Language language);
  ~Stemmer();
  Stemmer(const Stemmer&) = delete;
  Stemmer& operator=(const Stemmer&) = delete;

  // Replaces *word by its stem. OutOfMemory if libstemmer could not allocate.
  Status Stem(std::string* word);

 private:
  explicit Stemmer(sb_stemmer* s) : stemmer_(s) {}
  sb_stemmer* stemmer_;
};

// libstemmer's name of the algorithm for `language` ("english", ...).
const char* SnowballAlgorithm(Language language);

}  // namespace lance::index::fts
