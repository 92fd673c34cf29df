// Full-text search over a MemWAL table's LSM (lance/query/lsm_text_search.h) and the MemTable's
// in-memory INVERTED postings (lance/memwal/memtable.h), in-process. Registered when
// LANCE_MEMWAL_TEXT_BENCH is set (they build their own table in a temporary directory: 1000
// base rows "base-i" with an INVERTED index on s, maintained by the MemWAL):
//
//   BM_MemTableTextUpsert/{0,1}: durable upserts of 1000-row batches (64 in flight) of texts
//     "x-i w{i%97} w{i%89}" into a writer whose MemTable mirrors the INVERTED index (1) or not (0).
//   BM_LsmTextSearch/{0,1}: a strong match query "w7 54321" (about 2k rows match, k 10) over a live
//     writer holding 100k unflushed rows: through the WAL tail on storage, tokenized per query
//     (0), or through the live MemTable's postings (1).
// Counters: rows (returned or upserted), cpu_ms (the whole process's: bench/process_cpu.h),
// index_mib (the postings' bytes).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "lance/columnar/builder.h"
#include "lance/dataset/dataset.h"
#include "lance/io/object_store.h"
#include "lance/memwal/enable.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/index_details.h"
#include "lance/memwal/memwal_writer.h"
#include "lance/memwal/sharding.h"
#include "lance/query/lsm_text_search.h"
#include "lance/table/commit.h"
#include "lance/table/write.h"
#include "process_cpu.h"

