// Writers of the older data file versions lance 12 still writes into older datasets (internal
// to the file layer; FileWriter::Open hands WriteOptions::version 0.1 / 0.2 and 0.3 here):
//
// * legacy "v1" files (footer 0.2; legacy_v1_writer.cc): the mirror of legacy_v1_reader.h
//   (plain / var_binary / dictionary pages per batch of at most 1024 rows, a page table over
//   the field id range, the schema embedded in the file). As v1 stores them, nulls of numbers,
//   booleans, lists and structs are not recorded (their slots' bytes are written), a null
//   string or binary is written empty (a nullable field reads it as null).
// * 2.0 files (footer 0.3; v2_0_writer.cc): one column per Lance field in pre-order, one page
//   per column and Write, in the plain 2.0 encodings (src/encoding/legacy.h): nullable(flat),
//   fixed_size_list, binary, list (+ the item column), struct, dictionary, all-null.
//
// Types neither version can hold (map; v1 also large lists of dictionaries etc.): InvalidArgument
// or NotSupported at Open naming the field.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lance/file/file_writer.h"
#include "lance/file/lance_schema.h"

namespace lance::file::internal {

class OlderFileWriter {
 public:
  virtual ~OlderFileWriter() = default;
  virtual Status Write(const RecordBatch& batch) = 0;
  virtual Result<WriteSummary> Finish() = 0;
  virtual void Abort() = 0;
  virtual const SchemaPtr& schema() const = 0;
};

// The FileDescriptor message (schema fields with their v1-era encodings, schema metadata, row
// count) that 2.0 and 2.1+ files store as global buffer 0 (defined in file_writer.cc).
std::string EncodeFileDescriptor(const std::vector<LanceField>& fields, const ::lance::Schema& schema, int64_t num_rows);

// Appends the values of rows [0, a.length) of a fixed-width array (bool: bits from bit 0; a
// fixed-size list: its flattened items), validity ignored.
void AppendFixedValues(const Array& a, std::string* out);

Result<std::unique_ptr<OlderFileWriter>> OpenV1Writer(std::shared_ptr<io::ObjectStore> store,
                                                      std::string path, SchemaPtr schema,
                                                      const WriteOptions& options);
Result<std::unique_ptr<OlderFileWriter>> OpenV20Writer(std::shared_ptr<io::ObjectStore> store,
                                                       std::string path, SchemaPtr schema,
                                                       const WriteOptions& options);

}  // namespace lance::file::internal
