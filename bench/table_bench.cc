// Table operations through the library API, on the peer-bench data; bench/table_peer.mjs
// times the same operations with the reference and bench/run_table_bench.sh prints both.
//
// Registered only when the environment names the inputs:
//   LANCE_TABLE_BENCH_EXPORT=DIR   gen.mjs --export output (base.arrow, workload.json) plus the
//                                  append-<A>.arrow and merge.arrow that table_peer.mjs writes
//   LANCE_TABLE_BENCH_DIR=DIR      our scratch directory (base table and copies live there)
//   LANCE_TABLE_BENCH_APPEND=A     rows of the append input (default 100000)
//
// BM_TableCreate writes DIR/base (removed first); every other benchmark reads it, so run
// BM_TableCreate in an earlier lance_bench invocation (registration order across files is not
// fixed). The filtered scan and count are bench/table_filter_bench.cc's
// (LANCE_TABLE=DIR/base).
//   BM_TableCreate       WriteDataset(create) of all base rows
//   BM_TableScanAll      query::Scanner of every column, its stream drained batch by batch
//   BM_TableScanId       the same with columns {id}
//   BM_TableTake         Scanner::Take(set) of one of the workload's 1000-offset sets (cycles
//                        them), every column
//   BM_TableAppend       WriteDataset(append) of the append rows        } each on a fresh copy
//   BM_TableDelete       Dataset::Delete("id % 100 = 7")                } of the base table
//   BM_TableUpdate       Dataset::Update(score = score + 1, same filter)} (untimed)
//   BM_TableMergeInsert  MergeInsert(on id, update all, insert)         }
//   ...NoSync            create and each mutation again with commits not flushed (not durable)
//   BM_TableOpenLatest   Snapshot::Open + CountRows() of a copy with 21 versions; counters
//                        gets/heads/lists = objects read by one open
// Mutations report rows_after (CountRows of the new version), checked against the reference.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "lance/core/thread_pool.h"
#include "lance/dataset/dataset.h"
#include "lance/io/object_store.h"
#include "lance/ipc/reader.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "process_cpu.h"
#include "copy_table.h"
#include "lance/table/write.h"

