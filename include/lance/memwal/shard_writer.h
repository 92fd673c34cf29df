// ShardWriter: the single writer of one MemWAL shard -- claim, fencing, recovery and the
// durable, group-committed WAL (mem_wal.md "Writer", "WAL", "Writer Fencing").
//
// Open(): claims the shard (writer_epoch + 1 in a new manifest version; SEALED shards refuse),
// finds the WAL tip (probing from max(wal_entry_position_last_seen,
// replay_after_wal_entry_position)), and unless the shard is brand new (its first claim, an
// empty WAL) puts a fence sentinel at the tip and records its position as
// wal_entry_position_last_seen -- from then on an older writer's next append collides and gets
// Fenced. (lance 12 was only seen writing sentinels into non-empty WALs; skipping it on a
// re-claimed shard with an empty WAL would let the old writer land an acknowledged entry at
// position 1 that nobody replays.) Only then it reads the entries
// replay_after + 1 .. sentinel - 1 (skipping sentinels) into recovered(): every entry a
// previous writer managed to publish, acknowledged or not, exactly once.
//
// Append(): the batch (the table's columns, by name) gets its `_tombstone` column and joins the
// queue. One flusher thread writes everything queued as ONE WAL entry (group commit) the moment
// the previous entry is durable -- no timer -- with put-if-not-exists at the next position; a
// completion fires only after the entry is published (on local disk: fsynced file and
// directory). A collision at the position means a newer writer fenced this one (or, after a
// failed attempt of our own, possibly our own entry: it counts as ours only when it holds
// exactly our bytes). Transient write errors are retried at the same position; when the
// retries run out, or once fenced, the writer is poisoned: the pending and every later append
// fail (Fenced, or IOError naming the first failure) and nothing more is written. Reopen the
// shard to continue; recovery then replays whatever did land.
//
// UpdateManifest(): a fenced (epoch-checked) compare-and-create of the next manifest version,
// for the flush step that comes with the MemTable.
//
// Thread-safety: Append, UpdateManifest and the accessors may be called from any number of
// threads; Close() once, after the last Append has returned.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/memwal/wal.h"

namespace lance::memwal {

struct ShardWriterOptions {
  // The table schema (field metadata kept: mark the primary key with WithPrimaryKey). WAL
  // entries carry it plus `_tombstone`. Required.
  SchemaPtr table_schema;
  // What a new shard's first manifest records.
  uint32_t shard_spec_id = 0;
  std::vector<ShardFieldValue> shard_field_values;
  // Put a fence sentinel at the tip of a shard that has WAL entries (what lance 12 does).
  bool write_fence_sentinel = true;
  // Read the unflushed tail into recovered() on Open.
  bool replay = true;
  // Re-read the shard's writer epoch after each WAL entry lands and before acknowledging it
  // (Fenced, never acknowledged, when a newer writer claimed the shard): the spec's
  // compensation for garbage-collected WAL positions, where a stalled writer's entry would land
  // without a collision (dataset/memwal_gc.h). Costs one manifest probe per entry.
  bool recheck_epoch_after_write = true;
  // Group commit bounds of one entry (at least one batch is always taken).
  int64_t max_entry_bytes = int64_t{64} << 20;
  int64_t max_entry_batches = 4096;
  // Retries of one entry write after an IOError, first backoff (doubling).
  int max_io_retries = 3;
  int io_retry_backoff_ms = 20;
  ShardManifestStoreOptions manifest;
};

// What a durable acknowledgement reports.
struct WalAck {
  uint64_t position = 0;   // the WAL entry that holds the batch
  int64_t entry_rows = 0;  // rows in that entry (all batches grouped into it)
  int64_t entry_batches = 0;
};

struct ShardWriterStats {
  int64_t entries = 0;  // data entries written by this writer
  int64_t batches = 0;
  int64_t rows = 0;
  int64_t bytes = 0;
  int64_t io_retries = 0;
};

class ShardWriter {
 public:
  using Callback = std::function<void(const Result<WalAck>&)>;

  // Claims `shard` under table root `root` and recovers it (see above).
  // Errors: InvalidArgument (no table_schema, SEALED shard), Fenced (a concurrent claim won,
  // or a newer writer's entry is already in the tail), IOError, Corruption (a bad entry).
  static Result<std::unique_ptr<ShardWriter>> Open(std::shared_ptr<io::ObjectStore> store,
                                                   std::string root, Uuid shard,
                                                   ShardWriterOptions options);
  ~ShardWriter();  // Close()s

