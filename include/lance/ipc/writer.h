// Arrow IPC writers: the stream format and the file format (metadata version V5).
//
// A stream is a schema message, then dictionary and record batch messages, then an
// end-of-stream marker. A file is "ARROW1", the same stream, a footer indexing every
// dictionary and record batch, the footer length and "ARROW1" again. Both writers take arrays
// with any slice offset and write them normalised (bitmaps re-aligned to bit 0, offsets
// rebased to 0, children cut to the referenced range). Dictionary-encoded fields get their
// dictionaries written before the first batch that uses them, and again (as a delta or a
// replacement) when a later batch carries a different dictionary.
//
// A writer is used by one thread at a time; it does not own its sink.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/ipc/options.h"
#include "lance/ipc/output_sink.h"

namespace lance::ipc {

class IpcPayloadWriter;

class StreamWriter {
 public:
  // Writes the schema message to `sink`. REQUIRES: `sink` outlives the writer.
  // Errors: InvalidArgument (bad options, a type IPC cannot carry), IOError from the sink.
  static Result<std::unique_ptr<StreamWriter>> Open(OutputSink* sink, SchemaPtr schema,
                                                    IpcWriteOptions options = {});
  ~StreamWriter();

  // Appends one batch (and the dictionary messages it needs). The batch's schema must equal
  // the writer's, field metadata aside. Errors: InvalidArgument, IOError.
  Status WriteBatch(const RecordBatch& batch);
  // Writes the end-of-stream marker. Further calls fail with InvalidArgument.
  Status Close();

 private:
  explicit StreamWriter(std::unique_ptr<IpcPayloadWriter> impl);
  std::unique_ptr<IpcPayloadWriter> impl_;
};

class FileWriter {
 public:
  // Writes the leading magic and the schema message. REQUIRES: `sink` outlives the writer.
  // `footer_metadata` is stored as the footer's custom metadata (may be null).
  static Result<std::unique_ptr<FileWriter>> Open(OutputSink* sink, SchemaPtr schema,
                                                  IpcWriteOptions options = {},
                                                  KeyValueMetadataPtr footer_metadata = nullptr);
  ~FileWriter();

  Status WriteBatch(const RecordBatch& batch);
  // Writes the end-of-stream marker, the footer and the trailing magic.
  Status Close();

 private:
  explicit FileWriter(std::unique_ptr<IpcPayloadWriter> impl);
  std::unique_ptr<IpcPayloadWriter> impl_;
};

// One-shot helpers: the whole stream or file for `batches` as one aligned buffer.
Result<BufferPtr> WriteStream(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                              const IpcWriteOptions& options = {});
Result<BufferPtr> WriteFile(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                            const IpcWriteOptions& options = {});

}  // namespace lance::ipc
