// C Data Interface ownership: exported buffers live until release, imported ones release the
// producer exactly once (also on errors), imports validate; record batches both ways.
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

// ---- Release accounting --------------------------------------------------------------------

TEST(CBridgeTest, ExportKeepsBuffersAliveUntilRelease) {
  auto values = Values(std::vector<int64_t>{1, 2, 3});
  auto strs = Strings(utf8(), {"a", "b", "c"});
  std::weak_ptr<const Buffer> strs_data = strs->buffers[2];
  const long base = values.use_count();
  ArrowArray c;
  {
    auto st = struct_({field("v", int64()), field("s", utf8())});
    auto array = StructOf(st, 3, {Array::Make(int64(), 3, {nullptr, values}), strs});
    strs.reset();
    ASSERT_TRUE(ExportArray(array, &c).ok());
  }
  EXPECT_GT(values.use_count(), base);  // held by the export alone now
  EXPECT_FALSE(strs_data.expired());
  EXPECT_EQ(std::memcmp(c.children[1]->buffers[2], "abc", 3), 0);
  c.release(&c);
  EXPECT_EQ(c.release, nullptr);
  EXPECT_EQ(values.use_count(), base);
  EXPECT_TRUE(strs_data.expired());
}

TEST(CBridgeTest, MovedChildOutlivesItsReleasedParent) {
  auto values = Values(std::vector<int32_t>{7, 8});
  const long base = values.use_count();
  ArrowArray c;
  {
    auto st = struct_({field("a", int32()), field("b", int32())});
    auto a = Array::Make(int32(), 2, {nullptr, values});
    ASSERT_TRUE(ExportArray(StructOf(st, 2, {a, Primitive<int32_t>(int32(), {1, 2})}), &c).ok());
  }
  // Move child 0 out (bitwise copy, mark the source released), then release the parent.
  ArrowArray child = *c.children[0];
  c.children[0]->release = nullptr;
  c.release(&c);
  EXPECT_GT(values.use_count(), base);
  EXPECT_EQ(static_cast<const int32_t*>(child.buffers[1])[1], 8);
  auto imported = ImportArray(&child, int32());
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ((*imported)->Values<int32_t>()[0], 7);
  imported = Status::Cancelled("drop");
  EXPECT_EQ(values.use_count(), base);
}

// A producer-side ArrowArray over static memory whose release is counted.
struct CountedProducer {
  static inline int releases = 0;
  static inline int child_releases = 0;
  static void Release(ArrowArray* a) {
    for (int64_t i = 0; a->children != nullptr && i < a->n_children; ++i) {
      if (a->children[i]->release) a->children[i]->release(a->children[i]);
    }
    ++releases;
    a->release = nullptr;
  }
  static void ReleaseChild(ArrowArray* a) {
    ++child_releases;
    a->release = nullptr;
  }
};

TEST(CBridgeTest, ImportReleasesProducerOnceWhenLastBufferDrops) {
  static const int32_t values[] = {10, 20, 30, 40};
  static const uint8_t validity[] = {0x02};  // element 0 null, 1 valid
  static const int32_t offsets[] = {0, 1, 4};
  const void* child_buffers[] = {nullptr, values};
  ArrowArray child{};
  child.length = 4;
  child.null_count = 0;
  child.n_buffers = 2;
  child.buffers = child_buffers;
  child.release = &CountedProducer::ReleaseChild;
  ArrowArray* children[] = {&child};
  const void* buffers[] = {validity, offsets};
  ArrowArray parent{};
  parent.length = 2;
  parent.null_count = -1;  // not computed: the import counts
  parent.n_buffers = 2;
  parent.n_children = 1;
  parent.buffers = buffers;
  parent.children = children;
  parent.release = &CountedProducer::Release;

  CountedProducer::releases = CountedProducer::child_releases = 0;
  auto imported = ImportArray(&parent, list(int32()));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(parent.release, nullptr);  // moved
  ArrayPtr array = *imported;
  imported = Status::Cancelled("drop");
  EXPECT_EQ(array->null_count, 1);
  EXPECT_TRUE(array->IsNull(0));
  EXPECT_EQ(array->ValueLength(1), 3);
  EXPECT_EQ(array->children[0]->Values<int32_t>(), values);  // zero-copy
  EXPECT_EQ(array->children[0]->null_count, 0);

  BufferPtr keep = array->children[0]->buffers[1];
  array.reset();
  EXPECT_EQ(CountedProducer::releases, 0);  // a buffer is still in use
  keep.reset();
  EXPECT_EQ(CountedProducer::releases, 1);
  EXPECT_EQ(CountedProducer::child_releases, 1);  // by the parent, not by us
}

