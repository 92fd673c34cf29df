// `lance lsm write`: a long-running streaming ingest. Input batches are taken as they arrive
// (stdin or a FIFO: Arrow IPC stream message by message, JSON lines / CSV as soon as whole
// records have come; a file: in pieces), cut to --batch-rows, routed to their shards, appended
// to each shard's WAL (group commit), and acknowledged: after every durable acknowledgement the
// cumulative rows of the longest fully durable prefix of the input are printed on stdout as
// {"acked_rows": N}, at once, while the next input is still being read. Memory stays bounded
// on an endless stream: one input piece, --max-in-flight appends, the MemTables (flushed at the
// policy's limits, appends waiting while a full one is still flushing). Without --flush the
// rows stay durable in the WAL, unflushed, like a reference writer that exits without closing.
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
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
  bool claim_all = false;
  bool progress = false;
  FlushPolicy policy;
};

// Latencies in bounded memory: 16 buckets per doubling of microseconds (quantiles within
// ~4.5 %), from 1 us to about 18 minutes.
class LatencyHistogram {
 public:
  void Add(std::chrono::steady_clock::duration d) {
    const double us = std::max(1.0, std::chrono::duration<double, std::micro>(d).count());
    const size_t b = std::min(counts_.size() - 1, static_cast<size_t>(std::log2(us) * kPerDoubling));
    ++counts_[b];
    ++n_;
  }
  // The q-quantile in milliseconds (the middle of its bucket); 0 when empty.
  double QuantileMs(double q) const {
    const int64_t rank = std::min<int64_t>(n_ - 1, static_cast<int64_t>(q * static_cast<double>(n_)));
    int64_t seen = 0;
    for (size_t b = 0; b < counts_.size(); ++b) {
      seen += counts_[b];
      if (seen > rank) return std::exp2((static_cast<double>(b) + 0.5) / kPerDoubling) / 1000.0;
    }
    return 0;
  }
  int64_t count() const { return n_; }

 private:
  static constexpr int kPerDoubling = 16;
  std::array<int64_t, 30 * kPerDoubling> counts_{};
  int64_t n_ = 0;
};

