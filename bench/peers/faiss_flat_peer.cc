// faiss IndexFlatL2 on the peer-bench vectors, the benchmark peer of bench/linalg_bench.cc
// (never a dependency of the library: bench/run_linalg_bench.sh compiles this file alone
// against Debian's libfaiss-dev when it is installed).
//
//   faiss_flat_peer VECTORS.f32 QUERIES.f32 DIM OUT.json
// VECTORS / QUERIES: raw float32, row-major (bench/linalg_peer.mjs --dump writes them).
// Times, for 1 and 2 OpenMP threads: search of one query at a time (k=10, median over the
// queries after one warm-up) and one search of every query at once; wall and process CPU time.
#include <faiss/IndexFlat.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double Cpu() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}
std::vector<float> ReadAll(const char* path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) { std::perror(path); std::exit(1); }
  struct stat st {};
  fstat(fd, &st);
  std::vector<float> v(static_cast<size_t>(st.st_size) / 4);
  size_t done = 0;
  while (done < static_cast<size_t>(st.st_size)) {
    ssize_t r = read(fd, reinterpret_cast<char*>(v.data()) + done, static_cast<size_t>(st.st_size) - done);
    if (r <= 0) { std::perror("read"); std::exit(1); }
    done += static_cast<size_t>(r);
  }
  close(fd);
  return v;
}
double Median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x.size() % 2 ? x[x.size() / 2] : (x[x.size() / 2 - 1] + x[x.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: faiss_flat_peer VECTORS.f32 QUERIES.f32 DIM OUT.json\n");
    return 2;
  }
  const int dim = std::stoi(argv[3]);
  std::vector<float> base = ReadAll(argv[1]);
  std::vector<float> queries = ReadAll(argv[2]);
  const faiss::Index::idx_t n = static_cast<faiss::Index::idx_t>(base.size() / dim);
  const faiss::Index::idx_t nq = static_cast<faiss::Index::idx_t>(queries.size() / dim);
  faiss::IndexFlatL2 index(dim);
  index.add(n, base.data());
  base.clear();
  base.shrink_to_fit();
  const int k = 10;
  std::FILE* out = std::fopen(argv[4], "w");
  std::fprintf(out, "{\"rows\": %lld, \"queries\": %lld, \"runs\": [", static_cast<long long>(n),
               static_cast<long long>(nq));
  std::vector<float> dist(static_cast<size_t>(nq * k));
  std::vector<faiss::Index::idx_t> ids(static_cast<size_t>(nq * k));
  bool first = true;
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    index.search(1, queries.data(), k, dist.data(), ids.data());  // warm-up
    std::vector<double> wall, cpu;
    for (faiss::Index::idx_t q = 0; q < nq; ++q) {
      const double c0 = Cpu(), t0 = Now();
      index.search(1, queries.data() + q * dim, k, dist.data() + q * k, ids.data() + q * k);
      wall.push_back((Now() - t0) * 1e3);
      cpu.push_back((Cpu() - c0) * 1e3);
    }
    const double c0 = Cpu(), t0 = Now();
    std::vector<float> bdist(static_cast<size_t>(nq * k));
    std::vector<faiss::Index::idx_t> bids(static_cast<size_t>(nq * k));
    index.search(nq, queries.data(), k, bdist.data(), bids.data());
    const double batch_wall = (Now() - t0) * 1e3, batch_cpu = (Cpu() - c0) * 1e3;
    std::fprintf(out, "%s{\"threads\": %d, \"single_median_ms\": %.4f, \"single_median_cpu_ms\": %.4f, "
                 "\"batch_ms\": %.3f, \"batch_cpu_ms\": %.3f}", first ? "" : ", ", threads,
                 Median(wall), Median(cpu), batch_wall, batch_cpu);
    first = false;
    std::fprintf(stderr, "[faiss] %d thread(s): one query %.2f ms (median), %lld queries at once %.1f ms\n",
                 threads, Median(wall), static_cast<long long>(nq), batch_wall);
  }
  std::fprintf(out, "], \"results\": [");
  for (faiss::Index::idx_t q = 0; q < nq; ++q) {
    std::fprintf(out, "%s{\"ids\": [", q ? ", " : "");
    for (int j = 0; j < k; ++j) std::fprintf(out, "%s%lld", j ? ", " : "", static_cast<long long>(ids[q * k + j]));
    std::fprintf(out, "], \"distances\": [");
    for (int j = 0; j < k; ++j) std::fprintf(out, "%s%.9g", j ? ", " : "", dist[q * k + j]);
    std::fprintf(out, "]}");
  }
  std::fprintf(out, "]}\n");
  std::fclose(out);
  return 0;
}
