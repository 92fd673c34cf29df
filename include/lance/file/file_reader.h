// FileReader: reads Lance data files of format 2.0 (footer version 0.3), 2.1 and 2.2 into
// Arrow-model RecordBatches, and legacy v1 files (footer 0.1 / 0.2, see
// src/file/legacy_v1_reader.h): Open dispatches on the footer version, and every read below
// works the same on both.
//
// File layout (all integers little-endian):
//   data pages | column metadata blocks | column metadata offset table (num_columns x u64
//   position, u64 size) | global buffers | global buffer offset table (num_global_buffers x
//   u64 position, u64 size) | footer (40 bytes):
//     u64 column metadata start | u64 column metadata offset table position |
//     u64 global buffer offset table position | u32 num global buffers | u32 num columns |
//     u16 major | u16 minor | "LANC"
// Global buffer 0 is a lance.file.FileDescriptor (schema + row count). Each column metadata
// block is a lance.file.v2.ColumnMetadata whose pages carry a google.protobuf.Any encoding:
// /lance.encodings.ArrayEncoding for 2.0, /lance.encodings21.PageLayout for 2.1+. In 2.1+
// there is one column per leaf field (structs and lists have none, a fixed-size list is a
// leaf); in 2.0 every field has a column, in pre-order.
//
// Open() validates the footer, the offset tables and every protobuf up front; reads decode
// the needed columns and are safe to run concurrently on one reader (it is immutable after
// Open). Errors: Corruption for anything malformed or truncated (never a crash), NotSupported
// for encodings this reader does not implement, InvalidArgument for bad row/column requests.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/buffer.h"
#include "lance/columnar/type.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"

namespace lance::file {

inline constexpr int64_t kFooterSize = 40;
inline constexpr char kMagic[4] = {'L', 'A', 'N', 'C'};

struct FileVersion {
  uint16_t major = 0;
  uint16_t minor = 0;
  // The data storage version: "2.0" for footer 0.3, else "major.minor".
  std::string ToString() const;
  bool is_legacy() const { return major == 0 && minor == 3; }
  // The legacy "v1" file (footer 0.1 / 0.2), data storage version "0.1" (lance's "legacy").
  bool is_v1() const { return major == 0 && minor < 3; }
};

struct PageInfo {
  int64_t num_rows = 0;
  int64_t priority = 0;  // first row of the page (may be 0 when unset)
  std::vector<std::pair<uint64_t, uint64_t>> buffers;  // (position, size)
  std::string encoding_url;  // type URL of the page's Any
  std::string description;   // e.g. "mini_block(values=flat(32), def=...)"
};

struct ColumnInfo {
  std::vector<PageInfo> pages;
};

// How ReadRange/Take hand columns back.
struct ReadOptions {
  // A top-level string, binary or fixed-width field whose pages are all dictionary-encoded
  // mini-block pages without levels comes back as a dictionary array instead of its values:
  // type dictionary(int32, <field type>), int32 indices into the dictionaries of the pages
  // read, concatenated in page order, each followed by one empty (zero) entry (the null
  // entry the writer counts but does not store: a plain read turns it into that same empty
  // value). Filters then test each dictionary entry once. Other fields read as usual.
  bool keep_dictionaries = false;
};

class LegacyV1Reader;
class WantedRows;

class FileReader {
 public:
  // Opens a file from its complete contents. `file` must stay unchanged while the reader lives.
  static Result<std::unique_ptr<FileReader>> Open(BufferPtr file);
  // Opens `path` in `store` with ranged reads: the metadata at the end of the file up front
  // (usually one read), then only the page buffers of the columns a read asks for.
  // Errors: as above, plus the store's NotFound/IOError.
  static Result<std::unique_ptr<FileReader>> Open(std::shared_ptr<io::ObjectStore> store,
                                                  std::string path);
  ~FileReader();

  FileVersion version() const { return version_; }
  // Arrow schema of the file; Field::id() is the Lance field id.
  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  // The size of the whole file in bytes (what a table's manifest records as size_bytes).
  int64_t size_bytes() const { return size_bytes_; }
  int num_columns() const { return num_columns_; }
  // Every column's pages as the file describes them. 2.x files parse their column metadata
  // lazily (a read parses the columns it needs): the first call parses the rest; a column
  // whose metadata is corrupt is listed without pages (its reads report the error).
  // Thread-safe.
  const std::vector<ColumnInfo>& columns() const;
  int num_global_buffers() const { return static_cast<int>(global_buffers_.size()); }
  // The bytes of global buffer `index` (0 is the file descriptor; writers may add more, e.g.
  // lance 12's label-list index keeps its null-list row set there). Read on each call.
  // Errors: InvalidArgument for an index out of range (or a v1 file), the store's errors.
  Result<BufferPtr> ReadGlobalBuffer(int index) const;
  // Bytes of the page buffers of top-level field `field_index`'s columns (0 when out of range
  // or when the field's column metadata is corrupt).
  int64_t FieldBytes(int field_index) const;

