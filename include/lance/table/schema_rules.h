// The rules a table's schema must keep, checked wherever a schema or a name enters a table
// (create / append / overwrite, add / rename / alter columns, merge-insert input) before any
// file is written, and again by the commit path on the schema it is about to publish. They are
// lance 12's (pinned by tests/interop/cli_robust.test.mjs): what it refuses, and what it lets
// through but then cannot read.
#pragma once

#include <string_view>

#include "lance/columnar/type.h"
#include "lance/core/status.h"

namespace lance::table {

// * a name is not empty, at every level;
// * a top-level name holds no '.' ('.' separates the parts of a struct field's path; lance 12:
//   "Top level field a.b cannot contain `.`"); nested names may;
// * no two fields with the same name (case-sensitive, as lance 12) at the top level or among
//   the fields of one struct;
// * a fixed_size_list has a list_size of at least 1 and a fixed_size_binary a byte_width of at
//   least 1 (the Lance file format cannot hold zero-width values).
// `what` names the schema in errors ("create", "add columns", ...). Errors: InvalidArgument
// naming the field's path and the rule.
Status CheckTableSchema(const Schema& schema, std::string_view what);

// One top-level column name by the rules above (rename-column, add-columns' new names).
Status CheckColumnName(std::string_view name, std::string_view what);

}  // namespace lance::table
