// Row-level compute kernels over arrays and record batches: gathering rows by index (take),
// dropping rows, nulling rows, concatenating batches, and relabelling a column with a type
// of the same storage. Pure functions; safe to call from several threads.
//
// Every gather (TakeArray, TakeChunked, DropElements) is one kernel over runs of consecutive
// source rows: fixed-width (byte-sized), boolean and utf8/binary arrays (32- or 64-bit
// offsets) are copied once into new buffers, one memcpy or bitmap copy per run; other layouts
// (nested, dictionary, null) are assembled from zero-copy slices of the runs and one
// Concatenate. A gather of every row in order returns the input itself, one run of rows a
// zero-copy slice of it.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"

namespace lance {

// Rows `indices` (any order, repeats allowed) of `array`, in that order.
// Errors: InvalidArgument for an index outside [0, length).
Result<ArrayPtr> TakeArray(const ArrayPtr& array, const std::vector<int64_t>& indices);

// Rows `rows` (any order, repeats allowed) of the column whose pieces are `chunks`: each
// (first row, array) holds rows [first, first + length) of it, ordered by first row, all of
// type `type`. Errors: InvalidArgument for a row no chunk holds.
Result<ArrayPtr> TakeChunked(const std::vector<std::pair<int64_t, ArrayPtr>>& chunks,
                             const std::vector<int64_t>& rows, const DataTypePtr& type);

// Rows `indices` of every column of `batch`, in that order (the batch's schema).
Result<RecordBatchPtr> TakeRows(const RecordBatch& batch, const std::vector<int64_t>& indices);

// `array` without the elements at `drop` (sorted, unique, < array->length); `array` itself
// when `drop` is empty. Errors: InvalidArgument for an element beyond the array.
Result<ArrayPtr> DropElements(const ArrayPtr& array, const std::vector<uint32_t>& drop);

// `array` with nulls at `rows` (sorted, unique, < array->length): a new validity bitmap over
// the same value buffers and children; nullopt when the layout has no validity slot (an array
// without buffers; the null type is returned as it is).
Result<std::optional<ArrayPtr>> NullAtRows(const ArrayPtr& array, const std::vector<uint32_t>& rows);

// All rows of `batches` (whose columns have the types of `schema`) as one batch of `schema`;
// an empty batch of `schema` when there is none. A single batch keeps its columns (no copy).
Result<RecordBatchPtr> ConcatenateBatches(const SchemaPtr& schema,
                                          const std::vector<RecordBatchPtr>& batches);

// Whether arrays of type `a` can be stored as type `b`: the same type up to the names and
// nullability of nested fields (a fixed-size list's item nullability is not stored).
bool SameStorageType(const DataType& a, const DataType& b);

// `array` relabelled with `type`, recursively (buffers shared).
// REQUIRES: SameStorageType(*array->type, *type).
ArrayPtr Relabel(const ArrayPtr& array, const DataTypePtr& type);

}  // namespace lance
