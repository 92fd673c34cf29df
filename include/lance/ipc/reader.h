// Arrow IPC readers over a Buffer holding a whole stream or file (or, for a stream, a read
// function that gives its bytes in order).
//
// The input is untrusted: every flatbuffer is verified, every body range is checked against
// the body, decompressed sizes are bounded, the array layout is checked while it is built and
// (by default) every batch passes RecordBatch::ValidateFull(). Malformed input yields a
// Corruption error (NotSupported for valid but unsupported features such as unions, big-endian
// data or tensors), never a crash or a read outside the input.
//
// Reading is zero-copy: the arrays returned hold slices of the input buffer (which they keep
// alive) for every uncompressed body buffer that is suitably aligned; compressed or misaligned
// buffers are decoded or copied into fresh memory. Memory-map a file and pass the mapping to
// read it without copying.
//
// Readers are used by one thread at a time; the batches they return are immutable and may be
// shared freely.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/record_batch_reader.h"
#include "lance/ipc/options.h"

namespace lance::ipc {

enum class IpcFormat { kStream, kFile };

// kFile when `data` starts with the "ARROW1" magic, kStream otherwise.
IpcFormat DetectFormat(const Buffer& data);

class StreamDecoder;

// Reads up to `n` bytes of a stream into `out` and returns how many: 0 only at its end.
using ReadFn = std::function<Result<int64_t>(uint8_t* out, int64_t n)>;

// Reads the stream format. Dictionary batches between record batches replace (or, when marked
// as deltas, extend) the dictionary in force for later batches.
class StreamReader final : public RecordBatchReader {
 public:
  // Reads the schema message. Errors: Corruption, NotSupported.
  static Result<std::unique_ptr<StreamReader>> Open(BufferPtr data, IpcReadOptions options = {});
  // Reads the stream incrementally from `read` (stdin, a pipe, a socket): one message is read
  // and held at a time, so memory follows the largest batch, not the stream. Batches are
  // decoded from each message's own buffer (still zero-copy from it).
  static Result<std::unique_ptr<StreamReader>> OpenFrom(ReadFn read, IpcReadOptions options = {});
  ~StreamReader() override;

  SchemaPtr schema() const override;
  // The next batch, or nullptr after the end-of-stream marker (or the end of the input).
  Result<RecordBatchPtr> Next() override;

  // Dictionary messages seen so far, by kind.
  int64_t num_dictionary_batches() const;
  int64_t num_dictionary_deltas() const;
  int64_t num_dictionary_replacements() const;

 private:
  explicit StreamReader(std::unique_ptr<StreamDecoder> decoder);
  std::unique_ptr<StreamDecoder> decoder_;
};

// Reads the file format: the footer gives random access to the record batches. Dictionaries
// (including deltas) are all read at Open.
class FileReader {
 public:
  // Errors: Corruption (bad magic, footer, block or message), NotSupported.
  static Result<std::unique_ptr<FileReader>> Open(BufferPtr data, IpcReadOptions options = {});
  ~FileReader();

  const SchemaPtr& schema() const;
  int num_record_batches() const;
  // Custom metadata of the footer (may be null).
  const KeyValueMetadataPtr& footer_metadata() const;
  // REQUIRES: 0 <= i < num_record_batches() (otherwise InvalidArgument).
  Result<RecordBatchPtr> ReadRecordBatch(int i) const;
  // All batches, in order.
  Result<std::vector<RecordBatchPtr>> ReadAll() const;

 private:
  struct State;
  explicit FileReader(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Opens a stream or a file, told apart by DetectFormat, as a RecordBatchReader.
Result<std::unique_ptr<RecordBatchReader>> OpenStream(BufferPtr data, IpcReadOptions options = {});
Result<std::unique_ptr<RecordBatchReader>> OpenAny(BufferPtr data, IpcReadOptions options = {});

}  // namespace lance::ipc
