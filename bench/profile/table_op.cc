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
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PROFILE_START() CALLGRIND_START_INSTRUMENTATION
#define PROFILE_STOP() CALLGRIND_STOP_INSTRUMENTATION
#else
#define PROFILE_START()
#define PROFILE_STOP()
#endif

#include "lance/columnar/record_batch_reader.h"
#include "lance/dataset/dataset.h"
#include "lance/io/object_store.h"
#include "lance/ipc/reader.h"
#include "lance/table/write.h"

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

Status Run(const std::string& op, const std::string& table, const std::string& input, bool sync) {
  Input in;
  if (op == "append" || op == "merge-insert") {
    LANCE_ASSIGN_OR_RAISE(in, ReadArrow(input));
  }
  dataset::OpenOptions oo;
  oo.sync_commits = sync;
  const auto t0 = std::chrono::steady_clock::now();
  PROFILE_START();
  Status st = [&]() -> Status {
    LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(table, oo));
    if (op == "delete") {
      LANCE_ASSIGN_OR_RAISE(auto r, ds->Delete("id % 100 = 7"));
      fprintf(stderr, "deleted %llu\n", static_cast<unsigned long long>(r.num_deleted_rows));
    } else if (op == "update") {
      LANCE_ASSIGN_OR_RAISE(auto r, ds->Update({{"score", "score + 1"}}, "id % 100 = 7"));
      fprintf(stderr, "updated %llu\n", static_cast<unsigned long long>(r.rows_updated));
    } else if (op == "append") {
      VectorRecordBatchReader reader(in.schema, in.batches);
      table::WriteParams p;
      p.mode = table::WriteMode::kAppend;
      LANCE_ASSIGN_OR_RAISE(auto r, ds->Append(reader, p));
      fprintf(stderr, "appended %llu\n", static_cast<unsigned long long>(r.rows_written));
    } else if (op == "merge-insert") {
      VectorRecordBatchReader reader(in.schema, in.batches);
      dataset::MergeInsertParams p;
      p.on = {"id"};
      LANCE_ASSIGN_OR_RAISE(auto r, ds->MergeInsert(reader, p));
      fprintf(stderr, "updated %llu inserted %llu\n", static_cast<unsigned long long>(r.rows_updated),
              static_cast<unsigned long long>(r.rows_inserted));
    } else {
      return Status::InvalidArgument("unknown operation '{}'", op);
    }
    return Status::OK();
  }();
  PROFILE_STOP();
  fprintf(stderr, "%s: %.3f ms\n", op.c_str(),
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  return st;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args;
  bool sync = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-sync") == 0) {
      sync = false;
    } else {
      args.emplace_back(argv[i]);
    }
  }
  if (args.size() < 2) {
    fprintf(stderr, "usage: lance_table_profile delete|update|append|merge-insert TABLE [INPUT.arrow] [--no-sync]\n");
    return 2;
  }
  Status st = Run(args[0], args[1], args.size() > 2 ? args[2] : "", sync);
  if (!st.ok()) {
    fprintf(stderr, "lance_table_profile: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
