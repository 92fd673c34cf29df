// `lance lsm write`: a long-running streaming ingest. Input batches are taken as they arrive
// (stdin or a FIFO: Arrow IPC stream message by message, JSON lines / CSV as soon as whole
// records have come; a file: in pieces), cut to --batch-rows, routed to their shards, appended
// to each shard's WAL (group commit), and acknowledged: after every durable acknowledgement the
// cumulative rows of the longest fully durable prefix of the input are printed on stdout as
// {"acked_rows": N}, at once, while the next input is still being read. Memory stays bounded
// on an endless stream: one input piece, --max-in-flight appends, the MemTables (flushed at the
// policy's limits, appends waiting while a full one is still flushing). Without --flush the
// rows stay durable in the WAL, unflushed, like a reference writer that exits without closing.
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/input_files.h"
#include "cli/lsm_common.h"
#include "cli/progress.h"
#include "lance/io/local_object_store.h"

namespace lance::cli::lsm {

namespace {

namespace mw = lance::memwal;

struct WriteArgs {
  std::string uri;
  std::string input;
  std::string schema;
  std::string primary_key;
  bool tombstone = false;
  int64_t max_in_flight = 64;
  int64_t batch_rows = 0;
  int64_t input_batch_bytes = int64_t{1} << 20;
  bool flush = false;
  bool no_sync = false;
  bool progress = false;
  FlushPolicy policy;
};

// Acknowledgements in input order: after each durable acknowledgement, the rows of the longest
// fully acknowledged prefix of the input (what must survive a crash from then on). Holds only
// the batches not yet in that prefix.
class AckPrinter {
 public:
  // Registers the next input batch (numbered from 0): `rows` rows in `pieces` shard appends.
  uint64_t Expect(int64_t rows, int pieces) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back({pieces, rows});
    return first_ + pending_.size() - 1;
  }
  void Done(uint64_t batch, const Status& st) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!st.ok()) {
      if (error_.ok()) error_ = st;
      return;
    }
    if (--pending_[batch - first_].first > 0) return;
    bool advanced = false;
    while (!pending_.empty() && pending_.front().first == 0) {
      acked_ += pending_.front().second;
      pending_.pop_front();
      ++first_;
      advanced = true;
    }
    if (advanced) {
      std::printf("{\"acked_rows\": %lld}\n", static_cast<long long>(acked_));
      std::fflush(stdout);
    }
  }
  Status error() {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }
  int64_t acked() {
    std::lock_guard<std::mutex> lock(mu_);
    return acked_;
  }

 private:
  std::mutex mu_;
  std::deque<std::pair<int, int64_t>> pending_;  // from batch first_ on: appends left, rows
  uint64_t first_ = 0;
  int64_t acked_ = 0;
  Status error_;
};

// The input as batches: streamed (InputRows), or, for what cannot be (a URI, an IPC file on a
// pipe), read whole first.
class InputBatches {
 public:
  static Result<InputBatches> Open(const WriteArgs& a, const SchemaPtr& table_schema) {
    InputBatches in;
    LANCE_ASSIGN_OR_RAISE(in.stream_, OpenInputRows(a.input, a.schema, "", table_schema,
                                                    a.input_batch_bytes, /*live=*/true));
    if (!in.stream_) {
      SchemaPtr schema;
      LANCE_RETURN_NOT_OK(ReadInputRows(a.input, a.schema, "", &schema, &in.whole_, table_schema));
    }
    return in;
  }
  // The next batch; null at the end.
  Result<RecordBatchPtr> Next() {
    if (stream_) return stream_->Next();
    if (next_ == whole_.size()) return RecordBatchPtr();
    return std::move(whole_[next_++]);
  }
  int64_t bytes_read() const { return stream_ ? stream_->bytes_read() : 0; }

 private:
  std::unique_ptr<InputRows> stream_;
  std::vector<RecordBatchPtr> whole_;
  size_t next_ = 0;
};

class Ingest {
 public:
  Ingest(const WriteArgs& a, Table t, mw::ShardRouter router, mw::MemWalWriterOptions wo)
      : a_(a), t_(std::move(t)), router_(std::move(router)), wo_(std::move(wo)) {}

