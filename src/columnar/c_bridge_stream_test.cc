// Arrow C Stream Interface: exported readers through the C callbacks, errors and errno codes
// both ways, round trips, hand-written and malformed imported streams.
#include "lance/columnar/c_bridge.h"

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "columnar/c_bridge_test_util.h"

namespace lance {
namespace {

using namespace c_bridge_test;  // NOLINT: the fixtures of these tests

TEST(CBridgeTest, EveryTypeThroughAStream) {
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> columns;
  int i = 0;
  for (const auto& [type, json] : EveryTypeCases()) {
    auto array = ArrayFromJSON(type, json);
    ASSERT_TRUE(array.ok());
    auto slice = (*array)->Slice(1, 2);
    fields.push_back(field("c" + std::to_string(i++), type));
    columns.push_back(slice);
  }
  auto batch = RecordBatch::Make(schema(fields), 2, columns);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<VectorRecordBatchReader>(
                                          (*batch)->schema(), std::vector<RecordBatchPtr>{*batch, *batch}),
                                      &stream)
                  .ok());
  auto reader = ImportRecordBatchReader(&stream);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->schema()->Equals(*(*batch)->schema()));
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 2u);
  for (const auto& b : *all) {
    EXPECT_TRUE((*batch)->Equals(*b));
    EXPECT_TRUE(b->ValidateFull().ok());
  }
}

// ---- Schemas and metadata ------------------------------------------------------------------

// A stream without its get_schema or get_next callback is refused (not called through a NULL
// pointer) and still released, as every import consumes its stream.
TEST(CBridgeTest, StreamWithoutCallbacksIsRefusedAndReleased) {
  for (int missing = 0; missing < 2; ++missing) {
    ArrowArrayStream c;
    auto s = schema({field("x", int32())});
    ASSERT_TRUE(ExportRecordBatchReader(
                    std::make_unique<VectorRecordBatchReader>(s, std::vector<RecordBatchPtr>{}), &c)
                    .ok());
    if (missing == 0) c.get_schema = nullptr;
    if (missing == 1) c.get_next = nullptr;
    auto r = ImportRecordBatchReader(&c);
    ASSERT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find(missing == 0 ? "get_schema" : "get_next"), std::string::npos)
        << r.status().ToString();
    EXPECT_EQ(c.release, nullptr);
  }
}

// ---- Streams -------------------------------------------------------------------------------

TEST(CBridgeTest, ExportedStreamThroughCCallbacks) {
  std::vector<RecordBatchPtr> batches = {SampleBatch(0), SampleBatch(10)};
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(
                  std::make_unique<VectorRecordBatchReader>(batches[0]->schema(), batches), &stream)
                  .ok());
  ArrowSchema c_schema;
  ASSERT_EQ(stream.get_schema(&stream, &c_schema), 0);
  auto s = ImportSchema(&c_schema);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(batches[0]->schema()->Equals(**s, true));

  for (const auto& expected : batches) {
    ArrowArray c;
    ASSERT_EQ(stream.get_next(&stream, &c), 0);
    ASSERT_NE(c.release, nullptr);
    EXPECT_EQ(c.length, 3);
    auto batch = ImportRecordBatch(&c, *s);
    ASSERT_TRUE(batch.ok());
    EXPECT_TRUE(expected->Equals(**batch));
  }
  for (int i = 0; i < 2; ++i) {  // the end is sticky
    ArrowArray c;
    c.release = reinterpret_cast<void (*)(ArrowArray*)>(1);
    ASSERT_EQ(stream.get_next(&stream, &c), 0);
    EXPECT_EQ(c.release, nullptr);
  }
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);
}

class FailingReader final : public RecordBatchReader {
 public:
  explicit FailingReader(int* destroyed) : destroyed_(destroyed) {}
  ~FailingReader() override { ++*destroyed_; }
  SchemaPtr schema() const override { return SampleBatch()->schema(); }
  Result<RecordBatchPtr> Next() override {
    if (calls_++ == 0) return SampleBatch();
    return Status::IOError("disk on fire at {}", "/data/x.lance");
  }

