// MemWalWriter: a shard's writer with its MemTable (mem_wal.md "Writer", "MemTable",
// "Flushed MemTable"): the durable WAL of ShardWriter below, a MemTable fed in WAL order with
// every acknowledged batch, and flushes of the MemTable as generations.
//
// Open(): claims the shard (ShardWriter::Open: epoch + 1, fence sentinel, replay) and loads the
// replayed entries into a MemTable of generation current_generation -- so a writer that died
// without flushing loses nothing it acknowledged: its rows come back here and go out with the
// next flush.
//
// Append(): the batch is written to the WAL (group commit) and, once durable, inserted into the
// MemTable, then `on_durable` runs. Acknowledged = durable = visible to this writer's reads.
//
// Flush(): the active MemTable is frozen (a new one of generation + 1 takes the appends that
// follow), written as {random8}_gen_{g}/ (generation.h), then published by an epoch-checked
// shard manifest update: flushed_generations += g, current_generation = g + 1,
// replay_after_wal_entry_position = the last WAL entry whose rows the generation holds. A crash
// before the manifest update leaves an unreferenced directory and the WAL tail that replays
// into the next writer; after it, the generation. A fenced writer's flush fails (Fenced) and
// publishes nothing. With `auto_flush`, a background thread flushes when the MemTable reaches
// max_rows / max_bytes / max_age_ms, or when a budget shared by the process's writers says so;
// appends wait while a full MemTable waits for a flush in progress (the memory bound is about
// two MemTables per writer, or the budget's bound for all of them).
//
// Thread-safety: every method may be called from any thread; Close() once.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/memtable.h"
#include "lance/memwal/memtable_budget.h"
#include "lance/memwal/shard_writer.h"

namespace lance::memwal {

struct MemWalWriterOptions {
  ShardWriterOptions shard;              // table_schema required
  std::vector<std::string> primary_key;  // empty: append-only
  GenerationWriteOptions generation;     // the base table's data storage version
  bool auto_flush = true;
  int64_t max_rows = 1 << 20;
  int64_t max_bytes = int64_t{256} << 20;
  int64_t max_age_ms = 0;  // 0: no age trigger
  // A bound shared with the other writers of the process (memtable_budget.h), beside this
  // writer's own limits above; null: none.
  std::shared_ptr<MemTableBudget> budget;
  // Mirror the maintained indexes (generation.maintained_indexes of type BTREE, BITMAP or
  // INVERTED) in each MemTable (memtable.h), for strong reads in this process (LsmReadOptions::
  // live_writers: LsmScan / LsmLookup the scalar ones, LsmTextSearch the INVERTED ones). Their
  // bytes count against max_bytes and the budget.
  bool memtable_indexes = true;
  // After a flush, return the memory freed to the system (glibc malloc_trim): the frozen
  // MemTable and the flush's buffers, freed across threads, would otherwise stay in their
  // threads' malloc arenas and keep the process far above its MemTable bound.
  bool trim_after_flush = true;
};

// The in-memory indexes a MemTable of these options keeps.
std::vector<MemTableIndexSpec> MemTableIndexesOf(const MemWalWriterOptions& options);

struct MemWalWriterStats {
  int64_t flushes = 0;
  int64_t flushed_rows = 0;
  int64_t flush_ms = 0;  // total time spent flushing
  ShardWriterStats wal;
};

class MemWalWriter {
 public:
  using Callback = ShardWriter::Callback;

  static Result<std::unique_ptr<MemWalWriter>> Open(std::shared_ptr<io::ObjectStore> store,
                                                    std::string root, Uuid shard,
                                                    MemWalWriterOptions options);
  ~MemWalWriter();

  const Uuid& shard_id() const { return shard_->shard_id(); }
  uint64_t epoch() const { return shard_->epoch(); }
  ShardWriter& wal() { return *shard_; }
  // Rows replayed from the WAL on Open.
  int64_t recovered_rows() const { return recovered_rows_; }

  Status Append(const RecordBatch& batch, bool tombstone, Callback on_durable);
  Result<WalAck> AppendAndWait(const RecordBatch& batch, bool tombstone = false);

  // Flushes the active MemTable (nothing when empty: nullopt). Errors: Fenced, IOError.
  Result<std::optional<FlushedGeneration>> Flush();

  // The MemTables a strongly consistent read of this process sees, oldest first (a frozen one
  // being flushed, then the active one).
  std::vector<std::shared_ptr<const MemTable>> MemTables() const;
  ShardManifest manifest() const { return shard_->manifest(); }
  MemWalWriterStats stats() const;

  // Drains the WAL queue; with `flush`, flushes what the MemTable holds. The shard stays
  // claimed. Idempotent.
  Status Close(bool flush);

 private:
  MemWalWriter(std::shared_ptr<io::ObjectStore> store, std::string root, MemWalWriterOptions o);
  bool OverLimit(const MemTable& m) const;
  void FlushLoop();
  // Wakes the flusher and waiting appends (a budget change: taken and released mu_ first, so
  // a waiter that has just checked its predicate does not miss it).
  void Wake();

  std::shared_ptr<io::ObjectStore> store_;
  std::string root_;
  MemWalWriterOptions options_;
  std::unique_ptr<ShardWriter> shard_;
  int64_t recovered_rows_ = 0;
  size_t memtable_indexes_ = 0;  // in-memory indexes per MemTable

  std::mutex flush_mu_;  // one flush at a time
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::shared_ptr<MemTable> active_;        // guarded by mu_
  std::shared_ptr<MemTable> frozen_;        // guarded by mu_
  // Batches of the WAL entry being inserted that have not reached active_ yet (guarded by
  // mu_). A MemTable is frozen only between entries: a flushed generation's
  // last_wal_position becomes replay_after, so an entry split across two MemTables would
  // lose its rest on replay.
  int64_t entry_batches_left_ = 0;
  bool stop_ = false;                       // guarded by mu_
  Status flush_error_;                      // guarded by mu_
  MemWalWriterStats stats_;                 // guarded by mu_
  std::thread flusher_;
  bool closed_ = false;
  int budget_subscription_ = -1;
};

}  // namespace lance::memwal
