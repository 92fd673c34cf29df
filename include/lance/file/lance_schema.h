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
#include <optional>
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

  // Members of lance.file.Field that reading and writing the field's data do not use, kept so
  // that a schema read from a table manifest is written back as it was stored (data files
  // written by this library leave them unset).
  bool unenforced_primary_key = false;
  uint32_t unenforced_primary_key_position = 0;  // 1-based place in the key; 0 = none
  std::string extension_name;
  int32_t legacy_type = 0;      // Field.type (PARENT / REPEATED / LEAF); lance 12 leaves it 0
  int32_t legacy_encoding = 0;  // Field.encoding, the v1 encoding hint (1 PLAIN, 2 VAR_BINARY, ...)
  std::optional<std::pair<int64_t, int64_t>> legacy_dictionary;  // Field.dictionary {offset, length}
  // Members of the message this library does not know (a newer writer's), as protobuf bytes;
  // written back after the known ones.
  std::string unknown_fields;
};

// The Arrow type of a leaf logical type string. Errors: NotSupported for unknown strings.
Result<DataTypePtr> LogicalTypeToArrow(const std::string& logical_type);

// Builds the nested schema; Field::id() carries the Lance field id. Errors: Corruption for
// dangling parents or children under a leaf, NotSupported for unknown logical types.
Result<SchemaPtr> SchemaFromLanceFields(const std::vector<LanceField>& fields,
                                        std::vector<std::pair<std::string, std::string>> metadata = {});

}  // namespace lance::file

namespace lance::file {

// The logical type string of a type the Lance file format can hold ("int32", "string",
// "timestamp:us:-", "fixed_size_list:float:128", "struct", ...): the inverse of
// LogicalTypeToArrow, plus "list" / "large_list" ("list.struct" / "large_list.struct" when the
// items are structs) / "struct" / "map" for nested types.
// Errors: NotSupported for types Lance has no name for (dictionary).
Result<std::string> LogicalTypeFromArrow(const ::lance::DataType& type);

// Flattens `schema` to Lance fields in pre-order (a parent before its children; a list's
// element and a struct's children are fields of their own, a fixed-size list's element is
// not). Fields whose Field::id() >= 0 keep their id; the others get fresh ids counting up from
// one past the largest kept id (from 0 when no field has an id). `with_ids`, when given,
// receives the same schema with every Field::id() set. Errors: NotSupported types,
// InvalidArgument for duplicate ids.
Result<std::vector<LanceField>> LanceFieldsFromSchema(const ::lance::Schema& schema,
                                                      SchemaPtr* with_ids = nullptr);

// As LanceFieldsFromSchema, but every Field::id() is ignored: the i-th field in pre-order gets
// `ids[i]`, or i when `ids` is null (a table's fresh schema, or an append matched to it).
// Errors: as LanceFieldsFromSchema; InvalidArgument when `ids` has the wrong length.
Result<std::vector<LanceField>> LanceFieldsWithIds(const ::lance::Schema& schema,
                                                   const std::vector<int32_t>* ids,
                                                   SchemaPtr* with_ids = nullptr);

}  // namespace lance::file