namespace lance::memwal {
namespace {

namespace fs = std::filesystem;

SchemaPtr RowSchema() { return schema({field("id", int64(), false), field("s", utf8())}); }

RecordBatchPtr Rows(int64_t first, int64_t n, bool words) {
  Int64Builder a(int64());
  StringBuilder b(utf8());
  for (int64_t i = first; i < first + n; ++i) {
    (void)a.Append(i);
    (void)b.Append(words ? "x-" + std::to_string(i) + " w" + std::to_string(i % 97) + " w" + std::to_string(i % 89)
                         : "base-" + std::to_string(i));
  }
  return std::make_shared<RecordBatch>(RowSchema(), n, std::vector<ArrayPtr>{*a.Finish(), *b.Finish()});
}

struct Fixture {
  fs::path dir;
  std::shared_ptr<io::ObjectStore> store;
  std::string root;
  MemWalWriterOptions options;
};

Result<Fixture> MakeFixture(const std::string& name) {
  Fixture f;
  f.dir = fs::temp_directory_path() / ("lance_text_bench_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(f.dir);
  fs::create_directories(f.dir);
  const std::string uri = (f.dir / "t.lance").string();
  LANCE_RETURN_NOT_OK(table::WriteDataset(uri, RowSchema(), {Rows(0, 1000, false)}).status());
  LANCE_ASSIGN_OR_RAISE(auto where, io::ObjectStore::FromUri(uri));
  f.store = where.store;
  f.root = where.path;
  EnableOptions eo;
  eo.primary_key = {"id"};
  eo.spec = UnshardedSpec();
  LANCE_RETURN_NOT_OK(EnableMemWal(f.store, f.root, eo).status());
  {
    LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(f.store, f.root));
    index::scalar::CreateScalarIndexOptions fts;
    fts.type = index::scalar::ScalarIndexType::kInverted;
    LANCE_RETURN_NOT_OK(ds->CreateScalarIndex("s", fts).status());
  }
  table::TableLocation loc(f.store, f.root);
  LANCE_ASSIGN_OR_RAISE(auto base, table::Snapshot::Open(loc));
  table::Transaction txn;
  txn.read_version = base->version();
  txn.operation = table::Transaction::Update{};
  table::CommitOptions co;
  co.amend = [](table::Manifest* m) {
    return UpdateMemWalDetails(m, "bench", [](MemWalIndexDetails* d) {
      d->maintained_indexes = {"s_idx"};
      return Status::OK();
    });
  };
  LANCE_RETURN_NOT_OK(table::CommitTransaction(loc, std::move(txn), co).status());
  LANCE_ASSIGN_OR_RAISE(base, table::Snapshot::Open(loc));
  LANCE_ASSIGN_OR_RAISE(MaintainedIndexes maintained, MaintainedIndexesOf(*base));
  f.options.shard.table_schema = *WithPrimaryKey(base->schema(), {"id"});
  f.options.shard.shard_spec_id = 1;
  f.options.primary_key = {"id"};
  f.options.auto_flush = false;
  f.options.generation.maintained_indexes = maintained.built;
  return f;
}

Status Upsert(MemWalWriter& w, int64_t first, int64_t rows, int window) {
  std::vector<std::future<Status>> inflight;
  for (int64_t at = first; at < first + rows; at += 1000) {
    auto p = std::make_shared<std::promise<Status>>();
    inflight.push_back(p->get_future());
    LANCE_RETURN_NOT_OK(w.Append(*Rows(at, 1000, true), false, [p](const Result<WalAck>& r) { p->set_value(r.status()); }));
    if (static_cast<int>(inflight.size()) >= window) {
      LANCE_RETURN_NOT_OK(inflight.front().get());
      inflight.erase(inflight.begin());
    }
  }
  for (auto& f : inflight) LANCE_RETURN_NOT_OK(f.get());
  return Status::OK();
}

void BM_MemTableTextUpsert(benchmark::State& state) {
  auto f = MakeFixture("upsert");
  if (!f.ok()) return state.SkipWithError(f.status().ToString().c_str());
  f->options.memtable_indexes = state.range(0) != 0;
  auto w = MemWalWriter::Open(f->store, f->root, UnshardedShardId(), f->options);
  if (!w.ok()) return state.SkipWithError(w.status().ToString().c_str());
  int64_t next = 0;
  const double cpu0 = bench::ProcessCpuSeconds();
  for (auto _ : state) {
    Status st = Upsert(**w, next, 100000, 64);
    if (!st.ok()) return state.SkipWithError(st.ToString().c_str());
    next += 100000;
  }
  state.counters["cpu_ms"] = benchmark::Counter((bench::ProcessCpuSeconds() - cpu0) * 1e3,
                                                benchmark::Counter::kAvgIterations);
  state.counters["rows_per_s"] = benchmark::Counter(100000, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["index_mib"] = static_cast<double>((*w)->MemTables().back()->index_bytes()) / (1 << 20);
  (void)(*w)->Close(false);
  fs::remove_all(f->dir);
}

void BM_LsmTextSearch(benchmark::State& state) {
  auto f = MakeFixture("search");
  if (!f.ok()) return state.SkipWithError(f.status().ToString().c_str());
  auto w = MemWalWriter::Open(f->store, f->root, UnshardedShardId(), f->options);
  if (!w.ok()) return state.SkipWithError(w.status().ToString().c_str());
  Status st = Upsert(**w, 500, 100000, 64);
  if (!st.ok()) return state.SkipWithError(st.ToString().c_str());
  LsmReadOptions o;
  o.columns = {"id", "s"};
  if (state.range(0) != 0) o.live_writers = {w->get()};
  query::FullTextQuery q = query::FullTextQuery::Match("w7 54321", "s");
  q.k = 10;
  int64_t rows = 0;
  const double cpu0 = bench::ProcessCpuSeconds();
  for (auto _ : state) {
    auto r = query::LsmTextSearch(f->store, f->root, o, q);
    if (!r.ok()) return state.SkipWithError(r.status().ToString().c_str());
    rows = 0;
    for (const auto& b : *r) rows += b->num_rows();
  }
  state.counters["cpu_ms"] = benchmark::Counter((bench::ProcessCpuSeconds() - cpu0) * 1e3,
                                                benchmark::Counter::kAvgIterations);
  state.counters["rows"] = static_cast<double>(rows);
  (void)(*w)->Close(false);
  fs::remove_all(f->dir);
}

[[maybe_unused]] const bool kRegistered = [] {
  if (std::getenv("LANCE_MEMWAL_TEXT_BENCH") == nullptr) return false;
  benchmark::RegisterBenchmark("BM_MemTableTextUpsert", BM_MemTableTextUpsert)->Arg(0)->Arg(1)
      ->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
  benchmark::RegisterBenchmark("BM_LsmTextSearch", BM_LsmTextSearch)->Arg(0)->Arg(1)
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace lance::memwal
