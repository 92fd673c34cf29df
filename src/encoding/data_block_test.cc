// Bytes and DataBlock report a failed allocation as OutOfMemory and stay as they were (they
// threw std::bad_alloc before); adopted bytes are copied on the first growth; copies are
// explicit and deep.
#include "encoding/data_block.h"

#include <gtest/gtest.h>

#include <string>

namespace lance::encoding {
namespace {

// More than any machine this runs on can give (1 PiB).
constexpr size_t kImpossible = size_t{1} << 50;

TEST(Bytes, FailedGrowthIsOutOfMemoryAndKeepsTheBytes) {
  Bytes b;
  ASSERT_TRUE(b.Append("lance").ok());
  for (Status st : {b.Reserve(kImpossible), b.Resize(kImpossible), b.ResizeForOverwrite(kImpossible),
                    b.Append(kImpossible, 'x')}) {
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(st.IsOutOfMemory()) << st.ToString();
    EXPECT_EQ(std::string_view(b), "lance");
  }
  // Sizes past what a Buffer can describe are refused before allocating.
  Status st = b.Reserve(SIZE_MAX);
  EXPECT_TRUE(st.IsOutOfMemory()) << st.ToString();
  EXPECT_EQ(std::string_view(b), "lance");
}

TEST(Bytes, AdoptedBytesAreCopiedOnGrowthAndReleasedWithoutCopy) {
  auto buffer = CopyBuffer("arrow");
  ASSERT_TRUE(buffer.ok());
  Bytes b = Bytes::Adopt(*buffer);
  EXPECT_EQ(b.data(), reinterpret_cast<const char*>((*buffer)->data()));  // a view
  ASSERT_TRUE(b.Append("!").ok());
  EXPECT_NE(b.data(), reinterpret_cast<const char*>((*buffer)->data()));  // owned now
  EXPECT_EQ(std::string_view(b), "arrow!");
  EXPECT_EQ((*buffer)->view(), "arrow");
  b.mutable_data()[0] = 'A';
  b.Truncate(5);
  const char* before = b.data();
  auto released = b.Release();
  ASSERT_TRUE(released.ok()) << released.status().ToString();
  EXPECT_EQ((*released)->view(), "Arrow");
  EXPECT_EQ(reinterpret_cast<const char*>((*released)->data()), before);
  EXPECT_TRUE(b.empty());
  auto empty = Bytes().Release();
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->size(), 0);
}

TEST(DataBlock, AppendsReportFailureAndCloneIsDeep) {
  DataBlock v = DataBlock::Variable();
  ASSERT_TRUE(v.AppendVariable("ab").ok());
  ASSERT_TRUE(v.AppendVariable("").ok());
  ASSERT_TRUE(v.AppendEmpty(1).ok());
  EXPECT_EQ(v.num_values, 3);
  Status st = v.Reserve(1, static_cast<int64_t>(kImpossible));
  EXPECT_TRUE(st.IsOutOfMemory()) << st.ToString();
  EXPECT_EQ(v.num_values, 3);
  auto copy = v.Clone();
  ASSERT_TRUE(copy.ok());
  ASSERT_TRUE(copy->AppendVariable("cde").ok());
  EXPECT_EQ(v.num_values, 3);
  EXPECT_EQ(copy->num_values, 4);
  EXPECT_EQ(copy->ValueView(0), "ab");
  EXPECT_EQ(copy->ValueView(3), "cde");
  EXPECT_NE(copy->data.data(), v.data.data());

  DataBlock bits = DataBlock::Fixed(1);
  const uint8_t pattern = 0b101;
  ASSERT_TRUE(bits.AppendBits(&pattern, 0, 3).ok());
  ASSERT_TRUE(bits.AppendEmpty(2).ok());
  EXPECT_EQ(bits.num_values, 5);
  EXPECT_EQ(static_cast<uint8_t>(bits.data[0]), 0b00101);
}

}  // namespace
}  // namespace lance::encoding
