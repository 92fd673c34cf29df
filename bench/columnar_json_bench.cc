// Throughput of the columnar layer's hot paths: canonical JSON-lines writing (the CLI's output
// path), JSON-lines reading, ValidateFull and Concatenate, on a mixed-type batch.
#include <benchmark/benchmark.h>

#include <random>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"

namespace {

using namespace lance;

RecordBatchPtr MixedBatch(int64_t rows) {
  auto s = schema({field("id", int64(), false), field("x", float64()), field("f", float32()),
                   field("name", utf8()), field("tags", list(int32()))});
  std::mt19937_64 rng(1);
  Int64Builder id(int64());
  DoubleBuilder x(float64());
  FloatBuilder f(float32());
  StringBuilder name(utf8());
  auto tags_child = std::make_unique<Int32Builder>(int32());
  auto* tag = tags_child.get();
  ListBuilder tags(list(int32()), std::move(tags_child));
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  for (int64_t i = 0; i < rows; ++i) {
    (void)id.Append(static_cast<int64_t>(rng()));
    (void)x.Append(u(rng));
    (void)f.Append(static_cast<float>(u(rng)));
    (void)name.Append(fmt::format("name-{}-\"q\"", i));
    (void)tags.Append();
    for (int k = 0; k < static_cast<int>(i % 4); ++k) (void)tag->Append(static_cast<int32_t>(k));
  }
  return *RecordBatch::Make(s, rows, {*id.Finish(), *x.Finish(), *f.Finish(), *name.Finish(),
                                      *tags.Finish()});
}

void BM_AppendJsonLines(benchmark::State& state) {
  auto batch = MixedBatch(state.range(0));
  std::string out;
  for (auto _ : state) {
    out.clear();
    (void)AppendJsonLines(*batch, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * batch->num_rows());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(out.size()));
}
BENCHMARK(BM_AppendJsonLines)->Arg(100000);

void BM_ReadJsonLines(benchmark::State& state) {
  auto batch = MixedBatch(state.range(0));
  std::string text;
  (void)AppendJsonLines(*batch, &text);
  for (auto _ : state) {
    auto back = ReadJsonLines(text, batch->schema());
    benchmark::DoNotOptimize(back);
  }
  state.SetItemsProcessed(state.iterations() * batch->num_rows());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ReadJsonLines)->Arg(100000);

void BM_ValidateFull(benchmark::State& state) {
  auto batch = MixedBatch(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(batch->ValidateFull());
  state.SetItemsProcessed(state.iterations() * batch->num_rows());
}
BENCHMARK(BM_ValidateFull)->Arg(100000);

void BM_Concatenate(benchmark::State& state) {
  auto batch = MixedBatch(state.range(0));
  const auto& col = batch->column(4);
  const int64_t half = batch->num_rows() / 2;
  for (auto _ : state) {
    auto r = Concatenate({col->Slice(1, half), col->Slice(half, half)});
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * batch->num_rows());
}
BENCHMARK(BM_Concatenate)->Arg(100000);

}  // namespace
