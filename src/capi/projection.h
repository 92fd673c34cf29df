// Column selections of the C ABI: a list of names that may include the system columns
// "_rowid" and "_rowaddr" anywhere (lance-c's project_preserve_system_columns), mapped onto
// table::ScanOptions (data columns, then _rowid, then _rowaddr) and the reordering that puts
// the scanned columns in the requested order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/table/snapshot.h"

namespace lance::capi {

struct Projection {
  table::ScanOptions options;  // columns / with_row_id / with_row_addr to scan
  bool identity = true;        // the scan's columns are the output as they are
  std::vector<int> pick;       // otherwise output column i is scanned column pick[i]
};

// `columns`: the requested names (nullopt: every data column); `with_row_id`: also "_rowid" at
// the end when the list does not name it. Unknown names are reported by the scan.
Projection MakeProjection(const table::Snapshot& dataset,
                          const std::optional<std::vector<std::string>>& columns, bool with_row_id);

// The schema of the output. Errors: InvalidArgument naming an unknown column.
Result<SchemaPtr> OutputSchema(const table::Snapshot& dataset, const Projection& p);

// `batch` (scanned with p.options) with the requested columns, in the requested order.
RecordBatchPtr Apply(const Projection& p, const RecordBatchPtr& batch);

}  // namespace lance::capi
