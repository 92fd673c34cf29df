// LanceDataset: the C ABI's handle, one lance::dataset::Dataset.
//
// As lance-c's handle: readers take the dataset's snapshot (the version current at that
// moment: a scanner keeps reading it after later commits through the handle); writes through
// the handle are serialized by the Dataset, built on the handle's version (rebased by the
// commit loop over what others committed since) and leave the handle at the version they
// committed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lance/core/result.h"
#include "lance/dataset/dataset.h"

struct LanceDataset {
  std::shared_ptr<lance::dataset::Dataset> ds;

  std::shared_ptr<const lance::table::Snapshot> Snapshot() const { return ds->snapshot(); }
};

namespace lance::capi {

// A new handle on `uri` at `version` (0: the latest). Errors: the dataset API's.
Result<LanceDataset*> OpenHandle(const std::string& uri, uint64_t version);
// A new handle on an opened dataset.
LanceDataset* NewHandle(std::shared_ptr<dataset::Dataset> ds);

// The handle's dataset. Errors: InvalidArgument "<what> must not be NULL".
Result<std::shared_ptr<const table::Snapshot>> SnapshotOf(const LanceDataset* dataset,
                                                         const char* what = "dataset");

}  // namespace lance::capi
