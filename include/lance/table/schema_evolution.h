// Schema evolution of Lance datasets: drop, rename and alter columns, add new columns.
//
// Dropping top-level columns, renaming and changing nullability rewrite no data: they
// commit a Project transaction carrying the new schema (field ids unchanged; data files keep
// the columns of dropped fields, which readers ignore, until compaction rewrites them).
// Adding columns writes one new data file per fragment holding only the new fields (fresh
// field ids, above every id any schema or data file of the dataset used) and commits a Merge
// transaction listing every fragment with its new file; existing data files are never
// rewritten. As lance 12 does. Dropping a field inside a struct rewrites that struct (see
// DropColumns).
//
// Paths name top-level columns ("score") or nested struct fields ("meta.source"; rename,
// nullability and drop). Every function opens the latest version, builds its transaction
// against it and commits through the commit loop of commit.h (a concurrent writer
// makes it rebase or fail with CommitConflict). Safe to call from several threads or processes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/table/commit.h"
#include "lance/table/location.h"

namespace lance::table {

// Removes the fields `paths` (with their children) from the schema: top-level columns ("a")
// by a Project (nothing rewritten), fields inside structs ("s.c", "s.t.d") by rewriting each
// struct concerned without them (one new data file per fragment, new field ids for the struct
// and its remaining children, in its place in the schema; a Merge). lance 12 drops nested
// fields by schema alone; this library's reader reads struct columns whole from their files,
// so it needs the narrower struct stored. Both commit in one transaction.
// Errors: InvalidArgument (unknown path, nothing would be left, the last child of a struct),
// NotSupported (a path through a list or map, 2.0 datasets when a struct must be rewritten,
// a field an index of the dataset covers: the index section is not pruned yet), NotFound,
// CommitConflict.
Result<CommitInfo> DropColumns(const std::string& uri, const std::vector<std::string>& paths,
                               const CommitOptions& options = {});
Result<CommitInfo> DropColumns(const TableLocation& location, const std::vector<std::string>& paths,
                               const CommitOptions& options = {});

struct ColumnAlteration {
  std::string path;                   // the field to change
  std::optional<std::string> rename;  // its new name (same parent)
  std::optional<bool> nullable;       // new nullability
};

// Renames fields and/or changes their nullability. Making a field non-nullable scans it and
// refuses (InvalidArgument) when it holds a null. Errors: InvalidArgument (unknown path, a
// name already used by a sibling, an empty name), NotFound, CommitConflict.
Result<CommitInfo> AlterColumns(const std::string& uri,
                                const std::vector<ColumnAlteration>& alterations,
                                const CommitOptions& options = {});
Result<CommitInfo> AlterColumns(const TableLocation& location,
                                const std::vector<ColumnAlteration>& alterations,
                                const CommitOptions& options = {});

// Changes the type of top-level column `column` to `type_name` (a CAST type of lance/expr,
// e.g. "bigint", "double", "string"): its values are cast (CAST rules; a value that does not
// convert fails the whole operation) and written as one new data file per fragment under a new
// field id, in a Merge transaction, as lance 12 does; name, position and nullability stay.
// Errors: InvalidArgument (unknown column or type, a value that does not cast), NotSupported
// (nested columns, 2.0 datasets, an indexed column), NotFound, CommitConflict.
Result<CommitInfo> AlterColumnType(const std::string& uri, const std::string& column,
                                   const std::string& type_name, const CommitOptions& options = {});
Result<CommitInfo> AlterColumnType(const TableLocation& location, const std::string& column,
                                   const std::string& type_name, const CommitOptions& options = {});

// A column to add, computed per row from the existing columns (see lance/expr/ast.h),
// e.g. {"total", "price * quantity"}.
struct ColumnExpression {
  std::string name;
  std::string expression;
};

// Adds columns computed from expressions over each fragment's rows. Rows already deleted get
// nulls. The new fields are nullable. Errors: InvalidArgument (bad expression, name already
// used), NotSupported (2.0 datasets), NotFound, CommitConflict.
Result<CommitInfo> AddColumns(const std::string& uri, const std::vector<ColumnExpression>& columns,
                              const CommitOptions& options = {});
Result<CommitInfo> AddColumns(const TableLocation& location,
                              const std::vector<ColumnExpression>& columns,
                              const CommitOptions& options = {});

// Adds the fields of `schema` as columns holding only nulls, without writing data: a Merge
// transaction with every fragment unchanged and the schema extended (fresh field ids), as
// lance 12's all-null add (readers give nulls for a field no data file of a fragment holds).
// Errors: InvalidArgument (no field, a name already used, a field anywhere in a new column's
// tree that is not nullable), NotSupported (a legacy 0.1 dataset, as lance 12), NotFound,
// CommitConflict.
Result<CommitInfo> AddNullColumns(const std::string& uri, const SchemaPtr& schema,
                                  const CommitOptions& options = {});
Result<CommitInfo> AddNullColumns(const TableLocation& location, const SchemaPtr& schema,
                                  const CommitOptions& options = {});

// Adds the columns of `batches` (all of `schema`), whose rows line up with the dataset's live
// rows in scan order (row i of the input belongs to the i-th row a full scan returns).
// Errors: InvalidArgument (row count differs from the dataset's, name already used),
// NotSupported, NotFound, CommitConflict.
Result<CommitInfo> AddColumnsFromData(const std::string& uri, const SchemaPtr& schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const CommitOptions& options = {});
Result<CommitInfo> AddColumnsFromData(const TableLocation& location, const SchemaPtr& schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const CommitOptions& options = {});

// Adds the columns of `batches` other than the key columns `on` (top-level columns of both the
// input and the dataset), joined on them: each live dataset row gets the values of the input
// row whose keys equal its own (compared by value as canonical JSON, so an int32 key matches an
// int64 one), nulls when no input row has them; a null key matches nothing and input rows
// matching no dataset row are ignored. The new fields are nullable.
// Errors: InvalidArgument (a key column missing on either side, two input rows with the same
// key, no column besides the keys, a name already used), NotSupported, NotFound,
// CommitConflict.
Result<CommitInfo> AddColumnsJoined(const std::string& uri, const SchemaPtr& schema,
                                    const std::vector<RecordBatchPtr>& batches,
                                    const std::vector<std::string>& on,
                                    const CommitOptions& options = {});
Result<CommitInfo> AddColumnsJoined(const TableLocation& location, const SchemaPtr& schema,
                                    const std::vector<RecordBatchPtr>& batches,
                                    const std::vector<std::string>& on,
                                    const CommitOptions& options = {});

}  // namespace lance::table
