// LanceDataset: a handle on one version of a dataset, which the handle's own writes move on.
//
// As lance-c's handle: readers take a snapshot (the version current at that moment: a scanner
// keeps reading it after later commits through the handle), writes through the handle are
// serialized and leave the handle at the version they committed. Writes go through the table
// API by URI (it opens the latest version), so a handle opened at an old version writes on top
// of the latest one.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "lance/core/result.h"
#include "lance/table/snapshot.h"

struct LanceDataset {
  std::string uri;

  std::shared_ptr<const lance::table::Snapshot> Snapshot() const {
    std::lock_guard<std::mutex> lock(mu);
    return current;
  }

  // Runs `commit(uri)`, a table-API write returning the version it committed (0: nothing
  // committed), with the handle's other writes held off, then points the handle at that
  // version.
  lance::Status Mutate(const std::function<lance::Result<uint64_t>(const std::string&)>& commit);

  mutable std::mutex mu;  // guards `current`
  std::shared_ptr<const lance::table::Snapshot> current;
  std::mutex write_mu;  // serializes Mutate
};

namespace lance::capi {

// A new handle on `uri` at `version` (0: the latest). Errors: the table API's.
Result<LanceDataset*> OpenHandle(const std::string& uri, uint64_t version);

// The handle's dataset. Errors: InvalidArgument "<what> must not be NULL".
Result<std::shared_ptr<const table::Snapshot>> SnapshotOf(const LanceDataset* dataset,
                                                         const char* what = "dataset");

}  // namespace lance::capi
