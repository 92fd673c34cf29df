// The JSON the index commands print (`lance indexes`, `lance manifest`, `lance index list |
// describe`): one segment of an index as the manifest holds it, and field paths by id.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "lance/table/manifest.h"

namespace lance::cli {

// "parent.child" path of field `id`, or "#id" when the schema has no such field (an index on
// a dropped column).
std::string FieldPath(const table::Manifest& m, int32_t id);

// One index segment: name, uuid, type, columns, fields, versions, fragments covered and not,
// details (decoded where the format is known), files, covering fields.
nlohmann::ordered_json IndexJson(const table::Manifest& m, const table::IndexInfo& x);

}  // namespace lance::cli
