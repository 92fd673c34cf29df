// Arrow C Stream Interface: a RecordBatchReader exported as an ArrowArrayStream (errors as
// errno codes with a last-error message) and an ArrowArrayStream imported as a reader.
#include "lance/columnar/c_bridge.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace lance {

namespace {

int ErrnoFor(const Status& st) {
  switch (st.code()) {
    case StatusCode::kOk: return 0;
    case StatusCode::kInvalidArgument: return EINVAL;
    case StatusCode::kOutOfMemory: return ENOMEM;
    case StatusCode::kNotSupported: return ENOSYS;
    default: return EIO;
  }
}

struct ExportedStream {
  std::unique_ptr<RecordBatchReader> reader;
  Status error;  // sticky: after a failure every get_next repeats it
  std::string last_error;
  bool finished = false;
};

// Returns the errno for `st` (0 when OK), keeping its text for get_last_error.
int StreamFail(ExportedStream* p, const Status& st) {
  if (st.ok()) return 0;
  p->last_error = st.ToString();
  return ErrnoFor(st);
}

int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* p = static_cast<ExportedStream*>(stream->private_data);
  try {
    const SchemaPtr schema = p->reader->schema();
    if (!schema) return StreamFail(p, Status::Internal("stream reader has no schema"));
    return StreamFail(p, ExportSchema(*schema, out));
  } catch (const std::bad_alloc&) {
    return StreamFail(p, Status::OutOfMemory("out of memory exporting the stream schema"));
  } catch (const std::exception& e) {
    return StreamFail(p, Status::Internal("exporting the stream schema: {}", e.what()));
  }
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  auto* p = static_cast<ExportedStream*>(stream->private_data);
  if (!p->error.ok()) return StreamFail(p, p->error);
  try {
    RecordBatchPtr batch;
    if (!p->finished) {
      auto next = p->reader->Next();
      if (!next.ok()) {
        p->error = next.status();
        return StreamFail(p, p->error);
      }
      batch = std::move(next).ValueOrDie();
    }
    if (!batch) {
      p->finished = true;
      std::memset(out, 0, sizeof(*out));  // release == NULL marks the end of the stream
      return 0;
    }
    Status st = ExportRecordBatch(*batch, out);
    if (!st.ok()) p->error = st;
    return StreamFail(p, st);
  } catch (const std::bad_alloc&) {
    p->error = Status::OutOfMemory("out of memory reading the next batch");
  } catch (const std::exception& e) {
    p->error = Status::Internal("reading the next batch: {}", e.what());
  }
  return StreamFail(p, p->error);
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  auto* p = static_cast<ExportedStream*>(stream->private_data);
  return p->last_error.empty() ? nullptr : p->last_error.c_str();
}

void ReleaseExportedStream(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete static_cast<ExportedStream*>(stream->private_data);
  stream->private_data = nullptr;
  stream->release = nullptr;
}

Status StatusFromErrno(int code, const char* message, std::string_view what) {
  const std::string detail = message != nullptr ? std::string(message) : std::strerror(code);
  switch (code) {
    case EINVAL:
      return Status::InvalidArgument("C stream {} failed (errno {}): {}", what, code, detail);
    case ENOMEM: return Status::OutOfMemory("C stream {} failed (errno {}): {}", what, code, detail);
    case ENOSYS:
      return Status::NotSupported("C stream {} failed (errno {}): {}", what, code, detail);
    default: return Status::IOError("C stream {} failed (errno {}): {}", what, code, detail);
  }
}

class ImportedStreamReader final : public RecordBatchReader {
 public:
  explicit ImportedStreamReader(ArrowArrayStream* stream) : stream_(*stream) {
    stream->release = nullptr;
  }
  ~ImportedStreamReader() override {
    if (stream_.release != nullptr) stream_.release(&stream_);
  }
  ImportedStreamReader(const ImportedStreamReader&) = delete;
  ImportedStreamReader& operator=(const ImportedStreamReader&) = delete;

  Status Init() {
    if (stream_.get_schema == nullptr || stream_.get_next == nullptr ||
        stream_.get_last_error == nullptr) {
      return Status::InvalidArgument("C stream import: a stream callback is NULL");
    }
    ArrowSchema c_schema;
    std::memset(&c_schema, 0, sizeof(c_schema));
    const int rc = stream_.get_schema(&stream_, &c_schema);
    if (rc != 0) return StatusFromErrno(rc, stream_.get_last_error(&stream_), "get_schema");
    LANCE_ASSIGN_OR_RAISE(schema_, ImportSchema(&c_schema));
    return Status::OK();
  }

  SchemaPtr schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (!error_.ok()) return error_;
    if (done_) return RecordBatchPtr{};
    ArrowArray c_array;
    std::memset(&c_array, 0, sizeof(c_array));
    const int rc = stream_.get_next(&stream_, &c_array);
    if (rc != 0) {
      error_ = StatusFromErrno(rc, stream_.get_last_error(&stream_), "get_next");
      return error_;
    }
    if (c_array.release == nullptr) {
      done_ = true;
      return RecordBatchPtr{};
    }
    auto batch = ImportRecordBatch(&c_array, schema_);
    if (!batch.ok()) error_ = batch.status();
    return batch;
  }

 private:
  ArrowArrayStream stream_;
  SchemaPtr schema_;
  Status error_;  // a failed get_next is final: the stream is not asked again
  bool done_ = false;
};


}  // namespace

Status ExportRecordBatchReader(std::unique_ptr<RecordBatchReader> reader, ArrowArrayStream* out) {
  if (out == nullptr) return Status::InvalidArgument("C stream export: output stream is null");
  if (!reader) return Status::InvalidArgument("C stream export: reader is null");
  auto* p = new ExportedStream();
  p->reader = std::move(reader);
  out->get_schema = &StreamGetSchema;
  out->get_next = &StreamGetNext;
  out->get_last_error = &StreamGetLastError;
  out->release = &ReleaseExportedStream;
  out->private_data = p;
  return Status::OK();
}

Result<std::unique_ptr<RecordBatchReader>> ImportRecordBatchReader(ArrowArrayStream* stream) {
  if (stream == nullptr) return Status::InvalidArgument("C stream import: stream is null");
  if (stream->release == nullptr) return Status::InvalidArgument("C stream import: stream is released");
  if (stream->get_schema == nullptr || stream->get_next == nullptr) {
    const char* missing = stream->get_schema == nullptr ? "get_schema" : "get_next";
    auto release = stream->release;
    release(stream);
    stream->release = nullptr;
    return Status::InvalidArgument("C stream import: the stream has no {} callback", missing);
  }
  auto reader = std::make_unique<ImportedStreamReader>(stream);
  LANCE_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

}  // namespace lance
