#include "lance/io/memory_object_store.h"

#include <chrono>
#include <mutex>
#include <unordered_map>

#include "io/coalesced_read.h"

namespace lance::io {

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "a/b" -> "a/b/" so that a prefix only matches whole segments; "" stays "".
std::string DirPrefix(std::string_view prefix) {
  std::string p(prefix);
  if (!p.empty() && p.back() != '/') p.push_back('/');
  return p;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

class MemoryObjectWriter : public ObjectWriter {
 public:
  MemoryObjectWriter(MemoryObjectStore* store, std::string path, bool overwrite)
      : store_(store), path_(std::move(path)), overwrite_(overwrite) {}

  Status Write(const void* data, int64_t n) override {
    if (done_) return Status::InvalidArgument("write to closed object writer for '{}'", path_);
    if (n < 0) return Status::InvalidArgument("negative write size {} for '{}'", n, path_);
    return builder_.Append(data, n);
  }
  Status Close() override {
    if (done_) return Status::InvalidArgument("object writer for '{}' already closed", path_);
    done_ = true;
    LANCE_ASSIGN_OR_RAISE(BufferPtr buffer, builder_.Finish());
    return store_->PutBuffer(path_, std::move(buffer), overwrite_);
  }
  Status Abort() override {
    done_ = true;
    builder_.Reset();
    return Status::OK();
  }
  int64_t bytes_written() const override { return builder_.size(); }

 private:
  MemoryObjectStore* store_;
  std::string path_;
  bool overwrite_;
  bool done_ = false;
  BufferBuilder builder_;
};

// Holds the object's buffer: a snapshot, and every read is a slice.
class MemoryObjectReader : public ObjectReader {
 public:
  MemoryObjectReader(std::string path, BufferPtr data) : path_(std::move(path)), data_(std::move(data)) {}
  const std::string& path() const override { return path_; }
  int64_t size() const override { return data_->size(); }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    LANCE_RETURN_NOT_OK(internal::CheckRangeInObject(path_, offset, length, data_->size()));
    return SliceBuffer(data_, offset, length);
  }
  Result<std::vector<BufferPtr>> ReadRanges(const std::vector<Range>& ranges) override {
    std::vector<BufferPtr> out;
    out.reserve(ranges.size());
    for (const Range& r : ranges) {
      LANCE_ASSIGN_OR_RAISE(BufferPtr b, ReadAt(r.offset, r.length));
      out.push_back(std::move(b));
    }
    return out;
  }

 private:
  std::string path_;
  BufferPtr data_;
};

}  // namespace

std::shared_ptr<MemoryObjectStore> MemoryObjectStore::Make() {
  return std::shared_ptr<MemoryObjectStore>(new MemoryObjectStore());
}

std::shared_ptr<MemoryObjectStore> MemoryObjectStore::Named(const std::string& name) {
  static std::mutex mu;
  static auto* registry = new std::unordered_map<std::string, std::shared_ptr<MemoryObjectStore>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*registry)[name];
  if (!slot) slot = Make();
  return slot;
}

Result<MemoryObjectStore::Entry> MemoryObjectStore::Find(std::string_view path) const {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto it = objects_.find(path);
  if (it == objects_.end()) return Status::NotFound("object '{}' not found in memory store", path);
  return it->second;
}

Result<BufferPtr> MemoryObjectStore::Get(std::string_view path) {
  LANCE_ASSIGN_OR_RAISE(Entry e, Find(path));
  return e.data;
}

Result<BufferPtr> MemoryObjectStore::GetRange(std::string_view path, int64_t offset,
                                              int64_t length) {
  LANCE_ASSIGN_OR_RAISE(Entry e, Find(path));
  LANCE_RETURN_NOT_OK(internal::CheckRangeInObject(path, offset, length, e.data->size()));
  return SliceBuffer(e.data, offset, length);
}

Result<std::vector<BufferPtr>> MemoryObjectStore::GetRanges(std::string_view path,
                                                            const std::vector<Range>& ranges) {
  // Slicing is free here: no coalescing or fan-out needed.
  LANCE_ASSIGN_OR_RAISE(Entry e, Find(path));
  std::vector<BufferPtr> out;
  out.reserve(ranges.size());
  for (const Range& r : ranges) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr b, GetRange(path, r.offset, r.length));
    out.push_back(std::move(b));
  }
  return out;
}

Result<TailRead> MemoryObjectStore::GetTail(std::string_view path, int64_t max_length) {
  if (max_length < 0) {
    return Status::InvalidArgument("GetTail '{}': negative length {}", path, max_length);
  }
  LANCE_ASSIGN_OR_RAISE(Entry e, Find(path));
  const int64_t size = e.data->size();
  const int64_t n = std::min(size, max_length);
  return TailRead{SliceBuffer(e.data, size - n, n), size};
}

