#include "lance/io/local_object_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "io/coalesced_read.h"
#include "lance/core/thread_pool.h"

namespace lance::io {

namespace {

std::atomic<int64_t> g_flushes{0};

// fsync(2), counted (LocalFlushCount).
int CountedFsync(int fd) {
  g_flushes.fetch_add(1, std::memory_order_relaxed);
  return ::fsync(fd);
}

// Maps errno of a failed `op` on `path` to a Status: ENOENT -> NotFound, EEXIST ->
// AlreadyExists, anything else -> IOError with the errno text.
Status ErrnoStatus(int err, std::string_view op, std::string_view path) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return Status::NotFound("{} '{}': {}", op, path, std::strerror(err));
    case EEXIST:
      return Status::AlreadyExists("{} '{}': already exists", op, path);
    default:
      return Status::IOError("{} '{}': {} (errno {})", op, path, std::strerror(err), err);
  }
}

// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  ~Fd() { Reset(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // Closes and reports the close error (write-back errors can surface here).
  Status Close(std::string_view path) {
    int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0) return ErrnoStatus(errno, "close", path);
    return Status::OK();
  }

 private:
  int fd_ = -1;
};

std::string_view ParentDir(std::string_view full) {
  size_t slash = full.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return full.substr(0, slash);
}

std::string_view BaseName(std::string_view full) {
  size_t slash = full.rfind('/');
  return slash == std::string_view::npos ? full : full.substr(slash + 1);
}

Status FsyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open directory for fsync", dir);
  Fd guard(fd);
  if (CountedFsync(fd) != 0) return ErrnoStatus(errno, "fsync directory", dir);
  return Status::OK();
}

// mkdir -p. Each directory this call creates has its parent fsynced when `sync`, so the new
// entries survive a crash along with the object published into them.
Status MakeDirs(const std::string& dir, bool sync) {
  if (::mkdir(dir.c_str(), 0777) == 0) {
    return sync ? FsyncDir(std::string(ParentDir(dir))) : Status::OK();
  }
  int err = errno;
  if (err == EEXIST) {
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::OK();
    return Status::IOError("create directory '{}': a non-directory is in the way", dir);
  }
  if (err == ENOTDIR) {
    return Status::IOError("create directory '{}': a parent is not a directory", dir);
  }
  if (err != ENOENT) return ErrnoStatus(err, "create directory", dir);
  std::string parent(ParentDir(dir));
  if (parent == dir) return ErrnoStatus(err, "create directory", dir);
  LANCE_RETURN_NOT_OK(MakeDirs(parent, sync));
  if (::mkdir(dir.c_str(), 0777) != 0) {
    if (errno == EEXIST) return Status::OK();  // a racing creator won; same outcome
    return ErrnoStatus(errno, "create directory", dir);
  }
  return sync ? FsyncDir(parent) : Status::OK();
}

Status WriteAll(int fd, const void* data, int64_t n, std::string_view path) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, static_cast<size_t>(std::min<int64_t>(n, 1 << 30)));
    if (w < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "write", path);
    }
    p += w;
    n -= w;
  }
  return Status::OK();
}

// Reads exactly `n` bytes at `offset`. Errors: IOError (including an unexpected EOF).
Status PreadAll(int fd, uint8_t* out, int64_t n, int64_t offset, std::string_view path) {
  while (n > 0) {
    ssize_t r = ::pread(fd, out, static_cast<size_t>(std::min<int64_t>(n, 1 << 30)), offset);
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "read", path);
    }
    if (r == 0) {
      return Status::IOError("read '{}': unexpected end of file at offset {} ({} bytes short)",
                             path, offset, n);
    }
    out += r;
    n -= r;
    offset += r;
  }
  return Status::OK();
}

int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// A name unique across threads and processes: ".lance-tmp.<base>.<pid>.<counter>.<random>".
std::string TempName(std::string_view base) {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng(std::random_device{}() ^
                                   static_cast<uint64_t>(::getpid()) << 32);
  // Keep the whole name under the usual 255-byte limit.
  if (base.size() > 160) base = base.substr(0, 160);
  return fmt::format(".lance-tmp.{}.{}.{}.{:016x}", base, ::getpid(), counter.fetch_add(1),
                     rng());
}

