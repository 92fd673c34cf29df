// Filtered merged reads of a MemWAL table in-process (bench/memwal_bench.mjs runs it beside
// lance 12's query().where() on the same table): each iteration plans the read (base + every
// unmerged generation, eventual consistency: what lance 12's query() reads) and drains it,
// projecting id, s. Registered when LANCE_MEMWAL_TABLE (a table URI) and LANCE_MEMWAL_FILTER
// are set; counters: rows, cpu_ms (the whole process's, every thread: bench/process_cpu.h).
#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "lance/io/object_store.h"
#include "lance/query/lsm_plan.h"
#include "lance/query/planner.h"
#include "process_cpu.h"

namespace lance::query {
namespace {

void BM_LsmFilteredScan(benchmark::State& state, std::string uri, std::string filter) {
  auto where = io::ObjectStore::FromUri(uri);
  if (!where.ok()) return state.SkipWithError(where.status().ToString().c_str());
  memwal::LsmReadOptions o;
  o.consistency = memwal::Consistency::kEventual;
  o.columns = {"id", "s"};
  o.filter = filter;
  o.use_index = std::getenv("LANCE_MEMWAL_NO_INDEX") == nullptr;
  const bool serial = std::getenv("LANCE_MEMWAL_SERIAL") != nullptr;
  int64_t rows = 0;
  const double cpu0 = bench::ProcessCpuSeconds();
  for (auto _ : state) {
    auto plan = PlanLsmScan(where->store, where->path, o);
    if (!plan.ok()) return state.SkipWithError(plan.status().ToString().c_str());
    // LANCE_MEMWAL_SERIAL: everything on the calling thread (no pool), to tell the pool's
    // hand-offs from the work on a loaded machine.
    auto reader = ExecuteLsmScan(*plan, serial ? ExecOptions{} : Planner::ExecOptionsOf(ScanOptions{}), nullptr);
    if (!reader.ok()) return state.SkipWithError(reader.status().ToString().c_str());
    rows = 0;
    while (true) {
      auto b = (*reader)->Next();
      if (!b.ok()) return state.SkipWithError(b.status().ToString().c_str());
      if (!*b) break;
      rows += (*b)->num_rows();
    }
  }
  state.counters["cpu_ms"] = benchmark::Counter((bench::ProcessCpuSeconds() - cpu0) * 1e3,
                                                benchmark::Counter::kAvgIterations);
  state.counters["rows"] = static_cast<double>(rows);
}

// Planning alone (base, shard manifests, generations opened; nothing read): the share of a
// read that is metadata.
void BM_LsmPlanOnly(benchmark::State& state, std::string uri, std::string filter) {
  auto where = io::ObjectStore::FromUri(uri);
  if (!where.ok()) return state.SkipWithError(where.status().ToString().c_str());
  memwal::LsmReadOptions o;
  o.consistency = memwal::Consistency::kEventual;
  o.columns = {"id", "s"};
  o.filter = filter;
  const double cpu0 = bench::ProcessCpuSeconds();
  for (auto _ : state) {
    auto plan = PlanLsmScan(where->store, where->path, o);
    if (!plan.ok()) return state.SkipWithError(plan.status().ToString().c_str());
    benchmark::DoNotOptimize(plan->root());
  }
  state.counters["cpu_ms"] = benchmark::Counter((bench::ProcessCpuSeconds() - cpu0) * 1e3,
                                                benchmark::Counter::kAvgIterations);
}

[[maybe_unused]] const bool kRegistered = [] {
  const char* uri = std::getenv("LANCE_MEMWAL_TABLE");
  const char* filter = std::getenv("LANCE_MEMWAL_FILTER");
  if (!uri || !filter) return false;
  benchmark::RegisterBenchmark("BM_LsmFilteredScan", BM_LsmFilteredScan, std::string(uri), std::string(filter))
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_LsmPlanOnly", BM_LsmPlanOnly, std::string(uri), std::string(filter))
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace lance::query
