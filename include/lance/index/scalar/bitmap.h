// BITMAP: one row-id set per distinct value (docs/format/table/index/scalar/bitmap.md), as
// lance 12 writes it: `bitmap_page_lookup.lance` (2.2) with columns `keys` (the column's
// type, nullable; one row per distinct value, ascending, the null key first) and `bitmaps`
// (binary, nullable: the value's rows as a serialized RowSet, row_set.h); schema metadata
// lance:index_stats = {"num_bitmaps":N}. Details: /lance.table.BitmapIndexDetails (empty),
// index version 0.
//
// The reader loads every key at open and a value's bitmap (one row of the file) on the
// first query that asks for it; answers are exact.
#pragma once

#include <memory>

#include "lance/index/scalar/scalar_index.h"

namespace lance::index::scalar {

inline constexpr const char* kBitmapFile = "bitmap_page_lookup.lance";

Result<std::shared_ptr<ScalarIndex>> OpenBitmapIndex(std::shared_ptr<IndexStore> store);

// Groups `data` by value and writes the file.
// Errors: InvalidArgument (a type a bitmap cannot key), IOError.
Result<TrainedIndex> TrainBitmapIndex(IndexStore& store, const TrainingData& data);

}  // namespace lance::index::scalar
