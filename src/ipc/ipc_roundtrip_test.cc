// Round trips through the IPC writers and readers: every type, slices, dictionaries,
// compression, metadata, empty and zero-batch streams and files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "ipc/ipc_test_util.h"
#include "ipc/wire.h"

namespace lance::ipc {
namespace {

using testing::Dict;
using testing::EveryTypeBatch;
using testing::J;
using testing::ReadAllOrFail;
using testing::WriteOrFail;

// A read function over `data` that gives at most `chunk` bytes per call (as a pipe may).
ReadFn ChunkedReads(BufferPtr data, int64_t chunk) {
  auto pos = std::make_shared<int64_t>(0);
  return [data, chunk, pos](uint8_t* out, int64_t n) -> Result<int64_t> {
    const int64_t k = std::min({n, chunk, data->size() - *pos});
    std::memcpy(out, data->data() + *pos, static_cast<size_t>(k));
    *pos += k;
    return k;
  };
}

void ExpectBatchesEqual(const std::vector<RecordBatchPtr>& expected,
                        const std::vector<RecordBatchPtr>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t b = 0; b < expected.size(); ++b) {
    ASSERT_EQ(expected[b]->num_rows(), actual[b]->num_rows()) << "batch " << b;
    ASSERT_EQ(expected[b]->num_columns(), actual[b]->num_columns());
    for (int c = 0; c < expected[b]->num_columns(); ++c) {
      EXPECT_TRUE(expected[b]->column(c)->Equals(*actual[b]->column(c)))
          << "batch " << b << " column " << expected[b]->schema()->field(c)->name()
          << "\nexpected " << expected[b]->column(c)->ToString() << "\nactual   "
          << actual[b]->column(c)->ToString();
    }
    EXPECT_TRUE(actual[b]->ValidateFull().ok());
  }
}

// (format, compression, alignment)
class RoundTripTest
    : public ::testing::TestWithParam<std::tuple<IpcFormat, Compression, int32_t>> {
 protected:
  IpcFormat format() const { return std::get<0>(GetParam()); }
  IpcWriteOptions options() const {
    IpcWriteOptions o;
    o.compression = std::get<1>(GetParam());
    o.alignment = std::get<2>(GetParam());
    return o;
  }

  std::vector<RecordBatchPtr> RoundTrip(const SchemaPtr& schema,
                                        const std::vector<RecordBatchPtr>& batches) {
    BufferPtr data = WriteOrFail(schema, batches, format(), options());
    if (!data) return {};
    EXPECT_EQ(DetectFormat(*data), format());
    SchemaPtr read_schema;
    auto out = ReadAllOrFail(data, format(), &read_schema);
    EXPECT_TRUE(read_schema && read_schema->Equals(*schema, /*check_metadata=*/true))
        << (read_schema ? read_schema->ToString() : "no schema") << "\nvs\n"
        << schema->ToString();
    if (format() == IpcFormat::kStream) {
      // Pulled through a read function in odd-sized chunks: the same schema and batches.
      auto pulled = StreamReader::OpenFrom(ChunkedReads(data, 7));
      EXPECT_TRUE(pulled.ok()) << pulled.status().ToString();
      if (pulled.ok()) {
        EXPECT_TRUE((*pulled)->schema()->Equals(*schema, /*check_metadata=*/true));
        auto all = (*pulled)->ReadAll();
        EXPECT_TRUE(all.ok()) << all.status().ToString();
        if (all.ok()) ExpectBatchesEqual(out, *all);
      }
    }
    // The format-agnostic entry point sees the same batches.
    auto any = OpenAny(data);
    EXPECT_TRUE(any.ok()) << any.status().ToString();
    if (any.ok()) {
      auto again = (*any)->ReadAll();
      EXPECT_TRUE(again.ok());
      if (again.ok()) {
        EXPECT_EQ(again->size(), out.size());
      }
    }
    return out;
  }
};

TEST_P(RoundTripTest, EveryType) {
  auto batch = EveryTypeBatch();
  ASSERT_TRUE(batch);
  auto out = RoundTrip(batch->schema(), {batch, batch});
  ExpectBatchesEqual({batch, batch}, out);
}

TEST_P(RoundTripTest, SlicedInputIsNormalised) {
  auto batch = EveryTypeBatch();
  ASSERT_TRUE(batch);
  // Odd offsets force bitmap re-alignment and offset rebasing at every level.
  std::vector<RecordBatchPtr> slices = {batch->Slice(1, 3), batch->Slice(3, 2),
                                        batch->Slice(0, 5), batch->Slice(4, 1),
                                        batch->Slice(2, 0)};
  auto out = RoundTrip(batch->schema(), slices);
  ExpectBatchesEqual(slices, out);
  // What is read back starts at offset 0.
  for (const auto& b : out) {
    for (const auto& col : b->columns()) EXPECT_EQ(col->offset, 0);
  }
}

TEST_P(RoundTripTest, SlicedDeepNesting) {
  // A long list<struct<list<utf8>>> sliced at a non-multiple of 8.
  std::string json = "[";
  for (int i = 0; i < 40; ++i) {
    if (i) json += ",";
    if (i % 7 == 3) {
      json += "null";
    } else {
      json += fmt::format(R"([{{"s": ["v{}", null, "w"], "n": {}}}, {{"s": [], "n": null}}])", i,
                          i);
    }
  }
  json += "]";
  auto type = list(struct_({field("s", list(utf8())), field("n", int32())}));
  auto array = J(type, json);
  ASSERT_TRUE(array);
  auto schema = lance::schema({field("deep", type)});
  auto full = *RecordBatch::Make(schema, 40, {array});
  std::vector<RecordBatchPtr> slices = {full->Slice(13, 17), full->Slice(1, 39)};
  ExpectBatchesEqual(slices, RoundTrip(schema, slices));
}

TEST_P(RoundTripTest, ZeroBatches) {
  auto batch = EveryTypeBatch();
  auto out = RoundTrip(batch->schema(), {});
  EXPECT_TRUE(out.empty());
}

TEST_P(RoundTripTest, EmptyBatch) {
  auto batch = EveryTypeBatch();
  auto empty = batch->Slice(0, 0);
  auto out = RoundTrip(batch->schema(), {empty, empty});
  ExpectBatchesEqual({empty, empty}, out);
}

TEST_P(RoundTripTest, SchemaWithoutFields) {
  auto schema = lance::schema({});
  auto batch = std::make_shared<const RecordBatch>(schema, 3, std::vector<ArrayPtr>{});
  auto out = RoundTrip(schema, {batch});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->num_rows(), 3);
  EXPECT_EQ(out[0]->num_columns(), 0);
}

