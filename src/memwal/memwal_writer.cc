#include "lance/memwal/memwal_writer.h"

#include <chrono>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <future>

namespace lance::memwal {

std::vector<MemTableIndexSpec> MemTableIndexesOf(const MemWalWriterOptions& options) {
  std::vector<MemTableIndexSpec> out;
  if (!options.memtable_indexes) return out;
  using index::scalar::ScalarIndexType;
  for (const MaintainedIndex& m : options.generation.maintained_indexes) {
    if (m.vector) continue;
    if (m.options.type == ScalarIndexType::kInverted) {
      // The base index's tokenizer: the postings are the ones the flushed generation's index
      // will hold.
      out.push_back(MemTableIndexSpec{m.name, m.column, m.options.fts});
      continue;
    }
    if (m.options.type != ScalarIndexType::kBTree && m.options.type != ScalarIndexType::kBitmap) continue;
    out.push_back(MemTableIndexSpec{m.name, m.column, std::nullopt});
  }
  return out;
}

MemWalWriter::MemWalWriter(std::shared_ptr<io::ObjectStore> store, std::string root,
                           MemWalWriterOptions o)
    : store_(std::move(store)), root_(std::move(root)), options_(std::move(o)) {}

MemWalWriter::~MemWalWriter() { (void)Close(false); }

Result<std::unique_ptr<MemWalWriter>> MemWalWriter::Open(std::shared_ptr<io::ObjectStore> store,
                                                         std::string root, Uuid shard,
                                                         MemWalWriterOptions options) {
  std::unique_ptr<MemWalWriter> w(new MemWalWriter(store, root, options));
  LANCE_ASSIGN_OR_RAISE(w->shard_, ShardWriter::Open(store, root, shard, options.shard));
  const ShardManifest m = w->shard_->manifest();
  LANCE_ASSIGN_OR_RAISE(std::unique_ptr<MemTable> mt,
                        MemTable::Make(w->shard_->wal_schema(), options.primary_key,
                                       m.current_generation, MemTableIndexesOf(options)));
  for (const WalEntry& e : w->shard_->recovered()) {
    for (const auto& b : e.batches) {
      // Replayed entries carry the schema they were written with (a previous writer's, maybe
      // the reference's): rebuild each batch in this writer's WAL schema.
      const SchemaPtr& ws = w->shard_->wal_schema();
      std::vector<ArrayPtr> cols;
      for (const auto& f : ws->fields()) {
        ArrayPtr c = b->GetColumnByName(f->name());
        if (!c || !c->type->Equals(*f->type())) {
          return Status::Corruption("shard {}: WAL entry {} has no column '{}' of type {}",
                                    shard.ToString(), e.position, f->name(), f->type()->ToString());
        }
        cols.push_back(std::move(c));
      }
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr wb, RecordBatch::Make(ws, b->num_rows(), std::move(cols)));
      w->recovered_rows_ += wb->num_rows();
      LANCE_RETURN_NOT_OK(mt->Insert(std::move(wb), e.position));
    }
  }
  w->shard_->ReleaseRecovered();
  w->memtable_indexes_ = mt->indexes().size() + mt->text_indexes().size();
  w->active_ = std::move(mt);
  if (options.budget) {
    w->budget_subscription_ = options.budget->Subscribe([p = w.get()] { p->Wake(); });
    options.budget->Grow(w->budget_subscription_, w->active_->bytes());
  }
  if (options.auto_flush) w->flusher_ = std::thread([p = w.get()] { p->FlushLoop(); });
  return w;
}

void MemWalWriter::Wake() {
  { std::lock_guard<std::mutex> lock(mu_); }
  cv_.notify_all();
}

bool MemWalWriter::OverLimit(const MemTable& m) const {
  if (m.empty()) return false;
  return (options_.budget && options_.budget->FreezeNext(budget_subscription_)) ||
         (options_.max_rows > 0 && m.num_rows() >= options_.max_rows) ||
         (options_.max_bytes > 0 && m.bytes() >= options_.max_bytes) ||
         (options_.max_age_ms > 0 && m.age_ms() >= options_.max_age_ms);
}

