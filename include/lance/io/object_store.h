// ObjectStore: a flat namespace of immutable byte objects addressed by '/'-separated paths.
//
// The interface every upper layer reads and writes through (data files, manifests, WAL
// entries, indexes). It knows nothing about Lance. Its guarantees are what the commit
// protocols stand on:
//   * Readers never see a partially written object: Put, PutIfNotExists, Copy* and
//     ObjectWriter::Close publish whole objects atomically.
//   * PutIfNotExists / CopyIfNotExists / RenameIfNotExists are atomic compare-and-create:
//     among racing writers to one path exactly one succeeds; the others get AlreadyExists.
//   * A successful write is durable when the call returns (on backends with durable media).
//   * List shows only published objects (never temporary files of in-flight or crashed
//     writers), sorted by path.
//
// Paths are relative, '/'-separated, without empty, "." or ".." segments, and without a
// leading or trailing '/'. Names beginning with ".lance-tmp." are reserved for the stores'
// temporary files and rejected.
//
// Errors: NotFound (missing object), AlreadyExists (a create-if-absent lost), InvalidArgument
// (bad path, range outside the object), IOError (anything else, naming the path and errno).
//
// Thread-safety: every ObjectStore is safe for concurrent use from any number of threads.
// An ObjectWriter is single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/buffer.h"
#include "lance/core/result.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::io {

// A published object as listed or headed.
struct ObjectMeta {
  std::string path;
  int64_t size = 0;
  int64_t mtime_ns = 0;  // last modification, nanoseconds since the Unix epoch
};

// A byte range [offset, offset + length) of an object.
struct Range {
  int64_t offset = 0;
  int64_t length = 0;
  int64_t end() const { return offset + length; }
  bool operator==(const Range&) const = default;
};

// The end of an object: its last bytes and its total size (what a footer reader needs).
struct TailRead {
  BufferPtr bytes;          // the last min(object size, max_length) bytes
  int64_t object_size = 0;  // the whole object's size
};

// One level of a "directory": the objects directly under it and its child prefixes.
struct ListResult {
  std::vector<ObjectMeta> objects;       // sorted by path
  std::vector<std::string> directories;  // full paths of child prefixes, sorted
};

// How GetRanges merges nearby ranges into fewer backend reads.
struct CoalesceOptions {
  // Ranges separated by at most this many bytes are read together (the gap is read and
  // dropped).
  int64_t max_gap = 4 * 1024;
  // A merged read never grows beyond this (a single longer range is still read whole).
  int64_t max_merged_size = 8 * 1024 * 1024;
};

// The plan GetRanges executes: `reads` are the backend reads, sorted by offset;
// `slices[i]` locates requested range i inside reads[slices[i].read].
struct CoalescedReads {
  struct Slice {
    size_t read = 0;
    int64_t offset_in_read = 0;
  };
  std::vector<Range> reads;
  std::vector<Slice> slices;
};

// Merges `ranges` (any order, overlaps allowed) per `options`.
// Errors: InvalidArgument for a negative offset or length.
Result<CoalescedReads> CoalesceRanges(const std::vector<Range>& ranges,
                                      const CoalesceOptions& options);

// Streams a large object into the store. Nothing is visible under the path until Close()
// returns OK; then the whole object is (atomically). Destroying a writer that was not
// closed discards what was written. REQUIRES: the store outlives its writers.
class ObjectWriter {
 public:
  virtual ~ObjectWriter() = default;
  // Appends `n` bytes. Errors: IOError; InvalidArgument after Close/Abort.
  virtual Status Write(const void* data, int64_t n) = 0;
  Status Write(std::string_view bytes) {
    return Write(bytes.data(), static_cast<int64_t>(bytes.size()));
  }
  // Publishes the object durably. Errors: IOError; AlreadyExists if the writer was opened
  // with `overwrite = false` and the path now exists (then nothing is published).
  virtual Status Close() = 0;
  // Discards the object. Idempotent; OK after Close() too (a no-op then).
  virtual Status Abort() = 0;
  // Bytes accepted by Write so far (the offset the next byte will land at).
  virtual int64_t bytes_written() const = 0;
};

// Random access to one object opened once (a data file read page by page). The reader sees
// the object as it was when opened, even if it is replaced or deleted afterwards (local: the
// open descriptor; memory: the buffer) — except for the generic fallback of stores that do
// not override OpenReader, which re-reads the path. Thread-safe: any number of threads may
// read concurrently. REQUIRES: the store outlives its readers.
class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  virtual const std::string& path() const = 0;
  // The object's size when opened.
  virtual int64_t size() const = 0;
  // Bytes [offset, offset + length). Errors: InvalidArgument when outside the object (naming
  // path, offset, length and size); IOError.
  virtual Result<BufferPtr> ReadAt(int64_t offset, int64_t length) = 0;
  // Several ranges, coalesced and read in parallel like ObjectStore::GetRanges.
  virtual Result<std::vector<BufferPtr>> ReadRanges(const std::vector<Range>& ranges) = 0;
};

class ObjectStore;

// A store plus the path inside it that a URI names.
struct StoreAndPath {
  std::shared_ptr<ObjectStore> store;
  std::string path;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // Resolves a URI or a local path:
  //   "file:///abs/dir", "/abs/dir", "rel/dir" (made absolute against the current directory)
  //       -> a local store rooted at "/", path "abs/dir" (lexically normalised, no leading '/').
  //   "memory://name/some/path" -> the process-wide memory store registered under "name"
  //       (created on first use; same name, same store), path "some/path".
  // Errors: InvalidArgument (malformed URI), NotSupported (any other scheme).
  static Result<StoreAndPath> FromUri(std::string_view uri);

