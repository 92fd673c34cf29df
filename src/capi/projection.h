// Column selections of the C ABI: a list of names that may include the system columns
// "_rowid" and "_rowaddr" anywhere (lance-c's project_preserve_system_columns), as the query
// layer's ScanOptions take them (system columns in place); an explicitly empty list selects no
// column (batches with rows and no columns), which ScanOptions cannot say (empty = every
// column), so such a scan reads "_rowaddr" and drops it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"

namespace lance::capi {

struct Projection {
  query::ScanOptions options;  // columns / with_row_id to scan
  bool no_columns = false;     // drop the one scanned column (an empty list asked for none)
};

// `columns`: the requested names (nullopt: every data column); `with_row_id`: also "_rowid" at
// the end when the list does not name it. Unknown names are reported by the scan.
Projection MakeProjection(const std::optional<std::vector<std::string>>& columns, bool with_row_id);

// The schema of the output. Errors: InvalidArgument naming an unknown column.
Result<SchemaPtr> OutputSchema(const std::shared_ptr<const table::Snapshot>& dataset,
                               const Projection& p);

// `reader` (scanned with p.options) with the requested columns.
std::unique_ptr<RecordBatchReader> Apply(const Projection& p, std::unique_ptr<RecordBatchReader> reader);

}  // namespace lance::capi
