// MemoryObjectStore: an ObjectStore held in process memory, for tests and scratch data.
//
// Objects are immutable shared buffers in a sorted map under one reader/writer lock, so every
// operation is atomic and Get/GetRange are zero-copy. Nothing is durable.
//
// Thread-safety: safe for concurrent use by any number of threads (not across processes).
#pragma once

#include <map>
#include <memory>
#include <shared_mutex>
#include <string>

#include "lance/io/object_store.h"

namespace lance::io {

class MemoryObjectStore : public ObjectStore {
 public:
  static std::shared_ptr<MemoryObjectStore> Make();

  // The process-wide store registered under `name` (what "memory://name/..." resolves to).
  static std::shared_ptr<MemoryObjectStore> Named(const std::string& name);

  std::string_view scheme() const override { return "memory"; }
  Result<BufferPtr> Get(std::string_view path) override;
  Result<BufferPtr> GetRange(std::string_view path, int64_t offset, int64_t length) override;
  Result<std::vector<BufferPtr>> GetRanges(std::string_view path,
                                           const std::vector<Range>& ranges) override;
  Result<ObjectMeta> Head(std::string_view path) override;
  Result<TailRead> GetTail(std::string_view path, int64_t max_length) override;
  Status Put(std::string_view path, std::string_view bytes) override;
  Status PutIfNotExists(std::string_view path, std::string_view bytes) override;
  Status Delete(std::string_view path) override;
  Result<std::vector<ObjectMeta>> List(std::string_view prefix) override;
  Result<ListResult> ListDir(std::string_view prefix) override;
  Status Copy(std::string_view src, std::string_view dst) override;
  Status CopyIfNotExists(std::string_view src, std::string_view dst) override;
  Status RenameIfNotExists(std::string_view src, std::string_view dst) override;
  Result<std::unique_ptr<ObjectReader>> OpenReader(std::string_view path) override;
  Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view path,
                                                   bool overwrite = true) override;

  // Publishes an already built buffer without copying (used by the writer).
  Status PutBuffer(std::string_view path, BufferPtr buffer, bool overwrite);

 private:
  MemoryObjectStore() = default;
  struct Entry {
    BufferPtr data;
    int64_t mtime_ns = 0;
  };
  Result<Entry> Find(std::string_view path) const;

  mutable std::shared_mutex mutex_;
  std::map<std::string, Entry, std::less<>> objects_;  // guarded by mutex_
};

}  // namespace lance::io