// Acknowledgements in input order: after each durable acknowledgement, the rows of the longest
// fully acknowledged prefix of the input (what must survive a crash from then on). Holds only
// the batches not yet in that prefix. Times each input batch from its first append to its last
// piece durable (what the caller of a one-batch write would wait).
class AckPrinter {
 public:
  // Registers the next input batch (numbered from 0): `rows` rows in `pieces` shard appends.
  uint64_t Expect(int64_t rows, int pieces) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back({pieces, rows, std::chrono::steady_clock::now()});
    return first_ + pending_.size() - 1;
  }
  void Done(uint64_t batch, const Status& st) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!st.ok()) {
      if (error_.ok()) error_ = st;
      return;
    }
    Pending& p = pending_[batch - first_];
    if (--p.pieces > 0) return;
    latency_.Add(std::chrono::steady_clock::now() - p.submitted);
    bool advanced = false;
    while (!pending_.empty() && pending_.front().pieces == 0) {
      acked_ += pending_.front().rows;
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
  LatencyHistogram latency() {
    std::lock_guard<std::mutex> lock(mu_);
    return latency_;
  }

 private:
  struct Pending {
    int pieces;  // appends not yet durable
    int64_t rows;
    std::chrono::steady_clock::time_point submitted;
  };
  std::mutex mu_;
  std::deque<Pending> pending_;  // from batch first_ on
  LatencyHistogram latency_;
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
    std::vector<mw::ShardTarget> fresh;
    for (const mw::ShardSlice& slice : slices) {
      if (!writers_.count(slice.shard.shard_id)) fresh.push_back(slice.shard);
    }
    LANCE_RETURN_NOT_OK(Claim(fresh));
    const uint64_t id = acks_.Expect(batch->num_rows(), static_cast<int>(slices.size()));
    for (mw::ShardSlice& slice : slices) {
      mw::MemWalWriter* w = writers_.at(slice.shard.shard_id).get();
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
  LatencyHistogram latency() { return acks_.latency(); }
  // The most all MemTables held at once (--max-bytes' budget); 0 without one.
  int64_t memtable_peak_bytes() const { return wo_.budget ? wo_.budget->peak_bytes() : 0; }
  size_t shards() const { return writers_.size(); }
  int64_t flushes() const {
    int64_t n = 0;
    for (const auto& [id, w] : writers_) n += w->stats().flushes;
    return n;
  }

  // Every shard of the spec claimed at once (--claim-all).
  Status ClaimAll() {
    LANCE_ASSIGN_OR_RAISE(std::vector<mw::ShardTarget> all, router_.AllShards());
    return Claim(all);
  }

 private:
  // Opens (claims, replays) a writer for each of the shards `fresh` (none open yet), all at
  // once: a claim is a few fsyncs in sequence (manifest, fence sentinel, the WAL and manifest
  // directories of a new shard), and a batch spread over N new shards would wait for N of them
  // one after another. The first error of all.
  Status Claim(const std::vector<mw::ShardTarget>& fresh) {
    if (fresh.empty()) return Status::OK();
    std::vector<Result<std::unique_ptr<mw::MemWalWriter>>> opened;
    opened.reserve(fresh.size());
    for (size_t i = 0; i < fresh.size(); ++i) {
      opened.emplace_back(Status::Internal("lance lsm write: shard writer not opened"));
    }
    auto open = [&](size_t i) {
      mw::MemWalWriterOptions o = wo_;
      o.shard.shard_spec_id = fresh[i].spec_id;
      o.shard.shard_field_values = fresh[i].field_values;
      opened[i] = mw::MemWalWriter::Open(t_.where.store, t_.where.path, fresh[i].shard_id, o);
    };
    std::vector<std::thread> threads;
    for (size_t i = 1; i < fresh.size(); ++i) threads.emplace_back(open, i);
    open(0);
    for (auto& t : threads) t.join();
    Status st;
    for (size_t i = 0; i < fresh.size(); ++i) {
      if (!opened[i].ok()) {
        if (st.ok()) st = opened[i].status();
        continue;
      }
      std::unique_ptr<mw::MemWalWriter>& w = *opened[i];
      std::fprintf(stderr, "lance lsm write: shard %s claimed at epoch %llu (%lld rows recovered from the WAL)\n",
                   fresh[i].shard_id.ToString().c_str(), static_cast<unsigned long long>(w->epoch()),
                   static_cast<long long>(w->recovered_rows()));
      writers_.emplace(fresh[i].shard_id, std::move(w));
    }
    return st;
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
#if defined(__GLIBC__)
  // The process's memory is meant to stay near --max-bytes: with glibc's defaults (an arena per
  // thread, a mmap threshold that grows to 32 MiB once a large block is freed) the MemTables'
  // and flushes' buffers, freed on other threads than they were made, stay in the arenas as
  // free but resident memory (bench/memwal_bound.mjs at a 64 MiB bound: 390 MiB RSS; one
  // arena and a fixed 256 KiB threshold: about 137 MiB (two: 151); bench/README.md "memwal round 2").
  ::mallopt(M_ARENA_MAX, 1);
  ::mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
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
  if (a.claim_all) {
    Status claimed = ingest.ClaimAll();
    if (!claimed.ok()) return ingest.Close(std::move(claimed));
  }
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
  // Each input batch from its first append to its last piece durable (in-process: no pipe).
  const LatencyHistogram lat = ingest.latency();
  j["ack_batches"] = lat.count();
  j["ack_ms_p50"] = lat.QuantileMs(0.5);
  j["ack_ms_p99"] = lat.QuantileMs(0.99);
  j["memtable_peak_bytes"] = ingest.memtable_peak_bytes();
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
an Arrow IPC stream message by message, JSON lines or CSV (typed by the table) as soon as whole lines
have come -- and each acknowledgement line is printed as soon as its rows are durable, while
the writer keeps reading. A caller that has read {"acked_rows": N} knows the input's first N
rows survive a crash of this process (or, without --no-sync, of the machine). Memory stays
bounded on an endless stream: one input piece (--input-batch-bytes), --max-in-flight appends,
and the MemTables, flushed at --max-rows / --max-bytes / --max-age-ms.
  producer | lance lsm write t.lance --input - --max-age-ms 5000 --progress
  lance lsm write t.lance --input rows.arrows --flush)");
  write->add_option("uri", a->uri, "Table URI")->required();
  write->add_option("--input", a->input,
                    "Rows: Arrow IPC stream/file, JSON lines or CSV (typed by the table); - for stdin")
      ->required();
  write->add_option("--schema", a->schema, "Schema JSON of JSON-lines input (default: the table's)");
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
  write->add_flag("--claim-all", a->claim_all,
                  "Claim every shard of the sharding spec at the start, all at once (bucket or "
                  "unsharded; else each shard is claimed when it first gets rows), for a process "
                  "that takes all of the table's writes: a writer of another shard is fenced");
  write->add_option("--max-rows", a->policy.max_rows, "Flush a MemTable at this many rows (0: never)");
  write->add_option("--max-bytes", a->policy.max_bytes,
                    "Bound the MemTables of all shards together to about this many bytes: when the "
                    "active ones hold half of it, each flushes (0: no bound)");
  write->add_option("--max-age-ms", a->policy.max_age_ms, "Flush a MemTable this old (0: never)");
  AddProgressFlag(write, &a->progress);
  registry.OnRun(write, [a] { return Write(*a); });
}

}  // namespace lance::cli::lsm
