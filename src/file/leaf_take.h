// Takes of top-level leaf columns without levels, reading only the bytes of the rows: values of
// mini-block pages (chunk by chunk through the page index) and rows of full-zip pages (at
// their stride or through the repetition index); the decoded pieces are assembled into the rows
// asked for by TakeChunked (lance/columnar/compute.h). Internal to the file layer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
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
// their bytes: a bounded number of bytes per row. Returns the wanted rows of the page (those
// of [wanted, wanted_end) below its end; at least one), in that order, decoded at once.
Result<ArrayPtr> TakeFullZipRows(const FetchFn& fetch, const PageMeta& pm, int64_t page_start,
                                 std::vector<int64_t>::const_iterator wanted,
                                 std::vector<int64_t>::const_iterator wanted_end,
                                 const encoding::PageInput& proto_in, const DataTypePtr& type);

// The rows a take wants, ascending and unique: a list, or the range [first, first + count)
// (a ranged read, which then builds no list of its rows).
class WantedRows {
 public:
  explicit WantedRows(const std::vector<int64_t>& rows)
      : rows_(&rows), count_(static_cast<int64_t>(rows.size())) {}
  WantedRows(int64_t first, int64_t count) : first_(first), count_(count) {}
  int64_t size() const { return count_; }
  int64_t operator[](int64_t i) const {
    return rows_ ? (*rows_)[static_cast<size_t>(i)] : first_ + i;
  }
  // The index of the first wanted row >= `value` at or after index `from`.
  int64_t LowerBound(int64_t from, int64_t value) const {
    if (rows_) {
      return std::lower_bound(rows_->begin() + from, rows_->end(), value) - rows_->begin();
    }
    return std::clamp(value - first_, from, count_);
  }
  // (*out)[i] = the row at index from + i, less `base`, for the out->size() rows from `from`.
  void Positions(int64_t from, int64_t base, std::vector<int64_t>* out) const {
    if (rows_) {
      const int64_t* r = rows_->data() + from;
      for (size_t i = 0; i < out->size(); ++i) (*out)[i] = r[i] - base;
    } else {
      std::iota(out->begin(), out->end(), first_ + from - base);
    }
  }

 private:
  const std::vector<int64_t>* rows_ = nullptr;
  int64_t first_ = 0;
  int64_t count_ = 0;
};

// Rows of a column whose pages are all mini-block without levels (every value is one row):
// the chunk metadata (and dictionary) of the pages holding `wanted` come from the page index
// cache or one fetch, then one fetch reads only the chunks holding the rows, and only those
// values are decoded (bit-packed chunks only the 1024-value blocks that hold them; a run of a
// chunk's values decodes whole). Returns the values in the order of `order` (rows of `wanted`,
// any order, repeats allowed), or of `wanted` when null.
// With `keep_dictionaries` (every page has a dictionary), returns a dictionary array instead
// (see ReadOptions::keep_dictionaries).
Result<ArrayPtr> TakeMiniBlockValues(const FetchFn& fetch, PageIndexCache* cache, int column,
                                     const std::vector<PageMeta>& pages, int minor_version,
                                     const WantedRows& wanted, const std::vector<int64_t>* order,
                                     const encoding::DataBlock& prototype,
                                     const DataTypePtr& type, bool keep_dictionaries);

// Whether every page of a column is a mini-block page without levels, of a leaf type (every
// value is one row): such columns take through TakeMiniBlockValues.
bool LevellessMiniBlock(const DataType& type, const std::vector<PageMeta>& pages);

}  // namespace lance::file
