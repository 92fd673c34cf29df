#include "index/fts/stop_words.h"

#include <array>
#include <cstddef>
#include <iterator>

namespace lance::index::fts {
namespace {

struct StopWordList {
  const char* const* words;
  size_t size;
};

#include "index/fts/stop_words.inc"

static_assert(std::size(kStopWordLists) == kNumLanguages, "one stop-word list per Language");

}  // namespace

const std::unordered_set<std::string_view>& BuiltInStopWords(Language language) {
  static const auto* sets = [] {
    auto* all = new std::array<std::unordered_set<std::string_view>, kNumLanguages>();
    for (int i = 0; i < kNumLanguages; ++i) {
      const StopWordList& list = kStopWordLists[i];
      (*all)[i].insert(list.words, list.words + list.size);
    }
    return all;
  }();
  return (*sets)[static_cast<int>(language)];
}

}  // namespace lance::index::fts
