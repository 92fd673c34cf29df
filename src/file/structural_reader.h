// Reading 2.1+ fields through their structural encoding: each leaf column's pages decode into
// repetition / definition levels and values (encoding/structural.h), the levels unravel into
// per-layer validity and offsets (encoding/repdef.h), and the layers of the first leaf under
// each struct / list give that array its shape. Used for whole-field reads and for takes of
// nested fields and of leaves with levels. Internal to the file layer.
#pragma once

#include <cstdint>
#include <vector>

#include "encoding/data_block.h"
#include "encoding/repdef.h"
#include "file/page_table.h"
#include "lance/columnar/array.h"
#include "lance/core/result.h"

namespace lance::file {

// The decoded layers and values of one leaf column (2.1+).
struct LeafData {
  std::vector<encoding::LayerSlots> layers;  // outermost first
  encoding::DataBlock values;
};

// Decodes the leaf columns of one top-level field of a 2.1+ file and builds the field's array
// from their levels: the whole field from pages fetched beforehand (`fetched`), or, with a
// `selection`, only the selected rows, fetching what locates them and then only the chunks
// and rows that hold them.
struct StructuralReader {
  const std::vector<std::vector<PageMeta>>* pages;
  int minor;
  const FetchedColumns* fetched;  // page buffers of columns [first_column, ...)
  int first_column;
  // Set for a take: the rows (ascending, unique) and where to read them from.
  const std::vector<int64_t>* selection = nullptr;
  const FetchFn* fetch = nullptr;
  PageIndexCache* page_index = nullptr;

  // The leaf's levels and values of the `selection` rows only: per page, the chunk metadata,
  // repetition index and dictionary of mini-block pages (once, then cached), then in one
  // fetch only the mini-block chunks and full-zip rows that hold the rows. Constant pages and
  // other layouts are read whole.
  Result<LeafData> TakeLeaf(int column, const DataType& leaf_type) const;

  // The leaf's levels and values: every page (or, with a selection, TakeLeaf).
  Result<LeafData> ReadLeaf(int column, const DataType& leaf_type, int64_t expected_rows) const;

  // Builds the array of `type` at nesting depth `depth`; `column` is advanced past its leaves.
  Result<ArrayPtr> Build(const DataTypePtr& type, int depth, int* column, int64_t rows,
                         LeafData* first_leaf_out) const;
};

}  // namespace lance::file