// A temp file created next to `full` (same directory, so rename/link stay atomic).
struct TempFile {
  Fd fd;
  std::string path;
};

Result<TempFile> CreateTempFile(const std::string& full, bool sync) {
  const std::string dir(ParentDir(full));
  for (int attempt = 0;; ++attempt) {
    TempFile t;
    t.path = dir + "/" + TempName(BaseName(full));
    int fd = ::open(t.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      t.fd = Fd(fd);
      return t;
    }
    int err = errno;
    if (err == ENOENT && attempt == 0) {
      LANCE_RETURN_NOT_OK(MakeDirs(dir, sync));
      continue;
    }
    if (err == EEXIST && attempt < 8) continue;
    if (err == ENOTDIR || err == ENOENT) {
      return Status::IOError("create '{}': a parent is not a directory ({})", full,
                             std::strerror(err));
    }
    return ErrnoStatus(err, "create temporary file", t.path);
  }
}

// Makes the fully written, closed temp file visible as `full`. overwrite: rename() over it.
// Otherwise: link() (fails on EEXIST), or renameat2(RENAME_NOREPLACE) where the filesystem
// has no hard links. The temp name is gone afterwards whatever happens.
Status Publish(const std::string& tmp, const std::string& full, bool overwrite, bool sync,
               std::string_view object_path) {
  const std::string dir(ParentDir(full));
  if (overwrite) {
    if (::rename(tmp.c_str(), full.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return ErrnoStatus(err, "publish (rename)", object_path);
    }
    return sync ? FsyncDir(dir) : Status::OK();
  }
  if (::link(tmp.c_str(), full.c_str()) == 0) {
    Status st = sync ? FsyncDir(dir) : Status::OK();
    ::unlink(tmp.c_str());  // a leftover temp after a crash here is hidden and swept later
    return st;
  }
  int err = errno;
  if (err == EPERM || err == EOPNOTSUPP || err == EMLINK) {
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, full.c_str(), RENAME_NOREPLACE) == 0) {
      return sync ? FsyncDir(dir) : Status::OK();
    }
    err = errno;
  }
  ::unlink(tmp.c_str());
  if (err == EEXIST) return Status::AlreadyExists("object '{}' already exists", object_path);
  return ErrnoStatus(err, "publish (link)", object_path);
}

// Opens an existing object for reading, with its stat. Directories count as missing.
// Messages name the file by its full path, as a user would look for it.
Result<std::pair<Fd, struct stat>> OpenForRead(const std::string& full) {
  const std::string& path = full;
  int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EISDIR) return Status::NotFound("object '{}' not found (is a directory)", path);
    return ErrnoStatus(errno, "open object", path);
  }
  Fd guard(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoStatus(errno, "stat object", path);
  if (!S_ISREG(st.st_mode)) return Status::NotFound("object '{}' not found (not a file)", path);
  return std::make_pair(std::move(guard), st);
}

Status CheckBounds(std::string_view path, int64_t offset, int64_t length, int64_t size) {
  return internal::CheckRangeInObject(path, offset, length, size);
}

Result<BufferPtr> ReadRange(int fd, int64_t offset, int64_t length, std::string_view path) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(length));
  LANCE_RETURN_NOT_OK(PreadAll(fd, buf->mutable_data(), length, offset, path));
  return buf;
}

// Visits the regular files under `dir_full` (store path `dir_path`), recursively when
// `recursive`. Symlinks to files count as files; symlinked directories are not followed.
// Entries vanishing mid-walk (concurrent deletes) are skipped.
struct WalkOutput {
  std::vector<ObjectMeta> objects;
  std::vector<std::string> directories;
  std::vector<std::string> temp_files;
};

