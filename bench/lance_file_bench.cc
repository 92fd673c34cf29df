// Lance data file read benchmarks (issue 3, item 6): our FileReader on a data file written by
// the reference implementation (bench/run_lance_file_bench.sh makes one and runs both sides).
//
// Registered only when the environment names the inputs:
//   LANCE_FILE=/path/to/data/xxx.lance      the data file (any local path)
//   LANCE_FILE_WORKLOAD=/path/workload.json  optional: the generator's workload; its
//                                            `takeOffsets` (sets of row offsets) drive the
//                                            take benchmarks (without it: 10 fixed sets)
//   LANCE_FILE_TAKE_FIELDS=a,b               optional: also BM_LanceFileTake/<field> and
//                                            /<field>_10rows for each (e.g. list columns of
//                                            bench/lance_file_list_peer.mjs's files)
// Run e.g. LANCE_FILE=... lance_bench --benchmark_filter=LanceFile
//
// Benchmarks (rows/s are `items_per_second`):
//   BM_LanceFileScan/<column>, /all   ReadAll of one column / every column through a local
//                                      object store (page buffers read ranged, page cache
//                                      warm); bytes_per_second = Arrow output bytes, file_Bps =
//                                      data file bytes fetched per second.
//   BM_LanceFileDecode/<column>, /all  the same from the file already in memory: decode only.
//   BM_LanceFileMemcpy                 memcpy of the whole file: the bandwidth ceiling.
//   BM_LanceFileTake/all, /id_score    one Take of a set of offsets per iteration, cycling over
//                                      the sets (/id_score_10rows: the first 10 of each set;
//                                      /all_field_by_field: one Take per field in turn, as the
//                                      table layer calls it);
//                                      counters: median_us over the calls, and per take the
//                                      bytes and backend reads fetched from the store (counted
//                                      by a wrapping store), bytes per row, ranges requested,
//                                      and the CPU time of all threads per take.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lance/file/file_reader.h"
#include "lance/io/object_store.h"
#include "process_cpu.h"

namespace lance::file {
namespace {

// Forwards everything to `base_`, counting what the reads asked for and what they fetched.
class CountingObjectStore : public io::ObjectStore {
 public:
  explicit CountingObjectStore(std::shared_ptr<io::ObjectStore> base) : base_(std::move(base)) {
    set_coalesce_options(base_->coalesce_options());
    set_io_pool(base_->io_pool());
  }

  void Reset() {
    fetched_bytes_ = 0;
    fetch_calls_ = 0;
    requested_bytes_ = 0;
    requested_ranges_ = 0;
  }
  int64_t fetched_bytes() const { return fetched_bytes_; }
  int64_t fetch_calls() const { return fetch_calls_; }
  int64_t requested_bytes() const { return requested_bytes_; }
  int64_t requested_ranges() const { return requested_ranges_; }

  std::string_view scheme() const override { return base_->scheme(); }
  Result<BufferPtr> Get(std::string_view path) override {
    LANCE_ASSIGN_OR_RAISE(BufferPtr b, base_->Get(path));
    Count(b->size());
    return b;
  }
  Result<BufferPtr> GetRange(std::string_view path, int64_t offset, int64_t length) override {
    Count(length);
    return base_->GetRange(path, offset, length);
  }
  Result<std::vector<BufferPtr>> GetRanges(std::string_view path,
                                           const std::vector<io::Range>& ranges) override {
    for (const io::Range& r : ranges) requested_bytes_ += r.length;
    requested_ranges_ += static_cast<int64_t>(ranges.size());
    // The base store's own GetRanges runs (for a local file: one open for all the reads, as
    // in production); the backend reads are counted from the same coalescing plan.
    LANCE_ASSIGN_OR_RAISE(io::CoalescedReads plan,
                          io::CoalesceRanges(ranges, base_->coalesce_options()));
    for (const io::Range& r : plan.reads) Count(r.length);
    return base_->GetRanges(path, ranges);
  }
  Result<io::ObjectMeta> Head(std::string_view path) override { return base_->Head(path); }
  Status Put(std::string_view path, std::string_view bytes) override {
    return base_->Put(path, bytes);
  }
  Status PutIfNotExists(std::string_view path, std::string_view bytes) override {
    return base_->PutIfNotExists(path, bytes);
  }
  Status Delete(std::string_view path) override { return base_->Delete(path); }
  Result<std::vector<io::ObjectMeta>> List(std::string_view prefix) override {
    return base_->List(prefix);
  }
  Result<io::ListResult> ListDir(std::string_view prefix) override {
    return base_->ListDir(prefix);
  }
  Status Copy(std::string_view src, std::string_view dst) override {
    return base_->Copy(src, dst);
  }
  Status CopyIfNotExists(std::string_view src, std::string_view dst) override {
    return base_->CopyIfNotExists(src, dst);
  }
  Status RenameIfNotExists(std::string_view src, std::string_view dst) override {
    return base_->RenameIfNotExists(src, dst);
  }
  Result<std::unique_ptr<io::ObjectWriter>> OpenWriter(std::string_view path,
                                                       bool overwrite) override {
    return base_->OpenWriter(path, overwrite);
  }

