// IndexCache: what index readers load -- BTree pages, bitmaps, opened full-text and vector
// index segments, the scalar index catalog of a version -- kept for later queries.
//
// Owned by whoever decides its lifetime and size, never by the library behind their back:
// a dataset::Dataset makes one at Open (OpenOptions::index_cache_bytes) and shares it with its
// checkouts, snapshots' scanners and writes; an engine may hand several datasets one cache of
// its own (OpenOptions::index_cache), or a zero capacity to cache nothing. A query gets it
// through query::ScanOptions::index_cache (null: nothing is kept across queries).
//
// Bounded in bytes: each value is charged the size its loader reports (a page's decoded
// arrays, a segment's MemoryBytes(), a catalog's fixed estimate), the least recently used
// values leave first, a value larger than the capacity is returned but not kept. Values are
// immutable shared objects: an evicted value lives on while a query holds it.
//
// Index readers hold the cache weakly (IndexStore, ScalarIndexCatalog): a cached value may
// hold a reader without keeping the cache alive, so dropping the last owner of the cache
// frees everything in it.
//
// Thread-safe: any number of queries may use one cache at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "lance/core/result.h"

namespace lance::index {

// The capacity a Dataset's cache has unless told otherwise.
// 6 GiB, lance's default index cache (its Session): a bound, not a reservation. An IVF
// segment is cached by partition (IvfIndex::OpenByPartition), so one larger than the capacity
// keeps its hot partitions; a value larger than the capacity (one partition, a page) is not kept.
inline constexpr int64_t kDefaultIndexCacheBytes = 6ll << 30;

struct IndexCacheStats {
  int64_t hits = 0;       // GetOrLoad calls answered from the cache
  int64_t misses = 0;     // GetOrLoad calls that ran their loader
  int64_t evictions = 0;  // values dropped to stay within the capacity
  int64_t entries = 0;    // values held now
  int64_t bytes = 0;      // bytes charged for them (<= capacity_bytes)
  int64_t capacity_bytes = 0;
};

class IndexCache {
 public:
  using Loaded = std::pair<std::shared_ptr<const void>, int64_t>;  // value, bytes charged

  // capacity_bytes <= 0: nothing is kept (every call loads; the stats still count).
  explicit IndexCache(int64_t capacity_bytes = kDefaultIndexCacheBytes);
  static std::shared_ptr<IndexCache> Make(int64_t capacity_bytes = kDefaultIndexCacheBytes) {
    return std::make_shared<IndexCache>(capacity_bytes);
  }
  ~IndexCache();
  IndexCache(const IndexCache&) = delete;
  IndexCache& operator=(const IndexCache&) = delete;

  // The cached value of `key`, or the result of `load` (which is then cached; a failed load
  // is not). `load` runs without the cache's lock held; concurrent callers for one key may
  // both load, one result is kept. `hit` (optional) tells which happened.
  Result<std::shared_ptr<const void>> GetOrLoad(const std::string& key,
                                                const std::function<Result<Loaded>()>& load,
                                                bool* hit = nullptr);
  // Typed form of GetOrLoad.
  template <typename T>
  Result<std::shared_ptr<const T>> GetOrLoadAs(
      const std::string& key,
      const std::function<Result<std::pair<std::shared_ptr<const T>, int64_t>>()>& load,
      bool* hit = nullptr) {
    auto erased = [&]() -> Result<Loaded> {
      LANCE_ASSIGN_OR_RAISE(auto p, load());
      return Loaded(std::move(p.first), p.second);
    };
    LANCE_ASSIGN_OR_RAISE(std::shared_ptr<const void> v, GetOrLoad(key, erased, hit));
    return std::static_pointer_cast<const T>(std::move(v));
  }

  // Drops every value (statistics are kept).
  void Clear();
  void ResetStats();

  int64_t capacity_bytes() const { return capacity_; }
  int64_t size_bytes() const;
  int64_t num_entries() const;
  IndexCacheStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int64_t capacity_;
};

}  // namespace lance::index
