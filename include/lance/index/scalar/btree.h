// BTREE: lance's two-level B-tree (docs/format/table/index/scalar/btree.md), as lance 12
// writes it:
//
//   page_data.lance    columns `values` (the column's type, nullable) and `ids` (uint64, not
//                      null): every indexed value with its row id, sorted by value (nulls
//                      first, floats in IEEE total order) and cut into pages of `batch_size`
//                      rows (page p = rows [p * batch_size, (p + 1) * batch_size)).
//   page_lookup.lance  one row per page: `min`, `max` (nullable, the page's first and last
//                      value), `null_count` (uint32), `page_idx` (uint32); schema metadata
//                      batch_size = "4096", range_partitioned = "false".
//
// Both are 2.2 Lance files. Details: /lance.table.BTreeIndexDetails (empty), index version 0.
// The reader keeps the page lookup in memory and loads a page of page_data.lance (its rows
// only) when a query needs it; answers are exact.
#pragma once

#include <memory>

#include "lance/file/file_writer.h"
#include "lance/index/scalar/scalar_index.h"

namespace lance::index::scalar {

inline constexpr const char* kBTreeLookupFile = "page_lookup.lance";
inline constexpr const char* kBTreePagesFile = "page_data.lance";
inline constexpr int64_t kBTreeDefaultBatchSize = 4096;

// Opens the BTree in `store` (reads page_lookup.lance only).
Result<std::shared_ptr<ScalarIndex>> OpenBTreeIndex(std::shared_ptr<IndexStore> store);

struct BTreeTrainOptions {
  int64_t batch_size = kBTreeDefaultBatchSize;
  // How both files are written (default: 2.2, as lance 12 writes table indexes; MemWAL's
  // _pk_index follows its generation's data storage version).
  file::WriteOptions file_options;
  // Where the sort and the page encoding fan out (also file_options.pool when that is null);
  // null: the caller only. The files are the same bytes either way.
  ThreadPool* pool = nullptr;
};
// Sorts `data` as the reference does (value, then row id for ties) and writes both files.
// Errors: InvalidArgument (a type a BTree cannot key), IOError.
Result<TrainedIndex> TrainBTreeIndex(IndexStore& store, const TrainingData& data,
                                     const BTreeTrainOptions& options = {});

}  // namespace lance::index::scalar