  // v1 files only: their page statistics (one row per batch, a struct<null_count, min_value,
  // max_value> column per field, named by field id); null when the file has none or is 2.x.
  Result<RecordBatchPtr> LegacyStatistics() const;
  // v1 files only: the first row of every batch and the row count (empty for 2.x).
  std::vector<int64_t> LegacyBatchOffsets() const;

  // Reads the top-level fields at `field_indices` (all when empty), every row.
  Result<RecordBatchPtr> ReadAll(const std::vector<int>& field_indices = {}) const;
  // Reads rows [start, start + length); like Take, only the chunks holding them are read
  // where the layout allows. Errors: InvalidArgument when out of range.
  Result<RecordBatchPtr> ReadRange(int64_t start, int64_t length,
                                   const std::vector<int>& field_indices = {}) const;
  // Reads the given rows, in the given order (repeats allowed).
  // Errors: InvalidArgument for an index outside [0, num_rows).
  Result<RecordBatchPtr> Take(const std::vector<int64_t>& rows,
                              const std::vector<int>& field_indices = {}) const;
  // The same with `options` (see ReadOptions); the batch's schema has the types read.
  Result<RecordBatchPtr> ReadRange(int64_t start, int64_t length,
                                   const std::vector<int>& field_indices,
                                   const ReadOptions& options) const;
  Result<RecordBatchPtr> Take(const std::vector<int64_t>& rows, const std::vector<int>& field_indices,
                              const ReadOptions& options) const;

 private:
  struct Impl;
  FileReader() = default;
  // `tail` holds file bytes [tail_offset, size): at least the column metadata, offset tables,
  // global buffer 0 and the footer; `fetch` reads any other range.
  static Result<std::unique_ptr<FileReader>> OpenTail(
      int64_t size, BufferPtr tail,
      std::function<Result<std::vector<BufferPtr>>(const std::vector<io::Range>&)> fetch,
      int64_t tail_offset = 0);
  // A v1 file (the same contract as OpenTail).
  static Result<std::unique_ptr<FileReader>> OpenV1(
      int64_t size, BufferPtr tail,
      std::function<Result<std::vector<BufferPtr>>(const std::vector<io::Range>&)> fetch,
      int64_t tail_offset = 0);
  Result<ArrayPtr> ReadField(int field_index) const;
  // Rows of one top-level field; top-level leaves in mini-block/constant pages decode only
  // the chunks that hold the rows (and read only those byte ranges).
  // With `keep_dictionaries`, a field ReadOptions describes comes back as a dictionary array.
  // `ascending`: `rows` are strictly ascending (the caller checked).
  Result<ArrayPtr> TakeField(int field_index, const std::vector<int64_t>& rows,
                             bool keep_dictionaries, bool ascending) const;
  // Rows [start, start + length) of one top-level field, without a list of the rows where the
  // layout allows (mini-block pages without levels).
  Result<ArrayPtr> TakeFieldRange(int field_index, int64_t start, int64_t length,
                                  bool keep_dictionaries) const;
  // A take from a column of mini-block pages without levels: `wanted` ascending and unique,
  // the output in the order of `order` (rows of `wanted`, any order, repeats) or of `wanted`
  // when null.
  Result<ArrayPtr> TakeLevellessMiniBlock(int field_index, const WantedRows& wanted,
                                          const std::vector<int64_t>* order,
                                          bool keep_dictionaries) const;

  BufferPtr tail_;
  FileVersion version_;
  SchemaPtr schema_;
  int64_t num_rows_ = 0;
  int64_t size_bytes_ = 0;
  int num_columns_ = 0;
  mutable std::vector<ColumnInfo> columns_;  // v1: set at Open; 2.x: by the first columns()
  std::vector<std::pair<uint64_t, uint64_t>> global_buffers_;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<LegacyV1Reader> v1_;  // set for v1 files (impl_ is then unset)
};

}  // namespace lance::file
