// The JSON a dataset-changing command prints: shared by the write and evolve command groups.
#pragma once

#include <nlohmann/json.hpp>

#include "lance/core/status.h"
#include "lance/table/commit.h"

namespace lance::cli {

// `j` on one line of stdout. Errors: IOError when stdout cannot be written.
Status PrintJson(const nlohmann::ordered_json& j);

// version, read_version, attempts and rebased of a commit.
nlohmann::ordered_json CommitJson(const table::CommitInfo& c);

}  // namespace lance::cli
