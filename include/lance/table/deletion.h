// Deletion files: which rows of a fragment are deleted, and staging new ones for a commit.
//
// _deletions/{fragment_id}-{read_version}-{id}.arrow: an Arrow IPC file with one non-null
// uint32 column "row_id" of deleted row offsets (zstd bodies), used for at most 5000 rows;
// .bin above: a portable 32-bit Roaring bitmap of the offsets (the threshold lance 12 uses).
// Each delete writes a new, cumulative file for the fragment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lance/columnar/buffer.h"
#include "lance/core/result.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"
#include "lance/table/transaction.h"

namespace lance::table {

class Snapshot;

// Deleted row offsets of a deletion file's bytes, sorted and unique. Errors: Corruption.
Result<std::vector<uint32_t>> DecodeDeletionFile(BufferPtr bytes, DeletionFileType type,
                                                 const std::string& what);

// Bytes of a deletion file listing `rows` (sorted, unique row offsets): an Arrow IPC file
// (zstd) for at most 5000 rows, else a portable Roaring bitmap; `type` receives which.
Result<std::string> EncodeDeletionFile(const std::vector<uint32_t>& rows, DeletionFileType* type);

// Writes, as a staged file, the deletion file of fragment `fragment_id` listing `rows`
// (sorted, unique), computed against `read_version`; returns its entry (a fresh random id).
Result<DeletionFileInfo> WriteDeletionFile(StagedFiles& staged, uint64_t fragment_id,
                                           uint64_t read_version,
                                           const std::vector<uint32_t>& rows);

// Deletions staged against one version: what a Delete or an Update transaction records.
struct StagedDeletions {
  std::vector<FragmentInfo> updated_fragments;  // with their new deletion files
  std::vector<uint64_t> removed_fragment_ids;   // left without a live row
  DeletionRebase rebase;                        // for the commit (transaction.h)
  uint64_t num_deleted_rows = 0;                // rows newly deleted
};

// Stages the deletion of the rows at `addresses` (row addresses, fragment id << 32 | offset,
// of `snapshot`; any order; repeats, addresses past a fragment's rows, rows already deleted
// and fragments not in the snapshot are ignored): one new cumulative deletion file per
// fragment that loses rows, or the fragment removed when no live row is left.
Result<StagedDeletions> StageDeletions(StagedFiles& staged, const Snapshot& snapshot,
                                       std::vector<uint64_t> addresses);

}  // namespace lance::table
