// Per-field data statistics.
#include <fmt/format.h>

#include <vector>

#include "capi/dataset_handle.h"
#include "capi/error.h"
#include "lance/lance.h"
#include "lance/table/statistics.h"

struct LanceDataStatistics {
  std::vector<lance::table::FieldStatistics> fields;
};

namespace {

const lance::table::FieldStatistics* EntryAt(const LanceDataStatistics* stats, size_t index) {
  using namespace lance::capi;
  if (stats == nullptr) {
    SetError(LANCE_ERR_INVALID_ARGUMENT, "stats is NULL");
    return nullptr;
  }
  if (index >= stats->fields.size()) {
    SetError(LANCE_ERR_INVALID_ARGUMENT, fmt::format("field statistics index {} out of range; count = {}",
                                                     index, stats->fields.size()));
    return nullptr;
  }
  ClearError();
  return &stats->fields[index];
}

}  // namespace

using namespace lance::capi;

extern "C" {

LanceDataStatistics* lance_dataset_calculate_data_stats(const LanceDataset* dataset) {
  return RunResult<LanceDataStatistics*>(nullptr, [&]() -> lance::Result<LanceDataStatistics*> {
    LANCE_ASSIGN_OR_RAISE(auto ds, SnapshotOf(dataset));
    LANCE_ASSIGN_OR_RAISE(auto fields, lance::table::CalculateDataStatistics(*ds));
    return new LanceDataStatistics{std::move(fields)};
  });
}

uint64_t lance_data_statistics_count(const LanceDataStatistics* stats) {
  return Guard<uint64_t>(0, [&]() -> uint64_t {
    if (stats == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "stats is NULL");
      return 0;
    }
    ClearError();
    return stats->fields.size();
  });
}

uint32_t lance_data_statistics_field_id_at(const LanceDataStatistics* stats, size_t index) {
  return Guard<uint32_t>(0, [&]() -> uint32_t {
    const auto* e = EntryAt(stats, index);
    return e ? static_cast<uint32_t>(e->field_id) : 0;
  });
}

uint64_t lance_data_statistics_bytes_on_disk_at(const LanceDataStatistics* stats, size_t index) {
  return Guard<uint64_t>(0, [&]() -> uint64_t {
    const auto* e = EntryAt(stats, index);
    return e ? e->bytes_on_disk : 0;
  });
}

void lance_data_statistics_close(LanceDataStatistics* stats) {
  Guard<int>(0, [&] {
    delete stats;
    return 0;
  });
}

}  // extern "C"