Result<ObjectMeta> MemoryObjectStore::Head(std::string_view path) {
  LANCE_ASSIGN_OR_RAISE(Entry e, Find(path));
  return ObjectMeta{std::string(path), e.data->size(), e.mtime_ns};
}

Status MemoryObjectStore::PutBuffer(std::string_view path, BufferPtr buffer, bool overwrite) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = objects_.find(path);
  if (it != objects_.end()) {
    if (!overwrite) return Status::AlreadyExists("object '{}' already exists", path);
    it->second = Entry{std::move(buffer), NowNs()};
  } else {
    objects_.emplace(std::string(path), Entry{std::move(buffer), NowNs()});
  }
  return Status::OK();
}

Status MemoryObjectStore::Put(std::string_view path, std::string_view bytes) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr b, CopyBuffer(bytes));
  return PutBuffer(path, std::move(b), /*overwrite=*/true);
}

Status MemoryObjectStore::PutIfNotExists(std::string_view path, std::string_view bytes) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr b, CopyBuffer(bytes));
  return PutBuffer(path, std::move(b), /*overwrite=*/false);
}

Status MemoryObjectStore::Delete(std::string_view path) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = objects_.find(path);
  if (it == objects_.end()) return Status::NotFound("delete: object '{}' not found", path);
  objects_.erase(it);
  return Status::OK();
}

Result<std::vector<ObjectMeta>> MemoryObjectStore::List(std::string_view prefix) {
  LANCE_RETURN_NOT_OK(ValidateListPrefix(prefix));
  if (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  const std::string dir = DirPrefix(prefix);
  std::vector<ObjectMeta> out;
  std::shared_lock<std::shared_mutex> lock(mutex_);
  if (!prefix.empty()) {
    auto it = objects_.find(prefix);
    if (it != objects_.end()) out.push_back({it->first, it->second.data->size(), it->second.mtime_ns});
  }
  for (auto it = objects_.lower_bound(dir); it != objects_.end() && StartsWith(it->first, dir); ++it) {
    out.push_back({it->first, it->second.data->size(), it->second.mtime_ns});
  }
  return out;
}

Result<ListResult> MemoryObjectStore::ListDir(std::string_view prefix) {
  LANCE_RETURN_NOT_OK(ValidateListPrefix(prefix));
  const std::string dir = DirPrefix(prefix);
  ListResult out;
  std::shared_lock<std::shared_mutex> lock(mutex_);
  for (auto it = objects_.lower_bound(dir); it != objects_.end() && StartsWith(it->first, dir);) {
    std::string_view rest = std::string_view(it->first).substr(dir.size());
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) {
      out.objects.push_back({it->first, it->second.data->size(), it->second.mtime_ns});
      ++it;
    } else {
      // Report the child directory once and skip everything under it.
      std::string child = dir + std::string(rest.substr(0, slash));
      out.directories.push_back(child);
      it = objects_.lower_bound(child + '0');  // '0' is the byte after '/'
    }
  }
  return out;
}

Status MemoryObjectStore::Copy(std::string_view src, std::string_view dst) {
  LANCE_ASSIGN_OR_RAISE(Entry e, Find(src));
  return PutBuffer(dst, e.data, /*overwrite=*/true);
}

Status MemoryObjectStore::CopyIfNotExists(std::string_view src, std::string_view dst) {
  LANCE_ASSIGN_OR_RAISE(Entry e, Find(src));
  return PutBuffer(dst, e.data, /*overwrite=*/false);
}

Status MemoryObjectStore::RenameIfNotExists(std::string_view src, std::string_view dst) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(src));
  LANCE_RETURN_NOT_OK(ValidateObjectPath(dst));
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = objects_.find(src);
  if (it == objects_.end()) return Status::NotFound("rename: source object '{}' not found", src);
  if (src == dst) return Status::AlreadyExists("rename: destination '{}' already exists", dst);
  if (objects_.find(dst) != objects_.end()) {
    return Status::AlreadyExists("rename: destination '{}' already exists", dst);
  }
  Entry e = std::move(it->second);
  objects_.erase(it);
  e.mtime_ns = NowNs();
  objects_.emplace(std::string(dst), std::move(e));
  return Status::OK();
}

Result<std::unique_ptr<ObjectReader>> MemoryObjectStore::OpenReader(std::string_view path) {
  LANCE_ASSIGN_OR_RAISE(Entry e, Find(path));
  return std::unique_ptr<ObjectReader>(new MemoryObjectReader(std::string(path), e.data));
}

Result<std::unique_ptr<ObjectWriter>> MemoryObjectStore::OpenWriter(std::string_view path,
                                                                   bool overwrite) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  return std::unique_ptr<ObjectWriter>(new MemoryObjectWriter(this, std::string(path), overwrite));
}

}  // namespace lance::io
