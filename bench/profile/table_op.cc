// lance_table_profile: one table mutation of bench/table_bench.cc in a process of its own, for
// profilers (callgrind, perf). With valgrind's headers present, callgrind's instrumentation is
// switched on around the operation only (run with --instr-atstart=no), so the counts exclude
// reading the input and process start.
//
//   lance_table_profile delete       TABLE                 (id % 100 = 7)
//   lance_table_profile update       TABLE                 (SET score = score + 1 WHERE id % 100 = 7)
//   lance_table_profile append       TABLE INPUT.arrow
//   lance_table_profile merge-insert TABLE INPUT.arrow     (on id, update all, insert all)
//   add --no-sync to commit without flushing (table::CommitOptions::sync = false)
//   add --repeat N to run it N times in this process, each on a fresh copy TABLE.rep of TABLE
//   (data files hard-linked, the rest copied; untimed), and print the median wall and CPU
//   time: the warm-process figure the bench measures, for `perf record` / `perf stat`
//   With LANCE_PERF_CTL=CTL and LANCE_PERF_ACK=ACK (the fifos of `perf record
//   --control=fifo:CTL,ACK -D -1`), perf is enabled around each operation only (each command
//   waits for perf's ack), so its samples leave out the copies and the start.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define CALLGRIND_START() CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP() CALLGRIND_STOP_INSTRUMENTATION
#else
#define CALLGRIND_START()
#define CALLGRIND_STOP()
#endif

#include "lance/columnar/record_batch_reader.h"
#include "lance/dataset/dataset.h"
#include "lance/io/object_store.h"
#include "lance/ipc/reader.h"
#include "lance/table/write.h"
#include "../process_cpu.h"
#include "../copy_table.h"

namespace {

using namespace lance;

struct Input {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
};

Result<Input> ReadArrow(const std::string& path) {
  LANCE_ASSIGN_OR_RAISE(auto where, io::ObjectStore::FromUri(path));
  LANCE_ASSIGN_OR_RAISE(auto bytes, where.store->Get(where.path));
  LANCE_ASSIGN_OR_RAISE(auto reader, ipc::FileReader::Open(bytes));
  Input in;
  in.schema = reader->schema();
  LANCE_ASSIGN_OR_RAISE(in.batches, reader->ReadAll());
  return in;
}

namespace fs = std::filesystem;

// perf's control and ack fifos (LANCE_PERF_CTL, LANCE_PERF_ACK), opened once; -1 without.
int OpenFifo(const char* var, int flags) {
  const char* path = std::getenv(var);
  return path != nullptr && *path != 0 ? ::open(path, flags) : -1;
}
void PerfCommand(const char* cmd) {
  static const int ctl = OpenFifo("LANCE_PERF_CTL", O_WRONLY);
  static const int ack = OpenFifo("LANCE_PERF_ACK", O_RDONLY);
  if (ctl < 0) return;
  if (::write(ctl, cmd, std::strlen(cmd)) < 0) perror("LANCE_PERF_CTL");
  char reply[8];
  if (ack >= 0 && ::read(ack, reply, sizeof reply) < 0) perror("LANCE_PERF_ACK");
}
void ProfileStart() {
  PerfCommand("enable\n");
  CALLGRIND_START();
}
void ProfileStop() {
  CALLGRIND_STOP();
  PerfCommand("disable\n");
}

using lance::bench::CopyTable;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

Result<double> Run(const std::string& op, const std::string& table, const Input& in, bool sync, double* cpu_ms) {
  dataset::OpenOptions oo;
  oo.sync_commits = sync;
  const double cpu0 = bench::ProcessCpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  ProfileStart();
  Status st = [&]() -> Status {
    LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(table, oo));
    if (op == "delete") {
      LANCE_ASSIGN_OR_RAISE(auto r, ds->Delete("id % 100 = 7"));
      if (r.num_deleted_rows == 0) return Status::Internal("deleted no row");
    } else if (op == "update") {
      LANCE_ASSIGN_OR_RAISE(auto r, ds->Update({{"score", "score + 1"}}, "id % 100 = 7"));
      if (r.rows_updated == 0) return Status::Internal("updated no row");
    } else if (op == "append") {
      VectorRecordBatchReader reader(in.schema, in.batches);
      table::WriteParams p;
      p.mode = table::WriteMode::kAppend;
      LANCE_ASSIGN_OR_RAISE(auto r, ds->Append(reader, p));
      if (r.rows_written == 0) return Status::Internal("appended no row");
    } else if (op == "merge-insert") {
      VectorRecordBatchReader reader(in.schema, in.batches);
      dataset::MergeInsertParams p;
      p.on = {"id"};
      LANCE_ASSIGN_OR_RAISE(auto r, ds->MergeInsert(reader, p));
      if (r.rows_updated + r.rows_inserted == 0) return Status::Internal("merged no row");
    } else {
      return Status::InvalidArgument("unknown operation '{}'", op);
    }
    return Status::OK();
  }();
  ProfileStop();
  *cpu_ms = (bench::ProcessCpuSeconds() - cpu0) * 1e3;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!st.ok()) return st;
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  bool sync = true;
  int repeat = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-sync") == 0) {
      sync = false;
    } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else {
      args.emplace_back(argv[i]);
    }
  }
  if (args.size() < 2) {
    fprintf(stderr, "usage: lance_table_profile delete|update|append|merge-insert TABLE [INPUT.arrow] "
                    "[--no-sync] [--repeat N]\n");
    return 2;
  }
  const std::string& op = args[0];
  Input in;
  if (op == "append" || op == "merge-insert") {
    auto read = ReadArrow(args.size() > 2 ? args[2] : "");
    if (!read.ok()) {
      fprintf(stderr, "lance_table_profile: %s\n", read.status().ToString().c_str());
      return 1;
    }
    in = std::move(*read);
  }
  std::vector<double> wall, cpu;
  for (int k = 0; k < std::max(1, repeat); ++k) {
    std::string table = args[1];
    if (repeat > 0) {
      table += ".rep";
      CopyTable(args[1], table);
    }
    double cpu_ms = 0;
    Result<double> ms = Run(op, table, in, sync, &cpu_ms);
    if (!ms.ok()) {
      fprintf(stderr, "lance_table_profile: %s\n", ms.status().ToString().c_str());
      return 1;
    }
    wall.push_back(*ms);
    cpu.push_back(cpu_ms);
  }
  if (repeat > 0) fs::remove_all(args[1] + ".rep");
  fprintf(stderr, "%s%s: %.3f ms wall, %.3f ms CPU (median of %zu)\n", op.c_str(), sync ? "" : " --no-sync",
          Median(wall), Median(cpu), wall.size());
  return 0;
}
