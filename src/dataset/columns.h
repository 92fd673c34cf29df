// What the schema-evolution operations of Dataset share (schema_evolution.cc, add_columns.cc):
// finding fields of a manifest by path, fresh field ids, the Project and Merge commits, and
// reading a fragment's rows through the query layer's FragmentReader.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/file/lance_schema.h"
#include "lance/query/fragment_reader.h"
#include "lance/table/commit.h"
#include "lance/table/manifest.h"
#include "lance/table/snapshot.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::dataset::internal {

using Fields = std::vector<file::LanceField>;
using table::CommitInfo;
using table::CommitOptions;
using table::FragmentInfo;
using table::Manifest;
using table::Transaction;

// NotSupported unless `ds` may be written (its feature flags).
Status CheckWritable(const table::Snapshot& ds);
// The top-level column names of `m`, comma-separated (for messages).
std::string ColumnList(const Manifest& m);
// Index in m.fields of the field at `path` ("a" or "a.b.c" through struct children).
// Errors: InvalidArgument naming the part not found and the columns.
Result<int> FindField(const Manifest& m, const std::string& path);
// `id` and the ids of every field below it.
std::set<int32_t> Subtree(const Manifest& m, int32_t id);
// One past the largest field id any field or data file of the dataset uses.
int32_t NextFieldId(const Manifest& m);
std::vector<std::string> SplitPath(const std::string& path);
// The values of the (possibly nested) field at `path` in a read of its top-level column of
// type `type`; null when the path does not lead through structs.
ArrayPtr NestedArray(const ArrayPtr& top, const std::vector<std::string>& path, const DataType* type);
// `live` (one value per live row, at the offsets `addrs` & 0xffffffff, ascending) spread over
// `physical` rows, with nulls at the rows not listed.
Result<ArrayPtr> SpreadOverPhysical(const ArrayPtr& live, const uint64_t* addrs, int64_t physical);
// Lance fields and the Arrow schema with ids of `added` top-level fields, ids from `first_id`
// up (the table's schema rules checked first).
Status NewFields(const std::vector<FieldPtr>& added, int32_t first_id,
                 std::vector<file::LanceField>* lance_fields, SchemaPtr* with_ids);
// The dataset's fields followed by `added`.
Fields AppendedSchema(const Manifest& m, const std::vector<file::LanceField>& added);
// InvalidArgument unless `name` is a valid new top-level column name, unused in `m` and not
// in `seen` (then added to it).
Status CheckNewName(const Manifest& m, const std::string& name, std::set<std::string>* seen);

// A Project of `fields` built on `ds`'s version.
Result<CommitInfo> CommitProject(const table::Snapshot& ds, Fields fields, bool preserves_nullability,
                                 const CommitOptions& options);

// The new columns of fragment i (its position in the manifest) over its physical rows.
using ColumnsOf = std::function<Result<std::vector<ArrayPtr>>(size_t, const FragmentInfo&)>;
// Writes the columns `columns_of` gives as one new data file per fragment of `ds` and commits
// a Merge with `schema`, built on `ds`'s version; pages are encoded on `pool`.
Result<CommitInfo> CommitNewColumns(const table::Snapshot& ds, Fields schema,
                                    const SchemaPtr& file_schema, const ColumnsOf& columns_of,
                                    const CommitOptions& options, ThreadPool* pool);

// The read schema of `columns` (top-level names of `ds` and the system columns).
Result<SchemaPtr> ReadSchema(const table::Snapshot& ds, const std::vector<std::string>& columns);
// `columns` of fragment `index` of `ds` through the query layer's FragmentReader: every
// physical row (deleted ones too), or only the live rows in row order.
Result<RecordBatchPtr> ReadFragmentRows(const std::shared_ptr<const table::Snapshot>& ds, size_t index,
                                        const std::vector<std::string>& columns, bool live_only,
                                        ThreadPool* pool);

}  // namespace lance::dataset::internal
