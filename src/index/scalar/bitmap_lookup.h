// The key -> row set file shared by BITMAP and LABEL_LIST (bitmap_page_lookup.lance): keys
// kept in memory, each key's row set loaded from its row of the file on first use (cached).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "lance/index/index_store.h"
#include "lance/index/scalar/query.h"

namespace lance::index::scalar {

class BitmapLookup {
 public:
  // Reads the `keys` column of `file` (and the null key's row set, as the reference does).
  static Result<std::unique_ptr<BitmapLookup>> Open(std::shared_ptr<IndexStore> store,
                                                    const std::string& file);

  const DataTypePtr& value_type() const { return type_; }
  const RowSet& null_rows() const { return null_rows_; }
  // Rows holding exactly `key` (empty for an absent key; the null key's rows for null).
  Result<RowSet> RowsOf(const ScalarValue& key) const;
  // Union of the rows of every key k with lo <= k <= hi (per the bounds; absent = open).
  Result<RowSet> RowsInRange(const std::optional<RangeBound>& lo,
                             const std::optional<RangeBound>& hi) const;
  // Union of the rows of every non-null key starting with `prefix` (bytes keys).
  Result<RowSet> RowsWithPrefix(const std::string& prefix) const;
  // The sizes of the row sets the three above would unite, summed (an upper bound of the
  // union's size); the row sets stay in the page cache.
  Result<uint64_t> CountOf(const ScalarValue& key) const;
  Result<uint64_t> CountInRange(const std::optional<RangeBound>& lo,
                                const std::optional<RangeBound>& hi) const;
  Result<uint64_t> CountWithPrefix(const std::string& prefix) const;

 private:
  Result<std::shared_ptr<const RowSet>> Load(int64_t row) const;
  // Calls `fn(row set)` for the row set of every key in the range / with the prefix.
  template <typename Fn>
  Status ForEachInRange(const std::optional<RangeBound>& lo, const std::optional<RangeBound>& hi,
                        Fn&& fn) const;
  template <typename Fn>
  Status ForEachWithPrefix(const std::string& prefix, Fn&& fn) const;

  std::shared_ptr<IndexStore> store_;
  std::string file_;
  DataTypePtr type_;
  std::map<ScalarValue, int64_t, ScalarValueLess> keys_;  // non-null key -> row of the file
  RowSet null_rows_;
};

// Writes `file` with one row per key of `groups` (ascending, null first) and `extra`
// metadata after lance:index_stats; `global_buffer` (if any) is written first as global
// buffer 1. Returns the file's size.
Result<int64_t> WriteBitmapLookup(IndexStore& store, const std::string& file,
                                  const DataTypePtr& type,
                                  const std::map<ScalarValue, RowSet, ScalarValueLess>& groups,
                                  const std::vector<std::pair<std::string, std::string>>& extra,
                                  const std::string* global_buffer);

}  // namespace lance::index::scalar