Status MemWalWriter::Append(const RecordBatch& batch, bool tombstone, Callback on_durable) {
  if (batch.num_rows() == 0) {
    return Status::InvalidArgument("MemWalWriter::Append: empty batch (a WAL entry holds rows)");
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr wb, MakeWalBatch(shard_->wal_schema(), batch, tombstone));
  // What the append will hold in the MemTable (its buffers, a key index entry a row), reserved
  // in the budget from admission to landing.
  // (Each in-memory index: a position, an offset and about a value a row.)
  const int64_t per_row = kKeyIndexEntryBytes + kRowLinkBytes +
                          static_cast<int64_t>(memtable_indexes_) * (kIndexRowBytes + kIndexValueReserve);
  const int64_t reserve = options_.budget ? InMemoryBytes(*wb) + per_row * wb->num_rows() : 0;
  if (options_.auto_flush) {
    // Bounded memory: no append joins a full MemTable. It waits until the flusher has frozen
    // it (a fresh one takes the appends), and while the previous one is still being flushed
    // that waits for that flush. Only batches already queued in the WAL land after the limit.
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
      return stop_ || !flush_error_.ok() ||
             (!OverLimit(*active_) && !(options_.budget && options_.budget->Full(reserve)));
    });
    if (!flush_error_.ok()) return flush_error_;
  }
  if (options_.budget) options_.budget->Reserve(reserve);
  auto reserved = std::make_shared<std::atomic<bool>>(options_.budget != nullptr);
  auto unreserve = [this, reserve, reserved] {
    if (reserved->exchange(false)) options_.budget->Unreserve(reserve);
  };
  Status queued = shard_->AppendWalBatch(wb, [this, wb, unreserve, cb = std::move(on_durable)](const Result<WalAck>& r) {
    if (!r.ok()) {
      unreserve();
      cb(r);
      return;
    }
    Status st;
    bool wake = false;
    int64_t grown = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      const int64_t before = active_->bytes();
      st = active_->Insert(wb, r->position);
      grown = active_->bytes() - before;
      // The shard writer acknowledges an entry's batches one after another on one thread.
      entry_batches_left_ = entry_batches_left_ > 0 ? entry_batches_left_ - 1 : r->entry_batches - 1;
      wake = entry_batches_left_ == 0 || (options_.auto_flush && OverLimit(*active_));
    }
    if (wake) cv_.notify_all();
    if (options_.budget && grown != 0) options_.budget->Grow(budget_subscription_, grown);  // outside mu_: it wakes us
    unreserve();
    if (!st.ok()) {
      cb(Result<WalAck>(st));
      return;
    }
    cb(r);
  });
  if (!queued.ok()) unreserve();  // refused before it was queued: no callback
  return queued;
}

Result<WalAck> MemWalWriter::AppendAndWait(const RecordBatch& batch, bool tombstone) {
  auto promise = std::make_shared<std::promise<Result<WalAck>>>();
  auto future = promise->get_future();
  Status st = Append(batch, tombstone, [promise](const Result<WalAck>& r) { promise->set_value(r); });
  if (!st.ok()) return st;
  return future.get();
}

