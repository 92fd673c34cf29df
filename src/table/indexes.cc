#include "lance/table/indexes.h"

#include "table/commit_internal.h"
#include "table/row_rewrite.h"

namespace lance::table {

namespace {

bool IsSystemIndexName(const std::string& name) {
  return name == "__lance_frag_reuse" || name == "__lance_mem_wal";
}

}  // namespace

bool IsSystemIndex(const IndexInfo& index) { return IsSystemIndexName(index.name); }

Result<CommitInfo> DropIndex(const std::string& uri, const std::string& name,
                             const CommitOptions& options) {
  if (name.empty()) return Status::InvalidArgument("drop index: the index name is empty");
  LANCE_ASSIGN_OR_RAISE(internal::TableLocation loc, internal::Locate(uri));
  LANCE_ASSIGN_OR_RAISE(internal::StoredVersion sv, internal::LatestWritable(loc, uri));
  ::lance::table::pb::IndexSection section;
  if (!sv.index_section.empty() && !section.ParseFromString(sv.index_section)) {
    return Status::Corruption("{}: the index section ({} bytes) does not decode", sv.path,
                              sv.index_section.size());
  }
  internal::CommitRequest req;
  req.txn.set_read_version(sv.version);
  req.txn.set_uuid(internal::NewUuid());
  auto* ci = req.txn.mutable_create_index();
  for (const auto& x : section.indices()) {
    if (x.name() == name && !IsSystemIndexName(x.name())) *ci->add_removed_indices() = x;
  }
  if (ci->removed_indices_size() == 0) {
    return Status::NotFound("{}: no index named '{}' (version {})", uri, name, sv.version);
  }
  return internal::Commit(loc, std::move(req), options);
}

}  // namespace lance::table