Status Walk(const std::string& dir_full, const std::string& dir_path, bool recursive,
            WalkOutput* out) {
  DIR* d = ::opendir(dir_full.c_str());
  if (d == nullptr) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::OK();
    return ErrnoStatus(errno, "list directory", dir_path);
  }
  std::vector<std::string> subdirs;
  Status st;
  for (;;) {
    errno = 0;
    struct dirent* e = ::readdir(d);
    if (e == nullptr) {
      if (errno != 0) st = ErrnoStatus(errno, "read directory", dir_path);
      break;
    }
    std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    std::string path = JoinPath(dir_path, name);
    struct stat s;
    if (::fstatat(::dirfd(d), e->d_name, &s, AT_SYMLINK_NOFOLLOW) != 0) continue;
    const bool is_link = S_ISLNK(s.st_mode);
    if (is_link && ::fstatat(::dirfd(d), e->d_name, &s, 0) != 0) continue;
    if (S_ISDIR(s.st_mode)) {
      if (is_link) continue;  // never follow directory links (cycles, escaping the root)
      if (IsTempObjectName(name)) continue;
      if (recursive) {
        subdirs.push_back(std::string(name));
      } else {
        out->directories.push_back(path);
      }
    } else if (S_ISREG(s.st_mode)) {
      if (IsTempObjectName(name)) {
        out->temp_files.push_back(path);
      } else {
        out->objects.push_back({path, static_cast<int64_t>(s.st_size), MtimeNs(s)});
      }
    }
  }
  ::closedir(d);
  LANCE_RETURN_NOT_OK(st);
  for (const std::string& name : subdirs) {
    LANCE_RETURN_NOT_OK(Walk(dir_full + "/" + name, JoinPath(dir_path, name), true, out));
  }
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------------------------------------

class LocalObjectWriter : public ObjectWriter {
 public:
  static constexpr int64_t kBufferSize = 1 << 20;

  LocalObjectWriter(std::string full, TempFile tmp, bool overwrite, bool sync,
                    bool start_writeback)
      : full_(std::move(full)), tmp_(std::move(tmp)),
        overwrite_(overwrite), sync_(sync), start_writeback_(start_writeback && !sync) {
    buffer_.reserve(kBufferSize);
  }
  ~LocalObjectWriter() override { (void)Abort(); }

  Status Write(const void* data, int64_t n) override {
    if (!tmp_.fd.valid()) return Status::InvalidArgument("write to closed object writer for '{}'", full_);
    if (n < 0) return Status::InvalidArgument("negative write size {} for '{}'", n, full_);
    written_ += n;
    if (static_cast<int64_t>(buffer_.size()) + n <= kBufferSize) {
      const auto* p = static_cast<const uint8_t*>(data);
      buffer_.insert(buffer_.end(), p, p + n);
      return Status::OK();
    }
    LANCE_RETURN_NOT_OK(Flush());
    if (n >= kBufferSize) {
      LANCE_RETURN_NOT_OK(WriteAll(tmp_.fd.get(), data, n, full_));
      StartWriteback(n);
      return Status::OK();
    }
    const auto* p = static_cast<const uint8_t*>(data);
    buffer_.insert(buffer_.end(), p, p + n);
    return Status::OK();
  }

  Status Close() override {
    if (!tmp_.fd.valid()) return Status::InvalidArgument("object writer for '{}' already closed", full_);
    Status st = Flush();
    if (st.ok() && sync_ && CountedFsync(tmp_.fd.get()) != 0) st = ErrnoStatus(errno, "fsync", full_);
    Status close_st = tmp_.fd.Close(full_);
    if (st.ok()) st = close_st;
    if (!st.ok()) {
      ::unlink(tmp_.path.c_str());
      return st;
    }
    return Publish(tmp_.path, full_, overwrite_, sync_, full_);
  }

  Status Abort() override {
    if (!tmp_.fd.valid()) return Status::OK();
    tmp_.fd.Reset();
    ::unlink(tmp_.path.c_str());
    return Status::OK();
  }

  int64_t bytes_written() const override { return written_; }

 private:
  Status Flush() {
    if (buffer_.empty()) return Status::OK();
    const auto n = static_cast<int64_t>(buffer_.size());
    Status st = WriteAll(tmp_.fd.get(), buffer_.data(), n, full_);
    buffer_.clear();
    if (st.ok()) StartWriteback(n);
    return st;
  }

