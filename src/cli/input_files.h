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

// The field separator named by a `--delimiter` value: one character, or `\t` / `tab` for TAB.
// Errors: InvalidArgument for anything else, or a character CSV cannot use ('"', CR, LF).
Result<char> ParseDelimiter(const std::string& text);

// The delimiter of a CSV-like file: `delimiter` (a --delimiter value) when not empty, else TAB
// for `.tsv` and ',' for anything else.
Result<char> DelimiterFor(const std::string& path, const std::string& delimiter);

// True for the paths ReadInputRows and `--output` read / write as delimited text.
bool IsDelimitedText(const std::string& path);

// The rows of `input`: Arrow IPC (stream or file), JSON lines (.jsonl / .json) whose schema
// is the JSON file `schema_path`, or CSV (.csv, or .tsv separated by TAB; `delimiter` — a
// --delimiter value — overrides; header row first; typed by `schema_path` when given, else
// inferred: see lance/columnar/csv.h). An empty JSON-lines or CSV input gives no batches (a
// CSV header alone still gives the schema).
// Errors: InvalidArgument naming `input` when it is none of these, JSON lines without a
// schema, a CSV record or cell that does not parse (with its line and column), or a
// `delimiter` given for input that is not CSV.
// `target`: the schema of the table the rows go into, when it exists; CSV input without
// --schema is then typed by it (the fields its header names) instead of by inference.
Status ReadInputRows(const std::string& input, const std::string& schema_path,
                     const std::string& delimiter, SchemaPtr* schema,
                     std::vector<RecordBatchPtr>* batches, const SchemaPtr& target = nullptr);

// The schema of the table at `uri` when there is one (null when there is no table).
Result<SchemaPtr> ExistingTableSchema(const std::string& uri);

}  // namespace lance::cli
