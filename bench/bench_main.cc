// The one main() of the lance_bench binary; every bench/*.cc file only registers benchmarks.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