namespace lance::table {
namespace {

namespace fs = std::filesystem;
constexpr const char* kDeleteFilter = "id % 100 = 7";

struct Inputs {
  std::string export_dir;
  std::string dir;
  int64_t append_rows = 100000;
};
Inputs g_in;

struct Data {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
};

Result<Data> ReadArrow(const std::string& path) {
  LANCE_ASSIGN_OR_RAISE(auto where, io::ObjectStore::FromUri(path));
  LANCE_ASSIGN_OR_RAISE(auto bytes, where.store->Get(where.path));
  LANCE_ASSIGN_OR_RAISE(auto reader, ipc::FileReader::Open(bytes));
  Data d;
  d.schema = reader->schema();
  LANCE_ASSIGN_OR_RAISE(d.batches, reader->ReadAll());
  return d;
}

// Loaded once, outside every timer.
const Data* Cached(const std::string& name) {
  static std::map<std::string, Data> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return &it->second;
  auto d = ReadArrow(g_in.export_dir + "/" + name);
  if (!d.ok()) {
    fprintf(stderr, "table_bench: %s: %s\n", name.c_str(), d.status().ToString().c_str());
    return nullptr;
  }
  return &cache.emplace(name, std::move(*d)).first->second;
}

std::string BasePath() { return g_in.dir + "/base"; }

using lance::bench::CopyTable;

std::vector<std::vector<uint64_t>> TakeSets() {
  // workload.json: {"rows":..,"seed":..,"opts":{..},"takeOffsets":[[..],..],...}
  std::ifstream in(g_in.export_dir + "/workload.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  std::vector<std::vector<uint64_t>> sets;
  size_t p = s.find("\"takeOffsets\":[");
  if (p == std::string::npos) return sets;
  p += 15;
  while (p < s.size() && s[p] == '[') {
    ++p;
    std::vector<uint64_t> set;
    while (p < s.size() && s[p] != ']') {
      char* end = nullptr;
      set.push_back(strtoull(s.c_str() + p, &end, 10));
      p = static_cast<size_t>(end - s.c_str());
      if (s[p] == ',') ++p;
    }
    sets.push_back(std::move(set));
    ++p;                          // ']'
    if (s[p] == ',') ++p;
  }
  return sets;
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU seconds of the whole process (every thread: the scan pool included), user + system.
using lance::bench::ProcessCpuSeconds;

// Wall time of one timed section goes to SetIterationTime; its process CPU time is averaged
// over the iterations into the counter cpu_ms (reported next to the wall time because the
// shared machine makes wall time mostly a wait for a core).
class Timer {
 public:
  void Start() {
    cpu0_ = ProcessCpuSeconds();
    t0_ = std::chrono::steady_clock::now();
  }
  void Stop(benchmark::State& state) {
    state.SetIterationTime(Seconds(t0_));
    cpu_ += ProcessCpuSeconds() - cpu0_;
  }
  void Report(benchmark::State& state) const {
    state.counters["cpu_ms"] = benchmark::Counter(cpu_ * 1e3, benchmark::Counter::kAvgIterations);
  }

 private:
  double cpu0_ = 0;
  double cpu_ = 0;
  std::chrono::steady_clock::time_point t0_;
};

// BM_TableCreate leaves DIR/base; BM_TableCreateNoSync (CommitOptions::sync = false) writes
// DIR/base-nosync, removed afterwards.
void TableCreate(benchmark::State& state, bool sync) {
  const Data* base = Cached("base.arrow");
  if (!base) return state.SkipWithError("base.arrow");
  const std::string path = sync ? BasePath() : g_in.dir + "/base-nosync";
  WriteParams p;
  p.pool = ThreadPool::Default();  // as before the pool became a parameter
  p.commit.sync = sync;
  Timer timer;
  for (auto _ : state) {
    fs::remove_all(path);
    timer.Start();
    auto r = WriteDataset(path, base->schema, base->batches, p);
    timer.Stop(state);
    if (!r.ok()) return state.SkipWithError(r.status().ToString().c_str());
    state.counters["rows"] = static_cast<double>(r->rows_written);
    state.counters["fragments"] = static_cast<double>(r->fragment_ids.size());
  }
  timer.Report(state);
  if (!sync) fs::remove_all(path);
}
void BM_TableCreate(benchmark::State& state) { TableCreate(state, true); }
void BM_TableCreateNoSync(benchmark::State& state) { TableCreate(state, false); }

template <typename Fn>
void ReadBench(benchmark::State& state, Fn fn) {
  auto ds = Snapshot::Open(BasePath());
  if (!ds.ok()) return state.SkipWithError(ds.status().ToString().c_str());
  const std::shared_ptr<const Snapshot> snapshot = *ds;
  Timer timer;
  for (auto _ : state) {
    timer.Start();
    Status st = fn(snapshot, state);
    timer.Stop(state);
    if (!st.ok()) return state.SkipWithError(st.ToString().c_str());
  }
  timer.Report(state);
}

// Bytes of the Arrow buffers of `a` (children and dictionary included): what a scan decoded.
int64_t ArrayBytes(const Array& a) {
  int64_t n = 0;
  for (const auto& b : a.buffers) n += b ? b->size() : 0;
  for (const auto& c : a.children) n += c ? ArrayBytes(*c) : 0;
  if (a.dictionary) n += ArrayBytes(*a.dictionary);
  return n;
}

// Rows and decoded bytes of a reader, each batch dropped once counted (as a streaming
// consumer does).
Result<std::pair<int64_t, int64_t>> Drain(RecordBatchReader* reader) {
  int64_t n = 0, bytes = 0;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(auto b, reader->Next());
    if (!b) return std::make_pair(n, bytes);
    n += b->num_rows();
    for (const auto& c : b->columns()) bytes += ArrayBytes(*c);
  }
}

Status CountScan(const std::shared_ptr<const Snapshot>& ds, benchmark::State& state,
                 query::ScanOptions o) {
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(ds, std::move(o)));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  LANCE_ASSIGN_OR_RAISE(auto counted, Drain(reader.get()));
  state.counters["rows"] = static_cast<double>(counted.first);
  state.counters["bytes"] = static_cast<double>(counted.second);
  return Status::OK();
}

// This machine's memcpy bandwidth, the yardstick for the full scan's decoded bytes per second
// (issue 16: the scan should reach half of it): 256 MiB copied between buffers far larger
// than the caches, on one thread (arg 1) or split over the default pool's workers (arg 0).
void BM_Memcpy(benchmark::State& state) {
  constexpr size_t kBytes = size_t{256} << 20;
  std::vector<char> src(kBytes, 1), dst(kBytes, 0);
  ThreadPool* pool = ThreadPool::Default();
  const int parts = state.range(0) == 1 ? 1 : std::max(1, pool->num_threads());
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    if (parts == 1) {
      std::memcpy(dst.data(), src.data(), kBytes);
    } else {
      ParallelFor(pool, parts, [&](int64_t i) {
        const size_t each = kBytes / static_cast<size_t>(parts);
        std::memcpy(dst.data() + static_cast<size_t>(i) * each, src.data() + static_cast<size_t>(i) * each, each);
      });
    }
    benchmark::DoNotOptimize(dst.data());
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  state.counters["bytes"] = static_cast<double>(kBytes);
  state.counters["threads"] = parts;
}

void BM_TableScanAll(benchmark::State& state) {
  ReadBench(state, [](const std::shared_ptr<const Snapshot>& ds, benchmark::State& st) {
    return CountScan(ds, st, {});
  });
}

void BM_TableScanId(benchmark::State& state) {
  ReadBench(state, [](const std::shared_ptr<const Snapshot>& ds, benchmark::State& st) {
    query::ScanOptions o;
    o.columns = {"id"};
    return CountScan(ds, st, o);
  });
}

void BM_TableTake(benchmark::State& state) {
  static const auto sets = TakeSets();
  if (sets.empty()) return state.SkipWithError("workload.json: no takeOffsets");
  // Check one set's rows before timing: ids equal offsets (id = row offset), request order.
  {
    auto ds = Snapshot::Open(BasePath());
    if (!ds.ok()) return state.SkipWithError(ds.status().ToString().c_str());
    query::ScanOptions o;
    o.columns = {"id"};
    auto scanner = query::Scanner::Make(*ds, o);
    if (!scanner.ok()) return state.SkipWithError(scanner.status().ToString().c_str());
    auto reader = scanner->Take(sets[0]);
    if (!reader.ok()) return state.SkipWithError(reader.status().ToString().c_str());
    auto r = (*reader)->ReadAll();
    if (!r.ok()) return state.SkipWithError(r.status().ToString().c_str());
    size_t i = 0;
    for (const auto& b : *r) {
      const int64_t* ids = b->column(0)->Values<int64_t>();
      for (int64_t k = 0; k < b->num_rows(); ++k, ++i) {
        if (i >= sets[0].size() || static_cast<uint64_t>(ids[k]) != sets[0][i]) {
          return state.SkipWithError("take: wrong rows");
        }
      }
    }
    if (i != sets[0].size()) return state.SkipWithError("take: wrong row count");
  }
  size_t next = 0;
  ReadBench(state, [&](const std::shared_ptr<const Snapshot>& ds, benchmark::State&) -> Status {
    LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(ds));
    LANCE_ASSIGN_OR_RAISE(auto reader, scanner.Take(sets[next++ % sets.size()]));
    LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
    benchmark::DoNotOptimize(batches.data());
    return Status::OK();
  });
}

// One mutation per iteration on a fresh copy of the base table (the copy is untimed).
template <typename Fn>
void MutationBench(benchmark::State& state, Fn fn) {
  const std::string copy = g_in.dir + "/mut";
  Timer timer;
  for (auto _ : state) {
    CopyTable(BasePath(), copy);
    timer.Start();
    Status st = fn(copy, state);
    timer.Stop(state);
    if (!st.ok()) return state.SkipWithError(st.ToString().c_str());
    auto ds = Snapshot::Open(copy);
    if (!ds.ok()) return state.SkipWithError(ds.status().ToString().c_str());
    state.counters["rows_after"] = static_cast<double>((*ds)->CountRows());
    state.counters["version_after"] = static_cast<double>((*ds)->version());
  }
  timer.Report(state);
}

std::string AppendName() { return "append-" + std::to_string(g_in.append_rows) + ".arrow"; }

// Mutations run twice: durable (the default: every commit flushed before it returns) and with
// sync off (CommitOptions::sync = false, NOT durable: lance 12's guarantee on local datasets,
// which flushes nothing), registered as BM_Table<Op> and BM_Table<Op>NoSync.
dataset::OpenOptions HandleOptions(bool sync) {
  dataset::OpenOptions o;
  o.sync_commits = sync;
  return o;
}

void TableAppend(benchmark::State& state, bool sync) {
  const Data* in = Cached(AppendName());
  if (!in) return state.SkipWithError("append input (run table_peer.mjs first)");
  MutationBench(state, [&](const std::string& uri, benchmark::State&) -> Status {
    WriteParams p;
    p.pool = ThreadPool::Default();  // as before the pool became a parameter
    p.mode = WriteMode::kAppend;
    p.commit.sync = sync;
    return WriteDataset(uri, in->schema, in->batches, p).status();
  });
}
void BM_TableAppend(benchmark::State& state) { TableAppend(state, true); }
void BM_TableAppendNoSync(benchmark::State& state) { TableAppend(state, false); }

void TableDelete(benchmark::State& state, bool sync) {
  MutationBench(state, [&](const std::string& uri, benchmark::State& st) -> Status {
    LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(uri, HandleOptions(sync)));
    LANCE_ASSIGN_OR_RAISE(auto r, ds->Delete(kDeleteFilter));
    st.counters["deleted"] = static_cast<double>(r.num_deleted_rows);
    return Status::OK();
  });
}
void BM_TableDelete(benchmark::State& state) { TableDelete(state, true); }
void BM_TableDeleteNoSync(benchmark::State& state) { TableDelete(state, false); }

