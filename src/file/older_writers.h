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
#include <string_view>
#include <vector>

#include "lance/file/file_writer.h"
#include "lance/file/lance_schema.h"
#include "lance/io/object_store.h"

namespace lance::file::internal {

// What the v1 and 2.0 writers share: the Lance fields of the input schema, the output object
// and its position, the input checks of Write, and the last step of Finish.
class OlderFileWriter {
 public:
  virtual ~OlderFileWriter() { Abort(); }
  virtual Status Write(const RecordBatch& batch) = 0;
  virtual Result<WriteSummary> Finish() = 0;
  // Drops an unfinished file (nothing is published).
  void Abort() {
    if (done_) return;
    done_ = true;
    if (out_) (void)out_->Abort();
  }
  const SchemaPtr& schema() const { return schema_; }

 protected:
  // `what` names the format in messages ("legacy lance file", "lance 2.0 file").
  explicit OlderFileWriter(const char* what) : what_(what) {}

  // Keeps the store, the path and the input schema, and derives the Lance fields (ids in
  // pre-order) and the schema with ids; the output is opened by OpenOutput.
  Status Begin(std::shared_ptr<io::ObjectStore> store, std::string path, const SchemaPtr& schema) {
    store_ = std::move(store);
    path_ = std::move(path);
    input_schema_ = schema;
    LANCE_ASSIGN_OR_RAISE(fields_, LanceFieldsFromSchema(*schema, &schema_));
    return Status::OK();
  }
  Status OpenOutput() {
    LANCE_ASSIGN_OR_RAISE(out_, store_->OpenWriter(path_));
    return Status::OK();
  }
  Status CheckNotFinished() const {
    return done_ ? Status::InvalidArgument("{} writer: already finished", what_) : Status::OK();
  }
  // A batch to Write: not finished, and the input schema's field count and types.
  Status CheckBatch(const RecordBatch& batch) const {
    LANCE_RETURN_NOT_OK(CheckNotFinished());
    if (batch.num_columns() != input_schema_->num_fields()) {
      return Status::InvalidArgument("{} '{}': batch has {} fields, the file {}", what_, path_, batch.num_columns(),
                                     input_schema_->num_fields());
    }
    for (int i = 0; i < batch.num_columns(); ++i) {
      if (!batch.column(i)->type->Equals(*input_schema_->field(i)->type())) {
        return Status::InvalidArgument("{} '{}': batch field {} is {}, expected {}", what_, path_, i,
                                       batch.column(i)->type->ToString(), input_schema_->field(i)->type()->ToString());
      }
    }
    return Status::OK();
  }
  Status Put(std::string_view bytes) {
    if (bytes.empty()) return Status::OK();
    LANCE_RETURN_NOT_OK(out_->Write(bytes));
    pos_ += static_cast<int64_t>(bytes.size());
    return Status::OK();
  }
  // Writes `tail` (the footer), closes the object and sums the file up.
  Result<WriteSummary> Close(std::string_view tail, FileVersion version, int num_columns) {
    LANCE_RETURN_NOT_OK(Put(tail));
    LANCE_RETURN_NOT_OK(out_->Close());
    done_ = true;
    WriteSummary s;
    s.num_rows = num_rows_;
    s.size_bytes = pos_;
    s.num_columns = num_columns;
    s.version = version;
    s.schema = schema_;
    return s;
  }

  const char* what_;
  std::shared_ptr<io::ObjectStore> store_;
  std::string path_;
  SchemaPtr input_schema_, schema_;
  std::vector<LanceField> fields_;
  std::unique_ptr<io::ObjectWriter> out_;
  int64_t pos_ = 0;
  int64_t num_rows_ = 0;
  bool done_ = false;
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