  // Routes `batch` to its shards and appends each slice (waiting while --max-in-flight
  // appends are not yet durable).
  Status Append(const RecordBatchPtr& batch) {
    LANCE_ASSIGN_OR_RAISE(std::vector<mw::ShardSlice> slices, router_.Split(batch));
    const uint64_t id = acks_.Expect(batch->num_rows(), static_cast<int>(slices.size()));
    for (mw::ShardSlice& slice : slices) {
      LANCE_ASSIGN_OR_RAISE(mw::MemWalWriter * w, WriterOf(slice.shard));
      {
        std::unique_lock<std::mutex> lock(flight_mu_);
        flight_cv_.wait(lock, [&] { return in_flight_ < a_.max_in_flight; });
        ++in_flight_;
      }
      Status st = w->Append(*slice.batch, a_.tombstone, [this, id](const Result<mw::WalAck>& r) {
        acks_.Done(id, r.status());
        std::lock_guard<std::mutex> lock(flight_mu_);
        --in_flight_;
        flight_cv_.notify_all();
      });
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(flight_mu_);
        --in_flight_;
        return st;
      }
    }
    return acks_.error();
  }

  // Every shard writer drained (and flushed with --flush), all at once (each flush waits on
  // its own writes and fsyncs); the first error of all.
  Status Close(Status st) {
    std::vector<Status> closed(writers_.size());
    std::vector<std::thread> threads;
    size_t i = 0;
    for (auto& [id, w] : writers_) {
      threads.emplace_back([&closed, i, w = w.get(), flush = a_.flush] { closed[i] = w->Close(flush); });
      ++i;
    }
    for (auto& t : threads) t.join();
    for (const Status& c : closed) {
      if (st.ok()) st = c;
    }
    if (st.ok()) st = acks_.error();
    return st;
  }

  int64_t acked() { return acks_.acked(); }
  size_t shards() const { return writers_.size(); }
  int64_t flushes() const {
    int64_t n = 0;
    for (const auto& [id, w] : writers_) n += w->stats().flushes;
    return n;
  }

 private:
  Result<mw::MemWalWriter*> WriterOf(const mw::ShardTarget& shard) {
    auto it = writers_.find(shard.shard_id);
    if (it != writers_.end()) return it->second.get();
    mw::MemWalWriterOptions o = wo_;
    o.shard.shard_spec_id = shard.spec_id;
    o.shard.shard_field_values = shard.field_values;
    LANCE_ASSIGN_OR_RAISE(auto w, mw::MemWalWriter::Open(t_.where.store, t_.where.path, shard.shard_id, o));
    std::fprintf(stderr, "lance lsm write: shard %s claimed at epoch %llu (%lld rows recovered from the WAL)\n",
                 shard.shard_id.ToString().c_str(), static_cast<unsigned long long>(w->epoch()),
                 static_cast<long long>(w->recovered_rows()));
    return writers_.emplace(shard.shard_id, std::move(w)).first->second.get();
  }

  const WriteArgs& a_;
  Table t_;
  mw::ShardRouter router_;
  mw::MemWalWriterOptions wo_;
  std::map<mw::Uuid, std::unique_ptr<mw::MemWalWriter>> writers_;
  AckPrinter acks_;
  std::mutex flight_mu_;
  std::condition_variable flight_cv_;
  int64_t in_flight_ = 0;  // guarded by flight_mu_
};

