// Building blocks of the operations that rewrite rows or add data files to a dataset
// (update, merge-insert, add columns, compaction; internal, not installed):
//   * WriteFragments: new fragments (one data file each, the dataset's field ids) from batches;
//   * WriteColumnFile: one data file holding new columns of one existing fragment;
//   * RowIdSequenceOf: the serialized RowIdSequence of a list of stable row ids.
// Stateless functions; safe to call from several threads on different inputs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/compute.h"
#include "lance/core/result.h"
#include "lance/file/file_writer.h"
#include "lance/table/snapshot.h"
#include "table/commit_internal.h"

namespace lance::table::internal {

// For each top-level column of `dataset`, the index of the `input` column of the same name
// (the input's columns may come in any order). Errors: InvalidArgument, prefixed with `what`,
// naming the dataset columns the input lacks and the input columns the dataset lacks (each
// with its type), or the first column whose types differ (SameStorageType).
Result<std::vector<int>> MatchColumnsByName(const Schema& dataset, const Schema& input,
                                            const std::string& what);

// The data file version ({2, 1} or {2, 2}) of a dataset's data storage version.
// Errors: NotSupported for 2.0 and unknown versions (lance-cpp writes 2.1+ files only).
Status CheckWritableStorage(const ::lance::table::pb::Manifest& m);

// The latest version of the dataset at `loc` (`uri` names it in errors). Errors: NotFound when
// there is none; what CheckCanWrite says when lance-cpp may not write it.
Result<StoredVersion> LatestWritable(const TableLocation& loc, const std::string& uri);

// The dataset at the stored version `sv` of `loc`, once CheckWritableStorage has passed: where
// the operations that rewrite rows or add columns start.
Result<std::shared_ptr<Snapshot>> OpenForRewrite(const TableLocation& loc, const StoredVersion& sv);

// Writes `batches` (columns in the order of `schema`, whose Field::id() are Lance ids) as
// fragments of at most `max_rows_per_file` rows, one data file each, in data/. The fragments
// have id 0 (assigned at commit) and no row ids.
Result<std::vector<::lance::table::pb::DataFragment>> WriteFragments(
    const TableLocation& loc, const ::lance::table::pb::Manifest& m, const SchemaPtr& schema,
    const std::vector<RecordBatchPtr>& batches, int64_t max_rows_per_file);

// WriteFragments with the data file options and the field ids of the leaf columns of `schema`
// (in column order) given: what a write that is not yet a dataset's needs.
Result<std::vector<::lance::table::pb::DataFragment>> WriteFragmentFiles(
    const TableLocation& loc, const file::WriteOptions& options, const SchemaPtr& schema,
    const std::vector<int32_t>& leaves, const std::vector<RecordBatchPtr>& batches,
    int64_t max_rows_per_file);

// Writes one data file with `batch` (schema with Lance ids; one row per physical row of the
// fragment it will join) and returns its DataFile entry.
Result<::lance::table::pb::DataFile> WriteColumnFile(const TableLocation& loc,
                                                 const ::lance::table::pb::Manifest& m,
                                                 const RecordBatch& batch);

// Serialized RowIdSequence listing `ids` in order (ranges where they are consecutive).
std::string RowIdSequenceOf(const std::vector<uint64_t>& ids);

// Adds to the Update transaction of `req` the deletion of the rows at `addresses` (row
// addresses of `ds`, the dataset at version `sv`; sorted, unique, live): new deletion files
// (updated_fragments), fragments left empty (removed_fragment_ids), and what a rebase needs
// (affected_rows, base_deletions).
Status AddUpdateDeletions(const TableLocation& loc, const Snapshot& ds, const StoredVersion& sv,
                          const std::vector<uint64_t>& addresses, CommitRequest* req);

// Commits, read at `sv`, the Update transaction that deletes the rows at `addresses` (row
// addresses of `ds`, unique, live; any order) and adds `fragments`: what update and
// merge-insert commit.
Result<CommitInfo> CommitRowUpdate(const TableLocation& loc, const Snapshot& ds,
                                   const StoredVersion& sv, std::vector<uint64_t> addresses,
                                   std::vector<::lance::table::pb::DataFragment> fragments,
                                   const CommitOptions& options);

// Gives `fragments` (new, in order) the stable row ids `ids` (one per row, in order).
// Errors: Internal when the counts differ.
Status AssignRowIds(std::vector<::lance::table::pb::DataFragment>* fragments,
                    const std::vector<uint64_t>& ids);

// Every physical row of fragment `index` of `ds` (deleted rows included), for the top-level
// dataset columns `names` in that order (types as the dataset's; a column no data file of
// the fragment holds is all null), read as whole columns: no row list, no take. nullopt when
// the fragment needs the dataset's own reading (a data file under another base path, or a
// column stored as another type); the caller then scans.
// Files are read through the dataset's own data-file readers.
Result<std::optional<RecordBatchPtr>> ReadPhysicalRows(const Snapshot& ds, size_t index,
                                                       const std::vector<std::string>& names);

// The live rows of the fragments at `fragments` (positions in ds.manifest().fragments) of
// `ds` (the dataset at `loc`), one batch per fragment with live rows, every dataset column
// plus "_rowid" (uint64) when `with_row_id`: the rows, order and columns of
// ds.Scan({offset, limit covering those fragments, with_row_id}) — what compaction rewrites —
// but read as whole columns with the deleted rows dropped afterwards (a scan of a fragment
// with deletions takes its live rows one list at a time). Falls back to the scan for a
// fragment ReadPhysicalRows declines.
Result<std::vector<RecordBatchPtr>> ReadLiveRows(const Snapshot& ds,
                                                 const std::vector<size_t>& fragments,
                                                 bool with_row_id);

// The dataset's Lance fields as stored (protobuf), for schema edits.
std::vector<file::LanceField> LanceFieldsOf(const ::lance::table::pb::Manifest& m);

}  // namespace lance::table::internal
