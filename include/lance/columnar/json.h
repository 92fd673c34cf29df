// Canonical JSON: the project's textual form of rows and schemas.
//
// Rows are JSON lines: one object per row, keys in schema order, values in the canonical form
// documented in docs/cli.md ("Canonical rows"): exact integers, shortest round-trip floats
// (NaN/Infinity/-Infinity as strings), base64 binary, decimals as strings with exactly `scale`
// fraction digits, lists as arrays, structs as objects, maps as [key, value] pairs and
// dictionaries decoded. The CLI prints rows this way and the interop tests compare rows from
// other implementations in this form, so the writer's output is byte-for-byte specified.
// Schemas have their own JSON form ("Schema JSON" in docs/cli.md) used by `--schema`.
// All functions are pure and thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "lance/columnar/array.h"
#include "lance/columnar/type.h"
#include "lance/core/int128.h"
#include "lance/core/result.h"

namespace lance {

class ArrayBuilder;

// Appends one canonical JSON line ("{...}\n") per row of `batch` to `out`.
// Errors: NotSupported for a type without a canonical form (none today).
Status AppendJsonLines(const RecordBatch& batch, std::string* out);

// Appends `s` as a JSON string literal (quoted; ", \\ and control characters escaped).
void AppendJsonString(std::string_view s, std::string* out);

// Appends the canonical JSON of element i of `array` (no newline).
// REQUIRES: 0 <= i < array.length.
Status AppendJsonValue(const Array& array, int64_t i, std::string* out);

// Parses JSON lines (blank lines ignored; a trailing newline is optional) into one batch of
// `schema`. Accepts the canonical form plus: floats written as any JSON number, integral
// floats with or without ".0", missing keys as null, binary also unpadded base64.
// Errors: InvalidArgument naming the line and field that does not fit; `first_line` is the
// number of the text's first line (for a piece of a larger input).
Result<RecordBatchPtr> ReadJsonLines(std::string_view text, SchemaPtr schema, int64_t first_line = 1);

// A schema for JSON lines given without one, from the first `max_lines` non-blank lines: one
// nullable field per key (first-seen order; a key missing from some lines is null there),
// typed int64 / float64 (integers widen when a float is seen) / bool / utf8 / list<...> /
// struct<...>; a key seen only as null is utf8. A key named "vector" holding equal-length
// number arrays is fixed_size_list<float32> (lancedb's embedding convention).
// Errors: InvalidArgument naming the line and key whose kinds disagree, or a line that is not
// a JSON object.
Result<SchemaPtr> InferJsonLinesSchema(std::string_view text, int64_t max_lines = 10000);

// The schema JSON form: {"fields":[...], "metadata":{...}} (see docs/cli.md).
std::string SchemaToJson(const Schema& schema);
// Errors: InvalidArgument naming the offending field/type.
Result<SchemaPtr> SchemaFromJson(std::string_view json);

// The type part alone, e.g. "int64" or {"name":"timestamp","unit":"us","timezone":"UTC"}.
std::string DataTypeToJson(const DataType& type);
Result<DataTypePtr> DataTypeFromJson(std::string_view json);

// Standard base64 with padding, and its inverse (padding optional, no whitespace).
std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);

// Decimal text of an unscaled 128-bit value with `scale` fraction digits ("-12.30"); a
// negative scale appends zeros.
std::string Decimal128ToString(Int128 unscaled, int32_t scale);
// Parses "[-+]digits[.digits]" (or exponent-free JSON integers) into an unscaled value with
// `scale` fraction digits. Errors: InvalidArgument for malformed text, more fraction digits
// than `scale` (unless they are zeros) or more than `precision` digits.
Result<Int128> Decimal128FromString(std::string_view text, int32_t precision, int32_t scale);
// The same for decimal256 (256-bit unscaled values, precision up to 76).
std::string Decimal256ToString(const Int256& unscaled, int32_t scale);
Result<Int256> Decimal256FromString(std::string_view text, int32_t precision, int32_t scale);
// Appends the decimal `text` to a decimal128 or decimal256 builder, at its type's precision
// and scale. Errors: as Decimal128FromString; InvalidArgument for a builder of another type.
Status AppendDecimalText(ArrayBuilder* builder, std::string_view text);
// The nearest double of a decimal256 value (as decimal128 values meet floats in filters).
double Decimal256ToDouble(const Int256& unscaled, int32_t scale);

}  // namespace lance