TEST_P(RoundTripTest, MetadataPreserved) {
  auto md = [](std::vector<std::pair<std::string, std::string>> kv) {
    return std::make_shared<const KeyValueMetadata>(std::move(kv));
  };
  auto inner = field("inner", int32(), false, md({{"inner-key", "inner-value"}}));
  auto schema = lance::schema(
      {field("a", int64(), true, md({{"k", "v"}, {"lance-schema:unenforced-primary-key", "1"}})),
       field("s", struct_({inner}), true, md({{"", ""}, {"empty value", ""}}))},
      md({{"schema-key", "schema-value"}, {"utf8 \xc3\xa9", "\x01\x02"}}));
  auto batch = *RecordBatch::Make(
      schema, 2, {J(int64(), "[1, 2]"), J(struct_({inner}), R"([{"inner": 1}, {"inner": 2}])")});
  auto out = RoundTrip(schema, {batch});
  ExpectBatchesEqual({batch}, out);
  ASSERT_EQ(out.size(), 1u);
  const auto& f = out[0]->schema()->field(1)->type()->field(0);
  ASSERT_TRUE(f->metadata());
  EXPECT_EQ(f->metadata()->Get("inner-key"), "inner-value");
  EXPECT_FALSE(f->nullable());
}

TEST_P(RoundTripTest, DictionaryDeltas) {
  auto schema = lance::schema({field("d", dictionary(int32(), utf8()))});
  auto d1 = J(utf8(), R"(["a", "b"])");
  auto d2 = J(utf8(), R"(["a", "b", "c", "d"])");
  auto d3 = J(utf8(), R"(["a", "b", "c", "d", "e"])");
  std::vector<RecordBatchPtr> batches = {
      *RecordBatch::Make(schema, 3, {Dict({0, 1, -1}, d1)}),
      *RecordBatch::Make(schema, 2, {Dict({3, 2}, d2)}),
      *RecordBatch::Make(schema, 2, {Dict({3, 2}, d2)}),  // unchanged: nothing resent
      *RecordBatch::Make(schema, 4, {Dict({4, 0, 1, -1}, d3)}),
  };
  ExpectBatchesEqual(batches, RoundTrip(schema, batches));
  if (format() == IpcFormat::kStream) {
    auto data = WriteOrFail(schema, batches, format(), options());
    auto reader = *StreamReader::Open(data);
    ASSERT_TRUE(reader->ReadAll().ok());
    EXPECT_EQ(reader->num_dictionary_batches(), 3);
    EXPECT_EQ(reader->num_dictionary_deltas(), 2);
    EXPECT_EQ(reader->num_dictionary_replacements(), 0);
  }
}

