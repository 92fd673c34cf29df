// Takes of top-level leaf columns without levels, reading only the bytes of the rows: values of
// mini-block pages (chunk by chunk through the page index) and rows of full-zip pages (at
// their stride or through the repetition index); the decoded pieces are assembled into the rows
// asked for by TakeChunked (lance/columnar/compute.h). Internal to the file layer.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "encoding/data_block.h"
#include "encoding/structural.h"
#include "file/page_table.h"
#include "lance/columnar/array.h"
#include "lance/core/result.h"

namespace lance::file {

// Whether `t` is a struct, list, large list or map (decoded through its levels).
bool IsStructural(const DataType& t);

// Decodes one page of a top-level leaf column into an array of its rows.
Result<ArrayPtr> DecodeLeafPage(const encoding::PageInput& in, const DataTypePtr& type);

// Decodes the wanted rows of one full-zip page without repetition (fixed-width rows sit at a
// fixed stride, variable-width ones are found through the repetition index), reading only
// their bytes: a bounded number of bytes per row. Appends (first row, array) pieces.
Status TakeFullZipRows(const FetchFn& fetch, const PageMeta& pm, int64_t page_start,
                       std::vector<int64_t>::const_iterator wanted,
                       std::vector<int64_t>::const_iterator wanted_end,
                       const encoding::PageInput& proto_in, const DataTypePtr& type,
                       std::vector<std::pair<int64_t, ArrayPtr>>* pieces);

// Rows of a column whose pages are all mini-block without levels (every value is one row):
// the chunk metadata (and dictionary) of the pages holding `wanted` (sorted, unique) come from
// the page index cache or one fetch, then one fetch reads only the chunks holding the rows,
// and only those values are decoded (bit-packed chunks only the 1024-value blocks that hold
// them). Returns the values in the order of `rows`.
// With `keep_dictionaries` (every page has a dictionary), returns a dictionary array instead
// (see ReadOptions::keep_dictionaries).
Result<ArrayPtr> TakeMiniBlockValues(const FetchFn& fetch, PageIndexCache* cache, int column,
                                     const std::vector<PageMeta>& pages, int minor_version,
                                     const std::vector<int64_t>& wanted,
                                     const std::vector<int64_t>& rows,
                                     const encoding::DataBlock& prototype,
                                     const DataTypePtr& type, bool keep_dictionaries);

}  // namespace lance::file
