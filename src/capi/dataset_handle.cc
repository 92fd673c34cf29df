#include "capi/dataset_handle.h"

#include "capi/error.h"

namespace lance::capi {

Result<LanceDataset*> OpenHandle(const std::string& uri, uint64_t version) {
  dataset::OpenOptions o;
  if (version != 0) o.version = version;
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(uri, o));
  return NewHandle(std::move(ds));
}

LanceDataset* NewHandle(std::shared_ptr<dataset::Dataset> ds) {
  auto handle = std::make_unique<LanceDataset>();
  handle->ds = std::move(ds);
  return handle.release();
}

Result<std::shared_ptr<const table::Snapshot>> SnapshotOf(const LanceDataset* dataset,
                                                         const char* what) {
  if (dataset == nullptr) return Invalid(std::string(what) + " must not be NULL");
  return dataset->Snapshot();
}

}  // namespace lance::capi
