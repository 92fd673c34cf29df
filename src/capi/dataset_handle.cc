#include "capi/dataset_handle.h"

#include "capi/error.h"

lance::Status LanceDataset::Mutate(
    const std::function<lance::Result<uint64_t>(const std::string&)>& commit) {
  std::lock_guard<std::mutex> writing(write_mu);
  LANCE_ASSIGN_OR_RAISE(uint64_t version, commit(uri));
  if (version == 0) return lance::Status::OK();
  lance::table::OpenOptions o;
  o.version = version;
  LANCE_ASSIGN_OR_RAISE(auto ds, lance::table::Snapshot::Open(uri, o));
  std::lock_guard<std::mutex> lock(mu);
  current = std::move(ds);
  return lance::Status::OK();
}

namespace lance::capi {

Result<LanceDataset*> OpenHandle(const std::string& uri, uint64_t version) {
  table::OpenOptions o;
  if (version != 0) o.version = version;
  LANCE_ASSIGN_OR_RAISE(auto ds, table::Snapshot::Open(uri, o));
  auto handle = std::make_unique<LanceDataset>();
  handle->uri = uri;
  handle->current = std::move(ds);
  return handle.release();
}

Result<std::shared_ptr<const table::Snapshot>> SnapshotOf(const LanceDataset* dataset,
                                                         const char* what) {
  if (dataset == nullptr) return Invalid(std::string(what) + " must not be NULL");
  return dataset->Snapshot();
}

}  // namespace lance::capi
