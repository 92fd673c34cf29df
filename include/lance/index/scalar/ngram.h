// NGRAM: trigram posting lists for substring filters (docs/format/table/index/scalar/ngram.md),
// as lance 12.0.0 reads it (index version 0: the posting lists hold row ids, which are row
// addresses on a table without stable row ids):
//
//   ngram_postings.lance  `tokens` uint32 (nullable), `posting_list` binary (not null; field
//                         metadata lance-encoding:compression = "none"), one row per token,
//                         ascending by token; a posting list is the RoaringTreemap of the rows
//                         holding the token (RowSet::SerializeTreemap). Token 0 holds the rows
//                         whose value is null.
//   details               /lance.table.NGramIndexDetails (empty)
//
// Tokens: the value lower-cased, then ASCII-folded (the FTS filters' code-point maps,
// index/fts/unicode.h), then every window of 3 code points made only of ASCII letters and
// digits, each encoded in base 37 (digit d -> d + 1, letter l -> l - 'a' + 11; the first code
// point the most significant), as lance 12 encodes them.
//
// Inexact: contains(col, 'x') (and our LIKE '%x%') answers with the rows holding every token
// of 'x' -- a superset the planner rechecks. A needle with no token (shorter than 3 code
// points, or no alphanumeric window) says nothing -- rows without any token are not in the
// file -- so the index does not answer it (CanAnswer false: the planner scans). The
// token list is read at open; a posting list is loaded (and cached) when a query needs it.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "lance/index/scalar/scalar_index.h"

namespace lance::index::scalar {

inline constexpr const char* kNGramFile = "ngram_postings.lance";

// The tokens of `text` in text order, repeats included.
std::vector<uint32_t> NGramTokens(std::string_view text);

// Whether an NGRAM index narrows contains(col, needle): the needle has at least 3 code points
// (lance 12 sends no shorter one to the index) and a token.
bool NGramNarrows(std::string_view needle);

Result<std::shared_ptr<ScalarIndex>> OpenNGramIndex(std::shared_ptr<IndexStore> store);

// Errors: InvalidArgument (a column that is not utf8 / large_utf8), IOError.
Result<TrainedIndex> TrainNGramIndex(IndexStore& store, const TrainingData& data);

// Writes ngram_postings.lance from its two columns (`tokens` ascending, `posting_list` the
// serialized treemaps) with `schema`, and describes the index: training and remapping both
// end here. Errors: IOError.
Result<TrainedIndex> WriteNGramPostings(IndexStore& store, SchemaPtr schema, ArrayPtr tokens,
                                        ArrayPtr posting_lists);

}  // namespace lance::index::scalar
