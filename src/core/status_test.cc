#include "lance/core/status.h"

#include <gtest/gtest.h>

#include "lance/core/bit_util.h"
#include "lance/core/result.h"

namespace lance {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("{} is odd", x);
  return x / 2;
}

Result<int> Quarter(int x) {
  LANCE_ASSIGN_OR_RAISE(int h, Half(x));
  LANCE_ASSIGN_OR_RAISE(h, Half(h));
  return h;
}

TEST(StatusTest, OkAndErrors) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.ToString(), "OK");
  Status st = Status::Corruption("file '{}': field {} expected {} found {}", "a.lance", "x", 1, 2);
  EXPECT_TRUE(st.IsCorruption());
  EXPECT_EQ(st.ToString(), "Corruption: file 'a.lance': field x expected 1 found 2");
  EXPECT_EQ(st.WithContext("reading").message(), "reading: file 'a.lance': field x expected 1 found 2");
  EXPECT_EQ(StatusCodeName(StatusCode::kCommitConflict), "CommitConflict");
}

TEST(ResultTest, PropagatesErrorsAndValues) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "3 is odd");
  Result<int> from_ok = Status::OK();
  EXPECT_TRUE(from_ok.status().IsInternal());
}

TEST(BitUtilTest, CountAndCopy) {
  uint8_t bits[16] = {0};
  for (int i = 0; i < 128; i += 3) bit_util::SetBit(bits, i);
  int64_t expect = 0;
  for (int i = 5; i < 120; ++i) expect += (i % 3 == 0);
  EXPECT_EQ(bit_util::CountSetBits(bits, 5, 115), expect);
  uint8_t dst[16] = {0};
  bit_util::CopyBitmap(bits, 3, 100, dst, 7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(bit_util::GetBit(dst, 7 + i), bit_util::GetBit(bits, 3 + i)) << i;
  bit_util::SetBitsTo(dst, 1, 90, true);
  EXPECT_EQ(bit_util::CountSetBits(dst, 1, 90), 90);
}

}  // namespace
}  // namespace lance
