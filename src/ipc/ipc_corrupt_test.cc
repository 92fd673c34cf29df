// Malformed and truncated IPC input: the readers must answer with an error (Corruption for
// damage, NotSupported for valid-but-unsupported content) and never crash or over-read.
// Run under -DLANCE_SANITIZE=ON to have over-reads reported.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ipc/ipc_test_util.h"
#include "ipc/wire.h"

namespace lance::ipc {
namespace {

using testing::EveryTypeBatch;
using testing::J;
using testing::WriteOrFail;

// Reads everything the input holds; returns the first error.
Status ReadEverything(const BufferPtr& data, IpcReadOptions options = {}) {
  if (DetectFormat(*data) == IpcFormat::kFile) {
    LANCE_ASSIGN_OR_RAISE(auto reader, FileReader::Open(data, options));
    return reader->ReadAll().status();
  }
  LANCE_ASSIGN_OR_RAISE(auto reader, StreamReader::Open(data, options));
  return reader->ReadAll().status();
}

// A copy of data[0, size) in its own allocation, so that reading past it is caught by ASan.
BufferPtr Prefix(const BufferPtr& data, int64_t size) {
  return BufferFromString(std::string(data->view().substr(0, static_cast<size_t>(size))));
}

bool IsReadError(const Status& st) { return st.IsCorruption() || st.IsNotSupported(); }

BufferPtr SmallStream(Compression compression = Compression::kNone) {
  auto schema = lance::schema({field("i", int32()), field("s", utf8()), field("l", list(int64()))});
  auto batch = *RecordBatch::Make(
      schema, 3,
      {J(int32(), "[1, null, 3]"), J(utf8(), R"(["a", "bc", null])"),
       J(list(int64()), "[[1], null, [2, 3]]")});
  IpcWriteOptions options;
  options.compression = compression;
  options.alignment = 8;
  return WriteOrFail(schema, {batch, batch}, IpcFormat::kStream, options);
}

BufferPtr SmallFile(Compression compression = Compression::kNone) {
  auto batch = EveryTypeBatch();
  IpcWriteOptions options;
  options.compression = compression;
  options.alignment = 8;
  return WriteOrFail(batch->schema(), {batch}, IpcFormat::kFile, options);
}

TEST(IpcCorruptTest, EmptyAndTinyInputs) {
  EXPECT_TRUE(StreamReader::Open(BufferFromString("")).status().IsCorruption());
  EXPECT_TRUE(StreamReader::Open(BufferFromString("\xff\xff")).status().IsCorruption());
  // An end-of-stream marker before the schema.
  EXPECT_TRUE(StreamReader::Open(BufferFromString(std::string("\xff\xff\xff\xff\0\0\0\0", 8)))
                  .status()
                  .IsCorruption());
  EXPECT_TRUE(FileReader::Open(BufferFromString("ARROW1")).status().IsCorruption());
  EXPECT_TRUE(FileReader::Open(BufferFromString(std::string("ARROW1\0\0\0\0\0\0\0\0ARROW1", 20)))
                  .status()
                  .IsCorruption());
  EXPECT_TRUE(StreamReader::Open(nullptr).status().IsInvalidArgument());
}

TEST(IpcCorruptTest, EveryTruncationOfAStream) {
  for (Compression c : {Compression::kNone, Compression::kZstd, Compression::kLz4Frame}) {
    auto data = SmallStream(c);
    ASSERT_TRUE(ReadEverything(data).ok());
    int ok = 0;
    for (int64_t n = 0; n < data->size(); ++n) {
      Status st = ReadEverything(Prefix(data, n));
      if (st.ok()) {
        ++ok;  // cut exactly between messages: a shorter valid stream
      } else {
        EXPECT_TRUE(IsReadError(st)) << "cut at " << n << ": " << st.ToString();
      }
    }
    // Only the message boundaries after the schema can be valid cuts: 2 batches, the marker.
    EXPECT_LE(ok, 3);
  }
}

TEST(IpcCorruptTest, EveryTruncationOfAFile) {
  auto data = SmallFile();
  ASSERT_TRUE(ReadEverything(data).ok());
  for (int64_t n = 0; n < data->size(); ++n) {
    Status st = ReadEverything(Prefix(data, n));
    EXPECT_FALSE(st.ok()) << "a file cut at " << n << " of " << data->size() << " was accepted";
    if (!st.ok()) {
      EXPECT_TRUE(IsReadError(st)) << st.ToString();
    }
  }
}

TEST(IpcCorruptTest, ByteFlipsNeverCrash) {
  for (const BufferPtr& data : {SmallStream(), SmallStream(Compression::kZstd), SmallFile(),
                                SmallFile(Compression::kLz4Frame)}) {
    std::string bytes(data->view());
    int errors = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (uint8_t flip : {0x01, 0x80, 0xFF}) {
        std::string damaged = bytes;
        damaged[i] = static_cast<char>(damaged[i] ^ flip);
        Status st = ReadEverything(BufferFromString(std::move(damaged)));
        if (!st.ok()) {
          ++errors;
          EXPECT_TRUE(IsReadError(st)) << "byte " << i << ": " << st.ToString();
        }
      }
    }
    // Flips in padding or in values are legitimately invisible; flips in framing are not.
    EXPECT_GT(errors, 0);
  }
}

TEST(IpcCorruptTest, DecompressedSizeIsBounded) {
  auto schema = lance::schema({field("s", utf8())});
  std::string json = "[";
  for (int i = 0; i < 1000; ++i) json += std::string(i ? "," : "") + "\"aaaaaaaaaaaaaaaa\"";
  json += "]";
  auto batch = *RecordBatch::Make(schema, 1000, {J(utf8(), json)});
  IpcWriteOptions options;
  options.compression = Compression::kZstd;
  auto data = WriteOrFail(schema, {batch}, IpcFormat::kStream, options);
  IpcReadOptions small;
  small.max_decompressed_buffer_size = 1000;
  Status st = ReadEverything(data, small);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_TRUE(ReadEverything(data).ok());
}

TEST(IpcCorruptTest, FooterLengthOutOfRange) {
  auto data = SmallFile();
  std::string bytes(data->view());
  const size_t at = bytes.size() - internal::kFileTrailerSize;
  for (int32_t bad : {0, -5, static_cast<int32_t>(bytes.size()), 0x7FFFFFFF}) {
    std::string damaged = bytes;
    std::memcpy(damaged.data() + at, &bad, 4);
    EXPECT_TRUE(FileReader::Open(BufferFromString(damaged)).status().IsCorruption()) << bad;
  }
}

TEST(IpcCorruptTest, BadMessageLength) {
  auto data = SmallStream();
  std::string bytes(data->view());
  for (int32_t bad : {-8, 0x7FFFFFF0, 3}) {
    std::string damaged = bytes;
    std::memcpy(damaged.data() + 4, &bad, 4);
    EXPECT_TRUE(StreamReader::Open(BufferFromString(damaged)).status().IsCorruption()) << bad;
  }
}

}  // namespace
}  // namespace lance::ipc
