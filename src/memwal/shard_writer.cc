// ShardWriter: claim, sentinel, recovery, and the group-committing WAL flusher.
#include "lance/memwal/shard_writer.h"

#include <chrono>

#include "lance/memwal/layout.h"

namespace lance::memwal {

namespace {

void SleepMs(int ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

int64_t ArrayBytes(const Array& a) {
  int64_t n = 0;
  for (const auto& b : a.buffers) {
    if (b) n += b->size();
  }
  for (const auto& c : a.children) n += ArrayBytes(*c);
  if (a.dictionary) n += ArrayBytes(*a.dictionary);
  return n;
}

enum class PutResult { kWritten, kTaken };

// Put-if-not-exists of `bytes` at `path`. IOErrors are retried (the object may have landed
// anyway); an object found after such an error counts as written only when it holds exactly
// `bytes` -- safe for WAL entries because no other writer ever holds this writer's epoch.
Result<PutResult> PutAt(io::ObjectStore& store, const std::string& path, const Buffer& bytes,
                        const ShardWriterOptions& options, int64_t* io_retries) {
  bool ambiguous = false;
  Status last;
  for (int attempt = 0; attempt <= options.max_io_retries; ++attempt) {
    if (attempt > 0) {
      ++*io_retries;
      SleepMs(options.io_retry_backoff_ms << (attempt - 1));
    }
    Status st = store.PutIfNotExists(path, bytes.view());
    if (st.ok()) return PutResult::kWritten;
    if (st.IsAlreadyExists()) {
      if (ambiguous) {
        auto existing = store.Get(path);
        if (!existing.ok()) {
          last = existing.status();
          continue;
        }
        if ((*existing)->view() == bytes.view()) return PutResult::kWritten;
      }
      return PutResult::kTaken;
    }
    if (!st.IsIOError()) return st;
    ambiguous = true;
    last = std::move(st);
  }
  return Status::IOError("writing {} failed after {} attempts: {}", path,
                         options.max_io_retries + 1, last.ToString());
}

}  // namespace

ShardWriter::ShardWriter(std::shared_ptr<io::ObjectStore> store, std::string root, Uuid shard,
                         ShardWriterOptions options)
    : store_(store),
      root_(root),
      shard_(shard),
      options_(std::move(options)),
      manifests_(store, root, shard, options_.manifest),
      reader_(store, root, shard) {}

Result<std::unique_ptr<ShardWriter>> ShardWriter::Open(std::shared_ptr<io::ObjectStore> store,
                                                       std::string root, Uuid shard,
                                                       ShardWriterOptions options) {
  if (!options.table_schema) {
    return Status::InvalidArgument("ShardWriter: options.table_schema is required");
  }
  std::unique_ptr<ShardWriter> w(
      new ShardWriter(std::move(store), std::move(root), shard, std::move(options)));
  LANCE_ASSIGN_OR_RAISE(w->wal_schema_, WalSchema(w->options_.table_schema));
  LANCE_RETURN_NOT_OK(w->Recover());
  w->flusher_ = std::thread([p = w.get()] { p->FlusherLoop(); });
  return w;
}

ShardWriter::~ShardWriter() { (void)Close(); }

Status ShardWriter::CheckFenced(uint64_t position) {
  LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> latest, manifests_.Latest());
  if (latest && latest->writer_epoch > epoch_) {
    return Status::Fenced("shard {}: writer epoch {} was fenced by epoch {} (at WAL position "
                          "{})",
                          shard_.ToString(), epoch_, latest->writer_epoch, position);
  }
  return Status::OK();
}

Status ShardWriter::RecheckEpoch(uint64_t position) {
  // Manifest versions are contiguous and never removed, and a newer claim writes the version
  // after the latest: without a version above the newest this writer wrote, nobody has
  // claimed since (one metadata request per entry instead of reading the latest manifest).
  uint64_t seen = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    seen = manifest_.version;
  }
  LANCE_ASSIGN_OR_RAISE(bool newer, manifests_.VersionExists(seen + 1));
  return newer ? CheckFenced(position) : Status::OK();
}

