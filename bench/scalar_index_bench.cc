// Scalar index lookups in process, next to the same filters without an index
// (bench/run_scalar_index_bench.sh runs these beside lance 12 and prints the ratios).
//
// Registered only when LANCE_SCALAR_BENCH_DIR names a directory holding
//   plain.lance  the table, no index            ours.lance  the same data files, our indexes
//   ref.lance    the same data files, indexes lance 12 built
// and LANCE_SCALAR_BENCH_QUERIES a file of filters, one per line.
//
//   BM_ScalarScan/<q>        Snapshot::Scan({id}, filter) on plain.lance (every row filtered)
//   BM_ScalarIndex/<t>/<q>   on an open version with its ScalarIndexCatalog (warm page cache,
//                            as a query on an open lancedb table): parse the filter, answer
//                            its conjuncts from the indexes (ScalarIndexCatalog::PlanConjuncts:
//                            ranges on one column merged; AnswerAll intersects), then
//                            TakeRowIds of the id column for the rows (deleted rows dropped);
//                            t = ours | ref (the indexes lance 12 built, read by us)
// Counters: hits (rows returned), cpu_ms (process CPU per iteration).
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <fstream>
#include <string>
#include <vector>

#include "lance/expr/ast.h"
#include "lance/index/scalar/lookup.h"
#include "lance/table/snapshot.h"
#include "process_cpu.h"

namespace lance::index::scalar {
namespace {

using lance::bench::ProcessCpuSeconds;

std::vector<std::string> Queries() {
  std::vector<std::string> out;
  const char* f = getenv("LANCE_SCALAR_BENCH_QUERIES");
  if (!f) return out;
  std::ifstream in(f);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

void ReportCpu(benchmark::State& st, double start) {
  st.counters["cpu_ms"] = benchmark::Counter((ProcessCpuSeconds() - start) * 1e3,
                                             benchmark::Counter::kAvgIterations);
}

void Scan(benchmark::State& st, const std::string& uri, const std::string& filter) {
  auto snap = table::Snapshot::Open(uri);
  if (!snap.ok()) return st.SkipWithError(snap.status().ToString().c_str());
  int64_t hits = 0;
  const double cpu = ProcessCpuSeconds();
  for (auto _ : st) {
    table::ScanOptions o;
    o.columns = {"id"};
    o.filter = filter;
    auto b = (*snap)->Scan(o);
    if (!b.ok()) return st.SkipWithError(b.status().ToString().c_str());
    hits = 0;
    for (const auto& x : *b) hits += x->num_rows();
  }
  ReportCpu(st, cpu);
  st.counters["hits"] = static_cast<double>(hits);
}

void Indexed(benchmark::State& st, const std::string& uri, const std::string& filter) {
  auto snap = table::Snapshot::Open(uri);
  if (!snap.ok()) return st.SkipWithError(snap.status().ToString().c_str());
  auto catalog = ScalarIndexCatalog::Make((*snap)->location(), (*snap)->manifest());
  int64_t hits = 0;
  const double cpu = ProcessCpuSeconds();
  for (auto _ : st) {
    auto node = expr::Parse(filter);
    if (!node.ok()) return st.SkipWithError(node.status().ToString().c_str());
    const auto conjuncts = SplitConjuncts(**node);
    const IndexPlan plan = catalog->PlanConjuncts(conjuncts);
    if (plan.answered.size() != conjuncts.size()) return st.SkipWithError("a conjunct has no index");
    auto a = catalog->AnswerAll(plan);
    if (!a.ok()) return st.SkipWithError(a.status().ToString().c_str());
    if (a->covered.size() != (*snap)->manifest().fragments.size()) {
      return st.SkipWithError("the bench table has unindexed fragments");
    }
    table::ScanOptions o;
    o.columns = {"id"};
    auto b = (*snap)->TakeRowIds(a->rows.ToVector(), o);
    if (!b.ok()) return st.SkipWithError(b.status().ToString().c_str());
    hits = 0;
    for (const auto& x : *b) hits += x->num_rows();
  }
  ReportCpu(st, cpu);
  st.counters["hits"] = static_cast<double>(hits);
}

int Register() {
  const char* dir = getenv("LANCE_SCALAR_BENCH_DIR");
  if (!dir) return 0;
  const std::string d = dir;
  const auto queries = Queries();
  for (size_t i = 0; i < queries.size(); ++i) {
    const std::string q = queries[i];
    benchmark::RegisterBenchmark(("BM_ScalarScan/" + std::to_string(i)).c_str(),
                                 [d, q](benchmark::State& st) { Scan(st, d + "/plain.lance", q); })
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    for (const char* t : {"ours", "ref"}) {
      benchmark::RegisterBenchmark(
          ("BM_ScalarIndex/" + std::string(t) + "/" + std::to_string(i)).c_str(),
          [d, q, t](benchmark::State& st) { Indexed(st, d + "/" + t + ".lance", q); })
          ->Unit(benchmark::kMicrosecond)->UseRealTime();
    }
  }
  return 0;
}

const int kRegistered = Register();

}  // namespace
}  // namespace lance::index::scalar