Status Write(const WriteArgs& a) {
  if (a.max_in_flight < 1) return Status::InvalidArgument("--max-in-flight {}: expected at least 1", a.max_in_flight);
  LANCE_ASSIGN_OR_RAISE(Table t, OpenBase(a.uri));
  if (a.no_sync) {
    // The same files through a twin of the local store that never fsyncs.
    auto local = std::dynamic_pointer_cast<io::LocalObjectStore>(t.where.store);
    if (local == nullptr) {
      return Status::InvalidArgument("{}: --no-sync is for a local table (an object store has no "
                                     "fsync to skip)", a.uri);
    }
    t.where.store = io::LocalObjectStore::Unsynced(local);
  }
  LANCE_ASSIGN_OR_RAISE(mw::ShardRouter router, Router(t));
  LANCE_ASSIGN_OR_RAISE(mw::MemWalWriterOptions wo, WriterOptions(t, a.primary_key, a.policy));
  LANCE_ASSIGN_OR_RAISE(InputBatches input, InputBatches::Open(a, t.snapshot->schema()));
  Ingest ingest(a, std::move(t), std::move(router), std::move(wo));
  Progress progress("lance lsm write", a.progress);
  int64_t rows_read = 0;
  auto report = [&](bool force) {
    if (!progress.on()) return;
    progress.Update(fmt::format("{} rows read ({} bytes), {} acknowledged, {} shards, {} flushes", rows_read,
                                input.bytes_read(), ingest.acked(), ingest.shards(), ingest.flushes()),
                    force);
  };
  Status st;
  while (st.ok()) {
    Result<RecordBatchPtr> next = input.Next();
    if (!next.ok()) {
      st = next.status();
      break;
    }
    const RecordBatchPtr& b = *next;
    if (!b) break;
    rows_read += b->num_rows();
    const int64_t step = a.batch_rows > 0 ? a.batch_rows : std::max<int64_t>(b->num_rows(), 1);
    for (int64_t off = 0; off < b->num_rows() && st.ok(); off += step) {
      st = ingest.Append(b->Slice(off, std::min(step, b->num_rows() - off)));
    }
    report(false);
  }
  st = ingest.Close(std::move(st));
  report(true);
  LANCE_RETURN_NOT_OK(st);
  Json j;
  j["acked_rows"] = ingest.acked();
  j["shards"] = ingest.shards();
  j["flushes"] = ingest.flushes();
  j["flushed"] = a.flush;
  std::fprintf(stderr, "%s\n", Dump(j).c_str());
  return Status::OK();
}

}  // namespace

void RegisterLsmWrite(CLI::App* lsm, CommandRegistry& registry) {
  auto a = std::make_shared<WriteArgs>();
  auto* write = lsm->add_subcommand(
      "write", "Stream upserts (or --delete) into the shards: each batch is routed, made durable "
               "in its shard's WAL, then acknowledged with {\"acked_rows\": N} (cumulative) on "
               "stdout; MemTables flush at the limits below and with --flush at the end");
  write->footer(R"(A long-running ingest: from stdin (--input -) or a FIFO the rows are taken as they arrive --
an Arrow IPC stream message by message, JSON lines (with --schema) or CSV as soon as whole lines
have come -- and each acknowledgement line is printed as soon as its rows are durable, while
the writer keeps reading. A caller that has read {"acked_rows": N} knows the input's first N
rows survive a crash of this process (or, without --no-sync, of the machine). Memory stays
bounded on an endless stream: one input piece (--input-batch-bytes), --max-in-flight appends,
and the MemTables, flushed at --max-rows / --max-bytes / --max-age-ms.
  producer | lance lsm write t.lance --input - --schema s.json --max-age-ms 5000 --progress
  lance lsm write t.lance --input rows.arrows --flush)");
  write->add_option("uri", a->uri, "Table URI")->required();
  write->add_option("--input", a->input,
                    "Rows: Arrow IPC stream/file, JSON lines (with --schema) or CSV; - for stdin")
      ->required();
  write->add_option("--schema", a->schema, "Schema JSON of JSON-lines input");
  write->add_option("--primary-key", a->primary_key, "Primary-key columns (default: the table's)");
  write->add_option("--batch-rows", a->batch_rows, "Cut input batches to this many rows");
  write->add_option("--input-batch-bytes", a->input_batch_bytes,
                    "JSON lines / CSV: read at most about this many bytes per batch (default 1 MiB)");
  write->add_option("--max-in-flight", a->max_in_flight,
                    "Appends waiting for durability at once (they share WAL entries: group commit)");
  write->add_flag("--delete", a->tombstone, "Write the input's keys as tombstones (deletes)");
  write->add_flag("--flush", a->flush,
                  "Flush every shard's MemTable at the end (else the rows stay durable in the "
                  "WAL, unflushed, for the next writer / lsm flush / strong reads)");
  write->add_flag("--no-sync", a->no_sync,
                  "NOT DURABLE: acknowledge each batch once its WAL entry is written, without "
                  "fsync (rows survive a crash of this process, not of the machine); for scratch "
                  "data and like-for-like benchmarks");
  write->add_option("--max-rows", a->policy.max_rows, "Flush a MemTable at this many rows (0: never)");
  write->add_option("--max-bytes", a->policy.max_bytes, "Flush a MemTable at this many bytes (0: never)");
  write->add_option("--max-age-ms", a->policy.max_age_ms, "Flush a MemTable this old (0: never)");
  AddProgressFlag(write, &a->progress);
  registry.OnRun(write, [a] { return Write(*a); });
}

}  // namespace lance::cli::lsm
