// Arrow IPC throughput: writing and reading one large mixed batch (int64, float64, utf8,
// fixed_size_list<float32, 128>) through the stream format, against memcpy of the same
// number of bytes. Size: LANCE_BENCH_IPC_MB (default 1024). Every IPC benchmark reports
// GB/s and `vs_memcpy`, its throughput as a fraction of the measured memcpy bandwidth.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"

namespace {

using namespace lance;

int64_t TargetBytes() {
  const char* mb = std::getenv("LANCE_BENCH_IPC_MB");
  return (mb ? std::atoll(mb) : 1024) << 20;
}

BufferPtr Filled(int64_t size, uint64_t seed) {
  auto buf = AllocateBuffer(size).ValueOrDie();
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  auto* p = buf->mutable_data();
  for (int64_t i = 0; i + 8 <= size; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(p + i, &x, 8);
  }
  return buf;
}

// ~548 bytes per row: 8 + 8 + (4 + 16) + 512.
RecordBatchPtr MakeBatch() {
  const int64_t rows = TargetBytes() / 548;
  auto ints = Filled(rows * 8, 1);
  auto floats = Filled(rows * 8, 2);
  auto offsets = AllocateBuffer((rows + 1) * 4).ValueOrDie();
  auto* o = offsets->mutable_data_as<int32_t>();
  for (int64_t i = 0; i <= rows; ++i) o[i] = static_cast<int32_t>(i * 16);
  std::string text(static_cast<size_t>(rows * 16), 'x');
  for (int64_t i = 0; i < rows * 16; i += 7) text[static_cast<size_t>(i)] = 'a' + i % 26;
  auto chars = CopyBuffer(text).ValueOrDie();
  auto vectors = Filled(rows * 512, 3);
  auto vec_type = fixed_size_list(float32(), 128);
  auto schema = lance::schema({field("i", int64()), field("f", float64()), field("s", utf8()),
                               field("v", vec_type)});
  std::vector<ArrayPtr> cols = {
      Array::Make(int64(), rows, {nullptr, ints}),
      Array::Make(float64(), rows, {nullptr, floats}),
      Array::Make(utf8(), rows, {nullptr, offsets, chars}),
      Array::Make(vec_type, rows, {nullptr},
                  {Array::Make(float32(), rows * 128, {nullptr, vectors})}),
  };
  return RecordBatch::Make(schema, rows, std::move(cols)).ValueOrDie();
}

const RecordBatchPtr& Batch() {
  static RecordBatchPtr batch = MakeBatch();
  return batch;
}

int64_t BatchBytes() {
  static int64_t bytes = [] {
    int64_t n = 0;
    for (const auto& c : Batch()->columns()) {
      for (const auto& b : c->buffers) n += b ? b->size() : 0;
      for (const auto& ch : c->children) n += ch->buffers[1]->size();
    }
    return n;
  }();
  return bytes;
}

// An OutputSink writing into preallocated memory (what a mapped output file would be).
class FixedSink final : public ipc::OutputSink {
 public:
  explicit FixedSink(BufferPtr buf) : buf_(std::move(buf)) {}
  Status Write(const void* data, int64_t size) override {
    if (pos_ + size > buf_->capacity()) return Status::IOError("fixed sink full");
    std::memcpy(buf_->mutable_data() + pos_, data, static_cast<size_t>(size));
    pos_ += size;
    return Status::OK();
  }
  int64_t pos() const { return pos_; }
  void Reset() { pos_ = 0; }

 private:
  BufferPtr buf_;
  int64_t pos_ = 0;
};

// Memcpy bandwidth in bytes/s over BatchBytes(), best of 3.
double MemcpyBandwidth() {
  static double bw = [] {
    const int64_t n = BatchBytes();
    auto src = Filled(n, 9);
    auto dst = AllocateBuffer(n, true).ValueOrDie();
    double best = 0;
    for (int i = 0; i < 3; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      std::memcpy(dst->mutable_data(), src->data(), static_cast<size_t>(n));
      benchmark::DoNotOptimize(dst->mutable_data());
      std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
      best = std::max(best, static_cast<double>(n) / dt.count());
    }
    return best;
  }();
  return bw;
}

void Report(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() * BatchBytes());
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(BatchBytes()) / 1e9,
                                              benchmark::Counter::kIsIterationInvariantRate);
  state.counters["vs_memcpy"] = benchmark::Counter(
      static_cast<double>(BatchBytes()) / MemcpyBandwidth(),
      benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Memcpy(benchmark::State& state) {
  const int64_t n = BatchBytes();
  auto src = Filled(n, 7);
  auto dst = AllocateBuffer(n, true).ValueOrDie();
  for (auto _ : state) {
    std::memcpy(dst->mutable_data(), src->data(), static_cast<size_t>(n));
    benchmark::DoNotOptimize(dst->mutable_data());
  }
  Report(state);
}

BufferPtr Serialized(ipc::Compression c) {
  ipc::IpcWriteOptions options;
  options.compression = c;
  return ipc::WriteStream(Batch()->schema(), {Batch()}, options).ValueOrDie();
}

void BM_WriteStream(benchmark::State& state) {
  const auto compression = static_cast<ipc::Compression>(state.range(0));
  ipc::IpcWriteOptions options;
  options.compression = compression;
  // Zero-filled so that first-touch page faults stay out of the timing (as for memcpy).
  FixedSink sink(AllocateBuffer(BatchBytes() + (64 << 20), /*zero_fill=*/true).ValueOrDie());
  for (auto _ : state) {
    sink.Reset();
    auto writer = ipc::StreamWriter::Open(&sink, Batch()->schema(), options).ValueOrDie();
    writer->WriteBatch(*Batch()).Abort();
    writer->Close().Abort();
    benchmark::DoNotOptimize(sink.pos());
  }
  Report(state);
}

void BM_ReadStream(benchmark::State& state) {
  const auto compression = static_cast<ipc::Compression>(state.range(0));
  const bool validate = state.range(1) != 0;
  auto data = Serialized(compression);
  ipc::IpcReadOptions options;
  options.validate_full = validate;
  for (auto _ : state) {
    auto reader = ipc::StreamReader::Open(data, options).ValueOrDie();
    auto batches = reader->ReadAll().ValueOrDie();
    benchmark::DoNotOptimize(batches.data());
  }
  Report(state);
}

BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WriteStream)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadStream)->Args({0, 0})->Args({0, 1})->Unit(benchmark::kMillisecond)->UseRealTime();
// Compressed: zstd level 1 and lz4 over random-ish data (mostly incompressible floats).
BENCHMARK(BM_WriteStream)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_ReadStream)->Args({1, 0})->Args({2, 0})->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace

