// The dataset's C functions: open / close, metadata, schema, fragments, take.
#include <fmt/format.h>

#include "capi/c_args.h"
#include "capi/dataset_handle.h"
#include "capi/error.h"
#include "capi/projection.h"
#include "lance/columnar/c_bridge.h"
#include "lance/columnar/compute.h"
#include "lance/lance.h"

namespace lance::capi {
namespace {

// A count-returning accessor: 0 with "dataset is NULL", else `get(dataset)` (its error sets
// the thread's error and gives 0; success clears it).
template <typename F>
uint64_t Count(const LanceDataset* dataset, F&& get) {
  return Guard<uint64_t>(0, [&]() -> uint64_t {
    if (dataset == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "dataset is NULL");
      return 0;
    }
    Result<uint64_t> r = get(*dataset);
    if (!r.ok()) {
      SetError(r.status());
      return 0;
    }
    ClearError();
    return *r;
  });
}

// Take by positions (`by_row_id` false) or row ids, as a one-batch stream in `out`.
Status TakeInto(const LanceDataset* dataset, const uint64_t* ids, size_t n,
                const char* const* columns, bool by_row_id, ArrowArrayStream* out) {
  LANCE_ASSIGN_OR_RAISE(auto ds, SnapshotOf(dataset));
  LANCE_ASSIGN_OR_RAISE(auto cols, StringList(columns, "columns"));
  const Projection p = MakeProjection(cols, false);
  LANCE_ASSIGN_OR_RAISE(SchemaPtr schema, OutputSchema(ds, p));
  std::vector<uint64_t> list(ids, ids + n);
  const query::Planner planner(ds);
  LANCE_ASSIGN_OR_RAISE(query::Plan plan, by_row_id ? planner.PlanTakeRowIds(std::move(list), p.options)
                                                    : planner.PlanTake(std::move(list), p.options));
  LANCE_ASSIGN_OR_RAISE(auto reader, plan.Execute(query::Planner::ExecOptionsOf(p.options)));
  reader = Apply(p, std::move(reader));
  LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr one, ConcatenateBatches(schema, batches));
  std::vector<RecordBatchPtr> single{one};
  return ExportRecordBatchReader(std::make_unique<VectorRecordBatchReader>(schema, std::move(single)),
                                 out);
}

}  // namespace
}  // namespace lance::capi

using namespace lance::capi;

extern "C" {

LanceDataset* lance_dataset_open(const char* uri, const char* const* storage_opts,
                                 uint64_t version) {
  return RunResult<LanceDataset*>(nullptr, [&]() -> lance::Result<LanceDataset*> {
    LANCE_ASSIGN_OR_RAISE(auto u, OptionalString(uri, "uri"));
    if (!u) return Invalid("uri must not be NULL");
    LANCE_ASSIGN_OR_RAISE(auto opts, StorageOptions(storage_opts));
    (void)opts;  // the local and memory stores take no options
    return OpenHandle(*u, version);
  });
}

void lance_dataset_close(LanceDataset* dataset) {
  Guard<int>(0, [&] {
    delete dataset;
    return 0;
  });
}

uint64_t lance_dataset_version(const LanceDataset* dataset) {
  return Guard<uint64_t>(0, [&]() -> uint64_t {
    if (dataset == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "dataset is NULL");
      return 0;
    }
    return dataset->Snapshot()->version();  // as lance-c: a success leaves the error alone
  });
}

uint64_t lance_dataset_count_rows(const LanceDataset* dataset) {
  return Count(dataset, [](const LanceDataset& d) -> lance::Result<uint64_t> {
    return d.Snapshot()->CountRows();
  });
}

uint64_t lance_dataset_latest_version(const LanceDataset* dataset) {
  return Count(dataset, [](const LanceDataset& d) -> lance::Result<uint64_t> {
    return d.ds->LatestVersion();
  });
}

int32_t lance_dataset_schema(const LanceDataset* dataset, struct ArrowSchema* out) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr || out == nullptr) return Invalid("dataset and out must not be NULL");
    return lance::ExportSchema(*dataset->Snapshot()->schema(), out);
  });
}

uint64_t lance_dataset_fragment_count(const LanceDataset* dataset) {
  return Count(dataset, [](const LanceDataset& d) -> lance::Result<uint64_t> {
    return static_cast<uint64_t>(d.Snapshot()->manifest().fragments.size());
  });
}

int32_t lance_dataset_fragment_ids(const LanceDataset* dataset, uint64_t* out_ids) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr || out_ids == nullptr) {
      return Invalid("dataset and out_ids must not be NULL");
    }
    const auto ds = dataset->Snapshot();
    size_t i = 0;
    for (const auto& f : ds->manifest().fragments) out_ids[i++] = f.id;
    return lance::Status::OK();
  });
}

int32_t lance_dataset_take(const LanceDataset* dataset, const uint64_t* indices, size_t num_indices,
                           const char* const* columns, struct ArrowArrayStream* out) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr || indices == nullptr || out == nullptr) {
      return Invalid("dataset, indices, and out must not be NULL");
    }
    return TakeInto(dataset, indices, num_indices, columns, false, out);
  });
}

int32_t lance_dataset_take_rows(const LanceDataset* dataset, const uint64_t* row_ids,
                                size_t num_row_ids, const char* const* columns,
                                struct ArrowArrayStream* out) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    if (out == nullptr) return Invalid("out must not be NULL");
    if (num_row_ids > 0 && row_ids == nullptr) {
      return Invalid(fmt::format("row_ids must not be NULL when num_row_ids = {}", num_row_ids));
    }
    static const uint64_t kNone = 0;
    return TakeInto(dataset, num_row_ids == 0 ? &kNone : row_ids, num_row_ids, columns, true, out);
  });
}

}  // extern "C"
