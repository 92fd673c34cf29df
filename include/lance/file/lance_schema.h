// Conversion between Lance's flattened schema (lance.file.Field: pre-order list of fields
// linked by parent id, each with a logical type string) and the Arrow-model Schema.
//
// Logical types: null bool int8..int64 uint8..uint64 halffloat float double string
// large_string binary large_binary date32:day date64:ms time32:{s,ms} time64:{us,ns}
// timestamp:{unit}:{timezone or -} duration:{unit} decimal:128:{precision}:{scale}
// fixed_size_binary:{n} fixed_size_list:{child logical type}:{n} list large_list struct
// map (one struct<key, value> child; list.struct / large_list.struct also accepted). Lists and structs take their children from
// the fields whose parent_id is their id; a fixed-size list's child is named "item", nullable.
// Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lance/columnar/type.h"
#include "lance/core/result.h"

namespace lance::file {

struct LanceField {
  std::string name;
  int32_t id = 0;
  int32_t parent_id = -1;
  std::string logical_type;
  bool nullable = true;
  std::vector<std::pair<std::string, std::string>> metadata;
};

// The Arrow type of a leaf logical type string. Errors: NotSupported for unknown strings.
Result<DataTypePtr> LogicalTypeToArrow(const std::string& logical_type);

// Builds the nested schema; Field::id() carries the Lance field id. Errors: Corruption for
// dangling parents or children under a leaf, NotSupported for unknown logical types.
Result<SchemaPtr> SchemaFromLanceFields(const std::vector<LanceField>& fields,
                                        std::vector<std::pair<std::string, std::string>> metadata = {});

}  // namespace lance::file
