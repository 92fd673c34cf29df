// Version history and restore.
#include <fmt/format.h>

#include <vector>

#include "capi/dataset_handle.h"
#include "capi/error.h"
#include "lance/lance.h"
#include "lance/table/commit.h"

struct LanceVersions {
  struct Entry {
    uint64_t id;
    int64_t timestamp_ms;
  };
  std::vector<Entry> entries;
};

namespace {

// The entry at `index`, or nullptr with the error set.
const LanceVersions::Entry* EntryAt(const LanceVersions* versions, size_t index) {
  using namespace lance::capi;
  if (versions == nullptr) {
    SetError(LANCE_ERR_INVALID_ARGUMENT, "versions is NULL");
    return nullptr;
  }
  if (index >= versions->entries.size()) {
    SetError(LANCE_ERR_INVALID_ARGUMENT,
             fmt::format("version index {} out of range; count = {}", index, versions->entries.size()));
    return nullptr;
  }
  ClearError();
  return &versions->entries[index];
}

}  // namespace

using namespace lance::capi;

extern "C" {

LanceVersions* lance_dataset_versions(const LanceDataset* dataset) {
  return RunResult<LanceVersions*>(nullptr, [&]() -> lance::Result<LanceVersions*> {
    LANCE_ASSIGN_OR_RAISE(auto ds, SnapshotOf(dataset));
    LANCE_ASSIGN_OR_RAISE(auto list, ds->ListVersions());
    auto out = std::make_unique<LanceVersions>();
    for (const auto& v : list) {
      const int64_t ns = v.timestamp_ns.value_or(0);
      // Floor division, as a timestamp's milliseconds (before 1970 too).
      const int64_t ms = ns / 1000000 - ((ns % 1000000) < 0 ? 1 : 0);
      out->entries.push_back({v.version, ms});
    }
    return out.release();
  });
}

uint64_t lance_versions_count(const LanceVersions* versions) {
  return Guard<uint64_t>(0, [&]() -> uint64_t {
    if (versions == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "versions is NULL");
      return 0;
    }
    ClearError();
    return versions->entries.size();
  });
}

uint64_t lance_versions_id_at(const LanceVersions* versions, size_t index) {
  return Guard<uint64_t>(0, [&]() -> uint64_t {
    const auto* e = EntryAt(versions, index);
    return e ? e->id : 0;
  });
}

int64_t lance_versions_timestamp_ms_at(const LanceVersions* versions, size_t index) {
  return Guard<int64_t>(0, [&]() -> int64_t {
    const auto* e = EntryAt(versions, index);
    return e ? e->timestamp_ms : 0;
  });
}

void lance_versions_close(LanceVersions* versions) {
  Guard<int>(0, [&] {
    delete versions;
    return 0;
  });
}

LanceDataset* lance_dataset_restore(const LanceDataset* dataset, uint64_t version) {
  return RunResult<LanceDataset*>(nullptr, [&]() -> lance::Result<LanceDataset*> {
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    if (version == 0) {
      return Invalid("version must be >= 1; 0 is reserved as the \"latest\" sentinel");
    }
    // A new handle (lance-c leaves the one passed in at its version).
    LANCE_ASSIGN_OR_RAISE(auto restored, dataset->ds->Checkout(dataset->ds->version()));
    LANCE_RETURN_NOT_OK(restored->Restore(version).status());
    return NewHandle(std::move(restored));
  });
}

}  // extern "C"
