#include "lance/ipc/options.h"

#include <cerrno>
#include <cstring>

#include "lance/ipc/output_sink.h"

namespace lance::ipc {

Result<Compression> CompressionFromName(std::string_view name) {
  if (name == "none" || name.empty()) return Compression::kNone;
  if (name == "lz4" || name == "lz4_frame") return Compression::kLz4Frame;
  if (name == "zstd") return Compression::kZstd;
  return Status::InvalidArgument("unknown IPC compression '{}': expected none, lz4 or zstd", name);
}

std::string_view CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return "none";
    case Compression::kLz4Frame:
      return "lz4";
    case Compression::kZstd:
      return "zstd";
  }
  return "?";
}

Result<std::unique_ptr<FileSink>> FileSink::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return Status::IOError("cannot create '{}': {}", path, std::strerror(errno));
  }
  return std::unique_ptr<FileSink>(new FileSink(path, f));
}

FileSink::~FileSink() {
  if (file_ != nullptr) std::fclose(file_);
}

Status FileSink::Write(const void* data, int64_t size) {
  if (file_ == nullptr) return Status::IOError("write to closed file '{}'", path_);
  if (size > 0 && std::fwrite(data, 1, static_cast<size_t>(size), file_) != static_cast<size_t>(size)) {
    return Status::IOError("cannot write {} bytes to '{}': {}", size, path_, std::strerror(errno));
  }
  return Status::OK();
}

Status FileSink::Close() {
  if (file_ == nullptr) return Status::OK();
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) return Status::IOError("cannot close '{}': {}", path_, std::strerror(errno));
  return Status::OK();
}

}  // namespace lance::ipc
