// MemTableBudget: the flush trigger at half the bound picks the writer whose active MemTable is
// the largest (ties: the lowest id), then the next largest while the trigger still holds; the
// bound makes appends wait; a writer that leaves takes its bytes with it.
#include <gtest/gtest.h>

#include "lance/memwal/memtable_budget.h"

namespace lance::memwal {
namespace {

TEST(MemTableBudget, TheLargestActiveMemTableFreezesFirst) {
  MemTableBudget b(100);
  int wakes = 0;
  const int a = b.Subscribe([&] { ++wakes; });
  const int c = b.Subscribe([&] { ++wakes; });
  b.Grow(a, 20);
  b.Grow(c, 25);
  EXPECT_FALSE(b.Over());  // 45 < half the bound
  EXPECT_FALSE(b.FreezeNext(a));
  EXPECT_FALSE(b.FreezeNext(c));
  b.Grow(a, 10);  // 30 + 25 >= 50
  EXPECT_TRUE(b.Over());
  EXPECT_TRUE(b.FreezeNext(a));
  EXPECT_FALSE(b.FreezeNext(c));
  b.Freeze(a, 30);
  EXPECT_EQ(b.active_bytes(), 25);
  EXPECT_EQ(b.frozen_bytes(), 30);
  EXPECT_FALSE(b.Over());
  EXPECT_FALSE(b.FreezeNext(c));
  b.Grow(a, 20);
  b.Grow(c, 5);  // 20 + 30 >= 50: c holds more
  EXPECT_TRUE(b.FreezeNext(c));
  EXPECT_FALSE(b.FreezeNext(a));
  b.Freeze(c, 30);
  b.Grow(a, 30);  // a 50 alone
  EXPECT_TRUE(b.FreezeNext(a));
  EXPECT_TRUE(b.Full());  // 50 active + 60 frozen >= 100
  b.Release(a, 30, 0);
  b.Release(c, 30, 0);
  EXPECT_FALSE(b.Full());
  EXPECT_EQ(b.peak_bytes(), 110);
  // Ties: the lowest id.
  b.Grow(c, 50);
  EXPECT_TRUE(b.FreezeNext(a));
  EXPECT_FALSE(b.FreezeNext(c));
  // A writer that leaves drops its bytes: the other is then the largest.
  b.Unsubscribe(a);
  b.Release(a, 0, 50);
  EXPECT_EQ(b.active_bytes(), 50);
  EXPECT_TRUE(b.FreezeNext(c));
  EXPECT_GT(wakes, 0);
  b.Unsubscribe(c);
}

TEST(MemTableBudget, AdmittedAppendsCountAgainstTheBound) {
  MemTableBudget b(100);
  const int a = b.Subscribe([] {});
  EXPECT_FALSE(b.Full(150));  // nothing held: one append larger than the bound still goes
  b.Reserve(40);
  EXPECT_FALSE(b.Full(60));
  EXPECT_TRUE(b.Full(61));  // 40 admitted + 61 > 100
  b.Reserve(60);
  EXPECT_TRUE(b.Full());
  EXPECT_EQ(b.pending_bytes(), 100);
  b.Grow(a, 40);  // the first lands
  b.Unreserve(40);
  EXPECT_EQ(b.pending_bytes(), 60);
  EXPECT_TRUE(b.Full());
  b.Freeze(a, 40);
  b.Release(a, 40, 0);
  b.Unreserve(60);  // the second failed
  EXPECT_FALSE(b.Full(100));
  b.Unsubscribe(a);
}

}  // namespace
}  // namespace lance::memwal
