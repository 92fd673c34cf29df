// FileReader::Open through an object store (ranged reads of the metadata at the end of the
// file), for layouts the whole-buffer tests cannot catch: metadata larger than the first tail
// read (the schema buffer sits before the column metadata), and files without rows or pages.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "lance/columnar/builder.h"
#include "lance/file/file_reader.h"
#include "lance/file/file_writer.h"
#include "lance/io/memory_object_store.h"

namespace lance::file {
namespace {

RecordBatchPtr Sequence(const SchemaPtr& s, int64_t n) {
  Int64Builder ids(int64());
  std::vector<int64_t> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = i * 7919 % 1000003;
  EXPECT_TRUE(ids.AppendValues(values.data(), n).ok());
  auto array = ids.Finish();
  EXPECT_TRUE(array.ok());
  auto batch = RecordBatch::Make(s, n, {*array});
  EXPECT_TRUE(batch.ok());
  return *batch;
}

void Write(const std::shared_ptr<io::ObjectStore>& store, const SchemaPtr& s,
           const std::vector<RecordBatchPtr>& batches, const WriteOptions& options) {
  auto writer = FileWriter::Open(store, "f.lance", s, options);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  for (const auto& b : batches) ASSERT_TRUE((*writer)->Write(*b).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
}

TEST(FileReaderStoreTest, MetadataLargerThanTheFirstTailRead) {
  auto s = schema({field("id", int64(), false)});
  const int64_t n = 200000;
  auto batch = Sequence(s, n);
  auto store = io::MemoryObjectStore::Make();
  WriteOptions options;
  options.max_page_bytes = 256;  // thousands of pages: column metadata well over 64 KiB
  options.compress = false;
  Write(store, s, {batch}, options);

  auto reader = FileReader::Open(store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_GT((*reader)->columns()[0].pages.size(), 1000u);
  // The metadata really is larger than the first read of the file's end.
  auto whole = store->Get("f.lance");
  ASSERT_TRUE(whole.ok());
  const auto& pages = (*reader)->columns()[0].pages;
  const uint64_t data_end = pages.back().buffers.back().first + pages.back().buffers.back().second;
  ASSERT_GT((*whole)->size() - data_end, 64u * 1024u);

  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_TRUE((*all)->Equals(*batch));
  auto some = (*reader)->Take({199999, 0, 123456});
  ASSERT_TRUE(some.ok()) << some.status().ToString();
  auto expected = Sequence(s, 200000);
  const auto* got = (*some)->column(0)->Values<int64_t>();
  const auto* want = expected->column(0)->Values<int64_t>();
  EXPECT_EQ(got[0], want[199999]);
  EXPECT_EQ(got[1], want[0]);
  EXPECT_EQ(got[2], want[123456]);
}

// Column metadata is parsed at a column's first read, not at Open: a corrupt column another
// read never touches does not stop it, and the read that does touch it fails with a message
// naming the file and the column (every time, also from columns()'s listing).
TEST(FileReaderStoreTest, CorruptColumnMetadataFailsAtFirstUse) {
  auto s = schema({field("id", int64(), false), field("name", utf8())});
  StringBuilder names(utf8());
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(names.Append("n" + std::to_string(i)).ok());
  auto name_array = names.Finish();
  ASSERT_TRUE(name_array.ok());
  auto ids = Sequence(schema({s->field(0)}), 1000);
  auto batch = RecordBatch::Make(s, 1000, {ids->column(0), *name_array});
  ASSERT_TRUE(batch.ok());
  auto store = io::MemoryObjectStore::Make();
  Write(store, s, {*batch}, WriteOptions{});
  auto whole = store->Get("f.lance");
  ASSERT_TRUE(whole.ok());
  std::string bytes((*whole)->view());
  // Footer: column metadata start (8), column metadata offset table (8), ...; the table's
  // entry for column 1 is (position, length) of its ColumnMetadata.
  uint64_t cmo = 0, pos = 0, len = 0;
  std::memcpy(&cmo, bytes.data() + bytes.size() - kFooterSize + 8, 8);
  std::memcpy(&pos, bytes.data() + cmo + 16, 8);
  std::memcpy(&len, bytes.data() + cmo + 24, 8);
  ASSERT_GT(len, 0u);
  for (uint64_t i = 0; i < len; ++i) bytes[pos + i] = '\xff';  // wire type 7: never valid
  ASSERT_TRUE(store->Put("f.lance", bytes).ok());

  auto reader = FileReader::Open(store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->num_columns(), 2);
  auto id = (*reader)->ReadRange(0, 1000, {0});
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_TRUE((*id)->column(0)->Equals(*ids->column(0)));
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto name = (*reader)->Take({3, 5}, {1});
    ASSERT_FALSE(name.ok());
    EXPECT_TRUE(name.status().IsCorruption()) << name.status().ToString();
    EXPECT_NE(name.status().message().find("f.lance"), std::string::npos) << name.status().ToString();
    EXPECT_NE(name.status().message().find("column 1 metadata"), std::string::npos)
        << name.status().ToString();
  }
  EXPECT_FALSE((*reader)->ReadAll().ok());
  const auto& columns = (*reader)->columns();
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns[0].pages.size(), 1u);
  EXPECT_TRUE(columns[1].pages.empty());
  EXPECT_EQ((*reader)->FieldBytes(1), 0);
  EXPECT_GT((*reader)->FieldBytes(0), 0);
}

TEST(FileReaderStoreTest, ZeroRowFileReadsEmpty) {
  auto s = schema({field("a", int32()), field("l", list(utf8())),
                   field("v", fixed_size_list(float32(), 3))});
  for (uint16_t minor : {1, 2}) {
    auto store = io::MemoryObjectStore::Make();
    WriteOptions options;
    options.version = {2, minor};
    Write(store, s, {}, options);
    auto reader = FileReader::Open(store, "f.lance");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->num_rows(), 0);
    auto all = (*reader)->ReadAll();
    ASSERT_TRUE(all.ok()) << "2." << minor << ": " << all.status().ToString();
    EXPECT_EQ((*all)->num_rows(), 0);
    ASSERT_EQ((*all)->num_columns(), 3);
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ((*all)->column(c)->length, 0);
      EXPECT_TRUE((*all)->column(c)->type->Equals(*s->field(c)->type()));
    }
  }
}

}  // namespace
}  // namespace lance::file
