// ScalarIndex: one opened segment of a scalar index (BTREE, BITMAP, LABEL_LIST, ...) and the
// pieces every format shares: the data an index is trained on and what training produces.
//
// Opening reads only the small part a format keeps in memory (the BTree page lookup, the
// bitmap keys); everything else is loaded by the queries that need it, through the segment's
// IndexStore (lazily, cached).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/query.h"
#include "lance/table/manifest.h"

namespace lance::table {
class Snapshot;
}  // namespace lance::table

namespace lance::index::scalar {

class ScalarIndex {
 public:
  virtual ~ScalarIndex() = default;
  // "BTREE", "BITMAP", "LABEL_LIST", ... (the reference's upper-case names).
  virtual std::string_view type_name() const = 0;
  // The type of the keys (the column's type; for LABEL_LIST the list's item type).
  virtual const DataTypePtr& value_type() const = 0;
  // Whether this index can answer `query` (the query kind and operator; for BTREE on
  // non-string columns, no LIKE).
  virtual bool CanAnswer(const IndexQuery& query) const = 0;
  // The rows of the covered fragments that satisfy `query` (see query.h).
  // Errors: NotSupported (CanAnswer is false), Corruption (a damaged page, naming the file),
  // the store's IOError.
  virtual Result<SearchResult> Search(const IndexQuery& query,
                                      const SearchOptions& options = {}) const = 0;
  // An upper bound of the rows Search(query) returns, from what the index keeps in memory
  // (no read); nullopt when the format cannot tell without reading.
  virtual std::optional<uint64_t> EstimateRows(const IndexQuery& query) const {
    (void)query;
    return std::nullopt;
  }
  // An estimate of the rows Search(query) returns, for the planner's choices, reading what it
  // must: EstimateRows by default; a BTREE counts a value inside one page as one row (a unique
  // key) and one spanning s pages as s - 1 pages of rows; a BITMAP loads the row sets the query
  // names (into the page cache, where Search then finds them) and sums their sizes (exact for
  // one key, an upper bound for several). nullopt when the index cannot tell.
  // Errors: as Search.
  virtual Result<std::optional<uint64_t>> EstimateMatches(const IndexQuery& query) const {
    return EstimateRows(query);
  }
  // Whether `null_rows` is filled in by Search (it costs reading the null pages of a BTree).
  bool fill_null_rows = true;
  const std::shared_ptr<IndexStore>& store() const { return store_; }

 protected:
  explicit ScalarIndex(std::shared_ptr<IndexStore> store) : store_(std::move(store)) {}
  std::shared_ptr<IndexStore> store_;
};

// The column an index is trained on: its values (chunks of one type, in any order) and the
// row id of each value (`row_ids.size()` = total length of `values`). The query layer
// collects it from a version (query::CollectTrainingData).
struct TrainingData {
  std::vector<ArrayPtr> values;
  std::vector<uint64_t> row_ids;
  DataTypePtr type;  // the column's type (needed when there is no value at all)
};

// What a trainer wrote: the IndexMetadata fields that describe the files.
struct TrainedIndex {
  std::string type_name;         // "BTREE", ...
  std::string details_type_url;  // "/lance.table.BTreeIndexDetails", ...
  std::string details;           // serialized details message (empty messages: "")
  int32_t index_version = 0;
  std::vector<table::IndexFileInfo> files;  // name and size of each file written
};

// Opens the segment described by `info` from `store` (its directory is
// `{table_root}/_indices/{uuid}`), choosing the format by its details type URL. `key_type`
// is the type of the column it keys (a BLOOMFILTER file does not record it; others ignore it).
// Errors: NotSupported for index types without a scalar reader here (or a BLOOMFILTER without
// `key_type`), Corruption, IOError.
Result<std::shared_ptr<ScalarIndex>> OpenScalarIndex(std::shared_ptr<IndexStore> store,
                                                     const table::IndexInfo& info,
                                                     const DataTypePtr& key_type = nullptr);

// Whether an index of this type answers exactly (BTREE, BITMAP, LABEL_LIST) or with a
// superset the planner must recheck (ZONEMAP, BLOOMFILTER, NGRAM).
bool IsExactIndexType(std::string_view type_name);

}  // namespace lance::index::scalar
