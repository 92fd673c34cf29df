#include "lance/index/index_store.h"

#include <algorithm>
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

namespace lance::index {

// ---- IndexCache ------------------------------------------------------------------------------

struct IndexCache::Impl {
  struct Entry {
    std::string key;
    std::shared_ptr<const void> value;
    int64_t bytes = 0;
  };
  mutable std::mutex mu;
  std::list<Entry> lru;  // front = most recent
  std::unordered_map<std::string, std::list<Entry>::iterator> index;
  int64_t size = 0;
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t evictions = 0;

  void EvictTo(int64_t capacity) {
    while (size > capacity && !lru.empty()) {
      size -= lru.back().bytes;
      index.erase(lru.back().key);
      lru.pop_back();
      ++evictions;
    }
  }
};

IndexCache::IndexCache(int64_t capacity_bytes)
    : impl_(std::make_unique<Impl>()), capacity_(std::max<int64_t>(capacity_bytes, 0)) {}
IndexCache::~IndexCache() = default;

Result<std::shared_ptr<const void>> IndexCache::GetOrLoad(const std::string& key,
                                                          const std::function<Result<Loaded>()>& load,
                                                          bool* hit) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->index.find(key);
    if (it != impl_->index.end()) {
      impl_->lru.splice(impl_->lru.begin(), impl_->lru, it->second);
      ++impl_->hits;
      if (hit) *hit = true;
      return it->second->value;
    }
    ++impl_->misses;
  }
  if (hit) *hit = false;
  LANCE_ASSIGN_OR_RAISE(Loaded loaded, load());
  const int64_t bytes = std::max<int64_t>(loaded.second, 0);
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->index.find(key);
  if (it != impl_->index.end()) return it->second->value;  // a racing load won
  if (capacity_ > 0 && bytes <= capacity_) {
    impl_->lru.push_front(Impl::Entry{key, loaded.first, bytes});
    impl_->index.emplace(key, impl_->lru.begin());
    impl_->size += bytes;
    impl_->EvictTo(capacity_);
  }
  return loaded.first;
}

void IndexCache::Clear() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->lru.clear();
  impl_->index.clear();
  impl_->size = 0;
}

void IndexCache::ResetStats() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->hits = impl_->misses = impl_->evictions = 0;
}

int64_t IndexCache::size_bytes() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->size;
}

int64_t IndexCache::num_entries() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return static_cast<int64_t>(impl_->lru.size());
}

IndexCacheStats IndexCache::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  IndexCacheStats s;
  s.hits = impl_->hits;
  s.misses = impl_->misses;
  s.evictions = impl_->evictions;
  s.entries = static_cast<int64_t>(impl_->lru.size());
  s.bytes = impl_->size;
  s.capacity_bytes = capacity_;
  return s;
}

// ---- the counting store --------------------------------------------------------------------

// Forwards every call to the wrapped store, counting the reads the file readers make.
class IndexStore::CountingStore final : public io::ObjectStore {
 public:
  explicit CountingStore(std::shared_ptr<io::ObjectStore> base) : base_(std::move(base)) {
    CopyReadSettingsFrom(*base_);
  }
  std::string_view scheme() const override { return base_->scheme(); }
  std::string DisplayPath(std::string_view path) const override {
    return base_->DisplayPath(path);
  }
  Result<BufferPtr> Get(std::string_view path) override {
    LANCE_ASSIGN_OR_RAISE(BufferPtr b, base_->Get(path));
    Count(b->size());
    return b;
  }
  Result<BufferPtr> GetRange(std::string_view path, int64_t offset, int64_t length) override {
    LANCE_ASSIGN_OR_RAISE(BufferPtr b, base_->GetRange(path, offset, length));
    Count(b->size());
    return b;
  }
  Result<std::vector<BufferPtr>> GetRanges(std::string_view path,
                                           const std::vector<io::Range>& ranges) override {
    LANCE_ASSIGN_OR_RAISE(io::CoalescedReads plan, io::CoalesceRanges(ranges, coalesce_options()));
    LANCE_ASSIGN_OR_RAISE(std::vector<BufferPtr> out, base_->GetRanges(path, ranges));
    for (const io::Range& r : plan.reads) Count(r.length);
    return out;
  }
  Result<io::ObjectMeta> Head(std::string_view path) override { return base_->Head(path); }
  Result<io::TailRead> GetTail(std::string_view path, int64_t max_length) override {
    LANCE_ASSIGN_OR_RAISE(io::TailRead t, base_->GetTail(path, max_length));
    Count(t.bytes->size());
    return t;
  }
  Result<bool> Exists(std::string_view path) override { return base_->Exists(path); }
  Status Put(std::string_view path, std::string_view bytes) override { return base_->Put(path, bytes); }
  Status PutIfNotExists(std::string_view path, std::string_view bytes) override {
    return base_->PutIfNotExists(path, bytes);
  }
  Status Delete(std::string_view path) override { return base_->Delete(path); }
  Result<std::vector<io::ObjectMeta>> List(std::string_view prefix) override { return base_->List(prefix); }
  Result<io::ListResult> ListDir(std::string_view prefix) override { return base_->ListDir(prefix); }
  Status Copy(std::string_view src, std::string_view dst) override { return base_->Copy(src, dst); }
  Status CopyIfNotExists(std::string_view src, std::string_view dst) override {
    return base_->CopyIfNotExists(src, dst);
  }
  Status RenameIfNotExists(std::string_view src, std::string_view dst) override {
    return base_->RenameIfNotExists(src, dst);
  }
  Result<std::unique_ptr<io::ObjectWriter>> OpenWriter(std::string_view path, bool overwrite) override {
    return base_->OpenWriter(path, overwrite);
  }