  // The `n` bytes just written end at flushed_ + n: queue them for writeback, no waiting.
  void StartWriteback(int64_t n) {
#ifdef __linux__
    if (start_writeback_) {
      (void)::sync_file_range(tmp_.fd.get(), flushed_, n, SYNC_FILE_RANGE_WRITE);
    }
#endif
    flushed_ += n;
  }

  std::string full_;
  TempFile tmp_;
  bool overwrite_;
  bool sync_;
  bool start_writeback_;
  int64_t flushed_ = 0;  // bytes written to the file so far
  int64_t written_ = 0;
  std::vector<uint8_t> buffer_;
};

std::shared_ptr<LocalObjectStore> LocalObjectStore::Unsynced(
    const std::shared_ptr<LocalObjectStore>& store) {
  if (!store->options_.sync) return store;
  std::call_once(store->unsynced_once_, [&] {
    LocalObjectStoreOptions o = store->options_;
    o.sync = false;
    o.start_writeback = true;
    store->unsynced_.reset(new LocalObjectStore(store->root_, o));
  });
  return store->unsynced_;
}

std::shared_ptr<LocalObjectStore> LocalObjectStore::Unsynced(
    const std::shared_ptr<LocalObjectStore>& store, bool start_writeback) {
  if (start_writeback) return Unsynced(store);
  if (!store->options_.sync && !store->options_.start_writeback) return store;
  std::call_once(store->no_writeback_once_, [&] {
    LocalObjectStoreOptions o = store->options_;
    o.sync = false;
    o.start_writeback = false;
    store->no_writeback_.reset(new LocalObjectStore(store->root_, o));
  });
  return store->no_writeback_;
}

Result<std::shared_ptr<LocalObjectStore>> LocalObjectStore::Make(
    const std::string& root_dir, const LocalObjectStoreOptions& options) {
  if (root_dir.empty()) return Status::InvalidArgument("local object store root is empty");
  std::string root = root_dir;
  if (root.front() != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof(cwd)) == nullptr) {
      return Status::IOError("resolving '{}': getcwd: {}", root_dir, std::strerror(errno));
    }
    root = std::string(cwd) + "/" + root;
  }
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  LANCE_RETURN_NOT_OK(MakeDirs(root, options.sync));
  return std::shared_ptr<LocalObjectStore>(new LocalObjectStore(std::move(root), options));
}

std::string LocalObjectStore::FullPath(std::string_view path) const {
  if (path.empty()) return root_;
  if (root_ == "/") return "/" + std::string(path);
  return root_ + "/" + std::string(path);
}

namespace {

// Unmaps what Get() mapped; its type tells a mapping apart from any other buffer owner.
struct MappingDeleter {
  size_t size;
  void operator()(const void* p) const { ::munmap(const_cast<void*>(p), size); }
};

}  // namespace

bool ReleaseMappedPages(const Buffer& bytes) {
  const MappingDeleter* d = std::get_deleter<MappingDeleter>(bytes.owner());
  if (d == nullptr || bytes.data() != bytes.owner().get()) return false;
  // A private read-only file mapping: dropped pages read back from the file when touched again.
  return ::madvise(const_cast<uint8_t*>(bytes.data()), d->size, MADV_DONTNEED) == 0;
}

Result<BufferPtr> LocalObjectStore::Get(std::string_view path) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  LANCE_ASSIGN_OR_RAISE(auto opened, OpenForRead(FullPath(path)));
  auto& [fd, st] = opened;
  const int64_t size = st.st_size;
  if (size >= options_.mmap_threshold && size > 0) {
    void* addr = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (addr != MAP_FAILED) {
      // The mapping outlives the descriptor; the owner unmaps it with the last reference.
      std::shared_ptr<const void> mapping(addr, MappingDeleter{static_cast<size_t>(size)});
      return std::make_shared<Buffer>(static_cast<const uint8_t*>(addr), size, std::move(mapping));
    }
    // Fall through to a plain read (e.g. a filesystem without mmap support).
  }
  return ReadRange(fd.get(), 0, size, path);
}

