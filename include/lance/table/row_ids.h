// Stable row ids and row versions of fragments (rowids.proto): a fragment of a table created
// with stable row ids stores the id of each of its rows as a RowIdSequence (segments of
// ranges, ranges with holes or bitmaps, and bit-packed arrays), and when each row was created
// and last updated as version runs. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/result.h"
#include "lance/table/manifest.h"

namespace lance::table {

// Row ids of a serialized RowIdSequence. Errors: Corruption.
Result<std::vector<uint64_t>> DecodeRowIdSequence(std::string_view bytes);

// How many ids a serialized RowIdSequence holds, checked but not expanded: what a caller asks
// before it allocates for a count read from untrusted bytes. Errors: Corruption.
Result<uint64_t> RowIdSequenceLength(std::string_view bytes);
// The serialized RowIdSequence listing `ids` in order (a range segment for each run of 4 or
// more consecutive ids, plain u64 arrays for the rest).
std::string EncodeRowIdSequence(const std::vector<uint64_t>& ids);
// The serialized RowIdSequence of [start, start + n).
std::string RowIdRange(uint64_t start, uint64_t n);

// The version of every physical row of `f`: when it was created (`created_at`) or last
// updated, from its inline version runs; without runs, as lance 12: created at version 1, last
// updated when created. Errors: Corruption (runs not covering the rows), NotSupported (the
// versions are in an external file).
Result<std::vector<uint64_t>> RowVersions(const FragmentInfo& f, bool created_at);

// The checks of RowVersions without its allocation of one version per row: physical_rows at
// most 2^32, runs that decode and cover exactly the fragment's rows. Errors as RowVersions.
Status ValidateRowVersions(const FragmentInfo& f, bool created_at);
// A serialized version-run sequence of `n` rows (a run per stretch of equal versions, spans
// as position ranges).
std::string EncodeVersionRuns(const uint64_t* versions, size_t n);
// Every one of `n` rows at `version`.
std::string VersionRun(uint64_t n, uint64_t version);

// Gives `fragments` (new, in order) the stable row ids `ids` (one per physical row, in order).
// Errors: Internal when the counts differ.
Status AssignRowIds(std::vector<FragmentInfo>* fragments, const std::vector<uint64_t>& ids);

}  // namespace lance::table
