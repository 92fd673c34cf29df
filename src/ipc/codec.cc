#include "ipc/codec.h"

#include <lz4frame.h>
#include <zstd.h>

#include <memory>

namespace lance::ipc::internal {

namespace {

Status CompressLz4(int level, const uint8_t* data, int64_t size, std::string* out) {
  LZ4F_preferences_t prefs{};
  prefs.compressionLevel = level;
  // The content size in the frame header lets other readers preallocate.
  prefs.frameInfo.contentSize = static_cast<unsigned long long>(size);
  const size_t bound = LZ4F_compressFrameBound(static_cast<size_t>(size), &prefs);
  const size_t start = out->size();
  out->resize(start + bound);
  const size_t n = LZ4F_compressFrame(out->data() + start, bound, data, static_cast<size_t>(size),
                                      &prefs);
  if (LZ4F_isError(n)) {
    out->resize(start);
    return Status::Internal("lz4 frame compression failed: {}", LZ4F_getErrorName(n));
  }
  out->resize(start + n);
  return Status::OK();
}

Status CompressZstd(int level, const uint8_t* data, int64_t size, std::string* out) {
  const size_t bound = ZSTD_compressBound(static_cast<size_t>(size));
  const size_t start = out->size();
  out->resize(start + bound);
  const size_t n = ZSTD_compress(out->data() + start, bound, data, static_cast<size_t>(size),
                                 level == 0 ? 1 : level);
  if (ZSTD_isError(n)) {
    out->resize(start);
    return Status::Internal("zstd compression failed: {}", ZSTD_getErrorName(n));
  }
  out->resize(start + n);
  return Status::OK();
}

struct Lz4DctxFree {
  void operator()(LZ4F_dctx* d) const { LZ4F_freeDecompressionContext(d); }
};

Status DecompressLz4(const uint8_t* data, int64_t size, uint8_t* dst, int64_t expected) {
  LZ4F_dctx* raw = nullptr;
  const size_t rc = LZ4F_createDecompressionContext(&raw, LZ4F_VERSION);
  if (LZ4F_isError(rc)) return Status::OutOfMemory("lz4: cannot create a decompression context");
  std::unique_ptr<LZ4F_dctx, Lz4DctxFree> ctx(raw);
  size_t in_pos = 0;
  size_t out_pos = 0;
  const auto in_size = static_cast<size_t>(size);
  const auto out_size = static_cast<size_t>(expected);
  while (true) {
    size_t in_len = in_size - in_pos;
    size_t out_len = out_size - out_pos;
    const size_t hint = LZ4F_decompress(ctx.get(), dst + out_pos, &out_len, data + in_pos,
                                        &in_len, nullptr);
    if (LZ4F_isError(hint)) {
      return Status::Corruption("lz4 frame: {}", LZ4F_getErrorName(hint));
    }
    in_pos += in_len;
    out_pos += out_len;
    if (hint == 0) break;  // frame complete
    if (in_len == 0 && out_len == 0) {
      // No progress: either the input ended early or the output is full with more to come.
      return Status::Corruption("lz4 frame: {} after {} of {} bytes",
                                out_pos == out_size ? "more data than declared" : "truncated",
                                out_pos, expected);
    }
  }
  if (out_pos != out_size) {
    return Status::Corruption("lz4 frame decodes to {} bytes, expected {}", out_pos, expected);
  }
  if (in_pos != in_size) {
    return Status::Corruption("lz4 frame: {} trailing bytes after the frame", in_size - in_pos);
  }
  return Status::OK();
}

Status DecompressZstd(const uint8_t* data, int64_t size, uint8_t* dst, int64_t expected) {
  const size_t n = ZSTD_decompress(dst, static_cast<size_t>(expected), data,
                                   static_cast<size_t>(size));
  if (ZSTD_isError(n)) return Status::Corruption("zstd frame: {}", ZSTD_getErrorName(n));
  if (n != static_cast<size_t>(expected)) {
    return Status::Corruption("zstd frame decodes to {} bytes, expected {}", n, expected);
  }
  return Status::OK();
}

}  // namespace

Status CompressBytes(Compression codec, int level, const uint8_t* data, int64_t size,
                     std::string* out) {
  switch (codec) {
    case Compression::kLz4Frame:
      return CompressLz4(level, data, size, out);
    case Compression::kZstd:
      return CompressZstd(level, data, size, out);
    case Compression::kNone:
      break;
  }
  return Status::Internal("CompressBytes called without a codec");
}

Status DecompressBytes(Compression codec, const uint8_t* data, int64_t size, uint8_t* dst,
                       int64_t uncompressed_size) {
  switch (codec) {
    case Compression::kLz4Frame:
      return DecompressLz4(data, size, dst, uncompressed_size);
    case Compression::kZstd:
      return DecompressZstd(data, size, dst, uncompressed_size);
    case Compression::kNone:
      break;
  }
  return Status::Internal("DecompressBytes called without a codec");
}

}  // namespace lance::ipc::internal
