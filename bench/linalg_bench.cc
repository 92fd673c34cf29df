// The linalg layer's kernels, exact search and k-means assignment; bench/run_linalg_bench.sh
// runs them next to the reference's brute-force search (bench/linalg_peer.mjs) and faiss's
// IndexFlatL2 (bench/peers/faiss_flat_peer.cc) and prints the comparison.
//
// Always registered (synthetic data, cache-resident):
//   BM_LinalgKernel/<metric>/<element>/<dim>/<level>  one query x 1024 vectors; GB/s of vectors
// Registered when LANCE_LINALG_BENCH_EXPORT names a gen.mjs --export directory (base.arrow,
// workload.json: its 1M x 128 float32 `vector` column and 100 query vectors):
//   BM_LinalgMemcpy                      memcpy of the column's 512 MB into touched memory
//   BM_LinalgScan/<level>/<threads>      FlatSearch k=10 of one query (cycling the queries);
//                                        GB/s of vectors scanned, CPU time of the process
//   BM_LinalgBatch/<threads>             FlatSearchBatch of the 100 queries at once, k=10
//   BM_LinalgAssign/<threads>            AssignToCentroids of 65536 vectors to 1000 centroids
// LANCE_LINALG_BENCH_RESULTS=FILE writes our top-10 row ids of every query (JSON) for the
// runner to check against the peers.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "lance/io/object_store.h"
#include "lance/ipc/reader.h"
#include "lance/linalg/distance.h"
#include "lance/linalg/flat_search.h"
#include "lance/linalg/kmeans.h"
#include "process_cpu.h"

