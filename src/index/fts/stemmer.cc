#include "index/fts/stemmer.h"

#include <climits>

#include <libstemmer.h>

namespace lance::index::fts {

const char* SnowballAlgorithm(Language language) {
  static constexpr const char* kNames[kNumLanguages] = {
      "arabic",  "danish",    "dutch",      "english",  "finnish", "french",
      "german",  "greek",     "hungarian",  "italian",  "norwegian", "portuguese",
      "romanian", "russian",  "spanish",    "swedish",  "tamil",   "turkish"};
  return kNames[static_cast<int>(language)];
}

Result<std::unique_ptr<Stemmer>> Stemmer::Make(Language language) {
  sb_stemmer* s = sb_stemmer_new(SnowballAlgorithm(language), "UTF_8");
  if (s == nullptr) {
    return Status::NotSupported("libstemmer has no '{}' stemmer (UTF-8) for language {}",
                                SnowballAlgorithm(language), LanguageName(language));
  }
  return std::unique_ptr<Stemmer>(new Stemmer(s));
}

Stemmer::~Stemmer() { sb_stemmer_delete(stemmer_); }

Status Stemmer::Stem(std::string* word) {
  if (word->size() > static_cast<size_t>(INT_MAX)) {
    return Status::InvalidArgument("a {}-byte token is too long to stem", word->size());
  }
  const sb_symbol* out = sb_stemmer_stem(stemmer_, reinterpret_cast<const sb_symbol*>(word->data()),
                                         static_cast<int>(word->size()));
  if (out == nullptr) return Status::OutOfMemory("libstemmer could not stem a {}-byte token", word->size());
  word->assign(reinterpret_cast<const char*>(out), static_cast<size_t>(sb_stemmer_length(stemmer_)));
  return Status::OK();
}

}  // namespace lance::index::fts
