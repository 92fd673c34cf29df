// The commit machinery shared by every write operation of table/ (internal; not installed).
//
// An operation (write.cc, delete.cc, ...) does its I/O against a read version, then fills a
// CommitRequest: the Transaction protobuf (read_version + operation, fragment ids of new
// fragments unassigned) plus what a rebase needs (for deletes: the rows this transaction
// deletes per fragment and the deletion file it started from). Commit() then loops:
//   load latest -> check every transaction committed after read_version (conflict rules of
//   transaction.md; merge deletion vectors when needed) -> apply the operation to the latest
//   manifest -> write .txn + manifest through the CommitHandler -> on AlreadyExists, again.
// To add an operation: extend ApplyOperation (how it changes a manifest) and CheckConflict
// (what it tolerates) in commit_machinery.cc.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/file/lance_schema.h"
#include "lance/io/object_store.h"
#include "lance/table/manifest.h"
#include "lance/table/transaction.h"
#include "lance/table/write.h"
#include "table/durable_files.h"
#include "table/proto/table.pb.h"
#include "table/proto/transaction.pb.h"

namespace lance::table {
class Snapshot;
}  // namespace lance::table

namespace lance::table::internal {

struct TableLocation {
  std::shared_ptr<io::ObjectStore> store;
  std::string root;  // path of the dataset directory inside the store
  // Local filesystems only (null elsewhere): `store` without per-object syncs, through which
  // new files are written and then made durable together by Commit() (durable_files.h).
  std::shared_ptr<io::LocalObjectStore> unsynced;
  // The new files written for this operation (never null after Locate()).
  std::shared_ptr<WrittenFiles> written = std::make_shared<WrittenFiles>();

  std::string Path(const std::string& rel) const { return io::JoinPath(root, rel); }
  // Where an operation writes its new immutable files (data, deletion, transaction files).
  std::shared_ptr<io::ObjectStore> file_store() const {
    return unsynced ? std::static_pointer_cast<io::ObjectStore>(unsynced) : store;
  }
  // Records that `path` was written through file_store(): the commit syncs it first.
  void Written(const std::string& path) const { written->Add(path); }
  // Writes one new immutable object through file_store() and records it.
  Status PutFile(const std::string& path, std::string_view bytes) const {
    LANCE_RETURN_NOT_OK(file_store()->Put(path, bytes));
    Written(path);
    return Status::OK();
  }
};

Result<TableLocation> Locate(const std::string& uri);

// One committed version, as stored.
struct StoredVersion {
  uint64_t version = 0;
  ManifestNaming naming = ManifestNaming::kV2;
  std::string path;
  ::lance::table::pb::Manifest manifest;
  std::string index_section;  // raw IndexSection bytes (empty: none)
  std::string transaction;    // raw Transaction bytes (empty: none recorded)
};

// Latest version (nullopt: no dataset). Errors: Corruption, IOError.
Result<std::optional<StoredVersion>> LoadLatest(const TableLocation& loc);
// Errors: NotFound.
Result<StoredVersion> LoadVersion(const TableLocation& loc, uint64_t version);
// The transaction that produced `v` (inline section, else the _transactions/ file).
Result<std::optional<::lance::table::pb::Transaction>> LoadTransaction(const TableLocation& loc,
                                                                   const StoredVersion& v);

// Sets the flags of `m` from its content (see manifest_writer.h); sticky bits come from
// `sticky_reader` / `sticky_writer`.
void ApplyFeatureFlags(::lance::table::pb::Manifest* m, uint64_t sticky_reader, uint64_t sticky_writer);

// Whole manifest file: sections, manifest, footer. Sets transaction_section/index_section.
std::string SerializeManifestFile(::lance::table::pb::Manifest* m, const std::string& index_section,
                                  const std::string& transaction);

// A Lance field as a manifest stores it, and back (metadata in the protobuf map's order).
void FieldToProto(const file::LanceField& lf, ::lance::file::Field* f);
file::LanceField FieldFromProto(const ::lance::file::Field& f);

std::string NewUuid();
uint64_t RandomU64();
int64_t NowNs();

// Writes a deletion file for `fragment_id` listing `rows` (sorted, unique).
Result<::lance::table::pb::DeletionFile> WriteDeletionFile(const TableLocation& loc,
                                                       uint64_t fragment_id,
                                                       uint64_t read_version,
                                                       const std::vector<uint32_t>& rows);

// Stable row ids: the version of every physical row of `f` (created-at, else last-updated-at),
// from its inline run sequence; without one, as lance 12: created at 1, last updated when
// created. Errors: Corruption (runs not covering the rows), NotSupported (external file).
Result<std::vector<uint64_t>> RowVersions(const ::lance::table::pb::DataFragment& f, bool created_at);
// A serialized version-run sequence of `n` rows (a run per stretch of equal versions, spans
// as position ranges).
std::string VersionRunsOf(const uint64_t* versions, size_t n);

struct NewDatasetParams {
  ManifestNaming naming = ManifestNaming::kV2;
  bool stable_row_ids = false;
};

struct CommitRequest {
  ::lance::table::pb::Transaction txn;
  // Delete/Update: per fragment id, the row offsets this transaction deletes (sorted) and
  // the deletion file of the fragment it read (nullopt: none).
  std::map<uint64_t, std::vector<uint32_t>> affected_rows;
  std::map<uint64_t, std::optional<::lance::table::pb::DeletionFile>> base_deletions;
  NewDatasetParams new_dataset;  // used when no version exists yet
  // Overwrite of an existing dataset: the data storage version ("" keeps the dataset's).
  std::string data_storage_version;
  // Restore: the version whose content the next version takes.
  std::optional<StoredVersion> restore_source;
};

// Deletes the rows at `addresses` (row addresses of `ds`, a version of the dataset at `loc`;
// any order, repeats and already deleted rows ignored), recording `predicate`: what
// DeleteRowAddresses and DeleteRows do once they have the dataset open.
Result<DeleteResult> DeleteFromDataset(const TableLocation& loc, const Snapshot& ds,
                                       std::vector<uint64_t> addresses,
                                       const std::string& predicate, const CommitOptions& options);

// Commits `request` (see above). Errors: CommitConflict (incompatible or retryable
// conflict, or max_retries lost races), NotFound (non-Overwrite on a missing dataset).
Result<CommitInfo> Commit(const TableLocation& loc, CommitRequest request,
                          const CommitOptions& options);

}  // namespace lance::table::internal
