// The scanner's C functions: building, settings, the synchronous ways of reading (an Arrow C
// stream, or one batch at a time) and batch export.
#include <cstring>

#include "capi/c_args.h"
#include "capi/dataset_handle.h"
#include "capi/error.h"
#include "capi/scanner_handle.h"
#include "lance/columnar/c_bridge.h"
#include "lance/lance.h"

namespace lance::capi {
namespace {

// A setter: -1 with "scanner is NULL", else `set(config)`, clear, 0.
template <typename F>
int32_t Set(LanceScanner* scanner, F&& set) {
  return Guard<int32_t>(-1, [&]() -> int32_t {
    if (scanner == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "scanner is NULL");
      return -1;
    }
    set(scanner->config);
    ClearError();
    return 0;
  });
}

}  // namespace
}  // namespace lance::capi

using namespace lance::capi;

extern "C" {

LanceScanner* lance_scanner_new(const LanceDataset* dataset, const char* const* columns,
                                const char* filter) {
  return RunResult<LanceScanner*>(nullptr, [&]() -> lance::Result<LanceScanner*> {
    LANCE_ASSIGN_OR_RAISE(auto ds, SnapshotOf(dataset));
    LANCE_ASSIGN_OR_RAISE(auto cols, StringList(columns, "columns"));
    LANCE_ASSIGN_OR_RAISE(auto f, OptionalString(filter, "filter"));
    auto s = std::make_unique<LanceScanner>();
    s->config.dataset = std::move(ds);
    s->config.index_cache = dataset->ds->index_cache();
    s->config.columns = std::move(cols);
    s->config.filter = std::move(f);
    return s.release();
  });
}

int32_t lance_scanner_set_limit(LanceScanner* scanner, int64_t limit) {
  return Set(scanner, [&](ScanConfig& c) { c.limit = limit; });
}

int32_t lance_scanner_set_offset(LanceScanner* scanner, int64_t offset) {
  return Set(scanner, [&](ScanConfig& c) { c.offset = offset; });
}

int32_t lance_scanner_set_batch_size(LanceScanner* scanner, int64_t batch_size) {
  return Set(scanner, [&](ScanConfig& c) { c.batch_size = batch_size; });
}

int32_t lance_scanner_with_row_id(LanceScanner* scanner, bool enable) {
  return Set(scanner, [&](ScanConfig& c) { c.with_row_id = enable; });
}

int32_t lance_scanner_set_fragment_ids(LanceScanner* scanner, const uint64_t* ids, size_t len) {
  return Guard<int32_t>(-1, [&]() -> int32_t {
    if (scanner != nullptr && ids == nullptr && len > 0) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "ids is NULL but len > 0");
      return -1;
    }
    return Set(scanner, [&](ScanConfig& c) {
      c.fragment_ids = len == 0 ? std::vector<uint64_t>{} : std::vector<uint64_t>(ids, ids + len);
    });
  });
}

void lance_scanner_close(LanceScanner* scanner) {
  Guard<int>(0, [&] {
    delete scanner;  // joins a pump's thread
    return 0;
  });
}

int32_t lance_scanner_to_arrow_stream(LanceScanner* scanner, struct ArrowArrayStream* out) {
  return RunStatus([&]() -> lance::Status {
    if (scanner == nullptr || out == nullptr) return Invalid("scanner and out must not be NULL");
    LANCE_ASSIGN_OR_RAISE(auto reader, OpenScan(scanner->config));
    return lance::ExportRecordBatchReader(std::move(reader), out);
  });
}

int32_t lance_scanner_next(LanceScanner* scanner, LanceBatch** out) {
  return Guard<int32_t>(-1, [&]() -> int32_t {
    if (scanner == nullptr || out == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "scanner and out must not be NULL");
      return -1;
    }
    *out = nullptr;
    lance::Result<lance::RecordBatchPtr> next = lance::RecordBatchPtr{};
    if (scanner->pump) {
      next = scanner->pump->Next();
    } else {
      if (!scanner->reader) {
        // The scan starts on the first call; a failure to start is retried by the next one.
        auto opened = OpenScan(scanner->config);
        if (!opened.ok()) {
          SetError(opened.status());
          return -1;
        }
        scanner->reader = std::move(opened).ValueOrDie();
      }
      next = scanner->reader->Next();
    }
    if (!next.ok()) {
      SetError(next.status());
      return -1;
    }
    ClearError();
    if (!*next) return 1;
    *out = new LanceBatch{std::move(*next)};
    return 0;
  });
}

int32_t lance_batch_to_arrow(const LanceBatch* batch, struct ArrowArray* out_array,
                             struct ArrowSchema* out_schema) {
  return RunStatus([&]() -> lance::Status {
    if (batch == nullptr || out_array == nullptr || out_schema == nullptr) {
      return Invalid("batch, out_array, and out_schema must not be NULL");
    }
    return lance::ExportRecordBatch(*batch->batch, out_array, out_schema);
  });
}

void lance_batch_free(LanceBatch* batch) {
  Guard<int>(0, [&] {
    delete batch;
    return 0;
  });
}

}  // extern "C"
