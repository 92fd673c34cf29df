// Built-in stop-word lists per language: the words of the reference's lists (lance 12.0.0),
// generated into stop_words.inc by tests/interop/tools/gen_fts_tables.mjs from the public
// lists the reference builds on -- the Snowball project's lists (as tantivy 0.24.2 vendors
// them) for Danish, Dutch, Finnish, French, German, Hungarian, Italian, Norwegian, Portuguese,
// Russian, Spanish and Swedish; the NLTK stop-word corpus (as the stop-words crate 0.10.0
// packages it) for Arabic, English, Greek, Romanian, Tamil and Turkish -- keeping exactly the
// candidates the reference removes.
#pragma once

#include <string_view>
#include <unordered_set>

#include "lance/index/fts/tokenizer.h"

namespace lance::index::fts {

// The set of `language` (built once, shared, immutable).
const std::unordered_set<std::string_view>& BuiltInStopWords(Language language);

}  // namespace lance::index::fts
