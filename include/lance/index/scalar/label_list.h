// LABEL_LIST: a bitmap index over the items of a list<T> column
// (docs/format/table/index/scalar/label_list.md), as lance 12 writes it (index version 1):
// `bitmap_page_lookup.lance` as a BITMAP index over the unnested items (a null item becomes
// the null key), plus global buffer 1 holding the rows whose list itself is null (a
// serialized RowSet), named by schema metadata lance:label_list_nulls = "1" beside
// lance:index_stats. Details: /lance.table.LabelListIndexDetails (empty).
//
// Answers array_has_any / array_has_all / array_contains exactly: `rows` where TRUE,
// `null_rows` the null lists (the predicate is NULL there; null items never match).
#pragma once

#include <memory>

#include "lance/index/scalar/scalar_index.h"

namespace lance::index::scalar {

// The schema metadata key naming the global buffer of the null lists' rows.
inline constexpr const char* kLabelListNullsKey = "lance:label_list_nulls";

Result<std::shared_ptr<ScalarIndex>> OpenLabelListIndex(std::shared_ptr<IndexStore> store);

// `data.values` are list<T> / large_list<T> chunks. Errors: InvalidArgument (not a list of
// a key type), IOError.
Result<TrainedIndex> TrainLabelListIndex(IndexStore& store, const TrainingData& data);

}  // namespace lance::index::scalar