TEST_P(RoundTripTest, DictionaryReplacement) {
  auto schema = lance::schema({field("d", dictionary(int8(), int64()))});
  std::vector<RecordBatchPtr> batches = {
      *RecordBatch::Make(schema, 2, {Dict({0, 1}, J(int64(), "[10, 20]"), int8())}),
      *RecordBatch::Make(schema, 2, {Dict({1, 0}, J(int64(), "[30, 40]"), int8())}),
  };
  auto written = format() == IpcFormat::kFile ? WriteFile(schema, batches, options())
                                              : WriteStream(schema, batches, options());
  if (format() == IpcFormat::kFile) {
    // Files cannot replace a dictionary.
    ASSERT_FALSE(written.ok());
    EXPECT_TRUE(written.status().IsInvalidArgument()) << written.status().ToString();
    return;
  }
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  auto reader = *StreamReader::Open(*written);
  auto out = reader->ReadAll();
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectBatchesEqual(batches, *out);
  EXPECT_EQ(reader->num_dictionary_replacements(), 1);
  EXPECT_EQ((*out)[1]->column(0)->dictionary->ToString(), "[30, 40]");
}

TEST_P(RoundTripTest, DeltasDisabledMeanReplacement) {
  if (format() == IpcFormat::kFile) return;  // replacement is stream-only, checked above
  auto schema = lance::schema({field("d", dictionary(int32(), utf8()))});
  std::vector<RecordBatchPtr> batches = {
      *RecordBatch::Make(schema, 1, {Dict({0}, J(utf8(), R"(["a"])"))}),
      *RecordBatch::Make(schema, 1, {Dict({1}, J(utf8(), R"(["a", "b"])"))}),
  };
  auto opts = options();
  opts.emit_dictionary_deltas = false;
  auto data = WriteOrFail(schema, batches, format(), opts);
  auto reader = *StreamReader::Open(data);
  auto out = reader->ReadAll();
  ASSERT_TRUE(out.ok());
  ExpectBatchesEqual(batches, *out);
  EXPECT_EQ(reader->num_dictionary_deltas(), 0);
  EXPECT_EQ(reader->num_dictionary_replacements(), 1);
}

TEST_P(RoundTripTest, LargerBatchesCompress) {
  // Enough repetitive data that the codecs really compress (and small buffers that do not).
  std::string ints = "[";
  std::string strs = "[";
  for (int i = 0; i < 5000; ++i) {
    ints += (i ? "," : "") + std::to_string(i % 17);
    strs += std::string(i ? "," : "") + (i % 11 == 0 ? "null" : "\"value-" + std::to_string(i % 5) + "\"");
  }
  ints += "]";
  strs += "]";
  auto schema = lance::schema({field("i", int64()), field("s", utf8()), field("t", boolean())});
  auto batch = *RecordBatch::Make(schema, 5000,
                                  {J(int64(), ints), J(utf8(), strs),
                                   *MakeArrayOfNulls(boolean(), 5000)});
  auto data = WriteOrFail(schema, {batch}, format(), options());
  ASSERT_TRUE(data);
  if (options().compression != Compression::kNone) {
    IpcWriteOptions plain = options();
    plain.compression = Compression::kNone;
    auto uncompressed = WriteOrFail(schema, {batch}, format(), plain);
    EXPECT_LT(data->size() * 3, uncompressed->size()) << "compressed output should be much smaller";
  }
  ExpectBatchesEqual({batch}, ReadAllOrFail(data, format()));
}

