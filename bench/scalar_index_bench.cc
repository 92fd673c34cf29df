// Scalar index lookups in process, next to the same filters without an index
// (bench/run_scalar_index_bench.sh runs these beside lance 12 and prints the ratios).
//
// Registered only when LANCE_SCALAR_BENCH_DIR names a directory holding
//   plain.lance  the table, no index            ours.lance  the same data files, our indexes
//   ref.lance    the same data files, indexes lance 12 built
// and LANCE_SCALAR_BENCH_QUERIES a file of filters, one per line.
//
//   BM_ScalarScan/<q>        query::Scanner({id}, filter, use_index = false) on plain.lance
//                            (every row filtered)
//   BM_ScalarIndex/<t>/<q>   query::Scanner({id}, filter) on an open version: planned, the
//                            conjuncts answered by the indexes (ScalarIndexLookup; the version's
//                            catalog and its pages shared across queries through one
//                            index::IndexCache, warm, as a query on an
//                            open lancedb table), ids read for those rows only;
//                            t = ours | ref (the indexes lance 12 built, read by us)
//   BM_ScalarBuild/<col>/<type> Dataset::CreateScalarIndex(col, type, replace) in process on an
//                            open Dataset (as lance 12's createIndex on an open table): scan,
//                            train, write, commit; run on <dir>/<table>.lance for each entry
//                            "table:col:type" of LANCE_SCALAR_BENCH_BUILDS (comma-separated)
// Queries run once untimed first (first_ms: that query, on a cold cache).
// Counters: hits (rows returned), cpu_ms (process CPU per iteration), first_ms, cache_kib (index
// bytes held in the query's index cache afterwards: the memory an open table keeps for its indexes).
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "lance/dataset/dataset.h"
#include "lance/index/index_cache.h"
#include "lance/index/scalar/create.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "process_cpu.h"

namespace lance::bench_scalar {
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

// One filtered scan of the id column through the query layer's Scanner, indexes used or not.
void Run(benchmark::State& st, const std::string& uri, const std::string& filter, bool use_index) {
  auto snap = table::Snapshot::Open(uri);
  if (!snap.ok()) return st.SkipWithError(snap.status().ToString().c_str());
  const std::shared_ptr<const table::Snapshot> s = *snap;
  query::ScanOptions o;
  o.columns = {"id"};
  o.filter = filter;
  o.use_index = use_index;
  // The queries share one index cache, as the scans of one open Dataset do.
  o.index_cache = index::IndexCache::Make();
  {
    auto sc = query::Scanner::Make(s, o);
    if (!sc.ok()) return st.SkipWithError(sc.status().ToString().c_str());
    const std::string plan = sc->Explain();
    const bool indexed = plan.find("ScalarIndexLookup") != std::string::npos;
    // With the index allowed, the planner may still scan when the lookup is too broad (its
    // share rule, said in the plan); that is the query's plan, timed as it is.
    const bool shared_out = use_index && plan.find("scanned, not looked up:") != std::string::npos;
    if (indexed != use_index && !shared_out) return st.SkipWithError(("unexpected plan:\n" + plan).c_str());
    st.counters["scanned"] = indexed ? 0 : 1;
  }
  // One query before timing (not counted): the index pages it reads stay in the cache, so
  // the timed queries are warm, as lance 12's after its first call; first_ms is that query.
  {
    const auto t0 = std::chrono::steady_clock::now();
    auto sc = query::Scanner::Make(s, o);
    if (!sc.ok()) return st.SkipWithError(sc.status().ToString().c_str());
    auto b = sc->ToBatches();
    if (!b.ok()) return st.SkipWithError(b.status().ToString().c_str());
    st.counters["first_ms"] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  int64_t hits = 0;
  const double cpu = ProcessCpuSeconds();
  for (auto _ : st) {
    auto sc = query::Scanner::Make(s, o);
    if (!sc.ok()) return st.SkipWithError(sc.status().ToString().c_str());
    auto b = sc->ToBatches();
    if (!b.ok()) return st.SkipWithError(b.status().ToString().c_str());
    hits = 0;
    for (const auto& x : *b) hits += x->num_rows();
  }
  ReportCpu(st, cpu);
  st.counters["hits"] = static_cast<double>(hits);
  // Index memory the open version holds after the query (the pages and catalog in its cache).
  st.counters["cache_kib"] = static_cast<double>(o.index_cache->stats().bytes) / 1024.0;
}

void Scan(benchmark::State& st, const std::string& uri, const std::string& filter) {
  Run(st, uri, filter, false);
}
void Indexed(benchmark::State& st, const std::string& uri, const std::string& filter) {
  Run(st, uri, filter, true);
}

void Build(benchmark::State& st, const std::string& uri, const std::string& column, const std::string& type) {
  auto ds = dataset::Dataset::Open(uri);
  if (!ds.ok()) return st.SkipWithError(ds.status().ToString().c_str());
  index::scalar::CreateScalarIndexOptions o;
  auto t = index::scalar::ScalarIndexTypeFromName(type);
  if (!t.ok()) return st.SkipWithError(t.status().ToString().c_str());
  o.type = *t;
  o.replace = true;
  int64_t rows = 0;
  const double cpu = ProcessCpuSeconds();
  for (auto _ : st) {
    auto c = (*ds)->CreateScalarIndex(column, o);
    if (!c.ok()) return st.SkipWithError(c.status().ToString().c_str());
    rows = static_cast<int64_t>(c->num_indexed_rows);
  }
  ReportCpu(st, cpu);
  st.counters["hits"] = static_cast<double>(rows);
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t e; (e = s.find(sep, b)) != std::string::npos; b = e + 1) out.push_back(s.substr(b, e - b));
  out.push_back(s.substr(b));
  return out;
}

int Register() {
  const char* dir = getenv("LANCE_SCALAR_BENCH_DIR");
  if (!dir) return 0;
  const std::string d = dir;
  if (const char* builds = getenv("LANCE_SCALAR_BENCH_BUILDS")) {
    for (const std::string& b : Split(builds, ',')) {
      const auto parts = Split(b, ':');
      if (parts.size() != 3) continue;
      const std::string uri = d + "/" + parts[0] + ".lance", col = parts[1], type = parts[2];
      benchmark::RegisterBenchmark(("BM_ScalarBuild/" + col + "/" + type).c_str(),
                                   [uri, col, type](benchmark::State& st) { Build(st, uri, col, type); })
          ->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1)->Repetitions(5)->ReportAggregatesOnly(true);
    }
  }
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
}  // namespace lance::bench_scalar
