// lance 12's BM25 doc weight inline, for the search loops (Bm25DocWeight in
// lance/index/fts/inverted_index.h is this function; the same operations give equal floats).
#pragma once

#include <cstdint>

#include "lance/index/fts/inverted_index.h"

namespace lance::index::fts {

inline float DocWeight(uint32_t freq, uint32_t doc_tokens, float avg_doc_tokens) {
  const float f = static_cast<float>(freq);
  const float dl = static_cast<float>(doc_tokens);
  const float norm = kBm25K1 * (1.0f - kBm25B + kBm25B * dl / avg_doc_tokens);
  return (kBm25K1 + 1.0f) * f / (f + norm);
}

}  // namespace lance::index::fts
