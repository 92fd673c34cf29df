// Filtered scan and filtered count of a Lance table, in process (the reference's figures are
// in process too). bench/run_table_filter_bench.sh runs these next to lance 12.
//
// Registered only when the environment names the table:
//   LANCE_TABLE=/path/to/table.lance                     a dataset directory
//   LANCE_TABLE_FILTER="score > 50 AND category = 'c7'"  optional (this is the default)
// Run e.g. LANCE_TABLE=... lance_bench --benchmark_filter=TableFilter
//
// Each reports cpu_ms, the process CPU time per iteration (pool threads included).
// Benchmarks (each iteration is one full query on an open dataset, like a query on an open
// lancedb table handle):
//   BM_TableFilterScanIds   query::Scanner({columns: id, filter}), its stream drained;
//                           counter hits = rows returned
//   BM_TableFilterCount     Scanner({filter}).CountRows()
//   BM_TableFilterOpenScan  Snapshot::Open + the scan above (a cold handle, warm page cache)
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <string>

#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "process_cpu.h"

namespace lance::table {
namespace {

using lance::bench::ProcessCpuSeconds;

// Reports the process CPU time per iteration as the counter cpu_ms (the shared machine makes
// wall time mostly a wait for a core; the library's work runs on pool threads, which the
// benchmark's own CPU column does not see).
class CpuCounter {
 public:
  explicit CpuCounter(benchmark::State& state) : state_(state), start_(ProcessCpuSeconds()) {}
  ~CpuCounter() {
    state_.counters["cpu_ms"] = benchmark::Counter((ProcessCpuSeconds() - start_) * 1e3,
                                                   benchmark::Counter::kAvgIterations);
  }

 private:
  benchmark::State& state_;
  double start_;
};

std::string Filter() {
  const char* f = getenv("LANCE_TABLE_FILTER");
  return f ? f : "score > 50 AND category = 'c7'";
}

Result<int64_t> ScanIdsOrError(const std::shared_ptr<const Snapshot>& ds) {
  query::ScanOptions o;
  o.columns = {"id"};
  o.filter = Filter();
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(ds, o));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  int64_t hits = 0;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(auto b, reader->Next());
    if (!b) return hits;
    hits += b->num_rows();
  }
}

int64_t ScanIds(const std::shared_ptr<const Snapshot>& ds, benchmark::State& state) {
  auto hits = ScanIdsOrError(ds);
  if (!hits.ok()) {
    state.SkipWithError(hits.status().ToString().c_str());
    return 0;
  }
  return *hits;
}

void BM_TableFilterScanIds(benchmark::State& state, std::string uri) {
  auto ds = Snapshot::Open(uri);
  if (!ds.ok()) return state.SkipWithError(ds.status().ToString().c_str());
  int64_t hits = 0;
  {
    CpuCounter cpu(state);
    for (auto _ : state) benchmark::DoNotOptimize(hits = ScanIds(*ds, state));
  }
  state.counters["hits"] = static_cast<double>(hits);
}

void BM_TableFilterCount(benchmark::State& state, std::string uri) {
  auto ds = Snapshot::Open(uri);
  if (!ds.ok()) return state.SkipWithError(ds.status().ToString().c_str());
  uint64_t count = 0;
  {
    CpuCounter cpu(state);
    for (auto _ : state) {
      query::ScanOptions o;
      o.filter = Filter();
      auto scanner = query::Scanner::Make(*ds, o);
      if (!scanner.ok()) return state.SkipWithError(scanner.status().ToString().c_str());
      auto n = scanner->CountRows();
      if (!n.ok()) return state.SkipWithError(n.status().ToString().c_str());
      benchmark::DoNotOptimize(count = *n);
    }
  }
  state.counters["count"] = static_cast<double>(count);
}

void BM_TableFilterOpenScan(benchmark::State& state, std::string uri) {
  int64_t hits = 0;
  {
    CpuCounter cpu(state);
    for (auto _ : state) {
      auto ds = Snapshot::Open(uri);
      if (!ds.ok()) return state.SkipWithError(ds.status().ToString().c_str());
      benchmark::DoNotOptimize(hits = ScanIds(*ds, state));
    }
  }
  state.counters["hits"] = static_cast<double>(hits);
}

[[maybe_unused]] const bool kRegistered = [] {
  const char* uri = getenv("LANCE_TABLE");
  if (!uri) return false;
  benchmark::RegisterBenchmark("BM_TableFilterScanIds", BM_TableFilterScanIds, std::string(uri))
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_TableFilterCount", BM_TableFilterCount, std::string(uri))
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_TableFilterOpenScan", BM_TableFilterOpenScan, std::string(uri))
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace lance::table