Result<uint64_t> ShardWriter::PlaceSentinel(uint64_t tail) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, EncodeFenceSentinel(epoch_));
  uint64_t pos = tail;
  for (int conflicts = 0; conflicts < 1024; ++conflicts) {
    LANCE_ASSIGN_OR_RAISE(PutResult put, PutAt(*store_, WalEntryPath(root_, shard_, pos), *bytes,
                                               options_, &stats_.io_retries));
    if (put == PutResult::kWritten) return pos;
    // The previous writer (still running) published at the tip first: its entry is below our
    // sentinel and will be replayed. Unless a newer claim beat us, move up.
    LANCE_RETURN_NOT_OK(CheckFenced(pos));
    LANCE_ASSIGN_OR_RAISE(pos, reader_.FindTail(pos));
  }
  return Status::IOError("shard {}: no free WAL position for the fence sentinel after 1024 "
                         "collisions",
                         shard_.ToString());
}

Status ShardWriter::Recover() {
  LANCE_ASSIGN_OR_RAISE(ShardManifest claimed,
                        manifests_.Claim(options_.shard_spec_id, options_.shard_field_values));
  epoch_ = claimed.writer_epoch;
  manifest_ = claimed;
  const uint64_t replay_after = claimed.replay_after_wal_entry_position;
  const uint64_t hint = std::max(claimed.wal_entry_position_last_seen, replay_after);
  LANCE_ASSIGN_OR_RAISE(uint64_t tail, reader_.FindTail(hint));
  uint64_t end = tail;  // replay [replay_after + 1, end)
  // A sentinel whenever an earlier writer may exist (a re-claim) or the WAL has entries: with
  // an empty WAL and no sentinel, the previous writer's first append would land at position 1
  // unfenced, acknowledged, and never be replayed.
  if ((epoch_ > 1 || tail > 1) && options_.write_fence_sentinel) {
    LANCE_ASSIGN_OR_RAISE(sentinel_position_, PlaceSentinel(tail));
    end = sentinel_position_;
    next_position_ = sentinel_position_ + 1;
    // The sentinel's position is not recorded in a manifest update of its own (lance 12 does,
    // at the cost of two more fsyncs per claim): wal_entry_position_last_seen is a best-effort
    // hint (the spec), a reader's or next writer's FindTail probes past it, and the first
    // flush records the WAL tip.
  } else {
    next_position_ = tail;
  }
  last_durable_ = next_position_ - 1;
  if (!options_.replay) return Status::OK();
  return reader_.Scan(replay_after + 1, end, [&](WalEntry&& e) -> Status {
    if (e.writer_epoch > epoch_) {
      return Status::Fenced("shard {}: WAL entry {} has epoch {}, newer than this writer's {}",
                            shard_.ToString(), e.position, e.writer_epoch, epoch_);
    }
    if (!e.fence_sentinel && !e.batches.empty()) recovered_.push_back(std::move(e));
    return Status::OK();
  });
}

ShardManifest ShardWriter::manifest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return manifest_;
}

uint64_t ShardWriter::last_durable_position() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_durable_;
}

Status ShardWriter::health() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return poison_;
}

ShardWriterStats ShardWriter::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void ShardWriter::Poison(const Status& st) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (poison_.ok()) poison_ = st;
}

Status ShardWriter::Append(const RecordBatch& batch, bool tombstone, Callback on_durable) {
  if (batch.num_rows() == 0) {
    return Status::InvalidArgument("ShardWriter::Append: empty batch (a WAL entry holds rows)");
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr wal_batch, MakeWalBatch(wal_schema_, batch, tombstone));
  return AppendWalBatch(std::move(wal_batch), std::move(on_durable));
}

Status ShardWriter::AppendWalBatch(RecordBatchPtr wal_batch, Callback on_durable) {
  if (!wal_batch || wal_batch->num_rows() == 0) {
    return Status::InvalidArgument("ShardWriter::Append: empty batch (a WAL entry holds rows)");
  }
  if (!wal_batch->schema()->Equals(*wal_schema_)) {
    return Status::InvalidArgument("ShardWriter::AppendWalBatch: the batch's schema is not the "
                                   "shard's WAL schema (make it with MakeWalBatch)");
  }
  Pending p;
  for (const auto& c : wal_batch->columns()) p.bytes += ArrayBytes(*c);
  p.batch = std::move(wal_batch);
  p.done = std::move(on_durable);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_) return Status::Cancelled("shard {}: the writer is closed", shard_.ToString());
    if (!poison_.ok()) return poison_;
    queue_.push_back(std::move(p));
  }
  wake_.notify_one();
  return Status::OK();
}

