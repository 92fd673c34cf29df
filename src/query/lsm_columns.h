// The output schema of an LSM read (query::LsmScan, query::LsmLookup): the base schema's
// fields named by LsmReadOptions::columns, in that order, or the whole base schema.
#pragma once

#include <string>
#include <string_view>
#include <vector>

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

}  // namespace lance::query::internal
