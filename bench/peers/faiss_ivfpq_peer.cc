// faiss IndexIVFPQ on raw float32 vectors, the IVF_PQ peer of bench/vector_1m_bench.mjs (never
// a dependency of the library: bench/run_vector_1m_bench.sh compiles this file alone against
// Debian's libfaiss-dev, installed by scripts/install-deps.sh under LANCE_BENCH_PEERS=1).
//
//   faiss_ivfpq_peer VECTORS.f32 QUERIES.f32 DIM NLIST M NPROBE K REFINE THREADS OUT.json
//
// Builds "IVF{NLIST},PQ{M}" (8-bit codes, residuals, faiss's own k-means sampling: at most 256
// training vectors per centroid) with THREADS OpenMP threads, then answers the queries one at
// a time on one thread, nprobe NPROBE, k K; with REFINE > 0 a second pass through an
// IndexRefineFlat (k x REFINE PQ candidates re-ranked by exact l2). Writes {"build_s",
// "build_cpu_s", "runs": [{"refine", "p50_ms", "p99_ms", "cpu_p50_ms", "ids": [[row, ...]]}]}.
#include <faiss/IndexFlat.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/IndexRefine.h>
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::vector<float> ReadFloats(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "faiss_ivfpq_peer: cannot open %s\n", path);
    std::exit(2);
  }
  in.seekg(0, std::ios::end);
  const auto bytes = static_cast<size_t>(in.tellg());
  in.seekg(0);
  std::vector<float> out(bytes / sizeof(float));
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(float)));
  return out;
}
double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double Cpu() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}
double Quantile(std::vector<double> x, double q) {
  std::sort(x.begin(), x.end());
  return x[std::min(x.size() - 1, static_cast<size_t>(q * static_cast<double>(x.size())))];
}

using Idx = faiss::Index::idx_t;  // faiss 1.7.3 (Debian 12) spells it so

}  // namespace

int main(int argc, char** argv) {
  if (argc != 11) {
    std::fprintf(stderr, "usage: faiss_ivfpq_peer VECTORS.f32 QUERIES.f32 DIM NLIST M NPROBE K REFINE THREADS OUT.json\n");
    return 2;
  }
  const int dim = std::stoi(argv[3]);
  const size_t nlist = std::stoul(argv[4]), m = std::stoul(argv[5]), nprobe = std::stoul(argv[6]);
  const int k = std::stoi(argv[7]), refine = std::stoi(argv[8]), threads = std::stoi(argv[9]);
  const std::vector<float> base = ReadFloats(argv[1]);
  const std::vector<float> queries = ReadFloats(argv[2]);
  const auto n = static_cast<Idx>(base.size() / static_cast<size_t>(dim));
  const auto nq = static_cast<Idx>(queries.size() / static_cast<size_t>(dim));

  omp_set_num_threads(threads);
  const double t0 = Now(), c0 = Cpu();
  faiss::IndexFlatL2 coarse(dim);
  faiss::IndexIVFPQ ivfpq(&coarse, dim, nlist, m, 8);
  ivfpq.train(n, base.data());
  ivfpq.add(n, base.data());
  const double build_s = Now() - t0, build_cpu_s = Cpu() - c0;
  std::fprintf(stderr, "[faiss] IVF%zu,PQ%zu built in %.1f s (%.1f s CPU)\n", nlist, m, build_s, build_cpu_s);
  ivfpq.nprobe = nprobe;
  // The refine pass keeps its own copy of the raw vectors (not part of the PQ build time).
  faiss::IndexRefineFlat refined(&ivfpq, base.data());

  omp_set_num_threads(1);
  std::FILE* out = std::fopen(argv[10], "w");
  std::fprintf(out, "{\"build_s\": %.3f, \"build_cpu_s\": %.3f, \"runs\": [", build_s, build_cpu_s);
  std::vector<int> refines = {0};
  if (refine > 0) refines.push_back(refine);
  for (size_t r = 0; r < refines.size(); ++r) {
    faiss::Index* index = refines[r] > 0 ? static_cast<faiss::Index*>(&refined) : &ivfpq;
    refined.k_factor = static_cast<float>(std::max(1, refines[r]));
    std::vector<float> dist(static_cast<size_t>(k));
    std::vector<Idx> ids(static_cast<size_t>(nq * k));
    auto one = [&](Idx q) { index->search(1, queries.data() + q * dim, k, dist.data(), ids.data() + q * k); };
    one(0);  // warm-up
    std::vector<double> wall, cpu;
    for (Idx q = 0; q < nq; ++q) {
      const double w = Now(), c = Cpu();
      one(q);
      wall.push_back((Now() - w) * 1e3);
      cpu.push_back((Cpu() - c) * 1e3);
    }
    std::fprintf(out, "%s{\"refine\": %d, \"p50_ms\": %.4f, \"p99_ms\": %.4f, \"cpu_p50_ms\": %.4f, \"ids\": [",
                 r ? ", " : "", refines[r], Quantile(wall, 0.5), Quantile(wall, 0.99), Quantile(cpu, 0.5));
    for (Idx q = 0; q < nq; ++q) {
      std::fprintf(out, "%s[", q ? ", " : "");
      for (int j = 0; j < k; ++j) std::fprintf(out, "%s%lld", j ? ", " : "", static_cast<long long>(ids[q * k + j]));
      std::fprintf(out, "]");
    }
    std::fprintf(out, "]}");
    std::fprintf(stderr, "[faiss] refine %d: p50 %.3f ms\n", refines[r], Quantile(wall, 0.5));
  }
  std::fprintf(out, "]}\n");
  std::fclose(out);
  return 0;
}