// UPDATE score = score + 1 WHERE id % 100 = 7 (1 % of the rows, as table_peer.mjs).
void TableUpdate(benchmark::State& state, bool sync) {
  MutationBench(state, [&](const std::string& uri, benchmark::State& st) -> Status {
    LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(uri, HandleOptions(sync)));
    LANCE_ASSIGN_OR_RAISE(auto r, ds->Update({{"score", "score + 1"}}, kDeleteFilter));
    st.counters["updated"] = static_cast<double>(r.rows_updated);
    return Status::OK();
  });
}
void BM_TableUpdate(benchmark::State& state) { TableUpdate(state, true); }
void BM_TableUpdateNoSync(benchmark::State& state) { TableUpdate(state, false); }

void TableMergeInsert(benchmark::State& state, bool sync) {
  const Data* in = Cached("merge.arrow");
  if (!in) return state.SkipWithError("merge.arrow (run table_peer.mjs first)");
  MutationBench(state, [&](const std::string& uri, benchmark::State& st) -> Status {
    dataset::MergeInsertParams p;
    p.on = {"id"};
    LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(uri, HandleOptions(sync)));
    VectorRecordBatchReader input(in->schema, in->batches);
    LANCE_ASSIGN_OR_RAISE(auto r, ds->MergeInsert(input, p));
    st.counters["updated"] = static_cast<double>(r.rows_updated);
    st.counters["inserted"] = static_cast<double>(r.rows_inserted);
    return Status::OK();
  });
}
void BM_TableMergeInsert(benchmark::State& state) { TableMergeInsert(state, true); }
void BM_TableMergeInsertNoSync(benchmark::State& state) { TableMergeInsert(state, false); }