 private:
  void Count(int64_t n) {
    fetched_bytes_ += n;
    fetch_calls_ += 1;
  }
  std::shared_ptr<io::ObjectStore> base_;
  std::atomic<int64_t> fetched_bytes_{0};
  std::atomic<int64_t> fetch_calls_{0};
  std::atomic<int64_t> requested_bytes_{0};
  std::atomic<int64_t> requested_ranges_{0};
};

struct Inputs {
  std::string uri;
  std::shared_ptr<CountingObjectStore> store;
  std::string path;
  int64_t file_size = 0;
  std::unique_ptr<FileReader> reader;          // ranged reads through `store`
  std::unique_ptr<FileReader> memory_reader;   // over the whole file in memory
  BufferPtr file_bytes;
  std::vector<std::vector<int64_t>> take_sets;
};

Inputs* g_inputs = nullptr;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "lance_file_bench: %s\n", what.c_str());
  std::exit(1);
}

// Arrow bytes an array's result occupies (the logical slice, buffers as allocated).
int64_t ArrowBytes(const Array& a) {
  int64_t n = 0;
  for (const BufferPtr& b : a.buffers) {
    if (b) n += b->size();
  }
  for (const ArrayPtr& c : a.children) n += ArrowBytes(*c);
  if (a.dictionary) n += ArrowBytes(*a.dictionary);
  return n;
}

int64_t ArrowBytes(const RecordBatch& batch) {
  int64_t n = 0;
  for (const ArrayPtr& c : batch.columns()) n += ArrowBytes(*c);
  return n;
}

std::vector<int> FieldsOf(const std::string& which) {
  const Schema& schema = *g_inputs->reader->schema();
  if (which == "all") return {};
  std::vector<int> out;
  size_t start = 0;
  while (start <= which.size()) {
    size_t comma = which.find(',', start);
    if (comma == std::string::npos) comma = which.size();
    const std::string name = which.substr(start, comma - start);
    int idx = -1;
    for (int i = 0; i < schema.num_fields(); ++i) {
      if (schema.field(i)->name() == name) idx = i;
    }
    if (idx < 0) Die("no field '" + name + "' in " + g_inputs->uri);
    out.push_back(idx);
    start = comma + 1;
  }
  return out;
}

void ScanBench(benchmark::State& state, const std::string& which, bool from_memory) {
  const FileReader& reader = from_memory ? *g_inputs->memory_reader : *g_inputs->reader;
  const std::vector<int> fields = FieldsOf(which);
  int64_t out_bytes = 0;
  g_inputs->store->Reset();
  for (auto _ : state) {
    Result<RecordBatchPtr> batch = reader.ReadAll(fields);
    if (!batch.ok()) {
      state.SkipWithError(batch.status().ToString().c_str());
      return;
    }
    if ((*batch)->num_rows() != reader.num_rows()) {
      state.SkipWithError("scan returned the wrong number of rows");
      return;
    }
    out_bytes = ArrowBytes(**batch);
    benchmark::DoNotOptimize(batch);
  }
  const double iters = static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations() * reader.num_rows());
  state.SetBytesProcessed(state.iterations() * out_bytes);  // Arrow output
  state.counters["out_bytes"] = static_cast<double>(out_bytes);
  if (!from_memory) {
    state.counters["file_bytes_read"] =
        static_cast<double>(g_inputs->store->fetched_bytes()) / iters;
    // Bytes of the data file this scan fetched per second.
    state.counters["file_Bps"] = benchmark::Counter(
        static_cast<double>(g_inputs->store->fetched_bytes()), benchmark::Counter::kIsRate);
  }
}

