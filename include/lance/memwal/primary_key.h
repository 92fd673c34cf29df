// The primary key of a MemWAL table (mem_wal.md "Primary-key sidecars"): which columns form it
// and the order-preserving binary tuple encoding of a row's key, used as the MemTable's
// dedup key, for cross-generation merges and as the composite `_pk_index` value.
//
// Each key column is 0x00 for null, else 0x01 followed by the value: bool as 0x00 / 0x01,
// signed integers big-endian with the sign bit flipped, unsigned integers big-endian (dates,
// times and timestamps as their integer storage), floats as their IEEE bits made
// order-preserving (negative: all bits flipped, else the sign bit set), strings and binary
// with every 0x00 escaped as 0x00 0xff and a 0x00 0x00 terminator. The encoding is injective
// and byte order is tuple order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/table/manifest.h"

namespace lance::memwal {

// The unenforced primary key of a base manifest: its top-level field names in key order
// (by unenforced_primary_key_position), empty for a table without one.
std::vector<std::string> PrimaryKeyColumns(const table::Manifest& manifest);

class PrimaryKeyEncoder {
 public:
  // For batches of `schema` keyed by `columns`. Errors: InvalidArgument (no columns, an
  // unknown column), NotSupported (a type without an encoding: nested, decimal, ...).
  static Result<PrimaryKeyEncoder> Make(const Schema& schema, std::vector<std::string> columns);

  const std::vector<std::string>& columns() const { return columns_; }
  // The key columns of `batch` (found by name). Errors: InvalidArgument for a missing column
  // or a type that differs from the schema's.
  Result<std::vector<ArrayPtr>> KeyColumns(const RecordBatch& batch) const;
  // Appends the encoding of row `row` of `key_columns` (from KeyColumns) to `out`.
  void Encode(const std::vector<ArrayPtr>& key_columns, int64_t row, std::string* out) const;
  // The keys of every row of `batch`.
  Result<std::vector<std::string>> EncodeAll(const RecordBatch& batch) const;
  // The same keys flat: row r's is bytes[ends[r - 1], ends[r]) (ends[-1] = 0); `bytes` and
  // `ends` are replaced.
  Status EncodeAllFlat(const RecordBatch& batch, std::string* bytes, std::vector<size_t>* ends) const;

 private:
  std::vector<std::string> columns_;
  std::vector<DataTypePtr> types_;
};

}  // namespace lance::memwal
