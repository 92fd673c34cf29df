// hnswlib peer of bench/vector_index_peer.mjs: builds hnswlib's HierarchicalNSW (Debian's
// header-only libhnswlib-dev 0.6.2, compiled by the bench script alone, never part of the
// build) over raw float32 vectors and answers raw float32 queries one at a time on one thread.
//
//   hnswlib_peer VECTORS.f32 QUERIES.f32 DIM M EF_CONSTRUCTION EF K THREADS OUT.json
//
// Writes {"build_s", "build_cpu_s", "p50_ms", "p99_ms", "ids": [[row, ...] per query]}: build
// wall and CPU time (THREADS inserting at once, as hnswlib's own parallel example does), the
// query latencies, and the K row numbers of each query nearest first.
#include <hnswlib/hnswlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>
#include <vector>

namespace {

std::vector<float> ReadFloats(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "hnswlib_peer: cannot open " << path << "\n";
    std::exit(2);
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<float> out(bytes.size() / sizeof(float));
  std::copy_n(bytes.data(), out.size() * sizeof(float), reinterpret_cast<char*>(out.data()));
  return out;
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 10) {
    std::cerr << "usage: hnswlib_peer VECTORS.f32 QUERIES.f32 DIM M EF_CONSTRUCTION EF K THREADS OUT.json\n";
    return 2;
  }
  const size_t dim = std::strtoul(argv[3], nullptr, 10);
  const size_t m = std::strtoul(argv[4], nullptr, 10);
  const size_t efc = std::strtoul(argv[5], nullptr, 10);
  const size_t ef = std::strtoul(argv[6], nullptr, 10);
  const size_t k = std::strtoul(argv[7], nullptr, 10);
  const size_t threads = std::max<size_t>(1, std::strtoul(argv[8], nullptr, 10));
  const std::vector<float> data = ReadFloats(argv[1]);
  const std::vector<float> queries = ReadFloats(argv[2]);
  const size_t n = data.size() / dim, nq = queries.size() / dim;

  hnswlib::L2Space space(dim);
  const double cpu0 = CpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  hnswlib::HierarchicalNSW<float> index(&space, n, m, efc, 100);
  // Row 0 first (the entry point), then every thread takes the next row.
  index.addPoint(data.data(), 0);
  std::atomic<size_t> next{1};
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (size_t i = next++; i < n; i = next++) index.addPoint(data.data() + i * dim, i);
    });
  }
  for (auto& t : pool) t.join();
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double build_cpu_s = CpuSeconds() - cpu0;

  index.setEf(ef);
  std::vector<double> times;
  std::vector<std::vector<size_t>> ids(nq);
  (void)index.searchKnn(queries.data(), k);  // warm-up, untimed
  for (size_t q = 0; q < nq; ++q) {
    const auto s = std::chrono::steady_clock::now();
    auto found = index.searchKnn(queries.data() + q * dim, k);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
    while (!found.empty()) {
      ids[q].push_back(found.top().second);
      found.pop();
    }
    std::reverse(ids[q].begin(), ids[q].end());
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const double p50 = sorted[sorted.size() / 2];
  const double p99 = sorted[std::min(sorted.size() - 1, sorted.size() * 99 / 100)];

  FILE* out = std::fopen(argv[9], "w");
  if (out == nullptr) {
    std::cerr << "hnswlib_peer: cannot write " << argv[9] << "\n";
    return 2;
  }
  std::fprintf(out, "{\"build_s\": %.4f, \"build_cpu_s\": %.4f, \"p50_ms\": %.4f, \"p99_ms\": %.4f, \"ids\": [",
               build_s, build_cpu_s, p50, p99);
  for (size_t q = 0; q < nq; ++q) {
    std::fprintf(out, "%s[", q ? "," : "");
    for (size_t i = 0; i < ids[q].size(); ++i) std::fprintf(out, "%s%zu", i ? "," : "", ids[q][i]);
    std::fprintf(out, "]");
  }
  std::fprintf(out, "]}\n");
  std::fclose(out);
  return 0;
}