std::future<Result<WalAck>> ShardWriter::Append(const RecordBatch& batch, bool tombstone) {
  auto promise = std::make_shared<std::promise<Result<WalAck>>>();
  std::future<Result<WalAck>> future = promise->get_future();
  Status st = Append(batch, tombstone,
                     [promise](const Result<WalAck>& r) { promise->set_value(r); });
  if (!st.ok()) promise->set_value(st);
  return future;
}

Result<WalAck> ShardWriter::AppendAndWait(const RecordBatch& batch, bool tombstone) {
  return Append(batch, tombstone).get();
}

Result<uint64_t> ShardWriter::WriteEntry(const BufferPtr& bytes) {
  const uint64_t pos = next_position_;
  int64_t retries = 0;
  auto put = PutAt(*store_, WalEntryPath(root_, shard_, pos), *bytes, options_, &retries);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.io_retries += retries;
  }
  LANCE_RETURN_NOT_OK(put.status());
  if (*put == PutResult::kWritten) {
    next_position_ = pos + 1;
    // A position garbage collection removed takes a stalled writer's entry without a
    // collision; only a newer claim can have made that possible, and this check sees it.
    if (options_.recheck_epoch_after_write) LANCE_RETURN_NOT_OK(RecheckEpoch(pos));
    return pos;
  }
  LANCE_RETURN_NOT_OK(CheckFenced(pos));
  LANCE_ASSIGN_OR_RAISE(std::optional<WalEntry> other, reader_.Read(pos));
  return Status::Corruption("shard {}: WAL position {} is taken by an entry of epoch {} although "
                            "this writer (epoch {}) still holds the shard",
                            shard_.ToString(), pos, other ? other->writer_epoch : 0, epoch_);
}

void ShardWriter::FlusherLoop() {
  while (true) {
    std::vector<Pending> group;
    Status poison;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closing, nothing left
      int64_t bytes = 0;
      while (!queue_.empty() &&
             (group.empty() ||
              (static_cast<int64_t>(group.size()) < options_.max_entry_batches &&
               bytes + queue_.front().bytes <= options_.max_entry_bytes))) {
        bytes += queue_.front().bytes;
        group.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      poison = poison_;
    }
    Result<WalAck> outcome = poison;
    if (poison.ok()) {
      std::vector<RecordBatchPtr> batches;
      int64_t rows = 0;
      for (const Pending& p : group) {
        batches.push_back(p.batch);
        rows += p.batch->num_rows();
      }
      auto encoded = EncodeWalEntry(wal_schema_, batches, epoch_);
      if (!encoded.ok()) {
        outcome = encoded.status();
      } else {
        auto pos = WriteEntry(*encoded);
        if (!pos.ok()) {
          Poison(pos.status());
          outcome = pos.status();
        } else {
          std::lock_guard<std::mutex> lock(mutex_);
          ++stats_.entries;
          stats_.batches += static_cast<int64_t>(group.size());
          stats_.rows += rows;
          stats_.bytes += (*encoded)->size();
          last_durable_ = *pos;
          outcome = WalAck{*pos, rows, static_cast<int64_t>(group.size())};
        }
      }
    }
    for (Pending& p : group) {
      if (p.done) p.done(outcome);
    }
  }
}

Result<ShardManifest> ShardWriter::UpdateManifest(
    const std::function<Status(ShardManifest*)>& mutate) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!poison_.ok()) return poison_;
  }
  auto updated = manifests_.CommitUpdate(epoch_, mutate);
  if (!updated.ok()) {
    if (updated.status().IsFenced()) Poison(updated.status());
    return updated.status();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  manifest_ = *updated;
  return updated;
}

Status ShardWriter::Close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return poison_;
    closing_ = true;
  }
  wake_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  return poison_;
}

Result<std::vector<WalEntry>> ReadUnflushedTail(const std::shared_ptr<io::ObjectStore>& store,
                                                const std::string& root, const Uuid& shard,
                                                const std::optional<ShardManifest>& manifest) {
  std::vector<WalEntry> out;
  if (!manifest) return out;
  WalReader reader(store, root, shard);
  LANCE_RETURN_NOT_OK(
      reader.Scan(manifest->replay_after_wal_entry_position + 1, 0, [&](WalEntry&& e) {
        if (!e.fence_sentinel && !e.batches.empty()) out.push_back(std::move(e));
        return Status::OK();
      }));
  return out;
}

}  // namespace lance::memwal