Result<BufferPtr> LocalObjectStore::GetRange(std::string_view path, int64_t offset,
                                             int64_t length) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  LANCE_ASSIGN_OR_RAISE(auto opened, OpenForRead(FullPath(path)));
  LANCE_RETURN_NOT_OK(CheckBounds(path, offset, length, opened.second.st_size));
  return ReadRange(opened.first.get(), offset, length, path);
}

Result<std::vector<BufferPtr>> LocalObjectStore::GetRanges(std::string_view path,
                                                           const std::vector<Range>& ranges) {
  // One open + fstat for all ranges; coalesced preads share the descriptor in parallel.
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  LANCE_ASSIGN_OR_RAISE(auto opened, OpenForRead(FullPath(path)));
  const int fd = opened.first.get();
  for (const Range& r : ranges) {
    LANCE_RETURN_NOT_OK(CheckBounds(path, r.offset, r.length, opened.second.st_size));
  }
  return internal::ReadCoalesced(ranges, coalesce_options(), io_pool(), [&](const Range& r) {
    return ReadRange(fd, r.offset, r.length, path);
  });
}

namespace {

// Keeps the descriptor open: reads see the file as opened even if the path is replaced.
class LocalObjectReader : public ObjectReader {
 public:
  LocalObjectReader(std::string path, Fd fd, int64_t size, const ObjectStore* store)
      : path_(std::move(path)), fd_(std::move(fd)), size_(size), store_(store) {}
  const std::string& path() const override { return path_; }
  int64_t size() const override { return size_; }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    LANCE_RETURN_NOT_OK(CheckBounds(path_, offset, length, size_));
    return ReadRange(fd_.get(), offset, length, path_);
  }
  Result<std::vector<BufferPtr>> ReadRanges(const std::vector<Range>& ranges) override {
    for (const Range& r : ranges) LANCE_RETURN_NOT_OK(CheckBounds(path_, r.offset, r.length, size_));
    return internal::ReadCoalesced(ranges, store_->coalesce_options(), store_->io_pool(),
                                   [this](const Range& r) {
                                     return ReadRange(fd_.get(), r.offset, r.length, path_);
                                   });
  }

 private:
  std::string path_;
  Fd fd_;
  int64_t size_;
  const ObjectStore* store_;
};

}  // namespace

Result<std::unique_ptr<ObjectReader>> LocalObjectStore::OpenReader(std::string_view path) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  LANCE_ASSIGN_OR_RAISE(auto opened, OpenForRead(FullPath(path)));
  const int64_t size = opened.second.st_size;
  return std::unique_ptr<ObjectReader>(
      new LocalObjectReader(std::string(path), std::move(opened.first), size, this));
}

Result<TailRead> LocalObjectStore::GetTail(std::string_view path, int64_t max_length) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  if (max_length < 0) {
    return Status::InvalidArgument("GetTail '{}': negative length {}", path, max_length);
  }
  LANCE_ASSIGN_OR_RAISE(auto opened, OpenForRead(FullPath(path)));
  const int64_t size = opened.second.st_size;
  const int64_t n = std::min(size, max_length);
  TailRead out;
  out.object_size = size;
  LANCE_ASSIGN_OR_RAISE(out.bytes, ReadRange(opened.first.get(), size - n, n, path));
  return out;
}

Result<ObjectMeta> LocalObjectStore::Head(std::string_view path) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  const std::string full = FullPath(path);
  struct stat st;
  if (::stat(full.c_str(), &st) != 0) return ErrnoStatus(errno, "head object", full);
  if (!S_ISREG(st.st_mode)) return Status::NotFound("object '{}' not found (not a file)", full);
  return ObjectMeta{std::string(path), static_cast<int64_t>(st.st_size), MtimeNs(st)};
}

