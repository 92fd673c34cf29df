// Writing datasets from Arrow C streams: create / append / overwrite with a commit, and data
// files without one.
#include <fmt/format.h>

#include <climits>
#include <map>
#include <set>

#include "capi/c_args.h"
#include "capi/dataset_handle.h"
#include "capi/error.h"
#include "capi/stream_input.h"
#include "lance/columnar/c_bridge.h"
#include "lance/lance.h"
#include "lance/table/write.h"

namespace lance::capi {
namespace {

Result<table::WriteMode> ModeOf(int32_t mode) {
  switch (mode) {
    case LANCE_WRITE_CREATE: return table::WriteMode::kCreate;
    case LANCE_WRITE_APPEND: return table::WriteMode::kAppend;
    case LANCE_WRITE_OVERWRITE: return table::WriteMode::kOverwrite;
    default:
      return Invalid(fmt::format("invalid write mode {}; expected 0 (create), 1 (append), or 2 "
                                 "(overwrite)",
                                 mode));
  }
}

// lance's file version names, as lance-cpp writes them ("stable" is lance 12's default, 2.2).
Result<std::string> StorageVersion(const char* text) {
  LANCE_ASSIGN_OR_RAISE(auto v, OptionalString(text, "data_storage_version"));
  if (v->empty()) return Invalid("data_storage_version must not be an empty string");
  if (*v == "2.1" || *v == "2.2") return *v;
  if (*v == "stable") return std::string("2.2");
  static const std::set<std::string> kUnwritable = {"legacy", "0.1", "0.3", "2.0", "next"};
  if (kUnwritable.count(*v)) {
    return Status::NotSupported("data_storage_version \"{}\": lance-cpp writes 2.1 and 2.2 only", *v);
  }
  return Invalid(fmt::format("invalid data_storage_version \"{}\": expected 2.1, 2.2, stable (or "
                             "legacy, 2.0, next, which lance-cpp cannot write)",
                             *v));
}

// The lance-c writer's policy for the datasets it creates (lance 12's AutoCleanupParams as
// lance-c pins them: every 20 versions, versions older than 14 days).
const std::map<std::string, std::string>& AutoCleanupConfig() {
  static const std::map<std::string, std::string> kConfig = {
      {"lance.auto_cleanup.interval", "20"}, {"lance.auto_cleanup.older_than", "14days"}};
  return kConfig;
}

Status Write(const char* uri, const ArrowSchema* schema, ArrowArrayStream* stream, int32_t mode,
             const LanceWriteParams* params, const char* const* storage_opts,
             LanceDataset** out_dataset) {
  if (stream == nullptr) return Invalid("stream must not be NULL");
  // From here on the stream is ours, whatever fails next.
  LANCE_ASSIGN_OR_RAISE(auto reader, TakeStream(stream));
  if (uri == nullptr) return Invalid("uri must not be NULL");
  if (schema == nullptr) return Invalid("schema must not be NULL");
  table::WriteParams wp;
  LANCE_ASSIGN_OR_RAISE(wp.mode, ModeOf(mode));
  LANCE_ASSIGN_OR_RAISE(auto u, OptionalString(uri, "uri"));
  if (u->empty()) return Invalid("uri must not be empty");
  auto declared = ReadSchema(schema);
  if (!declared.ok()) return Invalid(fmt::format("invalid schema: {}", declared.status().message()));
  LANCE_ASSIGN_OR_RAISE(auto opts, StorageOptions(storage_opts));
  (void)opts;
  LANCE_RETURN_NOT_OK(CheckSameFields(**declared, *reader->schema()));
  wp.create_config = AutoCleanupConfig();
  if (params != nullptr) {
    if (params->max_rows_per_file > 0) {
      if (params->max_rows_per_file > static_cast<uint64_t>(INT64_MAX)) {
        return Invalid(fmt::format("max_rows_per_file={} is too large", params->max_rows_per_file));
      }
      wp.max_rows_per_file = static_cast<int64_t>(params->max_rows_per_file);
    }
    if (params->data_storage_version != nullptr) {
      LANCE_ASSIGN_OR_RAISE(wp.data_storage_version, StorageVersion(params->data_storage_version));
    }
    wp.enable_stable_row_ids = params->enable_stable_row_ids;
  }
  LANCE_ASSIGN_OR_RAISE(StreamRows rows, ReadAll(*reader));
  VectorRecordBatchReader input(rows.schema, std::move(rows.batches));
  LANCE_ASSIGN_OR_RAISE(auto written, dataset::Dataset::Write(*u, input, wp));
  if (out_dataset != nullptr) *out_dataset = NewHandle(std::move(written));
  return Status::OK();
}

}  // namespace
}  // namespace lance::capi

using namespace lance::capi;

extern "C" {

int32_t lance_dataset_write(const char* uri, const struct ArrowSchema* schema,
                            struct ArrowArrayStream* stream, int32_t mode,
                            const char* const* storage_opts, LanceDataset** out_dataset) {
  return RunStatus([&] { return Write(uri, schema, stream, mode, nullptr, storage_opts, out_dataset); });
}

int32_t lance_dataset_write_with_params(const char* uri, const struct ArrowSchema* schema,
                                        struct ArrowArrayStream* stream, int32_t mode,
                                        const LanceWriteParams* params,
                                        const char* const* storage_opts,
                                        LanceDataset** out_dataset) {
  return RunStatus([&] { return Write(uri, schema, stream, mode, params, storage_opts, out_dataset); });
}

int32_t lance_write_fragments(const char* uri, const struct ArrowSchema* schema,
                              struct ArrowArrayStream* stream, const char* const* storage_opts) {
  return RunStatus([&]() -> lance::Status {
    // As lance-c: NULL arguments are refused before the stream is taken over.
    if (uri == nullptr || schema == nullptr || stream == nullptr) {
      return Invalid("uri, schema, and stream must not be NULL");
    }
    LANCE_ASSIGN_OR_RAISE(auto u, OptionalString(uri, "uri"));
    auto declared = lance::ReadSchema(schema);
    if (!declared.ok()) {
      // The stream is still the caller's here in lance-c too (its import comes later).
      return Invalid(fmt::format("invalid schema: {}", declared.status().message()));
    }
    LANCE_ASSIGN_OR_RAISE(auto opts, StorageOptions(storage_opts));
    (void)opts;
    LANCE_ASSIGN_OR_RAISE(auto reader, TakeStream(stream));
    LANCE_RETURN_NOT_OK(CheckSameFields(**declared, *reader->schema()));
    LANCE_ASSIGN_OR_RAISE(StreamRows rows, ReadAll(*reader));
    return lance::table::WriteUncommittedFragments(*u, rows.schema, rows.batches).status();
  });
}

}  // extern "C"
