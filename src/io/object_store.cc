#include "lance/io/object_store.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>

#include "io/coalesced_read.h"
#include "lance/core/thread_pool.h"
#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"

namespace lance::io {

namespace {

constexpr std::string_view kTempPrefix = ".lance-tmp.";

Status CheckRange(const Range& r) {
  if (r.offset < 0 || r.length < 0 ||
      r.length > std::numeric_limits<int64_t>::max() - r.offset) {
    return Status::InvalidArgument("invalid byte range: offset {} length {}", r.offset, r.length);
  }
  return Status::OK();
}

}  // namespace

bool IsTempObjectName(std::string_view name) { return name.substr(0, kTempPrefix.size()) == kTempPrefix; }

Status ValidateObjectPath(std::string_view path) {
  if (path.empty()) return Status::InvalidArgument("object path is empty");
  if (path.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("object path '{}' contains a NUL byte", path);
  }
  if (path.front() == '/' || path.back() == '/') {
    return Status::InvalidArgument("object path '{}' must not start or end with '/'", path);
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") {
      return Status::InvalidArgument("object path '{}' has an empty, '.' or '..' segment", path);
    }
    if (IsTempObjectName(segment)) {
      return Status::InvalidArgument("object path '{}' uses the reserved prefix '{}'", path,
                                     kTempPrefix);
    }
    start = end + 1;
  }
  return Status::OK();
}

Status ValidateListPrefix(std::string_view prefix) {
  if (prefix.empty()) return Status::OK();
  if (prefix.back() == '/') prefix.remove_suffix(1);
  return ValidateObjectPath(prefix);
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  if (out.back() != '/') out.push_back('/');
  out.append(b);
  return out;
}

Result<CoalescedReads> CoalesceRanges(const std::vector<Range>& ranges,
                                      const CoalesceOptions& options) {
  CoalescedReads plan;
  plan.slices.resize(ranges.size());
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), size_t{0});
  for (const Range& r : ranges) LANCE_RETURN_NOT_OK(CheckRange(r));
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ranges[a].offset != ranges[b].offset ? ranges[a].offset < ranges[b].offset
                                                : ranges[a].length < ranges[b].length;
  });
  const int64_t max_gap = std::max<int64_t>(options.max_gap, 0);
  for (size_t idx : order) {
    const Range& r = ranges[idx];
    if (!plan.reads.empty()) {
      Range& cur = plan.reads.back();
      const int64_t merged_end = std::max(cur.end(), r.end());
      if (r.offset - cur.end() <= max_gap && merged_end - cur.offset <= options.max_merged_size) {
        cur.length = merged_end - cur.offset;
        plan.slices[idx] = {plan.reads.size() - 1, r.offset - cur.offset};
        continue;
      }
    }
    plan.reads.push_back(r);
    plan.slices[idx] = {plan.reads.size() - 1, 0};
  }
  return plan;
}

namespace internal {

Status CheckRangeInObject(std::string_view path, int64_t offset, int64_t length, int64_t size) {
  if (offset < 0 || length < 0 || offset > size || length > size - offset) {
    return Status::InvalidArgument(
        "range out of bounds: object '{}' offset {} length {} but object size is {}", path,
        offset, length, size);
  }
  return Status::OK();
}

Result<std::vector<BufferPtr>> ReadCoalesced(
    const std::vector<Range>& ranges, const CoalesceOptions& options, ThreadPool* pool,
    const std::function<Result<BufferPtr>(const Range&)>& read) {
  LANCE_ASSIGN_OR_RAISE(CoalescedReads plan, CoalesceRanges(ranges, options));
  const size_t n = plan.reads.size();
  std::vector<BufferPtr> reads(n);
  std::vector<Status> errors(n);
  ParallelFor(pool, static_cast<int64_t>(n), [&](int64_t i) {
    Result<BufferPtr> got = read(plan.reads[static_cast<size_t>(i)]);
    if (got.ok()) {
      reads[static_cast<size_t>(i)] = std::move(got).MoveValueUnsafe();
    } else {
      errors[static_cast<size_t>(i)] = got.status();
    }
  });
  for (const Status& e : errors) LANCE_RETURN_NOT_OK(e);
  std::vector<BufferPtr> out(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const auto& s = plan.slices[i];
    out[i] = SliceBuffer(reads[s.read], s.offset_in_read, ranges[i].length);
  }
  return out;
}

}  // namespace internal