void BM_TableOpenLatest(benchmark::State& state) {
  const std::string uri = g_in.dir + "/versions";
  static bool ready = false;
  if (!ready) {
    const Data* in = Cached(AppendName());
    if (!in) return state.SkipWithError("append input (run table_peer.mjs first)");
    CopyTable(BasePath(), uri);
    WriteParams p;
    p.pool = ThreadPool::Default();  // as before the pool became a parameter
    p.mode = WriteMode::kAppend;
    const std::vector<RecordBatchPtr> small = {in->batches[0]->Slice(0, 10)};
    for (int i = 0; i < 20; ++i) {
      auto r = WriteDataset(uri, in->schema, small, p);
      if (!r.ok()) return state.SkipWithError(r.status().ToString().c_str());
    }
    ready = true;
  }
  Timer timer;
  for (auto _ : state) {
    timer.Start();
    auto ds = Snapshot::Open(uri);
    if (!ds.ok()) return state.SkipWithError(ds.status().ToString().c_str());
    benchmark::DoNotOptimize((*ds)->CountRows());
    timer.Stop(state);
    state.counters["version"] = static_cast<double>((*ds)->version());
    state.counters["gets"] = (*ds)->open_stats().gets;
    state.counters["heads"] = (*ds)->open_stats().heads;
    state.counters["lists"] = (*ds)->open_stats().lists;
  }
  timer.Report(state);
}

[[maybe_unused]] const bool kRegistered = [] {
  const char* exp = getenv("LANCE_TABLE_BENCH_EXPORT");
  const char* dir = getenv("LANCE_TABLE_BENCH_DIR");
  if (!exp || !dir) return false;
  g_in.export_dir = exp;
  g_in.dir = dir;
  if (const char* a = getenv("LANCE_TABLE_BENCH_APPEND")) g_in.append_rows = atoll(a);
  auto reg = [](const char* name, void (*fn)(benchmark::State&), int iterations) {
    benchmark::RegisterBenchmark(name, fn)
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->Iterations(iterations);
  };
  reg("BM_TableCreate", BM_TableCreate, 1);
  reg("BM_TableCreateNoSync", BM_TableCreateNoSync, 1);
  reg("BM_TableScanAll", BM_TableScanAll, 1);
  reg("BM_TableScanId", BM_TableScanId, 3);
  reg("BM_TableTake", BM_TableTake, 10);
  reg("BM_TableAppend", BM_TableAppend, 1);
  reg("BM_TableAppendNoSync", BM_TableAppendNoSync, 1);
  reg("BM_TableDelete", BM_TableDelete, 1);
  reg("BM_TableDeleteNoSync", BM_TableDeleteNoSync, 1);
  reg("BM_TableUpdate", BM_TableUpdate, 1);
  reg("BM_TableUpdateNoSync", BM_TableUpdateNoSync, 1);
  reg("BM_TableMergeInsert", BM_TableMergeInsert, 1);
  reg("BM_TableMergeInsertNoSync", BM_TableMergeInsertNoSync, 1);
  reg("BM_TableOpenLatest", BM_TableOpenLatest, 10);
  benchmark::RegisterBenchmark("BM_Memcpy", BM_Memcpy)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)
      ->UseManualTime()->Iterations(5);
  return true;
}();

}  // namespace
}  // namespace lance::table