namespace lance::linalg {
namespace {

// ---- kernels on cache-resident data ----------------------------------------------------------
void BM_LinalgKernel(benchmark::State& state, DistanceType dt, ElementType et, size_t dim,
                     SimdLevel level) {
  if (!SetSimdLevel(level).ok()) {
    state.SkipWithError("this CPU cannot run that SIMD level");
    return;
  }
  const size_t n = 1024;
  const size_t bytes = n * dim * ElementSize(et);
  std::vector<uint8_t> data(bytes), query(dim * ElementSize(et));
  uint32_t s = 1;
  auto next = [&] { return (s = s * 1103515245u + 12345u) >> 8; };
  for (size_t i = 0; i < bytes; i += ElementSize(et)) {
    if (et == ElementType::kFloat32) {
      float f = static_cast<float>(next() % 2000) / 1000.0f - 1.0f;
      std::memcpy(&data[i], &f, 4);
    } else if (et == ElementType::kFloat64) {
      double f = static_cast<double>(next() % 2000) / 1000.0 - 1.0;
      std::memcpy(&data[i], &f, 8);
    } else if (et == ElementType::kFloat16) {
      uint16_t h = static_cast<uint16_t>(0x3000 + next() % 0x0c00);  // 0.125 .. 1
      std::memcpy(&data[i], &h, 2);
    } else {
      data[i] = static_cast<uint8_t>(next());
    }
  }
  std::memcpy(query.data(), data.data(), query.size());
  auto kernel = DistanceKernel::Make(dt, et, query.data(), dim);
  std::vector<float> out(n);
  for (auto _ : state) {
    kernel->Compute(data.data(), n, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["ns_per_vector"] = benchmark::Counter(
      static_cast<double>(state.iterations() * n), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  (void)SetSimdLevel(MaxSimdLevel());
}

// ---- the 1M x 128 export ---------------------------------------------------------------------
struct Export {
  RecordBatchPtr batch;
  ArrayPtr vectors;
  const float* values = nullptr;
  size_t rows = 0;
  size_t dim = 0;
  std::vector<float> queries;  // 100 x dim
  size_t num_queries = 0;
};

const Export* g_export = nullptr;
std::unique_ptr<ThreadPool> g_pools[3];

ThreadPool* Pool(int threads) {
  if (threads <= 1) return nullptr;
  if (!g_pools[threads]) g_pools[threads] = *ThreadPool::Make(threads - 1);  // + the caller
  return g_pools[threads].get();
}

Result<Export*> LoadExport(const std::string& dir) {
  auto e = std::make_unique<Export>();
  LANCE_ASSIGN_OR_RAISE(auto where, io::ObjectStore::FromUri(dir + "/base.arrow"));
  LANCE_ASSIGN_OR_RAISE(auto bytes, where.store->Get(where.path));
  LANCE_ASSIGN_OR_RAISE(auto reader, ipc::FileReader::Open(bytes));
  LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
  if (batches.size() != 1) return Status::InvalidArgument("base.arrow: {} batches", batches.size());
  e->batch = batches[0];
  e->vectors = e->batch->GetColumnByName("vector");
  if (!e->vectors) return Status::InvalidArgument("base.arrow has no vector column");
  LANCE_ASSIGN_OR_RAISE(VectorColumn col, VectorColumn::Of(*e->vectors));
  e->values = reinterpret_cast<const float*>(col.data);
  e->rows = col.length;
  e->dim = col.dim;
  // Fault the (possibly memory-mapped) bytes in once, outside every timer.
  volatile float sink = 0;
  for (size_t i = 0; i < e->rows * e->dim; i += 1024) sink = sink + e->values[i];
  std::ifstream in(dir + "/workload.json");
  auto w = nlohmann::json::parse(in);
  for (const auto& q : w["vectorQueries"]) {
    for (const auto& x : q) e->queries.push_back(x.get<float>());
    ++e->num_queries;
  }
  return e.release();
}

void BM_LinalgMemcpy(benchmark::State& state) {
  const size_t bytes = g_export->rows * g_export->dim * sizeof(float);
  auto* dst = static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
  madvise(dst, bytes, MADV_HUGEPAGE);
  std::memset(dst, 1, bytes);
  for (auto _ : state) {
    std::memcpy(dst, g_export->values, bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  std::free(dst);
}

void BM_LinalgScan(benchmark::State& state, SimdLevel level, int threads) {
  if (!SetSimdLevel(level).ok()) {
    state.SkipWithError("this CPU cannot run that SIMD level");
    return;
  }
  FlatSearchOptions o;
  o.k = 10;
  o.pool = Pool(threads);
  size_t q = 0;
  const double cpu0 = bench::ProcessCpuSeconds();
  for (auto _ : state) {
    auto r = FlatSearch(*g_export->vectors, g_export->queries.data() + q * g_export->dim,
                        g_export->dim, o);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(r->data());
    q = (q + 1) % g_export->num_queries;
  }
  const double cpu = bench::ProcessCpuSeconds() - cpu0;
  const double bytes = static_cast<double>(g_export->rows * g_export->dim * sizeof(float));
  state.SetBytesProcessed(static_cast<int64_t>(static_cast<double>(state.iterations()) * bytes));
  state.counters["queries_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["cpu_ms_per_query"] = cpu * 1e3 / static_cast<double>(state.iterations());
  (void)SetSimdLevel(MaxSimdLevel());
}

void BM_LinalgBatch(benchmark::State& state, int threads) {
  FlatSearchOptions o;
  o.k = 10;
  o.pool = Pool(threads);
  const double cpu0 = bench::ProcessCpuSeconds();
  std::vector<std::vector<Neighbor>> last;
  for (auto _ : state) {
    auto r = FlatSearchBatch(*g_export->vectors, g_export->queries.data(), g_export->num_queries,
                             g_export->dim, o);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    last = std::move(*r);
  }
  const double cpu = bench::ProcessCpuSeconds() - cpu0;
  const double n = static_cast<double>(state.iterations() * g_export->num_queries);
  state.counters["queries_per_s"] = benchmark::Counter(n, benchmark::Counter::kIsRate);
  state.counters["cpu_ms_per_query"] = cpu * 1e3 / n;
  if (const char* out = std::getenv("LANCE_LINALG_BENCH_RESULTS"); out && !last.empty()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& hits : last) {
      nlohmann::json ids = nlohmann::json::array(), dists = nlohmann::json::array();
      for (const auto& h : hits) {
        ids.push_back(h.row);
        dists.push_back(h.distance);
      }
      j.push_back({{"ids", ids}, {"distances", dists}});
    }
    std::ofstream(out) << j.dump();
  }
}

void BM_LinalgAssign(benchmark::State& state, int threads) {
  const size_t n = 65536, k = 1000, dim = g_export->dim;
  std::vector<float> centroids(g_export->values, g_export->values + k * dim);
  std::vector<uint32_t> assignment(n);
  std::vector<float> dist(n);
  const double cpu0 = bench::ProcessCpuSeconds();
  for (auto _ : state) {
    auto st = AssignToCentroids(g_export->values + 100000 * dim, n, dim, centroids.data(), k,
                                DistanceType::kL2, Pool(threads), assignment.data(), dist.data());
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
  }
  const double cpu = bench::ProcessCpuSeconds() - cpu0;
  const double pairs = static_cast<double>(state.iterations() * n * k);
  state.counters["vectors_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * n), benchmark::Counter::kIsRate);
  state.counters["gflops"] = benchmark::Counter(pairs * 2 * static_cast<double>(dim) * 1e-9,
                                                benchmark::Counter::kIsRate);
  state.counters["cpu_s_per_iter"] = cpu / static_cast<double>(state.iterations());
}

[[maybe_unused]] const bool kRegistered = [] {
  const SimdLevel levels[] = {SimdLevel::kPortable, SimdLevel::kAvx2};
  const struct {
    DistanceType dt;
    ElementType et;
  } kinds[] = {{DistanceType::kL2, ElementType::kFloat32},     {DistanceType::kDot, ElementType::kFloat32},
               {DistanceType::kCosine, ElementType::kFloat32}, {DistanceType::kL2, ElementType::kFloat16},
               {DistanceType::kCosine, ElementType::kFloat16}, {DistanceType::kL2, ElementType::kFloat64},
               {DistanceType::kHamming, ElementType::kUInt8}};
  for (const auto& kind : kinds) {
    for (size_t dim : {size_t{128}, size_t{768}}) {
      for (SimdLevel level : levels) {
        const std::string name = std::string("BM_LinalgKernel/") + std::string(DistanceTypeName(kind.dt)) +
                                 "/" + std::string(ElementTypeName(kind.et)) + "/" +
                                 std::to_string(dim) + "/" + std::string(SimdLevelName(level));
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
          BM_LinalgKernel(s, kind.dt, kind.et, dim, level);
        });
      }
    }
  }
  const char* dir = std::getenv("LANCE_LINALG_BENCH_EXPORT");
  if (dir == nullptr) return true;
  auto e = LoadExport(dir);
  if (!e.ok()) {
    std::fprintf(stderr, "linalg bench: %s\n", e.status().ToString().c_str());
    return false;
  }
  g_export = *e;
  benchmark::RegisterBenchmark("BM_LinalgMemcpy", BM_LinalgMemcpy)->Unit(benchmark::kMillisecond)->UseRealTime();
  for (SimdLevel level : levels) {
    for (int threads : {1, 2}) {
      const std::string name = std::string("BM_LinalgScan/") + std::string(SimdLevelName(level)) + "/" +
                               std::to_string(threads);
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { BM_LinalgScan(s, level, threads); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(("BM_LinalgBatch/" + std::to_string(threads)).c_str(),
                                 [=](benchmark::State& s) { BM_LinalgBatch(s, threads); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_LinalgAssign/" + std::to_string(threads)).c_str(),
                                 [=](benchmark::State& s) { BM_LinalgAssign(s, threads); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  return true;
}();

}  // namespace
}  // namespace lance::linalg