INSTANTIATE_TEST_SUITE_P(
    Formats, RoundTripTest,
    ::testing::Combine(::testing::Values(IpcFormat::kStream, IpcFormat::kFile),
                       ::testing::Values(Compression::kNone, Compression::kLz4Frame,
                                         Compression::kZstd),
                       ::testing::Values(8, 64)),
    [](const auto& info) {
      return std::string(std::get<0>(info.param) == IpcFormat::kFile ? "File" : "Stream") +
             (std::get<1>(info.param) == Compression::kNone       ? "Plain"
              : std::get<1>(info.param) == Compression::kLz4Frame ? "Lz4"
                                                                  : "Zstd") +
             std::to_string(std::get<2>(info.param));
    });

bool Within(const Buffer& inner, const Buffer& outer) {
  return inner.data() >= outer.data() && inner.data() + inner.size() <= outer.data() + outer.size();
}

// A stream pulled through a read function and cut at any byte reads as the same cut stream
// held whole does: the same batches, or an error of the same code.
TEST(IpcReadTest, PulledStreamCutAnywhereAgreesWithWholeInput) {
  auto schema = lance::schema({field("a", int64()), field("s", utf8())});
  std::vector<RecordBatchPtr> batches = {
      *RecordBatch::Make(schema, 3, {J(int64(), "[1, 2, null]"), J(utf8(), R"(["x", "", "yz"])")}),
      *RecordBatch::Make(schema, 1, {J(int64(), "[7]"), J(utf8(), R"(["last"])")}),
  };
  BufferPtr data = WriteOrFail(schema, batches, IpcFormat::kStream);
  ASSERT_NE(data, nullptr);
  for (int64_t cut = 0; cut <= data->size(); ++cut) {
    BufferPtr part = SliceBuffer(data, 0, cut);
    auto whole = StreamReader::Open(part);
    auto pulled = StreamReader::OpenFrom(ChunkedReads(part, 5));
    ASSERT_EQ(whole.ok(), pulled.ok()) << "cut " << cut << ": " << pulled.status().ToString();
    if (!whole.ok()) {
      EXPECT_EQ(whole.status().code(), pulled.status().code()) << "cut " << cut;
      continue;
    }
    auto a = (*whole)->ReadAll();
    auto b = (*pulled)->ReadAll();
    ASSERT_EQ(a.ok(), b.ok()) << "cut " << cut << ": " << b.status().ToString();
    if (a.ok()) {
      ExpectBatchesEqual(*a, *b);
    } else {
      EXPECT_EQ(a.status().code(), b.status().code()) << "cut " << cut;
    }
  }
  EXPECT_EQ(StreamReader::OpenFrom(nullptr).status().code(), StatusCode::kInvalidArgument);
}

TEST(IpcReadTest, UncompressedReadIsZeroCopy) {
  std::string ints = "[";
  std::string strs = "[";
  for (int i = 0; i < 1000; ++i) {
    ints += (i ? "," : "") + std::to_string(i);
    strs += std::string(i ? "," : "") + "\"s" + std::to_string(i) + "\"";
  }
  ints += "]";
  strs += "]";
  auto schema = lance::schema({field("i", int64()), field("s", utf8())});
  auto batch = *RecordBatch::Make(schema, 1000, {J(int64(), ints), J(utf8(), strs)});
  for (IpcFormat format : {IpcFormat::kStream, IpcFormat::kFile}) {
    auto data = WriteOrFail(schema, {batch}, format);
    auto out = ReadAllOrFail(data, format);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(Within(*out[0]->column(0)->buffers[1], *data));
    EXPECT_TRUE(Within(*out[0]->column(1)->buffers[1], *data));
    EXPECT_TRUE(Within(*out[0]->column(1)->buffers[2], *data));
    EXPECT_TRUE(out[0]->column(0)->buffers[1]->is_aligned(64));
    EXPECT_EQ(out[0]->column(0)->Values<int64_t>()[999], 999);
  }
}