void MemcpyBench(benchmark::State& state) {
  const BufferPtr& src = g_inputs->file_bytes;
  std::vector<uint8_t> dst(static_cast<size_t>(src->size()));
  for (auto _ : state) {
    std::memcpy(dst.data(), src->data(), dst.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * src->size());
}

// `limit` > 0 keeps only the first `limit` offsets of each set (a sparse take: shows the bytes
// fetched per row when rows rarely share a chunk).
void TakeBench(benchmark::State& state, const std::string& which, size_t limit,
               bool field_by_field = false) {
  const FileReader& reader = *g_inputs->reader;
  const std::vector<int> fields = FieldsOf(which);
  std::vector<int> every_field = fields;
  if (every_field.empty()) {
    for (int i = 0; i < reader.schema()->num_fields(); ++i) every_field.push_back(i);
  }
  std::vector<std::vector<int64_t>> sets = g_inputs->take_sets;
  if (limit > 0) {
    for (auto& set : sets) set.resize(std::min(set.size(), limit));
  }
  // Check each set once: ids equal row offsets in the generated data, in request order.
  const int id_field = FieldsOf("id")[0];
  for (const auto& set : sets) {
    auto batch = reader.Take(set, {id_field});
    if (!batch.ok()) {
      state.SkipWithError(batch.status().ToString().c_str());
      return;
    }
    const int64_t* ids = (*batch)->column(0)->Values<int64_t>();
    for (size_t i = 0; i < set.size(); ++i) {
      if (ids[i] != set[i]) {
        state.SkipWithError("take returned the wrong rows");
        return;
      }
    }
  }
  std::vector<double> us;
  int64_t rows = 0;
  size_t next = 0;
  g_inputs->store->Reset();
  // CPU of every thread of the process (the reads run on the io pool, fields in parallel):
  // on a shared machine the wall time mostly measures waiting for a core.
  auto process_cpu_us = [] { return lance::bench::ProcessCpuSeconds() * 1e6; };
  const double cpu_start = process_cpu_us();
  for (auto _ : state) {
    const auto& set = sets[next];
    next = (next + 1) % sets.size();
    const auto t0 = std::chrono::steady_clock::now();
    Result<RecordBatchPtr> batch = Status::Internal("no field");
    if (field_by_field) {
      // One Take per field, one after another: what the table layer does.
      for (int f : every_field) {
        batch = reader.Take(set, {f});
        if (!batch.ok()) break;
      }
    } else {
      batch = reader.Take(set, fields);
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (!batch.ok()) {
      state.SkipWithError(batch.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(batch);
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    rows += static_cast<int64_t>(set.size());
  }
  std::sort(us.begin(), us.end());
  const size_t n = us.size();
  const double median = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
  const double takes = static_cast<double>(state.iterations());
  auto& store = *g_inputs->store;
  state.SetItemsProcessed(rows);
  state.counters["median_us"] = median;
  state.counters["process_cpu_us_per_take"] =
      (process_cpu_us() - cpu_start) / static_cast<double>(state.iterations());
  state.counters["rows_per_take"] = static_cast<double>(rows) / takes;
  state.counters["bytes_per_take"] = static_cast<double>(store.fetched_bytes()) / takes;
  state.counters["bytes_per_row"] = static_cast<double>(store.fetched_bytes()) / rows;
  state.counters["reads_per_take"] = static_cast<double>(store.fetch_calls()) / takes;
  state.counters["ranges_per_take"] = static_cast<double>(store.requested_ranges()) / takes;
  state.counters["requested_bytes_per_take"] =
      static_cast<double>(store.requested_bytes()) / takes;
}

std::vector<std::vector<int64_t>> LoadTakeSets(const char* workload, int64_t num_rows) {
  std::vector<std::vector<int64_t>> sets;
  if (workload != nullptr && *workload != '\0') {
    std::ifstream in(workload);
    if (!in) Die(std::string("cannot open LANCE_FILE_WORKLOAD=") + workload);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.contains("takeOffsets") || !j["takeOffsets"].is_array()) {
      Die(std::string(workload) + ": expected a JSON object with a `takeOffsets` array");
    }
    for (const auto& s : j["takeOffsets"]) {
      std::vector<int64_t> set;
      for (const auto& v : s) {
        if (!v.is_number_integer()) Die(std::string(workload) + ": non-integer take offset");
        set.push_back(v.get<int64_t>());
      }
      sets.push_back(std::move(set));
    }
  } else {
    // 10 sets of 1000 offsets spread by a multiplicative hash (distinct when num_rows > 1000).
    for (uint64_t s = 0; s < 10; ++s) {
      std::vector<int64_t> set;
      for (uint64_t i = 0; i < 1000; ++i) {
        const uint64_t h = (i + s * 1000) * 0x9E3779B97F4A7C15ULL;
        set.push_back(static_cast<int64_t>(h % static_cast<uint64_t>(num_rows)));
      }
      sets.push_back(std::move(set));
    }
  }
  for (const auto& set : sets) {
    for (int64_t r : set) {
      if (r < 0 || r >= num_rows) Die("take offset out of range of the file");
    }
  }
  if (sets.empty()) Die("no take sets");
  return sets;
}

void RegisterLanceFileBenchmarks() {
  const char* file = std::getenv("LANCE_FILE");
  if (file == nullptr || *file == '\0') return;
  auto inputs = std::make_unique<Inputs>();
  inputs->uri = file;
  auto sp = io::ObjectStore::FromUri(file);
  if (!sp.ok()) Die(sp.status().ToString());
  inputs->store = std::make_shared<CountingObjectStore>(sp->store);
  inputs->path = sp->path;
  auto reader = FileReader::Open(inputs->store, inputs->path);
  if (!reader.ok()) Die(reader.status().ToString());
  inputs->reader = std::move(*reader);
  auto bytes = sp->store->Get(sp->path);
  if (!bytes.ok()) Die(bytes.status().ToString());
  // Own a private copy so the in-memory reader never touches the page cache mapping.
  auto copy = AllocateBuffer((*bytes)->size());
  if (!copy.ok()) Die(copy.status().ToString());
  std::memcpy((*copy)->mutable_data(), (*bytes)->data(), static_cast<size_t>((*bytes)->size()));
  inputs->file_bytes = *copy;
  inputs->file_size = (*copy)->size();
  auto mem_reader = FileReader::Open(inputs->file_bytes);
  if (!mem_reader.ok()) Die(mem_reader.status().ToString());
  inputs->memory_reader = std::move(*mem_reader);
  inputs->take_sets =
      LoadTakeSets(std::getenv("LANCE_FILE_WORKLOAD"), inputs->reader->num_rows());
  g_inputs = inputs.release();

  std::fprintf(stderr, "lance_file_bench: %s: format %s, %lld rows, %lld bytes\n", file,
               g_inputs->reader->version().ToString().c_str(),
               static_cast<long long>(g_inputs->reader->num_rows()),
               static_cast<long long>(g_inputs->file_size));
  const Schema& schema = *g_inputs->reader->schema();
  std::vector<std::string> names;
  for (int i = 0; i < schema.num_fields(); ++i) names.push_back(schema.field(i)->name());
  // Page encodings (first page of each column), for the record.
  for (int c = 0; c < g_inputs->reader->num_columns(); ++c) {
    const auto& pages = g_inputs->reader->columns()[static_cast<size_t>(c)].pages;
    std::fprintf(stderr, "  column %d: %zu pages, first: %s\n", c, pages.size(),
                 pages.empty() ? "-" : pages[0].description.c_str());
  }

  for (const std::string& n : names) {
    benchmark::RegisterBenchmark(("BM_LanceFileScan/" + n).c_str(),
                                 [n](benchmark::State& s) { ScanBench(s, n, false); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("BM_LanceFileScan/all",
                               [](benchmark::State& s) { ScanBench(s, "all", false); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  for (const std::string& n : names) {
    benchmark::RegisterBenchmark(("BM_LanceFileDecode/" + n).c_str(),
                                 [n](benchmark::State& s) { ScanBench(s, n, true); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("BM_LanceFileDecode/all",
                               [](benchmark::State& s) { ScanBench(s, "all", true); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_LanceFileMemcpy", MemcpyBench)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_LanceFileTake/all",
                               [](benchmark::State& s) { TakeBench(s, "all", 0); })
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_LanceFileTake/all_field_by_field",
                               [](benchmark::State& s) { TakeBench(s, "all", 0, true); })
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
  if (const char* take_fields = std::getenv("LANCE_FILE_TAKE_FIELDS")) {
    for (const std::string& n : names) {
      if (("," + std::string(take_fields) + ",").find("," + n + ",") == std::string::npos) continue;
      benchmark::RegisterBenchmark(("BM_LanceFileTake/" + n).c_str(),
                                   [n](benchmark::State& s) { TakeBench(s, n, 0); })
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("BM_LanceFileTake/" + n + "_10rows").c_str(),
                                   [n](benchmark::State& s) { TakeBench(s, n, 10); })
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
  if (std::find(names.begin(), names.end(), "score") != names.end()) {
    benchmark::RegisterBenchmark("BM_LanceFileTake/id_score",
                                 [](benchmark::State& s) { TakeBench(s, "id,score", 0); })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark("BM_LanceFileTake/id_score_10rows",
                                 [](benchmark::State& s) { TakeBench(s, "id,score", 10); })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
}

const bool g_registered = (RegisterLanceFileBenchmarks(), true);

}  // namespace
}  // namespace lance::file
