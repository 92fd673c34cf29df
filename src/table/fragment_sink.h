// FragmentSink: the data files of new fragments written from batches as they arrive (one file
// per fragment of at most max_rows_per_file rows, each streamed to the store), so a write
// holds one batch and the file writer's open pages, never its whole input.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/file/file_writer.h"
#include "lance/file/lance_schema.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"

namespace lance::table::internal {

// Lance ids of the fields that own a column of a data file, in pre-order: in a 2.1+ file the
// leaves of the flattened schema (fields without child fields), in 2.0 and v1 files every field.
std::vector<int32_t> ColumnFieldIds(const std::vector<file::LanceField>& fields, file::FileVersion fv);

class FragmentSink {
 public:
  // `schema`: the file schema (Lance ids); `leaves`: the field ids of its leaf columns.
  // Errors: InvalidArgument when max_rows_per_file <= 0.
  static Result<std::unique_ptr<FragmentSink>> Make(StagedFiles& staged, file::WriteOptions options,
                                                    SchemaPtr schema, std::vector<int32_t> leaves,
                                                    int64_t max_rows_per_file);
  ~FragmentSink();

  // Appends the rows of `batch` (columns in the order of the schema).
  Status Add(const RecordBatch& batch);
  // Finishes the open file and returns every fragment written (id 0, no row ids).
  Result<std::vector<FragmentInfo>> Finish();

 private:
  FragmentSink(StagedFiles& staged, file::WriteOptions options, SchemaPtr schema,
               std::vector<int32_t> leaves, int64_t max_rows_per_file);
  Status FinishFile();

  StagedFiles& staged_;
  file::WriteOptions options_;
  SchemaPtr schema_;
  std::vector<int32_t> leaves_;
  int64_t max_rows_per_file_;
  std::vector<FragmentInfo> out_;
  std::unique_ptr<file::FileWriter> writer_;
  std::string name_;
  int64_t in_file_ = 0;
};

}  // namespace lance::table::internal
