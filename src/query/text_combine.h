// How a full-text query tree's scores combine (text_search.cc): shared by the search of one
// dataset and by query::LsmTextSearch's search of unflushed rows, so that a WAL tail or a
// MemTable is scored exactly as the generation it will flush to.
#pragma once

#include <cstddef>
#include <vector>

#include "lance/index/fts/inverted_index.h"
#include "lance/query/text_search.h"

namespace lance::query::internal {

// The best `limit` of `hits`, best first (index::fts::Better: score, then row id); limit 0 (a
// child of a compound, merged by row id): all, in no order.
void BestFirst(std::vector<index::fts::ScoredRow>* hits, size_t limit);

// The rows of the combining node `node` (multi-match, boost, boolean) from its inputs' rows
// (`in[i]` those of node.inputs()[i]; row ids any one numbering), in no order: multi-match the
// best of each row's scores; boost the positive rows minus negative_boost x their negative
// score; boolean the rows of every must (scores summed) plus each should's score (with no
// must, the should rows), without the must_not rows.
std::vector<index::fts::ScoredRow> CombineScores(const FullTextSearchNode& node,
                                                 const std::vector<std::vector<index::fts::ScoredRow>>& in);

}  // namespace lance::query::internal