namespace {

// OpenReader for stores without a native one: remembers the size, reads through the store.
class GenericObjectReader : public ObjectReader {
 public:
  GenericObjectReader(ObjectStore* store, std::string path, int64_t size)
      : store_(store), path_(std::move(path)), size_(size) {}
  const std::string& path() const override { return path_; }
  int64_t size() const override { return size_; }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    LANCE_RETURN_NOT_OK(internal::CheckRangeInObject(path_, offset, length, size_));
    return store_->GetRange(path_, offset, length);
  }
  Result<std::vector<BufferPtr>> ReadRanges(const std::vector<Range>& ranges) override {
    for (const Range& r : ranges) {
      LANCE_RETURN_NOT_OK(internal::CheckRangeInObject(path_, r.offset, r.length, size_));
    }
    return internal::ReadCoalesced(ranges, store_->coalesce_options(), store_->io_pool(),
                                   [this](const Range& r) { return store_->GetRange(path_, r.offset, r.length); });
  }

 private:
  ObjectStore* store_;
  std::string path_;
  int64_t size_;
};

}  // namespace

Result<std::unique_ptr<ObjectReader>> ObjectStore::OpenReader(std::string_view path) {
  LANCE_ASSIGN_OR_RAISE(ObjectMeta meta, Head(path));
  return std::unique_ptr<ObjectReader>(new GenericObjectReader(this, std::string(path), meta.size));
}

ObjectStore::ObjectStore() = default;

ThreadPool* ObjectStore::io_pool() const { return io_pool_set_ ? io_pool_ : ThreadPool::Default(); }

Result<std::vector<BufferPtr>> ObjectStore::GetRanges(std::string_view path,
                                                      const std::vector<Range>& ranges) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  LANCE_ASSIGN_OR_RAISE(CoalescedReads plan, CoalesceRanges(ranges, coalesce_options_));
  const size_t n = plan.reads.size();
  std::vector<BufferPtr> reads(n);
  std::vector<Status> errors(n);
  ParallelFor(io_pool(), static_cast<int64_t>(n), [&](int64_t i) {
    const Range& r = plan.reads[static_cast<size_t>(i)];
    Result<BufferPtr> got = GetRange(path, r.offset, r.length);
    if (got.ok()) {
      reads[static_cast<size_t>(i)] = std::move(got).MoveValueUnsafe();
    } else {
      errors[static_cast<size_t>(i)] = got.status();
    }
  });
  std::vector<BufferPtr> out(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const auto& slice = plan.slices[i];
    const Status& err = errors[slice.read];
    if (!err.ok()) {
      // A merged read past the end names the merged range; re-read this range alone so the
      // error names what the caller asked for.
      if (err.IsInvalidArgument()) {
        LANCE_RETURN_NOT_OK(GetRange(path, ranges[i].offset, ranges[i].length).status());
        continue;  // this range alone is fine; a later one is the culprit
      }
      return err;
    }
    out[i] = SliceBuffer(reads[slice.read], slice.offset_in_read, ranges[i].length);
  }
  for (size_t i = 0; i < n; ++i) {
    if (!errors[i].ok()) return errors[i];  // no single range reproduced the failure
  }
  return out;
}

Result<TailRead> ObjectStore::GetTail(std::string_view path, int64_t max_length) {
  if (max_length < 0) {
    return Status::InvalidArgument("GetTail '{}': negative length {}", path, max_length);
  }
  LANCE_ASSIGN_OR_RAISE(ObjectMeta meta, Head(path));
  const int64_t n = std::min(meta.size, max_length);
  TailRead out;
  out.object_size = meta.size;
  LANCE_ASSIGN_OR_RAISE(out.bytes, GetRange(path, meta.size - n, n));
  return out;
}

