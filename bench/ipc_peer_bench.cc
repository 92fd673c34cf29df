// Arrow IPC side by side with apache-arrow: the same IPC file (made by bench/ipc_peer.mjs, path
// in LANCE_IPC_FILE) read and written by us, with memcpy of the same number of bytes as the
// ceiling. Registered only when LANCE_IPC_FILE is set; bench/run_ipc_bench.sh runs both sides
// and prints the ratios. GB/s counts the file's bytes.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "lance/io/object_store.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"

namespace {

using namespace lance;

BufferPtr g_file;  // the whole file, memory-mapped by the local object store

void SetBytes(benchmark::State& state) {
  const auto n = static_cast<double>(g_file->size());
  state.SetBytesProcessed(state.iterations() * g_file->size());
  state.counters["GB/s"] = benchmark::Counter(n / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void ReadFile(benchmark::State& state, bool validate) {
  ipc::IpcReadOptions options;
  options.validate_full = validate;
  for (auto _ : state) {
    auto reader = ipc::FileReader::Open(g_file, options).ValueOrDie();
    auto batches = reader->ReadAll().ValueOrDie();
    benchmark::DoNotOptimize(batches.data());
  }
  SetBytes(state);
}

void WriteFile(benchmark::State& state) {
  auto reader = ipc::FileReader::Open(g_file).ValueOrDie();
  auto batches = reader->ReadAll().ValueOrDie();
  for (auto _ : state) {
    auto out = ipc::WriteFile(reader->schema(), batches).ValueOrDie();
    benchmark::DoNotOptimize(out->data());
  }
  SetBytes(state);
}

void Memcpy(benchmark::State& state) {
  auto dst = AllocateBuffer(g_file->size(), /*zero_fill=*/true).ValueOrDie();
  for (auto _ : state) {
    std::memcpy(dst->mutable_data(), g_file->data(), static_cast<size_t>(g_file->size()));
    benchmark::DoNotOptimize(dst->mutable_data());
  }
  SetBytes(state);
}

const bool kRegistered = [] {
  const char* path = std::getenv("LANCE_IPC_FILE");
  if (path == nullptr) return false;
  auto where = io::ObjectStore::FromUri(path).ValueOrDie();
  g_file = where.store->Get(where.path).ValueOrDie();
  // Fault the mapping in once so that no timed run pays first-touch costs.
  volatile uint8_t sink = 0;
  for (int64_t i = 0; i < g_file->size(); i += 4096) sink = sink + g_file->data()[i];
  benchmark::RegisterBenchmark("BM_IpcPeerFile/memcpy", Memcpy)
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_IpcPeerFile/read", ReadFile, false)
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_IpcPeerFile/read_validate_full", ReadFile, true)
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_IpcPeerFile/write", WriteFile)
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  return true;
}();

}  // namespace