 private:
  int* destroyed_;
  int calls_ = 0;
};

TEST(CBridgeTest, ExportedStreamReportsErrors) {
  int destroyed = 0;
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<FailingReader>(&destroyed), &stream).ok());
  ArrowArray c;
  ASSERT_EQ(stream.get_next(&stream, &c), 0);
  c.release(&c);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(stream.get_next(&stream, &c), EIO);
    const char* msg = stream.get_last_error(&stream);
    ASSERT_NE(msg, nullptr);
    EXPECT_NE(std::string(msg).find("disk on fire at /data/x.lance"), std::string::npos) << msg;
  }
  EXPECT_EQ(destroyed, 0);
  stream.release(&stream);
  EXPECT_EQ(destroyed, 1);

  // Import side: the failure surfaces as a Status carrying the producer's message.
  ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<FailingReader>(&destroyed), &stream).ok());
  auto reader = ImportRecordBatchReader(&stream);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(stream.release, nullptr);
  auto first = (*reader)->Next();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((**first).num_rows(), 3);
  auto second = (*reader)->Next();
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsIOError());
  EXPECT_NE(second.status().message().find("disk on fire"), std::string::npos);
  EXPECT_TRUE((*reader)->Next().status().IsIOError());  // stays failed
  reader = Status::Cancelled("drop");
  EXPECT_EQ(destroyed, 2);
}

// Fails its first Next with the given status.
class ErrorReader final : public RecordBatchReader {
 public:
  explicit ErrorReader(Status st) : st_(std::move(st)) {}
  SchemaPtr schema() const override { return SampleBatch()->schema(); }
  Result<RecordBatchPtr> Next() override { return st_; }

 private:
  Status st_;
};

TEST(CBridgeTest, StreamErrorCodesMapBothWays) {
  struct Case {
    Status status;
    int errno_value;
    StatusCode imported;
  };
  const std::vector<Case> cases = {
      {Status::InvalidArgument("bad"), EINVAL, StatusCode::kInvalidArgument},
      {Status::OutOfMemory("oom"), ENOMEM, StatusCode::kOutOfMemory},
      {Status::NotSupported("nope"), ENOSYS, StatusCode::kNotSupported},
      {Status::Corruption("torn page"), EIO, StatusCode::kIOError},
      {Status::IOError("io"), EIO, StatusCode::kIOError}};
  for (const auto& c : cases) {
    ArrowArrayStream stream;
    ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<ErrorReader>(c.status), &stream).ok());
    ArrowArray out;
    EXPECT_EQ(stream.get_next(&stream, &out), c.errno_value);
    EXPECT_EQ(std::string(stream.get_last_error(&stream)), c.status.ToString());
    stream.release(&stream);

    ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<ErrorReader>(c.status), &stream).ok());
    auto reader = ImportRecordBatchReader(&stream);
    ASSERT_TRUE(reader.ok());
    auto r = (*reader)->Next();
    EXPECT_EQ(r.status().code(), c.imported) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.status.message()), std::string::npos);
  }
}

TEST(CBridgeTest, StreamRoundTrip) {
  std::vector<RecordBatchPtr> batches = {SampleBatch(0), SampleBatch(3), SampleBatch(6)};
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(
                  std::make_unique<VectorRecordBatchReader>(batches[0]->schema(), batches), &stream)
                  .ok());
  auto reader = ImportRecordBatchReader(&stream);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->schema()->Equals(*batches[0]->schema(), true));
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(batches[i]->Equals(*(*all)[i]));
}

// A C stream producer written by hand: yields `total` int32 batches of two rows from static
// memory, or fails with EINVAL at batch `fail_at`.
struct HandStream {
  static inline int stream_releases = 0;
  static inline int array_releases = 0;
  int next = 0;
  int total = 2;
  int fail_at = -1;
  static constexpr int32_t kValues[] = {5, 6};
  const void* buffers[2] = {nullptr, kValues};

  static void ReleaseSchema(ArrowSchema* s) { s->release = nullptr; }
  static void ReleaseArray(ArrowArray* a) {
    ++array_releases;
    a->release = nullptr;
  }
  static void ReleaseChildArray(ArrowArray* a) { a->release = nullptr; }