TEST(CBridgeTest, ImportErrorsStillReleaseTheProducer) {
  static const int32_t values[] = {1, 2};
  auto make = [](ArrowArray* a, const void** bufs) {
    *a = ArrowArray{};
    a->length = 2;
    a->n_buffers = 2;
    a->buffers = bufs;
    a->release = &CountedProducer::Release;
  };
  const void* bufs[] = {nullptr, values};
  ArrowArray a;

  CountedProducer::releases = 0;
  make(&a, bufs);
  a.n_buffers = 3;  // wrong buffer count for int32
  auto r = ImportArray(&a, int32());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("expected 2 buffers, got 3"), std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(CountedProducer::releases, 1);

  make(&a, bufs);
  a.null_count = 1;  // nulls claimed but no validity bitmap
  EXPECT_TRUE(ImportArray(&a, int32()).status().IsInvalidArgument());
  EXPECT_EQ(CountedProducer::releases, 2);

  const void* no_values[] = {nullptr, nullptr};
  make(&a, no_values);  // values buffer missing for a non-empty array
  EXPECT_TRUE(ImportArray(&a, int32()).status().IsInvalidArgument());
  EXPECT_EQ(CountedProducer::releases, 3);

  make(&a, bufs);
  a.offset = -1;
  EXPECT_TRUE(ImportArray(&a, int32()).status().IsInvalidArgument());
  EXPECT_EQ(CountedProducer::releases, 4);

  make(&a, bufs);
  HandSchema bad("q");  // the array is consumed even when the schema is bad
  EXPECT_TRUE(ImportArray(&a, &bad.schema).status().IsInvalidArgument());
  EXPECT_EQ(CountedProducer::releases, 5);
  EXPECT_EQ(bad.schema.release, nullptr);

  make(&a, bufs);
  EXPECT_TRUE(ImportArray(&a, utf8()).status().IsInvalidArgument());  // utf8 needs 3 buffers
  EXPECT_EQ(CountedProducer::releases, 6);

  make(&a, bufs);
  a.n_children = 1;  // int32 has no children
  EXPECT_TRUE(ImportArray(&a, int32()).status().IsInvalidArgument());
  EXPECT_EQ(CountedProducer::releases, 7);

  ArrowArray released{};
  EXPECT_TRUE(ImportArray(&released, int32()).status().IsInvalidArgument());
}

TEST(CBridgeTest, ImportAcceptsNullBuffersOfEmptyArrays) {
  const void* bufs[] = {nullptr, nullptr, nullptr};
  ArrowArray a{};
  a.n_buffers = 3;
  a.buffers = bufs;
  a.release = &CountedProducer::Release;
  auto r = ImportArray(&a, utf8());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->length, 0);
  EXPECT_EQ((*r)->ValueOffset(0), 0);

  // Non-empty array of empty strings: the data buffer may be NULL.
  static const int32_t offsets[] = {0, 0, 0};
  const void* bufs2[] = {nullptr, offsets, nullptr};
  a = ArrowArray{};
  a.length = 2;
  a.n_buffers = 3;
  a.buffers = bufs2;
  a.release = &CountedProducer::Release;
  r = ImportArray(&a, utf8());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->GetView(1), "");
}

TEST(CBridgeTest, ImportRunsValidate) {
  // Offsets that run past the child: Validate must refuse the array before anyone reads it.
  static const int32_t values[] = {1, 2};
  static const int32_t offsets[] = {0, 1, 9};
  const void* child_buffers[] = {nullptr, values};
  ArrowArray child{};
  child.length = 2;
  child.n_buffers = 2;
  child.buffers = child_buffers;
  child.release = &CountedProducer::ReleaseChild;
  ArrowArray* children[] = {&child};
  const void* buffers[] = {nullptr, offsets};
  ArrowArray parent{};
  parent.length = 2;
  parent.n_buffers = 2;
  parent.n_children = 1;
  parent.buffers = buffers;
  parent.children = children;
  parent.release = &CountedProducer::Release;
  CountedProducer::releases = 0;
  auto r = ImportArray(&parent, list(int32()));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(CountedProducer::releases, 1);
}

TEST(CBridgeTest, ImportRejectsShortStructChild) {
  static const int32_t values[] = {1};
  const void* child_buffers[] = {nullptr, values};
  ArrowArray child{};
  child.length = 1;  // the parent claims two rows
  child.n_buffers = 2;
  child.buffers = child_buffers;
  child.release = &CountedProducer::ReleaseChild;
  ArrowArray* children[] = {&child};
  const void* buffers[] = {nullptr};
  ArrowArray parent{};
  parent.length = 2;
  parent.n_buffers = 1;
  parent.n_children = 1;
  parent.buffers = buffers;
  parent.children = children;
  parent.release = &CountedProducer::Release;
  CountedProducer::releases = 0;
  auto r = ImportArray(&parent, struct_({field("a", int32())}));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(CountedProducer::releases, 1);
}

// ---- Record batches ------------------------------------------------------------------------

TEST(CBridgeTest, RecordBatchRoundTrip) {
  auto batch = SampleBatch();
  ArrowArray c_array;
  ArrowSchema c_schema;
  ASSERT_TRUE(ExportRecordBatch(*batch, &c_array, &c_schema).ok());
  EXPECT_STREQ(c_schema.format, "+s");
  EXPECT_EQ(c_array.n_children, 2);
  EXPECT_EQ(c_array.null_count, 0);
  auto back = ImportRecordBatch(&c_array, &c_schema);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(batch->Equals(**back, /*check_metadata=*/true));
  EXPECT_EQ((*back)->column(0)->buffers[1]->data(), batch->column(0)->buffers[1]->data());

  // A sliced batch: each column carries its own offset.
  auto sliced = batch->Slice(1, 2);
  ASSERT_TRUE(ExportRecordBatch(*sliced, &c_array).ok());
  auto back2 = ImportRecordBatch(&c_array, batch->schema());
  ASSERT_TRUE(back2.ok()) << back2.status().ToString();
  EXPECT_TRUE(sliced->Equals(**back2));
}

TEST(CBridgeTest, ImportRecordBatchAppliesStructOffset) {
  auto batch = SampleBatch();
  auto st = struct_(batch->schema()->fields());
  auto as_struct = StructOf(st, 3, batch->columns())->Slice(1, 2);
  ArrowArray c;
  ASSERT_TRUE(ExportArray(as_struct, &c).ok());
  auto back = ImportRecordBatch(&c, batch->schema());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(batch->Slice(1, 2)->Equals(**back));

  auto with_nulls = StructOf(st, 3, batch->columns(), {true, false, true});
  ASSERT_TRUE(ExportArray(with_nulls, &c).ok());
  EXPECT_TRUE(ImportRecordBatch(&c, batch->schema()).status().IsInvalidArgument());
}

}  // namespace
}  // namespace lance
