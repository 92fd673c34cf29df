// WAL entries of a MemWAL shard (mem_wal.md "WAL", "Writer Fencing").
//
// Entry p (1-based) is _mem_wal/{shard}/wal/{bitrev64(p)}.arrow, an Arrow IPC *stream*
// (uncompressed, 64-byte aligned) whose schema is the table schema with its field metadata
// (the primary key keeps "lance-schema:unenforced-primary-key:position") plus a trailing
// non-null `_tombstone: bool` column, and whose schema metadata holds writer_epoch (decimal).
// A normal entry holds one or more record batches. A fence sentinel has no fields and no
// batches and its metadata adds fence_sentinel = "true": a new writer puts one at the WAL tip
// when it claims a shard that already has entries, so the previous writer's next append
// collides and finds out it was fenced. Entries are created with put-if-not-exists; entry
// p + 1 never exists before p does.
//
// Replay reads replay_after_wal_entry_position + 1 .. up to the first missing position and
// skips sentinels. Every function here is thread-safe; WalReader holds no mutable state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/uuid.h"

namespace lance::memwal {

inline constexpr std::string_view kWriterEpochKey = "writer_epoch";
inline constexpr std::string_view kFenceSentinelKey = "fence_sentinel";
inline constexpr std::string_view kTombstoneColumn = "_tombstone";
inline constexpr std::string_view kPrimaryKeyPositionKey =
    "lance-schema:unenforced-primary-key:position";

struct WalEntry {
  uint64_t position = 0;
  uint64_t writer_epoch = 0;
  bool fence_sentinel = false;
  // The entry's schema without writer_epoch / fence_sentinel (table fields + _tombstone).
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;

  int64_t num_rows() const;
};

// The WAL schema of a table schema: its fields (metadata kept) + `_tombstone: bool not null`.
// Errors: InvalidArgument when `table_schema` already has a `_tombstone` column.
Result<SchemaPtr> WalSchema(const SchemaPtr& table_schema);

// `table_schema` with the unenforced primary key marked on the named columns (field metadata
// kPrimaryKeyPositionKey = 1-based position in `columns`), as lance 12 writes it in WAL
// entries. Errors: InvalidArgument for an unknown or repeated column.
Result<SchemaPtr> WithPrimaryKey(const SchemaPtr& table_schema,
                                 const std::vector<std::string>& columns);

// One WAL batch from a batch of the table's columns (matched by name, any order; types must
// equal the schema's) with `_tombstone` set to `tombstone` on every row. Tombstones of a keyed
// table keep their key columns only: the other nullable columns become nulls (lance 12's
// full-text search over a generation does not filter `_tombstone`; a delete marker must match
// nothing there).
// Errors: InvalidArgument naming a missing column or a type mismatch.
Result<RecordBatchPtr> MakeWalBatch(const SchemaPtr& wal_schema, const RecordBatch& batch,
                                    bool tombstone);

// The bytes of an entry holding `batches` (each of schema `wal_schema`).
// Errors: InvalidArgument (no batches, an empty batch, a schema mismatch).
Result<BufferPtr> EncodeWalEntry(const SchemaPtr& wal_schema,
                                 const std::vector<RecordBatchPtr>& batches, uint64_t epoch);
// The bytes of a fence sentinel of `epoch` (schema message + end-of-stream only).
Result<BufferPtr> EncodeFenceSentinel(uint64_t epoch);
// Decodes untrusted entry bytes; `what` names them in errors. `position` is copied into the
// result. Errors: Corruption (bad IPC, a missing or non-decimal writer_epoch, a sentinel with
// fields or batches), NotSupported (IPC features the reader lacks).
Result<WalEntry> DecodeWalEntry(BufferPtr bytes, uint64_t position, std::string_view what);

class WalReader {
 public:
  WalReader(std::shared_ptr<io::ObjectStore> store, std::string root, Uuid shard);

  // The entry at `position`, nullopt when there is none. Errors: IOError, Corruption.
  Result<std::optional<WalEntry>> Read(uint64_t position) const;
  // True when an entry exists at `position`.
  Result<bool> Exists(uint64_t position) const;
  // The first free position (one past the tip): from `hint` (a position known to have existed,
  // 0 for none) probing forward; when `hint` is gone (removed), from a listing, never below
  // hint + 1. Errors: IOError.
  Result<uint64_t> FindTail(uint64_t hint) const;
  // Every stored position, ascending (a listing).
  Result<std::vector<uint64_t>> ListPositions() const;
  // Calls `fn` for every entry in [first, end) in order (end = 0: up to the first missing
  // position), sentinels included. Errors: IOError, Corruption, what `fn` returns.
  Status Scan(uint64_t first, uint64_t end, const std::function<Status(WalEntry&&)>& fn) const;

 private:
  std::shared_ptr<io::ObjectStore> store_;
  std::string root_;
  Uuid shard_;
};

}  // namespace lance::memwal
