// LegacyV1Reader: the legacy ("v1") Lance data file, footer versions 0.1 and 0.2, as written
// by lance up to 0.x when asked for the legacy data storage version. FileReader::Open hands
// such files here; use them through FileReader.
//
// Layout (integers little-endian):
//   pages | dictionary values | page table | statistics pages + table | embedded schema |
//   metadata | u64 metadata position | u16 major | u16 minor | "LANC"
// The metadata (u32 length + lance.file.Metadata) gives the batch row offsets, the page table
// position, the embedded schema position (u32 length + the manifest's `fields`) and the
// statistics. The page table holds, for every field id from the smallest to the largest of the
// schema and every batch, an (i64 position, i64 length) pair, field-major; structs have (0, 0).
// Encodings per field (Field.encoding), per batch:
//   plain       fixed-width values back to back (bool: bits from bit 0; fixed_size_list: the
//               flattened items; decimal128 16 bytes; fixed_size_binary n), no validity;
//               length = rows
//   var_binary  the bytes, then rows + 1 i64 absolute file positions (the page points at the
//               positions); a nullable field reads an empty value as null; length = rows
//   dictionary  plain keys of the index type; the values at Field.dictionary (offset = plain
//               values or var_binary positions, length = count) are shared by all batches
//   list        plain i32 (large_list: i64) offsets into the batch's items, rows + 1 of them,
//               length = rows + 1; the item field has its own pages
//   struct      no page; its children have theirs. null: (position, rows), no bytes.
// Numbers, booleans, lists and structs store no nulls (a null reads as its stored bytes).
//
// Every read fetches only the byte ranges of the rows asked for (positions first for strings
// and lists, then their bytes / items). Errors: Corruption for anything malformed or out of
// the file (never a crash), NotSupported for layouts v1 writers did not emit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/file/file_reader.h"
#include "lance/file/lance_schema.h"
#include "lance/io/object_store.h"

namespace lance::file {

inline constexpr int64_t kV1FooterSize = 16;

class LegacyV1Reader {
 public:
  using FetchFn = std::function<Result<std::vector<BufferPtr>>(const std::vector<io::Range>&)>;

  // True when the last 8 bytes of a file (`footer_end` points just past them) carry a v1
  // version (major 0, minor below 3) and the magic.
  static bool IsV1Footer(const uint8_t* footer_end);

  // `tail` holds file bytes [tail_offset, size); `fetch` reads any range of the file.
  static Result<std::unique_ptr<LegacyV1Reader>> Open(int64_t size, BufferPtr tail,
                                                      int64_t tail_offset, FetchFn fetch);
  ~LegacyV1Reader();

  FileVersion version() const { return version_; }
  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return batch_start_.back(); }
  int num_batches() const { return static_cast<int>(batch_start_.size()) - 1; }
  const std::vector<int64_t>& batch_offsets() const { return batch_start_; }
  // One column per Lance field with pages (pre-order), one page per batch.
  const std::vector<ColumnInfo>& columns() const { return columns_; }
  int64_t FieldBytes(int field_index) const;

  Result<ArrayPtr> ReadField(int field_index) const;
  // Rows in the order given (repeats allowed). REQUIRES: every row in [0, num_rows).
  Result<ArrayPtr> TakeField(int field_index, const std::vector<int64_t>& rows) const;
  // The page statistics (one row per batch, a struct<null_count, min_value, max_value> column
  // named by field id), or null when the file has none.
  Result<RecordBatchPtr> Statistics() const;

  struct Layout;

 private:
  LegacyV1Reader() = default;

  int64_t size_ = 0;
  FetchFn fetch_;
  FileVersion version_;
  SchemaPtr schema_;
  std::vector<int64_t> batch_start_;
  std::vector<ColumnInfo> columns_;
  std::unique_ptr<Layout> main_;
  std::unique_ptr<Layout> stats_;
};

}  // namespace lance::file
