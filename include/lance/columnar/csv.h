// CSV (RFC 4180) rows: reading into a record batch and writing a batch as CSV text.
//
// The text is a header row of column names followed by one record per row. Fields are
// separated by `,` (or another one-byte delimiter, e.g. TAB for TSV); records end with LF or
// CRLF; a field may be quoted with `"`, inside which `""` stands for one quote and delimiters
// and line breaks are literal. A leading UTF-8 byte order
// mark is skipped. Lines with no characters at all are skipped, except in a one-column file
// where such a line is a record with one empty field.
//
// Cell values, per column type:
//   * bool: true/false (any letter case); integers: decimal with optional sign, range-checked;
//     floats: decimal or scientific, NaN, Infinity, -Infinity (any letter case);
//   * utf8 / large_utf8: the field's text as is (must be valid UTF-8); an empty field is the
//     empty string — CSV cannot carry a null string;
//   * every other type: the value's canonical JSON text (see json.h) with a string's quotes
//     left out: binary as base64, decimals as "12.30", dates/times/timestamps as integers in
//     the type's unit, lists/structs/maps as JSON arrays/objects;
//   * dates, times and timestamps also as ISO 8601 text: date32/date64 `YYYY-MM-DD`;
//     time32/time64 `HH:MM:SS[.fraction]`; timestamps `YYYY-MM-DD[T| ]HH:MM[:SS[.fraction]]`
//     or a bare date (midnight), with `Z` or `+HH:MM`/`-HH:MM` (also `+HHMM`, `+HH`) allowed
//     only for a column with a time zone (the instant is converted to UTC; without an offset
//     the text is taken as UTC); a fraction finer than the unit, or a value outside the
//     type's range, is an error;
//   * an empty field of any other type is null (quoted or not; for binary types `""` is the
//     empty value).
// All functions are pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "lance/columnar/array.h"
#include "lance/columnar/type.h"
#include "lance/core/result.h"

namespace lance {

struct CsvReadOptions {
  // The columns' types. Null: inferred per column from its non-empty cells, the first of
  // int64, float64, bool that every cell parses as, else utf8 (also when every cell is empty);
  // every field nullable.
  // With a schema every schema field needs a header column of the same name (any order) and
  // every header column a schema field; the batch has the schema's field order.
  SchemaPtr schema;
  // Names the input in errors (usually its path).
  std::string what = "csv";
  // The field separator: any single byte but `"`, CR and LF (`\t` for TSV).
  char delimiter = ',';
  // Added to the line number of every record after the header row, in errors: for a piece of
  // a larger input read with its header row repeated before it, the lines of the input before
  // the piece's first record less the header's (so errors name the input's true lines).
  int64_t line_offset = 0;
};

// Parses `text` (header row first) into one batch.
// Errors: InvalidArgument naming `what`, the 1-based line and column (number and name) for a
// malformed record (stray or unterminated quote, wrong number of fields) or a cell that does
// not fit its type; a missing or duplicate header name; a delimiter that cannot be one.
Result<RecordBatchPtr> ReadCsv(std::string_view text, const CsvReadOptions& options = {});

// Appends the header row (when `header`) and one record per row of `batch` to `out`, every
// record ended by "\n". Fields are quoted when they contain the delimiter, `"`, CR or LF, and
// an empty string or binary value is written `""`. A null is an empty field.
// Errors: NotSupported for a type without a canonical form (none today); InvalidArgument for
// a delimiter that cannot be one (see CsvReadOptions::delimiter).
Status AppendCsv(const RecordBatch& batch, bool header, std::string* out, char delimiter = ',');

// InvalidArgument unless `delimiter` can separate CSV fields.
Status CheckCsvDelimiter(char delimiter);

}  // namespace lance
