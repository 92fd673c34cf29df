// `lance search --query JSON`: a full-text query tree in the JSON shape lance 12 parses
// (lance-index's FtsQuery JSON: one key naming the query type, its fields beside it):
//   {"match": {"column": C, "terms": T, "boost": 1.0, "fuzziness": 0, "max_expansions": 50,
//              "operator": "Or" | "And", "prefix_length": 0}}
//   {"phrase": {"column": C, "terms": T, "slop": 0}}
//   {"boost": {"positive": Q, "negative": Q, "negative_boost": 0.5}}
//   {"multi_match": {"match_queries": [match, ...]}}  or, as lancedb serializes it,
//   {"multi_match": {"query": T, "columns": [C, ...], "boost": [B, ...], "operator": "And"}}
//   {"boolean": {"must": [Q, ...], "should": [Q, ...], "must_not": [Q, ...]}}
// Only "terms" (and a multi-match's columns) are required; the rest default as lance 12 does.
#pragma once

#include <string>

#include "lance/core/result.h"
#include "lance/query/text_search.h"

namespace lance::cli {

// The query tree `text` holds. Errors: InvalidArgument naming the JSON path of what is wrong
// (not JSON, an unknown query type, a field of the wrong type, a required field missing).
Result<query::FullTextQuery> ParseFtsQueryJson(const std::string& text);

}  // namespace lance::cli