Result<std::optional<FlushedGeneration>> MemWalWriter::Flush() {
  std::lock_guard<std::mutex> flush_lock(flush_mu_);
  std::shared_ptr<MemTable> frozen;
  int64_t froze = 0;  // bytes moved from active to frozen, for the budget
  {
    std::unique_lock<std::mutex> lock(mu_);
    // Never between two batches of one WAL entry (see entry_batches_left_) -- not even when
    // Close() has set stop_ while the flusher thread waits here: the rest of a durable entry
    // is always acknowledged (the shard writer delivers an entry's batches one after another,
    // all with its one outcome), and freezing before it arrives would publish replay_after
    // past rows the generation lacks (the crash test caught one: a closing writer's last
    // generation held the first half of its last entry, and a restart skipped the rest).
    cv_.wait(lock, [&] { return entry_batches_left_ == 0; });
    if (frozen_) {
      // A failed flush: retry that generation first (its rows are older than the active ones,
      // and replay_after may only cover WAL entries whose rows are in a published generation).
      frozen = frozen_;
    } else {
      if (active_->empty()) return std::optional<FlushedGeneration>();
      LANCE_ASSIGN_OR_RAISE(std::unique_ptr<MemTable> next,
                            MemTable::Make(shard_->wal_schema(), options_.primary_key,
                                           active_->generation() + 1, MemTableIndexesOf(options_)));
      frozen_ = std::move(active_);
      active_ = std::move(next);
      frozen = frozen_;
      froze = frozen->bytes();
    }
  }
  if (options_.budget && froze > 0) options_.budget->Freeze(budget_subscription_, froze);
  cv_.notify_all();  // appends held by a full MemTable go on into the fresh one
  const auto t0 = std::chrono::steady_clock::now();
  const MemTable::Contents contents = frozen->Snapshot();
  auto publish = [&]() -> Result<FlushedGeneration> {
    LANCE_ASSIGN_OR_RAISE(FlushedGeneration g,
                          WriteGeneration(store_, root_, shard_->shard_id(), frozen->generation(),
                                          contents, options_.primary_key, options_.generation));
    LANCE_RETURN_NOT_OK(shard_->UpdateManifest([&](ShardManifest* m) -> Status {
      if (m->current_generation != g.generation) {
        return Status::Internal("shard {}: flushing generation {} but the manifest's current "
                                "generation is {}",
                                m->shard_id.ToString(), g.generation, m->current_generation);
      }
      m->flushed_generations.push_back(g);
      m->current_generation = g.generation + 1;
      m->replay_after_wal_entry_position =
          std::max(m->replay_after_wal_entry_position, contents.last_wal_position);
      m->wal_entry_position_last_seen =
          std::max({m->wal_entry_position_last_seen, contents.last_wal_position,
                    shard_->last_durable_position()});
      return Status::OK();
    }).status());
    return g;
  };
  Result<FlushedGeneration> g = publish();
  const int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - t0)
                         .count();
  int64_t released = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!g.ok()) {
      // The frozen MemTable stays (readable, and the next Flush retries it into a new
      // directory). A fenced writer stays poisoned; its rows are in the WAL for the next writer.
      flush_error_ = g.status();
    } else {
      released = frozen->bytes();
      frozen_.reset();
      flush_error_ = Status::OK();
      ++stats_.flushes;
      stats_.flushed_rows += contents.num_rows;
      stats_.flush_ms += ms;
    }
  }
  if (options_.budget && released > 0) options_.budget->Release(budget_subscription_, released, 0);  // outside mu_
  cv_.notify_all();
#if defined(__GLIBC__)
  // The flushed MemTable and the flush's encode buffers were freed on several threads; glibc
  // keeps such memory in each thread's arena (a 64 MiB bound ran at 390 MiB RSS, 154 MiB with
  // one arena). Handing it back here keeps the process near its MemTable bound.
  if (released > 0 && options_.trim_after_flush) ::malloc_trim(0);
#endif
  if (!g.ok()) return g.status();
  return std::optional<FlushedGeneration>(std::move(*g));
}

void MemWalWriter::FlushLoop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      const auto wait = options_.max_age_ms > 0 ? std::chrono::milliseconds(options_.max_age_ms)
                                                : std::chrono::milliseconds(1000);
      cv_.wait_for(lock, wait, [&] { return stop_ || OverLimit(*active_); });
      if (stop_ || !flush_error_.ok()) return;
      if (!OverLimit(*active_)) continue;
    }
    (void)Flush();
  }
}

std::vector<std::shared_ptr<const MemTable>> MemWalWriter::MemTables() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<const MemTable>> out;
  if (frozen_) out.push_back(frozen_);
  out.push_back(active_);
  return out;
}

MemWalWriterStats MemWalWriter::stats() const {
  MemWalWriterStats s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    s = stats_;
  }
  s.wal = shard_->stats();
  return s;
}

Status MemWalWriter::Close(bool flush) {
  if (closed_) return Status::OK();
  closed_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  if (!shard_) return Status::OK();
  Status st = shard_->Close();  // every queued append durable (and in the MemTable) first
  if (st.ok() && flush) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      flush_error_ = Status::OK();
    }
    st = Flush().status();
  }
  if (options_.budget) {
    // This writer takes no more rows: what its MemTables hold is no longer the process's to
    // bound (it is freed with the writer).
    int64_t frozen = 0, active = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      frozen = frozen_ ? frozen_->bytes() : 0;
      active = active_ ? active_->bytes() : 0;
    }
    options_.budget->Unsubscribe(budget_subscription_);
    options_.budget->Release(budget_subscription_, frozen, active);
  }
  return st;
}

}  // namespace lance::memwal
