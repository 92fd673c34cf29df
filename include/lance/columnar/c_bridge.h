// The bridge between lance-cpp's columnar model and the Arrow C Data / C Stream Interface.
//
// Export hands the consumer pointers to our own buffers (zero-copy; sliced arrays keep their
// `offset`); the buffers stay alive through the struct's private_data until the consumer calls
// its release callback. Import wraps the producer's buffers in Buffers (zero-copy) whose shared
// owner calls the producer's release callback exactly once, when the last Buffer referring to
// the imported memory is dropped.
//
// Ownership of C structs follows the spec's move semantics:
// - Export* fill a consumer-allocated struct; the consumer must call its `release` once.
// - Import* take ownership of the given structs whatever the outcome: on return (success or
//   error) the struct is marked released (release == NULL) and the caller must not release it.
//
// Import checks what it is given before trusting it: the format string is parsed with
// InvalidArgument naming the bad format, buffer and child counts are checked against the type,
// and the resulting array passes Array::Validate. Formats Arrow defines but lance-cpp does not
// model (intervals, unions, run-end encoded, views, decimal32/64/256) give NotSupported.
//
// All functions are thread-safe on distinct structs. The callbacks of an exported stream must
// not be called concurrently (as the C Stream Interface specifies).
#pragma once

#include <memory>

#include "lance/columnar/array.h"
#include "lance/columnar/c_abi.h"
#include "lance/columnar/record_batch_reader.h"
#include "lance/columnar/type.h"

namespace lance {

// ---- Export -------------------------------------------------------------------------------

// Describes `type` as an unnamed, nullable field. On error `out` is left released.
Status ExportType(const DataType& type, ArrowSchema* out);
// Describes `field`: name, nullability, metadata and type.
Status ExportField(const Field& field, ArrowSchema* out);
// Describes `schema` as a struct type ("+s") whose children are the fields; the schema metadata
// goes on the top-level struct.
Status ExportSchema(const Schema& schema, ArrowSchema* out);

// Exports `array` without copying. With `out_schema`, also exports its type (ExportType).
// Errors: InvalidArgument when the array lacks a buffer its type and length require.
Status ExportArray(const ArrayPtr& array, ArrowArray* out, ArrowSchema* out_schema = nullptr);
// Exports `batch` as a struct array (no validity, offset 0) whose children are the columns.
// With `out_schema`, also exports the batch schema (ExportSchema).
Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out,
                         ArrowSchema* out_schema = nullptr);

// Turns `reader` into a C stream owned by the consumer. get_next errors are reported with an
// errno value (EINVAL for InvalidArgument, ENOMEM, ENOSYS for NotSupported, EIO otherwise) and
// the Status text through get_last_error; after an error every get_next repeats it.
Status ExportRecordBatchReader(std::unique_ptr<RecordBatchReader> reader, ArrowArrayStream* out);

// ---- Import -------------------------------------------------------------------------------

// Parse a C schema. Each consumes (releases) `schema`. ImportSchema requires a "+s" format.
// Errors: InvalidArgument (released struct, malformed format, bad children/metadata),
// NotSupported (a valid Arrow type lance-cpp does not model).
Result<DataTypePtr> ImportType(ArrowSchema* schema);
Result<FieldPtr> ImportField(ArrowSchema* schema);
Result<SchemaPtr> ImportSchema(ArrowSchema* schema);

// The same descriptions read from a schema the caller keeps: nothing is released or moved
// (for APIs that borrow a caller's ArrowSchema, such as a declared write schema). Errors as
// the Import* above; InvalidArgument also for a NULL or released `schema`.
Result<DataTypePtr> ReadType(const ArrowSchema* schema);
Result<SchemaPtr> ReadSchema(const ArrowSchema* schema);

// Imports an array without copying. Consumes `array` (and `schema`) whatever the outcome.
Result<ArrayPtr> ImportArray(ArrowArray* array, ArrowSchema* schema);
Result<ArrayPtr> ImportArray(ArrowArray* array, DataTypePtr type);

// Imports a struct array as a record batch (the struct must have no nulls; a non-zero struct
// offset is applied to the columns). Consumes `array` (and `schema`) whatever the outcome.
Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema);
Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, SchemaPtr schema);

// Wraps a C stream as a reader, reading its schema once up front. Consumes `stream` whatever
// the outcome; the reader releases it when destroyed. A failing get_next becomes an IOError
// (InvalidArgument for EINVAL, OutOfMemory for ENOMEM, NotSupported for ENOSYS) carrying
// get_last_error's text; after a failure (or a batch that fails import) Next repeats it.
Result<std::unique_ptr<RecordBatchReader>> ImportRecordBatchReader(ArrowArrayStream* stream);

}  // namespace lance
