// Reading the rows a command takes as --input: shared by the write and evolve command groups.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/buffer.h"
#include "lance/columnar/record_batch_reader.h"
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

// The rows of a local file, stdin ("-") or a FIFO read in pieces of about `piece_bytes` (a
// whole number of records each), one batch per piece, so a write from it holds one piece at a
// time: what ReadInputRows gives for the same arguments, as a stream (errors name the line of
// the whole input). An Arrow IPC stream is pulled message by message; an IPC file is read from
// its mapping.
class InputRows : public RecordBatchReader {
 public:
  // After an error of Next(): true when the input must be read whole instead (ReadInputRows)
  // to get its exact answer -- a regular CSV file whose inferred column types change after the
  // first piece (on a stream that is an error asking for --schema). A write that failed this
  // way left nothing behind and can run again on ReadInputRows' batches.
  bool read_whole() const { return read_whole_; }
  // Bytes of the input consumed so far and its size.
  int64_t bytes_read() const { return bytes_read_; }
  int64_t total_bytes() const { return total_bytes_; }

 protected:
  bool read_whole_ = false;
  int64_t bytes_read_ = 0;
  int64_t total_bytes_ = 0;
};

// The rows of `input` as InputRows (arguments as ReadInputRows), or null when it must be read
// with ReadInputRows (a URI, an IPC file on a stream, a path that is no file: ReadInputRows
// says why). Errors: those of ReadInputRows for the input's first piece; InvalidArgument when
// `piece_bytes` < 1.
// `live`: for stdin or a FIFO fed while it is read (a streaming ingest), each JSON-lines / CSV
// batch is the whole records that have arrived (at most about `piece_bytes`), handed on as soon
// as there is one instead of once a whole piece has arrived (an IPC stream is pulled message by
// message either way). No effect on a regular file.
Result<std::unique_ptr<InputRows>> OpenInputRows(const std::string& input, const std::string& schema_path,
                                                 const std::string& delimiter, const SchemaPtr& target,
                                                 int64_t piece_bytes = int64_t{4} << 20,
                                                 bool live = false);

// The schema of the table at `uri` when there is one (null when there is no table).
Result<SchemaPtr> ExistingTableSchema(const std::string& uri);

}  // namespace lance::cli
