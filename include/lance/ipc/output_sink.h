// OutputSink: where the IPC writers put their bytes.
//
// A sink is an append-only byte destination used by one thread at a time. The writers only
// ever append, so a sink may be a socket, a file or memory. BufferSink collects into a
// 64-byte aligned Buffer (the natural input of the zero-copy readers); FileSink writes a
// local file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "lance/columnar/buffer.h"
#include "lance/core/result.h"

namespace lance::ipc {

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // Appends `size` bytes. Errors: IOError (the sink is then unusable).
  virtual Status Write(const void* data, int64_t size) = 0;
};

// Accumulates everything written in memory.
class BufferSink final : public OutputSink {
 public:
  Status Write(const void* data, int64_t size) override { return builder_.Append(data, size); }
  int64_t size() const { return builder_.size(); }
  // Makes room for `bytes` more bytes up front, so a large write does not grow (and copy) the
  // buffer repeatedly.
  Status Reserve(int64_t bytes) { return builder_.Reserve(bytes); }
  // Hands over the bytes written so far (64-byte aligned) and empties the sink.
  Result<BufferPtr> Finish() { return builder_.Finish(); }

 private:
  BufferBuilder builder_;
};

// Writes to a local file, created or truncated by Open.
class FileSink final : public OutputSink {
 public:
  // Errors: IOError naming the path.
  static Result<std::unique_ptr<FileSink>> Open(const std::string& path);
  ~FileSink() override;
  Status Write(const void* data, int64_t size) override;
  // Flushes and closes; further writes fail. Errors: IOError.
  Status Close();

 private:
  FileSink(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}
  std::string path_;
  std::FILE* file_;
};

}  // namespace lance::ipc