  // "file", "memory", ... (the wrapper stores report the wrapped store's scheme).
  virtual std::string_view scheme() const = 0;

  // How messages name the object or directory at `path` for a person: the local store gives
  // the file's full path ("/data/t.lance", not "data/t.lance"); by default the path itself.
  virtual std::string DisplayPath(std::string_view path) const { return std::string(path); }

  // The whole object. On local storage large objects are memory-mapped: the buffer is
  // zero-copy and keeps the mapping alive. Errors: NotFound, IOError.
  virtual Result<BufferPtr> Get(std::string_view path) = 0;

  // Bytes [offset, offset + length). Errors: NotFound; InvalidArgument when the range is
  // negative or extends past the end of the object (message names path, offset, length and
  // object size); IOError.
  virtual Result<BufferPtr> GetRange(std::string_view path, int64_t offset, int64_t length) = 0;

  // Several ranges of one object, result i for ranges[i]. Nearby ranges are coalesced into
  // fewer reads (coalesce_options()) which run in parallel on the I/O thread pool; results
  // are zero-copy slices of the merged reads (each keeps its whole merged read alive, at most
  // max_merged_size bytes). Errors as GetRange (the first failing range).
  virtual Result<std::vector<BufferPtr>> GetRanges(std::string_view path,
                                                   const std::vector<Range>& ranges);

  // Size and modification time. Errors: NotFound, IOError.
  virtual Result<ObjectMeta> Head(std::string_view path) = 0;

  // The last min(size, max_length) bytes and the object size, in one round trip where the
  // backend allows (default: Head + GetRange). Errors: NotFound; InvalidArgument when
  // max_length < 0; IOError.
  virtual Result<TailRead> GetTail(std::string_view path, int64_t max_length);

  // True when the object exists.
  virtual Result<bool> Exists(std::string_view path);

  // Creates or atomically replaces the object. Readers see the old or the new bytes, never
  // a mix. Parent "directories" need not exist.
  virtual Status Put(std::string_view path, std::string_view bytes) = 0;

  // Creates the object only if the path is free. Errors: AlreadyExists when it is taken
  // (including by a racing writer that won); the existing object is untouched.
  virtual Status PutIfNotExists(std::string_view path, std::string_view bytes) = 0;

  // Removes the object. Errors: NotFound.
  virtual Status Delete(std::string_view path) = 0;

  // Every object whose path is `prefix` or lies under `prefix` as a directory
  // ("a/b" matches "a/b/c" but not "a/bc"), recursively, sorted by path. The empty prefix
  // lists everything. A missing prefix lists nothing (no error).
  virtual Result<std::vector<ObjectMeta>> List(std::string_view prefix) = 0;

  // The objects and child directories directly under `prefix` (non-recursive).
  virtual Result<ListResult> ListDir(std::string_view prefix) = 0;

  // Removes the directories at and under `prefix` that hold no object (deepest first), after
  // their objects were deleted; a directory that still holds one stays. A no-op for stores
  // without directories (the default) and for a missing prefix.
  virtual Status RemoveEmptyDirectories(std::string_view prefix);

  // Copies src to dst, replacing dst atomically. Errors: NotFound (src).
  virtual Status Copy(std::string_view src, std::string_view dst) = 0;
  // Copies src to dst only if dst is free. Errors: NotFound (src), AlreadyExists (dst).
  virtual Status CopyIfNotExists(std::string_view src, std::string_view dst) = 0;
  // Moves src to dst only if dst is free; atomic: afterwards src is gone and dst holds its
  // bytes, or (on error) nothing changed. Errors: NotFound (src), AlreadyExists (dst).
  virtual Status RenameIfNotExists(std::string_view src, std::string_view dst) = 0;

  // Opens `path` for repeated random reads. Errors: NotFound, IOError.
  virtual Result<std::unique_ptr<ObjectReader>> OpenReader(std::string_view path);

  // A streaming writer for `path`. With overwrite = false, Close() behaves like
  // PutIfNotExists. Errors: InvalidArgument (bad path), IOError.
  virtual Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view path,
                                                           bool overwrite = true) = 0;

  // Read coalescing parameters used by GetRanges. Set before sharing the store.
  const CoalesceOptions& coalesce_options() const { return coalesce_options_; }
  void set_coalesce_options(const CoalesceOptions& options) { coalesce_options_ = options; }

  // The pool GetRanges fans out on: ThreadPool::Default() unless set (looked up when first
  // needed, so a store whose pool is set never starts it); null = the caller only. Set
  // before sharing the store.
  ThreadPool* io_pool() const;
  void set_io_pool(ThreadPool* pool) {
    io_pool_ = pool;
    io_pool_set_ = true;
  }

 protected:
  ObjectStore();
  // A wrapper's: the coalescing and the I/O pool of the store it wraps (an unset pool stays
  // unset, so the wrapper does not start ThreadPool::Default() either).
  void CopyReadSettingsFrom(const ObjectStore& base) {
    coalesce_options_ = base.coalesce_options_;
    io_pool_ = base.io_pool_;
    io_pool_set_ = base.io_pool_set_;
  }

 private:
  CoalesceOptions coalesce_options_;
  ThreadPool* io_pool_ = nullptr;
  bool io_pool_set_ = false;
};

// Checks an object path per the rules above. Errors: InvalidArgument naming the path.
Status ValidateObjectPath(std::string_view path);
// Checks a List prefix: empty, or an object path optionally followed by one '/'.
Status ValidateListPrefix(std::string_view prefix);

// "a" + "b" -> "a/b"; an empty side yields the other. Does not validate.
std::string JoinPath(std::string_view a, std::string_view b);

// True for a final path segment reserved for temporary files (".lance-tmp." prefix).
bool IsTempObjectName(std::string_view name);

}  // namespace lance::io
