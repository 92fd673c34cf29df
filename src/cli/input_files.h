// Reading the rows a command takes as --input: shared by the write and evolve command groups.
#pragma once

#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/buffer.h"
#include "lance/columnar/type.h"
#include "lance/core/result.h"

namespace lance::cli {

// The whole content of a local path or object-store URI.
Result<BufferPtr> ReadWhole(const std::string& path);

// The rows of `input`: Arrow IPC (stream or file), or JSON lines (.jsonl / .json) whose schema
// is the JSON file `schema_path`. An empty JSON-lines input gives no batches.
// Errors: InvalidArgument naming `input` when it is neither, or JSON lines without a schema.
Status ReadInputRows(const std::string& input, const std::string& schema_path, SchemaPtr* schema,
                     std::vector<RecordBatchPtr>* batches);

}  // namespace lance::cli