namespace {

Status PutBytes(const std::string& full, std::string_view bytes, bool overwrite, bool sync) {
  const std::string& path = full;
  LANCE_ASSIGN_OR_RAISE(TempFile tmp, CreateTempFile(full, sync));
  Status st = WriteAll(tmp.fd.get(), bytes.data(), static_cast<int64_t>(bytes.size()), path);
  if (st.ok() && sync && CountedFsync(tmp.fd.get()) != 0) st = ErrnoStatus(errno, "fsync", path);
  Status close_st = tmp.fd.Close(path);
  if (st.ok()) st = close_st;
  if (!st.ok()) {
    ::unlink(tmp.path.c_str());
    return st;
  }
  return Publish(tmp.path, full, overwrite, sync, path);
}

// Copies the open file `src_fd` of `size` bytes into the fresh temp file `dst_fd`.
Status CopyContents(int src_fd, int dst_fd, int64_t size, std::string_view src_path) {
  int64_t done = 0;
  while (done < size) {
    ssize_t n = ::copy_file_range(src_fd, nullptr, dst_fd, nullptr,
                                  static_cast<size_t>(std::min<int64_t>(size - done, 1 << 30)), 0);
    if (n > 0) {
      done += n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return Status::IOError("copy '{}': source shrank during copy", src_path);
    if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) {
      return ErrnoStatus(errno, "copy", src_path);
    }
    // Fallback: plain reads and writes.
    std::vector<uint8_t> chunk(static_cast<size_t>(std::min<int64_t>(size - done, 4 << 20)));
    while (done < size) {
      int64_t want = std::min<int64_t>(size - done, static_cast<int64_t>(chunk.size()));
      LANCE_RETURN_NOT_OK(PreadAll(src_fd, chunk.data(), want, done, src_path));
      LANCE_RETURN_NOT_OK(WriteAll(dst_fd, chunk.data(), want, src_path));
      done += want;
    }
  }
  return Status::OK();
}

}  // namespace

Status LocalObjectStore::Put(std::string_view path, std::string_view bytes) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  return PutBytes(FullPath(path), bytes, /*overwrite=*/true, options_.sync);
}

Status LocalObjectStore::PutNew(std::string_view path, std::string_view bytes) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  const std::string full = FullPath(path);
  int fd = ::open(full.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ENOENT) {
    LANCE_RETURN_NOT_OK(MakeDirs(std::string(ParentDir(full)), options_.sync));
    fd = ::open(full.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  }
  if (fd < 0) {
    if (errno == EEXIST) return Status::AlreadyExists("object '{}' already exists", full);
    return ErrnoStatus(errno, "create", full);
  }
  Fd file(fd);
  Status st = WriteAll(file.get(), bytes.data(), static_cast<int64_t>(bytes.size()), full);
  if (st.ok() && options_.sync && CountedFsync(file.get()) != 0) st = ErrnoStatus(errno, "fsync", full);
  Status close_st = file.Close(full);
  if (st.ok()) st = close_st;
  if (st.ok() && options_.sync) st = FsyncDir(std::string(ParentDir(full)));
  if (!st.ok()) ::unlink(full.c_str());
  return st;
}

Status LocalObjectStore::PutIfNotExists(std::string_view path, std::string_view bytes) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  const std::string full = FullPath(path);
  // Cheap early exit for the common lost race; link() below is what decides.
  if (::access(full.c_str(), F_OK) == 0) {
    return Status::AlreadyExists("object '{}' already exists", full);
  }
  return PutBytes(full, bytes, /*overwrite=*/false, options_.sync);
}

Status LocalObjectStore::Delete(std::string_view path) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  const std::string full = FullPath(path);
  if (::unlink(full.c_str()) != 0) {
    if (errno == EISDIR || errno == EPERM) {
      struct stat st;
      if (::stat(full.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        return Status::NotFound("delete: object '{}' not found (is a directory)", full);
      }
    }
    return ErrnoStatus(errno, "delete object", full);
  }
  return options_.sync ? FsyncDir(std::string(ParentDir(full))) : Status::OK();
}

