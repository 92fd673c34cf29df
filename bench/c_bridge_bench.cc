// C Data Interface bridge benchmarks: export + import of a record batch through the C structs.
// Both directions are zero-copy, so the cost should depend on the number of columns and
// nesting, not on the number of rows (only validity bitmaps are scanned, to count nulls).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "lance/columnar/builder.h"
#include "lance/columnar/c_bridge.h"

namespace lance {
namespace {

void Check(const Status& st) {
  if (!st.ok()) st.Abort("c_bridge_bench");
}

// Eight columns of `rows` rows: ints (with nulls), doubles, strings, a list and a struct.
RecordBatchPtr MakeBatch(int64_t rows) {
  Int64Builder ids(int64());
  Int64Builder sparse(int64());
  DoubleBuilder doubles(float64());
  BinaryBuilder names(utf8());
  for (int64_t i = 0; i < rows; ++i) {
    Check(ids.Append(i));
    Check(i % 7 == 0 ? sparse.AppendNull() : sparse.Append(i));
    Check(doubles.Append(static_cast<double>(i) * 0.5));
    Check(names.Append("name-" + std::to_string(i % 1000)));
  }
  auto id_array = ids.Finish().ValueOrDie();
  auto sparse_array = sparse.Finish().ValueOrDie();
  auto double_array = doubles.Finish().ValueOrDie();
  auto name_array = names.Finish().ValueOrDie();
  // list<int64>: one element per row, sharing the ids as values.
  BufferBuilder offsets;
  for (int64_t i = 0; i <= rows; ++i) Check(offsets.AppendValue(static_cast<int32_t>(i)));
  auto list_array =
      Array::Make(list(int64()), rows, {nullptr, offsets.Finish().ValueOrDie()}, {id_array});
  auto st = struct_({field("a", int64()), field("b", utf8())});
  auto struct_array = Array::Make(st, rows, {nullptr}, {sparse_array, name_array});
  auto s = schema({field("id", int64()), field("sparse", int64()), field("d", float64()),
                   field("name", utf8()), field("l", list(int64())), field("st", st),
                   field("id2", int64()), field("name2", utf8())});
  return RecordBatch::Make(s, rows, {id_array, sparse_array, double_array, name_array, list_array,
                                     struct_array, id_array, name_array})
      .ValueOrDie();
}

void BM_RecordBatchRoundTrip(benchmark::State& state) {
  const auto batch = MakeBatch(state.range(0));
  for (auto _ : state) {
    ArrowArray c_array;
    ArrowSchema c_schema;
    Check(ExportRecordBatch(*batch, &c_array, &c_schema));
    auto back = ImportRecordBatch(&c_array, &c_schema);
    benchmark::DoNotOptimize(back);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_RecordBatchRoundTrip)->Arg(1 << 10)->Arg(1 << 20);

void BM_ArrayRoundTripKnownType(benchmark::State& state) {
  const auto batch = MakeBatch(state.range(0));
  const auto& column = batch->column(3);  // utf8, no nulls
  for (auto _ : state) {
    ArrowArray c_array;
    Check(ExportArray(column, &c_array));
    auto back = ImportArray(&c_array, utf8());
    benchmark::DoNotOptimize(back);
  }
}
BENCHMARK(BM_ArrayRoundTripKnownType)->Arg(1 << 10)->Arg(1 << 20);

}  // namespace
}  // namespace lance
