// MemTable: the in-memory generation of one MemWAL shard (mem_wal.md "MemTable").
//
// An append log of WAL batches (the table's columns + `_tombstone`), each tagged with the WAL
// position that made it durable; later appends have larger row positions. For a primary-key
// table an implicit key index (encoded key -> newest row position) gives last-write-wins: the
// visible row of a key is its newest, and a key whose newest row is a tombstone is absent.
// Append-only tables (no primary key) keep every row.
//
// The generation a MemTable becomes when flushed is fixed at creation (the shard manifest's
// current_generation). Thread-safe: Insert and the readers may run concurrently; Contents()
// is a consistent copy (the batches are shared, immutable).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/memwal/primary_key.h"

namespace lance::memwal {

// Bytes of the buffers of `batch` (children and dictionaries included).
int64_t InMemoryBytes(const RecordBatch& batch);
// What one key of the implicit key index costs beside its bytes past the string's inline
// buffer: a hash node (next pointer, std::string, row position, cached hash) as malloc hands
// it out, and its bucket pointer.
inline constexpr int64_t kKeyIndexEntryBytes = 72;

class MemTable {
 public:
  // `wal_schema`: the shard's WAL schema; `primary_key`: key columns (empty: append-only).
  // Errors: as PrimaryKeyEncoder::Make.
  static Result<std::unique_ptr<MemTable>> Make(SchemaPtr wal_schema,
                                                std::vector<std::string> primary_key,
                                                uint64_t generation);

  // Appends `wal_batch` (of the WAL schema), durable in WAL entry `wal_position`.
  // Errors: InvalidArgument (schema, key column types).
  Status Insert(RecordBatchPtr wal_batch, uint64_t wal_position);

  uint64_t generation() const { return generation_; }
  const SchemaPtr& schema() const { return schema_; }
  const std::vector<std::string>& primary_key() const { return primary_key_; }
  int64_t num_rows() const;
  int64_t num_keys() const;  // distinct keys (rows for append-only)
  // The batches' buffers and an estimate of the key index (the memory the MemTable holds).
  int64_t bytes() const;
  bool empty() const { return num_rows() == 0; }
  // The WAL positions the rows came from (0 when empty).
  uint64_t first_wal_position() const;
  uint64_t last_wal_position() const;
  // Milliseconds since the first row arrived (0 when empty), for the age flush trigger.
  int64_t age_ms() const;

  struct Contents {
    std::vector<RecordBatchPtr> batches;  // insert order
    int64_t num_rows = 0;
    // Row positions (0-based over `batches`) hidden by a newer row of the same key, ascending.
    std::vector<uint32_t> superseded;
    // The newest row position of every key (tombstones included), ascending.
    std::vector<uint32_t> newest;
    std::vector<std::string> newest_keys;  // keys of `newest`, same order (primary-key tables)
    uint64_t last_wal_position = 0;
    int64_t bytes = 0;
  };
  Contents Snapshot() const;

  // The newest row of `key` (an encoded key): the batch and row, nullopt when absent.
  // The row may be a tombstone (check `_tombstone`).
  std::optional<std::pair<RecordBatchPtr, int64_t>> Lookup(const std::string& key) const;

 private:
  MemTable(SchemaPtr schema, std::vector<std::string> pk, std::optional<PrimaryKeyEncoder> enc,
           uint64_t generation);

  SchemaPtr schema_;
  std::vector<std::string> primary_key_;
  std::optional<PrimaryKeyEncoder> encoder_;
  uint64_t generation_;

  mutable std::mutex mu_;
  std::vector<RecordBatchPtr> batches_;
  std::vector<int64_t> starts_;  // first row position of each batch
  std::unordered_map<std::string, uint32_t> newest_;
  int64_t rows_ = 0;
  int64_t bytes_ = 0;
  uint64_t first_position_ = 0;
  uint64_t last_position_ = 0;
  int64_t first_row_ms_ = 0;
};

}  // namespace lance::memwal