namespace {

// rmdir of `dir_full` and its empty subdirectories, deepest first; true when `dir_full` went.
// Links are never followed; a directory holding anything (objects, temp files) stays.
Result<bool> RemoveIfEmpty(const std::string& dir_full) {
  DIR* d = ::opendir(dir_full.c_str());
  if (d == nullptr) {
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return ErrnoStatus(errno, "list directory", dir_full);
  }
  std::vector<std::string> subdirs;
  for (;;) {
    errno = 0;
    struct dirent* e = ::readdir(d);
    if (e == nullptr) break;
    std::string_view name(e->d_name);
    if (name == "." || name == "..") continue;
    struct stat s;
    if (::fstatat(::dirfd(d), e->d_name, &s, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(s.st_mode)) {
      subdirs.push_back(std::string(name));
    }
  }
  ::closedir(d);
  for (const std::string& name : subdirs) {
    LANCE_RETURN_NOT_OK(RemoveIfEmpty(dir_full + "/" + name).status());
  }
  if (::rmdir(dir_full.c_str()) == 0) return true;
  if (errno == ENOTEMPTY || errno == EEXIST || errno == ENOENT) return false;
  return ErrnoStatus(errno, "remove directory", dir_full);
}

}  // namespace

Status LocalObjectStore::RemoveEmptyDirectories(std::string_view prefix) {
  LANCE_RETURN_NOT_OK(ValidateListPrefix(prefix));
  if (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  if (prefix.empty()) return Status::OK();  // never the store's root
  const std::string full = FullPath(prefix);
  LANCE_ASSIGN_OR_RAISE(bool removed, RemoveIfEmpty(full));
  return removed && options_.sync ? FsyncDir(std::string(ParentDir(full))) : Status::OK();
}

Result<std::vector<ObjectMeta>> LocalObjectStore::List(std::string_view prefix) {
  LANCE_RETURN_NOT_OK(ValidateListPrefix(prefix));
  if (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  WalkOutput out;
  if (!prefix.empty()) {
    Result<ObjectMeta> self = Head(prefix);
    if (self.ok()) {
      out.objects.push_back(std::move(self).MoveValueUnsafe());
      return out.objects;
    }
  }
  LANCE_RETURN_NOT_OK(Walk(FullPath(prefix), std::string(prefix), /*recursive=*/true, &out));
  std::sort(out.objects.begin(), out.objects.end(),
            [](const ObjectMeta& a, const ObjectMeta& b) { return a.path < b.path; });
  return out.objects;
}

Result<ListResult> LocalObjectStore::ListDir(std::string_view prefix) {
  LANCE_RETURN_NOT_OK(ValidateListPrefix(prefix));
  if (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  WalkOutput out;
  LANCE_RETURN_NOT_OK(Walk(FullPath(prefix), std::string(prefix), /*recursive=*/false, &out));
  ListResult result;
  result.objects = std::move(out.objects);
  result.directories = std::move(out.directories);
  std::sort(result.objects.begin(), result.objects.end(),
            [](const ObjectMeta& a, const ObjectMeta& b) { return a.path < b.path; });
  std::sort(result.directories.begin(), result.directories.end());
  return result;
}

namespace {

Status CopyFile(const std::string& src_full, const std::string& dst_full, bool overwrite,
                bool sync) {
  const std::string& src = src_full;
  const std::string& dst = dst_full;
  LANCE_ASSIGN_OR_RAISE(auto opened, OpenForRead(src_full));
  if (!overwrite && ::access(dst_full.c_str(), F_OK) == 0) {
    return Status::AlreadyExists("copy: destination '{}' already exists", dst);
  }
  LANCE_ASSIGN_OR_RAISE(TempFile tmp, CreateTempFile(dst_full, sync));
  Status st = CopyContents(opened.first.get(), tmp.fd.get(), opened.second.st_size, src);
  if (st.ok() && sync && CountedFsync(tmp.fd.get()) != 0) st = ErrnoStatus(errno, "fsync", dst);
  Status close_st = tmp.fd.Close(dst);
  if (st.ok()) st = close_st;
  if (!st.ok()) {
    ::unlink(tmp.path.c_str());
    return st;
  }
  return Publish(tmp.path, dst_full, overwrite, sync, dst);
}

}  // namespace

Status LocalObjectStore::Copy(std::string_view src, std::string_view dst) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(src));
  LANCE_RETURN_NOT_OK(ValidateObjectPath(dst));
  return CopyFile(FullPath(src), FullPath(dst), /*overwrite=*/true, options_.sync);
}

Status LocalObjectStore::CopyIfNotExists(std::string_view src, std::string_view dst) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(src));
  LANCE_RETURN_NOT_OK(ValidateObjectPath(dst));
  return CopyFile(FullPath(src), FullPath(dst), /*overwrite=*/false, options_.sync);
}

