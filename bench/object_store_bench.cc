// Object store micro-benchmarks: durable publication cost, mmap vs pread Get, and what read
// coalescing buys for many small ranges.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"

namespace lance::io {
namespace {

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "lance-io-bench-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::shared_ptr<LocalObjectStore> MakeLocal(const ScratchDir& dir, bool sync,
                                            int64_t mmap_threshold = 1 << 20) {
  LocalObjectStoreOptions options;
  options.sync = sync;
  options.mmap_threshold = mmap_threshold;
  return LocalObjectStore::Make(dir.path(), options).ValueOrDie();
}

// Put of args[0] bytes; args[1] = fsync on/off.
void BM_LocalPut(benchmark::State& state) {
  ScratchDir dir;
  auto store = MakeLocal(dir, state.range(1) != 0);
  const std::string payload(static_cast<size_t>(state.range(0)), 'x');
  int64_t i = 0;
  for (auto _ : state) {
    Status st = store->Put("obj/" + std::to_string(i++ % 64), payload);
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_LocalPut)->Args({4096, 1})->Args({4096, 0})->Args({1 << 20, 1})->Args({1 << 20, 0})
    ->Unit(benchmark::kMicrosecond);

// PutIfNotExists of fresh 4 KiB manifests (the commit path), with fsync.
void BM_LocalPutIfNotExists(benchmark::State& state) {
  ScratchDir dir;
  auto store = MakeLocal(dir, true);
  const std::string payload(4096, 'm');
  int64_t i = 0;
  for (auto _ : state) {
    Status st = store->PutIfNotExists("_versions/" + std::to_string(i++) + ".manifest", payload);
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  }
}
BENCHMARK(BM_LocalPutIfNotExists)->Unit(benchmark::kMicrosecond);

// Get of a 16 MiB object: args[0] = 1 memory-maps, 0 preads; touches one byte per page.
void BM_LocalGet16MiB(benchmark::State& state) {
  ScratchDir dir;
  auto store = MakeLocal(dir, false, state.range(0) != 0 ? 1 : (int64_t{1} << 40));
  const int64_t size = 16 << 20;
  if (!store->Put("big", std::string(static_cast<size_t>(size), 'b')).ok()) std::abort();
  for (auto _ : state) {
    auto b = store->Get("big").ValueOrDie();
    int64_t sum = 0;
    for (int64_t p = 0; p < size; p += 4096) sum += b->data()[p];
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(state.iterations() * size);
}
BENCHMARK(BM_LocalGet16MiB)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond);

// 1000 ranges of 100 bytes spread over 4 MiB: args[0] = max_gap (0 = no coalescing).
void BM_LocalGetRanges(benchmark::State& state) {
  ScratchDir dir;
  auto store = MakeLocal(dir, false);
  store->set_coalesce_options({state.range(0), 1 << 20});
  if (!store->Put("data", std::string(4 << 20, 'd')).ok()) std::abort();
  std::vector<Range> ranges;
  for (int64_t i = 0; i < 1000; ++i) ranges.push_back({i * 4000, 100});
  for (auto _ : state) {
    auto got = store->GetRanges("data", ranges);
    if (!got.ok()) state.SkipWithError(got.status().ToString().c_str());
    benchmark::DoNotOptimize(got);
  }
  state.counters["backend_reads"] =
      static_cast<double>(CoalesceRanges(ranges, store->coalesce_options())->reads.size());
}
BENCHMARK(BM_LocalGetRanges)->Arg(0)->Arg(4096)->Arg(65536)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace lance::io

