// Writing Lance datasets: create / append / overwrite from Arrow record batches, delete rows
// by address, and the data files of new fragments for any operation that builds
// its own transaction. Data files go through file::FileWriter (formats 2.1 and 2.2); every
// write commits a transaction as described in commit.h.
//
// Layout written (as lance 12 does): data/{random}.lance, one file per fragment of at most
// max_rows_per_file rows; _deletions/{fragment}-{read_version}-{random}.arrow (Arrow IPC file,
// one uint32 "row_id" column, zstd bodies) while a fragment has at most 5000 deleted rows,
// .bin (portable Roaring bitmap) above; _transactions/{read_version}-{uuid}.txn; the version
// file in the dataset's naming scheme and latest_version_hint.json.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/file/file_writer.h"
#include "lance/table/commit.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"

namespace lance::table {

class Snapshot;

enum class WriteMode {
  kCreate,     // the dataset must not exist (AlreadyExists otherwise)
  kAppend,     // add fragments (creates the dataset when missing)
  kOverwrite,  // replace schema and rows with a new version (creates when missing)
};

// "create" | "append" | "overwrite". Errors: InvalidArgument.
Result<WriteMode> WriteModeFromName(const std::string& name);

struct WriteParams {
  WriteMode mode = WriteMode::kCreate;
  // "2.1" or "2.2". Empty: the dataset's own version, else "2.2" for a new dataset. Appends
  // must match the dataset's version (a 2.0 dataset cannot be appended to: NotSupported).
  std::string data_storage_version;
  int64_t max_rows_per_file = 1024 * 1024;  // rows per fragment (lance 12: 1,048,576)
  // New datasets (create / overwrite of a missing path) only: stable row ids (flag 2).
  bool enable_stable_row_ids = false;
  ManifestNaming naming = ManifestNaming::kV2;  // new datasets only
  // Let the file writer pick compressive encodings (false: plain pages only).
  bool compress = true;
  // Where the data files' pages are encoded (file::WriteOptions::pool; not owned). null: on
  // the calling thread. dataset::Dataset passes its pool.
  ThreadPool* pool = nullptr;
  // Config entries (manifest `config`) a dataset created by this write starts with: kCreate,
  // or kAppend of a missing path (e.g. lance 12's "lance.auto_cleanup.interval" = "20").
  std::map<std::string, std::string> create_config;
  // Append / overwrite of an existing table: the version the write is built on (its schema
  // and data storage version, its transaction's read_version); the commit rebases it over
  // what was committed since. Unset: the latest version.
  std::optional<uint64_t> read_version;
  CommitOptions commit;
};

struct WriteResult {
  CommitInfo commit;
  uint64_t rows_written = 0;
  std::vector<uint64_t> fragment_ids;  // ids of the fragments written, in order
};

// Writes `batches` (all of `schema`) as a new version of the dataset at `uri`.
// Errors: AlreadyExists (kCreate on an existing dataset), InvalidArgument (schema does not
// match the dataset on append, nulls in a non-nullable field, bad params), NotSupported
// (types the format cannot hold, unknown feature flags), CommitConflict.
Result<WriteResult> WriteDataset(const std::string& uri, const SchemaPtr& schema,
                                 const std::vector<RecordBatchPtr>& batches,
                                 const WriteParams& params = {});
Result<WriteResult> WriteDataset(const TableLocation& location, const SchemaPtr& schema,
                                 const std::vector<RecordBatchPtr>& batches,
                                 const WriteParams& params = {});
// The same, reading the rows from `input` batch by batch as the data files are written:
// memory holds one input batch and the file writer's open pages, whatever the input's size.
// An error (of `input` too) leaves no version; the data files already staged are removed.
Result<WriteResult> WriteDataset(const std::string& uri, RecordBatchReader& input,
                                 const WriteParams& params = {});
Result<WriteResult> WriteDataset(const TableLocation& location, RecordBatchReader& input,
                                 const WriteParams& params = {});

// Writes the data files of `batches` as WriteDataset would (same checks, field ids and
// layout: data/{random}.lance under `uri`, fragments of at most max_rows_per_file rows) and
// commits nothing: no manifest is written or changed. Each file's footer carries its schema
// with field ids and its row count, so a later commit (by any writer) can add them. On a local
// store the files are durable on return. Returns one entry per fragment (id 0: unassigned;
// DataFileInfo::path relative to data/). Errors: as WriteDataset, without CommitConflict.
Result<std::vector<FragmentInfo>> WriteUncommittedFragments(const std::string& uri,
                                                            const SchemaPtr& schema,
                                                            const std::vector<RecordBatchPtr>& batches,
                                                            const WriteParams& params = {});
Result<std::vector<FragmentInfo>> WriteUncommittedFragments(const TableLocation& location,
                                                            const SchemaPtr& schema,
                                                            const std::vector<RecordBatchPtr>& batches,
                                                            const WriteParams& params = {});

struct DeleteResult {
  CommitInfo commit;            // a version even when nothing matched, as lance 12 commits one
  uint64_t num_deleted_rows = 0;
  std::vector<uint64_t> removed_fragment_ids;  // fragments left with no live row
};

// Deletes the rows at the given row addresses (fragment id << 32 | offset) of version
// `read_version` (latest when unset). Addresses of rows already deleted or absent are
// ignored. `predicate` is recorded in the transaction. Errors: NotFound, CommitConflict.
Result<DeleteResult> DeleteRowAddresses(const std::string& uri, std::vector<uint64_t> addresses,
                                        std::optional<uint64_t> read_version = std::nullopt,
                                        const std::string& predicate = "",
                                        const CommitOptions& options = {});
Result<DeleteResult> DeleteRowAddresses(const TableLocation& location,
                                        std::vector<uint64_t> addresses,
                                        std::optional<uint64_t> read_version = std::nullopt,
                                        const std::string& predicate = "",
                                        const CommitOptions& options = {});

// Deletes the rows at `addresses` of the version `snapshot` holds (its read version),
// through `snapshot`'s location. Finding rows by a filter is dataset::Dataset::Delete's (the
// query layer's filter engine).
Result<DeleteResult> DeleteRowAddresses(const Snapshot& snapshot, std::vector<uint64_t> addresses,
                                        const std::string& predicate = "",
                                        const CommitOptions& options = {});

// --- Data files of new fragments, for operations that build their own transaction --------

// The data file version ({2, 1} or {2, 2}) of a data storage version ("2.1", "2.2").
// Errors: NotSupported for 2.0 and unknown versions (lance-cpp writes 2.1+ files only).
Result<file::FileVersion> WritableFileVersion(const std::string& data_storage_version);

// Writes `batches` (columns in the order of `schema`, whose Field::id() are the table's Lance
// field ids) as staged data files under data/, one per fragment of at most
// `max_rows_per_file` rows, in the file version of `manifest`'s data storage version (with the
// file writer's default options, pages encoded on `pool`: null = the calling thread). The
// fragments have id 0 and no row ids: a commit assigns them (Append, Overwrite,
// Update.new_fragments, Rewrite groups).
// Errors: InvalidArgument (rows per file, column counts), NotSupported (storage version).
Result<std::vector<FragmentInfo>> WriteFragments(StagedFiles& staged, const Manifest& manifest,
                                                 const SchemaPtr& schema,
                                                 const std::vector<RecordBatchPtr>& batches,
                                                 int64_t max_rows_per_file, ThreadPool* pool = nullptr);

// WriteFragments with the data file options and the field ids of the leaf columns of
// `schema` (in column order) given: what a write that is not yet a table's needs.
Result<std::vector<FragmentInfo>> WriteFragments(StagedFiles& staged,
                                                 const file::WriteOptions& options,
                                                 const SchemaPtr& schema,
                                                 const std::vector<int32_t>& leaf_ids,
                                                 const std::vector<RecordBatchPtr>& batches,
                                                 int64_t max_rows_per_file);

// Writes one staged data file holding `batch` (schema with Lance ids; one row per physical
// row of the existing fragment it will join, e.g. in a Merge) and returns its entry. Pages are
// encoded on `pool` (null: the calling thread).
Result<DataFileInfo> WriteColumnFile(StagedFiles& staged, const Manifest& manifest,
                                     const RecordBatch& batch, ThreadPool* pool = nullptr);

}  // namespace lance::table