TEST(IpcReadTest, MisalignedInputIsCopied) {
  auto schema = lance::schema({field("i", int64())});
  auto batch = *RecordBatch::Make(schema, 3, {J(int64(), "[1, 2, 3]")});
  auto data = WriteOrFail(schema, {batch}, IpcFormat::kStream);
  // Shift the whole stream by one byte.
  auto shifted_storage = *AllocateBuffer(data->size() + 1);
  std::memcpy(shifted_storage->mutable_data() + 1, data->data(), static_cast<size_t>(data->size()));
  auto shifted = SliceBuffer(shifted_storage, 1, data->size());
  auto out = ReadAllOrFail(shifted, IpcFormat::kStream);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0]->column(0)->buffers[1]->is_aligned(8));
  EXPECT_FALSE(Within(*out[0]->column(0)->buffers[1], *shifted));
  EXPECT_TRUE(out[0]->Equals(*batch));
}

TEST(IpcWriteTest, LayoutFacts) {
  auto schema = lance::schema({field("i", int32())});
  auto batch = *RecordBatch::Make(schema, 2, {J(int32(), "[1, 2]")});
  auto stream = WriteOrFail(schema, {batch}, IpcFormat::kStream);
  // Continuation marker first, end-of-stream marker last.
  uint32_t first;
  std::memcpy(&first, stream->data(), 4);
  EXPECT_EQ(first, 0xFFFFFFFFu);
  const uint8_t eos[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(stream->data() + stream->size() - 8, eos, 8), 0);
  EXPECT_EQ(stream->size() % 8, 0);
  auto file = WriteOrFail(schema, {batch}, IpcFormat::kFile);
  EXPECT_EQ(std::string(file->view().substr(0, 8)), std::string("ARROW1\0\0", 8));
  EXPECT_EQ(std::string(file->view().substr(file->size() - 6)), "ARROW1");
}

TEST(IpcWriteTest, RejectsMismatchedBatch) {
  auto schema = lance::schema({field("i", int32())});
  BufferSink sink;
  auto writer = *StreamWriter::Open(&sink, schema);
  auto other = lance::schema({field("i", int64())});
  auto batch = *RecordBatch::Make(other, 1, {J(int64(), "[1]")});
  EXPECT_TRUE(writer->WriteBatch(*batch).IsInvalidArgument());
  EXPECT_TRUE(writer->Close().ok());
  EXPECT_TRUE(writer->Close().IsInvalidArgument());
  IpcWriteOptions bad;
  bad.alignment = 16;
  BufferSink sink2;
  EXPECT_TRUE(StreamWriter::Open(&sink2, schema, bad).status().IsInvalidArgument());
}

TEST(IpcWriteTest, FooterMetadata) {
  auto schema = lance::schema({field("i", int32())});
  BufferSink sink;
  auto md = std::make_shared<const KeyValueMetadata>(
      std::vector<std::pair<std::string, std::string>>{{"footer", "yes"}});
  auto writer = *FileWriter::Open(&sink, schema, {}, md);
  ASSERT_TRUE(writer->WriteBatch(**RecordBatch::Make(schema, 1, {J(int32(), "[7]")})).ok());
  ASSERT_TRUE(writer->Close().ok());
  auto reader = *FileReader::Open(*sink.Finish());
  ASSERT_TRUE(reader->footer_metadata());
  EXPECT_EQ(reader->footer_metadata()->Get("footer"), "yes");
  EXPECT_EQ(reader->num_record_batches(), 1);
  EXPECT_EQ((*reader->ReadRecordBatch(0))->column(0)->ToString(), "[7]");
  EXPECT_TRUE(reader->ReadRecordBatch(1).status().IsInvalidArgument());
}

TEST(IpcOptionsTest, CompressionNames) {
  EXPECT_EQ(*CompressionFromName("zstd"), Compression::kZstd);
  EXPECT_EQ(*CompressionFromName("lz4"), Compression::kLz4Frame);
  EXPECT_EQ(*CompressionFromName("none"), Compression::kNone);
  EXPECT_TRUE(CompressionFromName("gzip").status().IsInvalidArgument());
}

}  // namespace
}  // namespace lance::ipc