  static int GetSchema(ArrowArrayStream* s, ArrowSchema* out) {
    // "+s" with one int32 child "v"; the child lives in static storage.
    static ArrowSchema child;
    static ArrowSchema* children[] = {&child};
    child = ArrowSchema{};
    child.format = "i";
    child.name = "v";
    child.flags = ARROW_FLAG_NULLABLE;
    child.release = &ReleaseSchema;
    *out = ArrowSchema{};
    out->format = "+s";
    out->name = "";
    out->n_children = 1;
    out->children = children;
    out->release = &ReleaseSchema;
    (void)s;
    return 0;
  }
  static int GetNext(ArrowArrayStream* s, ArrowArray* out) {
    auto* self = static_cast<HandStream*>(s->private_data);
    if (self->next == self->fail_at) return EINVAL;
    *out = ArrowArray{};
    if (self->next++ >= self->total) return 0;  // end: release stays NULL
    static ArrowArray child;
    static ArrowArray* children[] = {&child};
    child = ArrowArray{};
    child.length = 2;
    child.n_buffers = 2;
    child.buffers = self->buffers;
    child.release = &ReleaseChildArray;
    static const void* struct_buffers[] = {nullptr};
    out->length = 2;
    out->n_buffers = 1;
    out->buffers = struct_buffers;
    out->n_children = 1;
    out->children = children;
    out->release = &ReleaseArray;
    return 0;
  }
  static const char* GetLastError(ArrowArrayStream*) { return "bad parameter in hand stream"; }
  static void Release(ArrowArrayStream* s) {
    ++stream_releases;
    s->release = nullptr;
  }

  ArrowArrayStream Make() {
    ArrowArrayStream s{};
    s.get_schema = &GetSchema;
    s.get_next = &GetNext;
    s.get_last_error = &GetLastError;
    s.release = &Release;
    s.private_data = this;
    return s;
  }
};

TEST(CBridgeTest, ImportHandWrittenStream) {
  HandStream::stream_releases = HandStream::array_releases = 0;
  HandStream producer;
  ArrowArrayStream stream = producer.Make();
  {
    auto reader = ImportRecordBatchReader(&stream);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->schema()->ToString(), "v: int32\n");
    auto all = (*reader)->ReadAll();
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    ASSERT_EQ(all->size(), 2u);
    EXPECT_EQ((*all)[1]->column(0)->Values<int32_t>()[1], 6);
    EXPECT_EQ(HandStream::array_releases, 0);  // the batches still hold the producer memory
    all = Status::Cancelled("drop");
    EXPECT_EQ(HandStream::array_releases, 2);
    EXPECT_EQ(HandStream::stream_releases, 0);
  }
  EXPECT_EQ(HandStream::stream_releases, 1);

  HandStream failing;
  failing.fail_at = 1;
  stream = failing.Make();
  auto reader = ImportRecordBatchReader(&stream);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE((*reader)->Next().ok());
  auto r = (*reader)->Next();
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("bad parameter in hand stream"), std::string::npos);
}

TEST(CBridgeTest, ImportStreamRejectsBadSchema) {
  HandStream::stream_releases = 0;
  HandStream producer;
  ArrowArrayStream stream = producer.Make();
  stream.get_schema = [](ArrowArrayStream*, ArrowSchema* out) {
    *out = ArrowSchema{};
    out->format = "i";  // not a struct
    out->release = &HandStream::ReleaseSchema;
    return 0;
  };
  auto reader = ImportRecordBatchReader(&stream);
  EXPECT_TRUE(reader.status().IsInvalidArgument()) << reader.status().ToString();
  EXPECT_EQ(HandStream::stream_releases, 1);

  stream = producer.Make();
  stream.get_schema = [](ArrowArrayStream*, ArrowSchema*) { return ENOMEM; };
  reader = ImportRecordBatchReader(&stream);
  EXPECT_EQ(reader.status().code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(HandStream::stream_releases, 2);
}

}  // namespace
}  // namespace lance