  const Uuid& shard_id() const { return shard_; }
  uint64_t epoch() const { return epoch_; }
  const SchemaPtr& wal_schema() const { return wal_schema_; }
  // The manifest after claiming (and after recording the sentinel).
  ShardManifest manifest() const;
  // The sentinel's position, 0 when none was written.
  uint64_t sentinel_position() const { return sentinel_position_; }
  // Data entries of the unflushed tail, in position order (empty without `replay`).
  const std::vector<WalEntry>& recovered() const { return recovered_; }
  // Recovered entries are released by the caller once it has taken them (a MemTable).
  void ReleaseRecovered() { recovered_.clear(); }

  // Queues `batch` (rows of the table's columns); `tombstone` marks them as deletes. The
  // callback runs on the flusher thread once the entry holding the batch is durable, or with
  // the error that prevents it. Errors (returned, callback not called): InvalidArgument for a
  // batch that does not fit the schema or is empty; the poison status of a failed writer;
  // Cancelled after Close.
  Status Append(const RecordBatch& batch, bool tombstone, Callback on_durable);
  // Append of a batch already in the WAL schema (MakeWalBatch of wal_schema()), queued as it is.
  Status AppendWalBatch(RecordBatchPtr wal_batch, Callback on_durable);
  std::future<Result<WalAck>> Append(const RecordBatch& batch, bool tombstone = false);
  // Append and wait for durability.
  Result<WalAck> AppendAndWait(const RecordBatch& batch, bool tombstone = false);

  // The newest WAL position known durable to this writer: its last entry, else the sentinel,
  // else the tip it found on Open (0 for an empty WAL).
  uint64_t last_durable_position() const;
  // OK, or the status that poisoned the writer.
  Status health() const;
  ShardWriterStats stats() const;

  // An epoch-checked update of the shard manifest (see ShardManifestStore::CommitUpdate).
  // Errors: Fenced (the writer is poisoned then), IOError, what `mutate` returns.
  Result<ShardManifest> UpdateManifest(const std::function<Status(ShardManifest*)>& mutate);

  // Writes what is queued, stops the flusher and returns the writer's health. The shard stays
  // claimed (no manifest is written): the next writer's claim fences this one, and unflushed
  // entries stay in the WAL for it to replay. Idempotent.
  Status Close();

 private:
  struct Pending {
    RecordBatchPtr batch;
    int64_t bytes = 0;
    Callback done;
  };

  ShardWriter(std::shared_ptr<io::ObjectStore> store, std::string root, Uuid shard,
              ShardWriterOptions options);
  Status Recover();
  Result<uint64_t> PlaceSentinel(uint64_t tail);
  // Writes `bytes` at the next position; returns the position. Errors poison the writer.
  Result<uint64_t> WriteEntry(const BufferPtr& bytes);
  Status CheckFenced(uint64_t position);
  // CheckFenced after an entry landed, reading the latest manifest only when there is a newer
  // version than the one this writer wrote last.
  Status RecheckEpoch(uint64_t position);
  void Poison(const Status& st);
  void FlusherLoop();

  std::shared_ptr<io::ObjectStore> store_;
  std::string root_;
  Uuid shard_;
  ShardWriterOptions options_;
  ShardManifestStore manifests_;
  WalReader reader_;
  SchemaPtr wal_schema_;
  uint64_t epoch_ = 0;
  uint64_t sentinel_position_ = 0;
  std::vector<WalEntry> recovered_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> queue_;      // guarded by mutex_
  bool closing_ = false;           // guarded by mutex_
  bool closed_ = false;            // guarded by mutex_
  Status poison_;                  // guarded by mutex_
  ShardManifest manifest_;         // guarded by mutex_
  uint64_t next_position_ = 1;     // flusher thread only (set before it starts)
  uint64_t last_durable_ = 0;      // guarded by mutex_
  ShardWriterStats stats_;         // guarded by mutex_
  std::thread flusher_;
};

// Reads the unflushed data entries of a shard without claiming it (what a strongly consistent
// reader in another process needs): replay_after + 1 up to the first missing position, fence
// sentinels skipped. `manifest` is the shard's latest (nullopt: none, nothing to read).
// Errors: IOError, Corruption.
Result<std::vector<WalEntry>> ReadUnflushedTail(const std::shared_ptr<io::ObjectStore>& store,
                                                const std::string& root, const Uuid& shard,
                                                const std::optional<ShardManifest>& manifest);

}  // namespace lance::memwal