Status LocalObjectStore::RenameIfNotExists(std::string_view src, std::string_view dst) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(src));
  LANCE_RETURN_NOT_OK(ValidateObjectPath(dst));
  const std::string src_full = FullPath(src);
  const std::string dst_full = FullPath(dst);
  LANCE_RETURN_NOT_OK(Head(src).status());
  for (int attempt = 0;; ++attempt) {
    if (::renameat2(AT_FDCWD, src_full.c_str(), AT_FDCWD, dst_full.c_str(),
                    RENAME_NOREPLACE) == 0) {
      break;
    }
    int err = errno;
    if (err == EINVAL || err == ENOSYS) {
      // No RENAME_NOREPLACE here: link() is the atomic create-if-absent, then drop the source.
      if (::link(src_full.c_str(), dst_full.c_str()) != 0) {
        err = errno;
      } else {
        ::unlink(src_full.c_str());
        break;
      }
    }
    if (err == EEXIST) {
      return Status::AlreadyExists("rename: destination '{}' already exists", dst_full);
    }
    if (err == ENOENT && attempt == 0) {
      LANCE_RETURN_NOT_OK(Head(src).status());  // the source vanished: NotFound
      LANCE_RETURN_NOT_OK(MakeDirs(std::string(ParentDir(dst_full)), options_.sync));
      continue;
    }
    return ErrnoStatus(err, fmt::format("rename '{}' to", src_full), dst_full);
  }
  if (!options_.sync) return Status::OK();
  LANCE_RETURN_NOT_OK(FsyncDir(std::string(ParentDir(dst_full))));
  if (ParentDir(src_full) != ParentDir(dst_full)) {
    LANCE_RETURN_NOT_OK(FsyncDir(std::string(ParentDir(src_full))));
  }
  return Status::OK();
}

Result<std::unique_ptr<ObjectWriter>> LocalObjectStore::OpenWriter(std::string_view path,
                                                                  bool overwrite) {
  LANCE_RETURN_NOT_OK(ValidateObjectPath(path));
  std::string full = FullPath(path);
  LANCE_ASSIGN_OR_RAISE(TempFile tmp, CreateTempFile(full, options_.sync));
  return std::unique_ptr<ObjectWriter>(new LocalObjectWriter(
      std::move(full), std::move(tmp), overwrite, options_.sync, options_.start_writeback));
}

Result<std::vector<std::string>> LocalObjectStore::ListTempFiles(std::string_view prefix) {
  LANCE_RETURN_NOT_OK(ValidateListPrefix(prefix));
  if (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  WalkOutput out;
  LANCE_RETURN_NOT_OK(Walk(FullPath(prefix), std::string(prefix), /*recursive=*/true, &out));
  std::sort(out.temp_files.begin(), out.temp_files.end());
  return out.temp_files;
}

Result<int64_t> LocalObjectStore::RemoveTempFiles(std::string_view prefix, int64_t min_age_seconds) {
  LANCE_ASSIGN_OR_RAISE(std::vector<std::string> temps, ListTempFiles(prefix));
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  int64_t removed = 0;
  for (const std::string& t : temps) {
    const std::string full = FullPath(t);
    struct stat st;
    if (::stat(full.c_str(), &st) != 0) continue;
    if (now_ns - MtimeNs(st) < min_age_seconds * 1000000000) continue;
    if (::unlink(full.c_str()) == 0) ++removed;
  }
  return removed;
}

int64_t LocalFlushCount() { return g_flushes.load(std::memory_order_relaxed); }

Status FlushLocalPath(const std::string& full, bool directory) {
  const int fd = ::open(full.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) return Status::IOError("open '{}' to sync it: {}", full, std::strerror(errno));
  Fd guard(fd);
  g_flushes.fetch_add(1, std::memory_order_relaxed);
  const int rc = directory ? ::fsync(fd) : ::fdatasync(fd);
  if (rc != 0) {
    return Status::IOError("{} '{}': {}", directory ? "fsync directory" : "fdatasync", full,
                           std::strerror(errno));
  }
  return Status::OK();
}

}  // namespace lance::io