Status ObjectStore::RemoveEmptyDirectories(std::string_view) { return Status::OK(); }

Result<bool> ObjectStore::Exists(std::string_view path) {
  Result<ObjectMeta> meta = Head(path);
  if (meta.ok()) return true;
  if (meta.status().IsNotFound()) return false;
  return meta.status();
}

namespace {

// Decodes %XX escapes of a URI path. Errors: InvalidArgument for a malformed escape.
Result<std::string> PercentDecode(std::string_view s, std::string_view uri) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (i + 2 >= s.size()) {
      return Status::InvalidArgument("URI '{}': truncated percent escape", uri);
    }
    int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
    if (hi < 0 || lo < 0) return Status::InvalidArgument("URI '{}': bad percent escape", uri);
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

// "/a/./b/../c/" -> "a/c" (lexical; ".." at the root stays at the root).
std::string NormalizeAbsolute(std::string_view abs) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= abs.size()) {
    size_t end = abs.find('/', start);
    if (end == std::string_view::npos) end = abs.size();
    std::string_view seg = abs.substr(start, end - start);
    if (seg == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!seg.empty() && seg != ".") {
      parts.push_back(seg);
    }
    start = end + 1;
  }
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out.push_back('/');
    out.append(p);
  }
  return out;
}

Result<std::shared_ptr<ObjectStore>> RootLocalStore() {
  static std::mutex mu;
  static std::shared_ptr<LocalObjectStore> store;
  std::lock_guard<std::mutex> lock(mu);
  if (!store) {
    LANCE_ASSIGN_OR_RAISE(store, LocalObjectStore::Make("/"));
  }
  return std::static_pointer_cast<ObjectStore>(store);
}

Result<StoreAndPath> LocalFromAbsolute(std::string_view abs) {
  StoreAndPath out;
  LANCE_ASSIGN_OR_RAISE(out.store, RootLocalStore());
  out.path = NormalizeAbsolute(abs);
  if (!out.path.empty()) LANCE_RETURN_NOT_OK(ValidateObjectPath(out.path));
  return out;
}

}  // namespace

Result<StoreAndPath> ObjectStore::FromUri(std::string_view uri) {
  if (uri.empty()) return Status::InvalidArgument("empty URI");
  const size_t sep = uri.find("://");
  bool has_scheme = sep != std::string_view::npos && sep > 0 &&
                    std::isalpha(static_cast<unsigned char>(uri[0]));
  for (size_t i = 0; has_scheme && i < sep; ++i) {
    char c = uri[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') {
      has_scheme = false;
    }
  }
  if (!has_scheme) {
    if (uri.front() == '/') return LocalFromAbsolute(uri);
    char cwd[4096];
    if (::getcwd(cwd, sizeof(cwd)) == nullptr) {
      return Status::IOError("resolving relative path '{}': getcwd: {}", uri, std::strerror(errno));
    }
    return LocalFromAbsolute(std::string(cwd) + "/" + std::string(uri));
  }
  std::string scheme(uri.substr(0, sep));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view rest = uri.substr(sep + 3);
  if (scheme == "file") {
    if (rest.substr(0, 9) == "localhost") rest.remove_prefix(9);
    if (rest.empty() || rest.front() != '/') {
      return Status::InvalidArgument("file URI '{}' must have an absolute path (file:///dir)", uri);
    }
    LANCE_ASSIGN_OR_RAISE(std::string decoded, PercentDecode(rest, uri));
    return LocalFromAbsolute(decoded);
  }
  if (scheme == "memory") {
    const size_t slash = rest.find('/');
    std::string name(rest.substr(0, slash));
    std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
    while (!path.empty() && path.front() == '/') path.remove_prefix(1);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    if (!path.empty()) LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
    return StoreAndPath{MemoryObjectStore::Named(name), std::string(path)};
  }
  return Status::NotSupported("URI '{}': object store scheme '{}' is not supported", uri, scheme);
}

}  // namespace lance::io
