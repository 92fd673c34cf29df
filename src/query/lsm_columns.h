// The output schema of an LSM read (query::LsmScan, query::LsmLookup): the base schema's
// fields named by LsmReadOptions::columns, in that order, or the whole base schema.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/type.h"
#include "lance/core/result.h"

namespace lance::query::internal {

// Errors: InvalidArgument "TABLE: no column 'c'" for a column the base lacks.
inline Result<SchemaPtr> LsmOutputSchema(const SchemaPtr& base, const std::vector<std::string>& columns,
                                         std::string_view table) {
  if (columns.empty()) return base;
  std::vector<FieldPtr> fields;
  for (const auto& c : columns) {
    FieldPtr f = base->GetFieldByName(c);
    if (!f) return Status::InvalidArgument("{}: no column '{}'", table, c);
    fields.push_back(std::move(f));
  }
  return std::make_shared<Schema>(std::move(fields));
}

// The columns of `out` taken from `b` by name (a source's batch to the read's output).
// Errors: Corruption when `b` lacks one.
inline Result<RecordBatchPtr> ProjectByName(const RecordBatch& b, const SchemaPtr& out) {
  std::vector<ArrayPtr> cols;
  for (const auto& f : out->fields()) {
    ArrayPtr c = b.GetColumnByName(f->name());
    if (!c) return Status::Corruption("an LSM source has no column '{}'", f->name());
    cols.push_back(std::move(c));
  }
  return RecordBatch::Make(out, b.num_rows(), std::move(cols));
}

}  // namespace lance::query::internal