  std::atomic<int64_t> reads{0};
  std::atomic<int64_t> bytes{0};

 private:
  void Count(int64_t n) {
    reads.fetch_add(1, std::memory_order_relaxed);
    bytes.fetch_add(n, std::memory_order_relaxed);
  }
  std::shared_ptr<io::ObjectStore> base_;
};

// ---- IndexStore ------------------------------------------------------------------------------

struct IndexStore::Files {
  std::mutex mu;
  // One slot per file name; the slot's own mutex serializes its first open.
  struct Slot {
    std::mutex mu;
    std::shared_ptr<const file::FileReader> reader;
  };
  std::map<std::string, std::shared_ptr<Slot>, std::less<>> slots;
};

std::shared_ptr<IndexStore> IndexStore::Make(std::shared_ptr<io::ObjectStore> store,
                                             std::string dir, std::shared_ptr<IndexCache> cache) {
  std::shared_ptr<IndexStore> s(new IndexStore());
  s->counted_ = std::make_shared<CountingStore>(store);
  s->base_ = std::move(store);
  while (!dir.empty() && dir.back() == '/') dir.pop_back();
  s->dir_ = std::move(dir);
  // A shared cache is held weakly (values in it may hold this store); a private one is owned.
  if (!cache) s->owned_cache_ = std::make_shared<IndexCache>();
  s->cache_ = cache ? cache : s->owned_cache_;
  s->files_ = std::make_unique<Files>();
  return s;
}

IndexStore::~IndexStore() = default;

Result<std::shared_ptr<const void>> IndexStore::GetErased(
    const std::string& key, const std::function<Result<IndexCache::Loaded>()>& load) {
  bool hit = false;
  std::shared_ptr<const void> v;
  if (std::shared_ptr<IndexCache> cache = cache_.lock()) {
    LANCE_ASSIGN_OR_RAISE(v, cache->GetOrLoad(dir_ + "#" + key, load, &hit));
  } else {
    // The cache's owner is gone (a reader outliving its dataset): load, keep nothing.
    LANCE_ASSIGN_OR_RAISE(IndexCache::Loaded loaded, load());
    v = std::move(loaded.first);
  }
  (hit ? cache_hits_ : pages_loaded_).fetch_add(1, std::memory_order_relaxed);
  return v;
}

std::string IndexStore::PathOf(std::string_view name) const {
  return dir_.empty() ? std::string(name) : dir_ + "/" + std::string(name);
}

std::string IndexStore::DisplayPathOf(std::string_view name) const {
  return base_->DisplayPath(PathOf(name));
}

Result<std::shared_ptr<const file::FileReader>> IndexStore::OpenFile(std::string_view name) {
  return OpenSlot(name, /*mapped=*/false);
}

Result<std::shared_ptr<const file::FileReader>> IndexStore::OpenMappedFile(std::string_view name) {
  const std::string_view scheme = base_->scheme();
  return OpenSlot(name, /*mapped=*/scheme == "file" || scheme == "memory");
}

Result<std::shared_ptr<const file::FileReader>> IndexStore::OpenSlot(std::string_view name, bool mapped) {
  std::shared_ptr<Files::Slot> slot;
  {
    std::lock_guard<std::mutex> lock(files_->mu);
    const std::string key = mapped ? "mapped:" + std::string(name) : std::string(name);
    auto it = files_->slots.find(key);
    if (it == files_->slots.end()) it = files_->slots.emplace(key, std::make_shared<Files::Slot>()).first;
    slot = it->second;
  }
  std::lock_guard<std::mutex> lock(slot->mu);
  if (slot->reader) return slot->reader;
  std::unique_ptr<file::FileReader> r;
  if (mapped) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, counted_->Get(PathOf(name)));
    auto opened = file::FileReader::Open(std::move(bytes));
    if (!opened.ok()) {
      return Status(opened.status().code(), fmt::format("{}: {}", DisplayPathOf(name), opened.status().message()));
    }
    r = std::move(*opened);
  } else {
    LANCE_ASSIGN_OR_RAISE(r, file::FileReader::Open(counted_, PathOf(name)));
  }
  files_opened_.fetch_add(1, std::memory_order_relaxed);
  slot->reader = std::move(r);
  return slot->reader;
}

Result<bool> IndexStore::HasFile(std::string_view name) { return base_->Exists(PathOf(name)); }

Result<std::unique_ptr<file::FileWriter>> IndexStore::CreateFile(std::string_view name,
                                                                 SchemaPtr schema,
                                                                 file::WriteOptions options) {
  return file::FileWriter::Open(base_, PathOf(name), std::move(schema), options);
}

IndexStoreStats IndexStore::stats() const {
  IndexStoreStats s;
  s.files_opened = files_opened_.load();
  s.pages_loaded = pages_loaded_.load();
  s.cache_hits = cache_hits_.load();
  s.read_requests = counted_->reads.load();
  s.bytes_read = counted_->bytes.load();
  return s;
}

void IndexStore::ResetStats() {
  files_opened_ = 0;
  pages_loaded_ = 0;
  cache_hits_ = 0;
  counted_->reads = 0;
  counted_->bytes = 0;
}

}  // namespace lance::index
