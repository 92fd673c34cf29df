// Whole-fragment reads for the operations that rewrite rows or add columns (internal): every
// physical row of a fragment read as whole columns (no row list, no take), and the live rows
// of a run of fragments, the way compaction and add-columns read them. Through the
// snapshot's own data-file readers. Stateless; safe from several threads.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/table/snapshot.h"

namespace lance::table::internal {

// Every physical row of fragment `index` of `ds` (deleted rows included), for the top-level
// dataset columns `names` in that order (types as the dataset's; a column no data file of
// the fragment holds is all null). nullopt when the fragment needs the snapshot's own
// reading (a data file under another base path, overlays, or a column stored as another
// type); the caller then scans.
Result<std::optional<RecordBatchPtr>> ReadPhysicalRows(const Snapshot& ds, size_t index,
                                                       const std::vector<std::string>& names);

// The live rows of the fragments at `fragments` (positions in ds.manifest().fragments), one
// batch per fragment with live rows, every dataset column plus "_rowid" (uint64) when
// `with_row_id`: the rows, order and columns of ds.Scan({offset, limit covering those
// fragments, with_row_id}) -- what compaction rewrites -- but read as whole columns with the
// deleted rows dropped afterwards (a scan of a fragment with deletions takes its live rows
// one list at a time). Falls back to the scan for a fragment ReadPhysicalRows declines.
Result<std::vector<RecordBatchPtr>> ReadLiveRows(const Snapshot& ds,
                                                 const std::vector<size_t>& fragments,
                                                 bool with_row_id);

}  // namespace lance::table::internal
