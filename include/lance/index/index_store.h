// IndexStore: the files of one index segment (`{table}/_indices/{uuid}/`) on any ObjectStore,
// opened lazily and read progressively, and the page cache that queries share.
//
// * A file is opened (its footer and metadata read) the first time a query needs it, once:
//   concurrent first uses wait for the same open.
// * Reads go through the page cache: a BTree page, a bitmap's row set, ... is loaded on the
//   first query that touches it and kept while the cache has room (LRU, bounded in bytes,
//   shared by every IndexStore given the same cache).
// * Counters (files opened, pages loaded, cache hits, backend reads and bytes) are exposed so
//   tests can prove that a point lookup reads O(1) pages.
//
// Thread-safe: any number of queries may use one IndexStore (and one cache) at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "lance/columnar/type.h"
#include "lance/core/result.h"
#include "lance/file/file_reader.h"
#include "lance/file/file_writer.h"
#include "lance/io/object_store.h"

namespace lance::index {

// A bounded LRU cache of loaded index pages. Values are immutable, shared objects charged by
// the byte size given at insertion. Thread-safe.
class PageCache {
 public:
  explicit PageCache(int64_t capacity_bytes = 256ll << 20);
  ~PageCache();
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  // The cached value of `key`, or the result of `load` (which is then cached; a failed load
  // is not). Concurrent callers for one key may both load; one result is kept.
  Result<std::shared_ptr<const void>> GetOrLoad(
      const std::string& key,
      const std::function<Result<std::pair<std::shared_ptr<const void>, int64_t>>()>& load,
      bool* hit = nullptr);
  void Clear();

  int64_t capacity_bytes() const { return capacity_; }
  int64_t size_bytes() const;
  int64_t num_entries() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int64_t capacity_;
};

// The process-wide cache index readers share unless given their own (256 MiB).
const std::shared_ptr<PageCache>& DefaultPageCache();

struct IndexStoreStats {
  int64_t files_opened = 0;   // index files whose metadata was read
  int64_t pages_loaded = 0;   // cache misses: pages / bitmaps / row sets loaded
  int64_t cache_hits = 0;
  int64_t read_requests = 0;  // backend reads (GetRange, merged reads of GetRanges, Get)
  int64_t bytes_read = 0;
};

class IndexStore {
 public:
  // `dir` is the index directory inside `store` ("path/to/table.lance/_indices/{uuid}").
  // `cache` may be shared by many stores; null = a private 256 MiB cache.
  static std::shared_ptr<IndexStore> Make(std::shared_ptr<io::ObjectStore> store, std::string dir,
                                          std::shared_ptr<PageCache> cache = nullptr);
  ~IndexStore();

  const std::string& dir() const { return dir_; }
  std::string PathOf(std::string_view name) const;
  const std::shared_ptr<PageCache>& cache() const { return cache_; }
  // The store as the writers use it (not counted).
  const std::shared_ptr<io::ObjectStore>& object_store() const { return base_; }

  // The reader of file `name` (opened on first use, then kept).
  // Errors: NotFound, Corruption (naming the file), IOError.
  Result<std::shared_ptr<const file::FileReader>> OpenFile(std::string_view name);
  // Whether file `name` exists (one HEAD; not cached).
  Result<bool> HasFile(std::string_view name);

  // A cached page: `load` runs on a miss (counted in pages_loaded). `key` names the page
  // within this index; the cache key also holds the directory.
  template <typename T>
  Result<std::shared_ptr<const T>> GetPage(
      const std::string& key, const std::function<Result<std::pair<std::shared_ptr<const T>, int64_t>>()>& load) {
    auto erased = [&]() -> Result<std::pair<std::shared_ptr<const void>, int64_t>> {
      LANCE_ASSIGN_OR_RAISE(auto p, load());
      return std::pair<std::shared_ptr<const void>, int64_t>(std::move(p.first), p.second);
    };
    bool hit = false;
    LANCE_ASSIGN_OR_RAISE(std::shared_ptr<const void> v, cache_->GetOrLoad(dir_ + "#" + key, erased, &hit));
    (hit ? cache_hits_ : pages_loaded_).fetch_add(1, std::memory_order_relaxed);
    return std::static_pointer_cast<const T>(v);
  }

  // A new file `name` (replacing any), written with `options` (lance 12 writes index files
  // as 2.2 files with its default page sizes).
  Result<std::unique_ptr<file::FileWriter>> CreateFile(std::string_view name, SchemaPtr schema,
                                                       file::WriteOptions options = {});

  IndexStoreStats stats() const;
  void ResetStats();

 private:
  struct Files;
  class CountingStore;
  IndexStore() = default;

  std::shared_ptr<io::ObjectStore> base_;
  std::shared_ptr<CountingStore> counted_;
  std::string dir_;
  std::shared_ptr<PageCache> cache_;
  std::unique_ptr<Files> files_;
  std::atomic<int64_t> files_opened_{0};
  std::atomic<int64_t> pages_loaded_{0};
  std::atomic<int64_t> cache_hits_{0};
};

}  // namespace lance::index
