// The table layer's name for the public FieldTree (include/lance/table/field_tree.h).
#pragma once

#include "lance/table/field_tree.h"

namespace lance::table::internal {
using ::lance::table::FieldTree;
}  // namespace lance::table::internal
