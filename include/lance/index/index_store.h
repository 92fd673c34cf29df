// IndexStore: the files of one index segment (`{table}/_indices/{uuid}/`) on any ObjectStore,
// opened lazily and read progressively, through the IndexCache that queries share.
//
// * A file is opened (its footer and metadata read) the first time a query needs it, once:
//   concurrent first uses wait for the same open.
// * Reads go through an IndexCache (index_cache.h): a BTree page, a bitmap's row set, ... is
//   loaded on the first query that touches it and kept while the cache has room (LRU, bounded
//   in bytes, shared by every IndexStore given the same cache). A store given a cache holds it
//   weakly: when its owner (a Dataset) is gone, pages are loaded and not kept.
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
#include "lance/index/index_cache.h"
#include "lance/io/object_store.h"

namespace lance::index {

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
  // `cache` may be shared by many stores and is held weakly (its owner keeps it alive);
  // null = a private cache of kDefaultIndexCacheBytes the store owns.
  static std::shared_ptr<IndexStore> Make(std::shared_ptr<io::ObjectStore> store, std::string dir,
                                          std::shared_ptr<IndexCache> cache = nullptr);
  ~IndexStore();

  const std::string& dir() const { return dir_; }
  std::string PathOf(std::string_view name) const;
  // PathOf as the user knows it (the table's own URI, not the store's key): for messages.
  std::string DisplayPathOf(std::string_view name) const;
  // The cache pages go through (null once its owner dropped it).
  std::shared_ptr<IndexCache> cache() const { return cache_.lock(); }
  // The store as the writers use it (not counted).
  const std::shared_ptr<io::ObjectStore>& object_store() const { return base_; }

  // The reader of file `name` (opened on first use, then kept).
  // Errors: NotFound, Corruption (naming the file), IOError.
  Result<std::shared_ptr<const file::FileReader>> OpenFile(std::string_view name);
  // The same file read through one memory map of all of it where the store maps objects (a
  // local store; a memory store's objects are in memory already): a read is then a slice of
  // the mapping, neither a read request nor a copy, and a cold page costs page faults on the
  // page cache. Other stores: OpenFile. Counted as one read of the whole file when opened.
  Result<std::shared_ptr<const file::FileReader>> OpenMappedFile(std::string_view name);
  // Whether file `name` exists (one HEAD; not cached).
  Result<bool> HasFile(std::string_view name);

  // A cached page: `load` runs on a miss (counted in pages_loaded). `key` names the page
  // within this index; the cache key also holds the directory.
  template <typename T>
  Result<std::shared_ptr<const T>> GetPage(
      const std::string& key, const std::function<Result<std::pair<std::shared_ptr<const T>, int64_t>>()>& load) {
    auto erased = [&]() -> Result<IndexCache::Loaded> {
      LANCE_ASSIGN_OR_RAISE(auto p, load());
      return IndexCache::Loaded(std::move(p.first), p.second);
    };
    LANCE_ASSIGN_OR_RAISE(std::shared_ptr<const void> v, GetErased(key, erased));
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
  Result<std::shared_ptr<const file::FileReader>> OpenSlot(std::string_view name, bool mapped);
  Result<std::shared_ptr<const void>> GetErased(const std::string& key,
                                                const std::function<Result<IndexCache::Loaded>()>& load);

  std::shared_ptr<io::ObjectStore> base_;
  std::shared_ptr<CountingStore> counted_;
  std::string dir_;
  std::weak_ptr<IndexCache> cache_;
  std::shared_ptr<IndexCache> owned_cache_;  // when Make was given none
  std::unique_ptr<Files> files_;
  std::atomic<int64_t> files_opened_{0};
  std::atomic<int64_t> pages_loaded_{0};
  std::atomic<int64_t> cache_hits_{0};
};

}  // namespace lance::index
