// RecordBatchReader: a pull-based stream of record batches sharing one schema.
//
// The common shape of everything that yields batches (IPC stream and file readers, imported
// ArrowArrayStreams, Lance file and dataset scans). A reader is used by one thread at a time.
#pragma once

#include <memory>
#include <vector>

#include "lance/columnar/array.h"

namespace lance {

class RecordBatchReader {
 public:
  virtual ~RecordBatchReader() = default;

  // The schema every batch has. Valid for the reader's lifetime.
  virtual SchemaPtr schema() const = 0;

  // The next batch, or nullptr at the end of the stream. After an error the reader must not be
  // used again except to be destroyed.
  virtual Result<RecordBatchPtr> Next() = 0;

  // Reads every remaining batch.
  Result<std::vector<RecordBatchPtr>> ReadAll() {
    std::vector<RecordBatchPtr> out;
    while (true) {
      LANCE_ASSIGN_OR_RAISE(auto batch, Next());
      if (!batch) return out;
      out.push_back(std::move(batch));
    }
  }
};

// A reader over batches already in memory.
class VectorRecordBatchReader final : public RecordBatchReader {
 public:
  VectorRecordBatchReader(SchemaPtr schema, std::vector<RecordBatchPtr> batches)
      : schema_(std::move(schema)), batches_(std::move(batches)) {}
  SchemaPtr schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    if (next_ >= batches_.size()) return RecordBatchPtr{};
    return batches_[next_++];
  }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchPtr> batches_;
  size_t next_ = 0;
};

}  // namespace lance
