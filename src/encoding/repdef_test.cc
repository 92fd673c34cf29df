// Repetition/definition levels -> Arrow layers, on hand-made level streams.
#include "encoding/repdef.h"

#include <gtest/gtest.h>

namespace lance::encoding {
namespace {

using L = LayerKind;

TEST(UnravelLevels, NullableItemsWithoutLists) {
  auto out = UnravelLevels({L::kNullableItem}, {}, {0, 1, 0, 1}, 4, 4);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].length, 4);
  EXPECT_EQ((*out)[0].validity, (std::vector<uint8_t>{1, 0, 1, 0}));
}

TEST(UnravelLevels, FirstSlotNullKeepsValidity) {
  auto out = UnravelLevels({L::kNullableItem}, {}, {1, 0}, 2, 2);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].validity, (std::vector<uint8_t>{0, 1}));
}

// [[1, null], null, [], [2]] with layers [NULLABLE_ITEM, NULL_AND_EMPTY_LIST]:
// codes 1 = null item, 2 = null list, 3 = empty list; rep 1 starts a row.
TEST(UnravelLevels, ListWithNullAndEmpty) {
  auto out = UnravelLevels({L::kNullableItem, L::kNullAndEmptyList}, {1, 0, 1, 1, 1},
                           {0, 1, 2, 3, 0}, 4, 3);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const LayerSlots& list = (*out)[0];
  const LayerSlots& items = (*out)[1];
  EXPECT_TRUE(list.is_list);
  EXPECT_EQ(list.length, 4);
  EXPECT_EQ(list.offsets, (std::vector<int64_t>{0, 2, 2, 2, 3}));
  EXPECT_EQ(list.validity, (std::vector<uint8_t>{1, 0, 1, 1}));
  EXPECT_EQ(items.length, 3);
  EXPECT_EQ(items.validity, (std::vector<uint8_t>{1, 0, 1}));
}

// struct<x> nullable with nullable x: code 1 = x null, 2 = struct null (x gets a null slot).
TEST(UnravelLevels, StructNullGivesChildSlot) {
  auto out = UnravelLevels({L::kNullableItem, L::kNullableItem}, {}, {0, 2, 1}, 3, 3);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].validity, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ((*out)[1].validity, (std::vector<uint8_t>{1, 0, 0}));
}

TEST(UnravelLevels, InconsistentInputsAreCorruption) {
  // Value count does not match the visible items.
  EXPECT_TRUE(UnravelLevels({L::kNullableItem}, {}, {0, 1}, 2, 3).status().IsCorruption());
  // Undefined definition code.
  EXPECT_TRUE(UnravelLevels({L::kNullableItem}, {}, {0, 5}, 2, 2).status().IsCorruption());
  // Row count mismatch.
  EXPECT_TRUE(UnravelLevels({L::kAllValidItem}, {}, {}, 3, 2).status().IsCorruption());
  // A continuation before any list started.
  EXPECT_TRUE(UnravelLevels({L::kAllValidItem, L::kAllValidList}, {0, 1}, {}, 1, 2)
                  .status().IsCorruption());
  // Repetition deeper than the list layers.
  EXPECT_TRUE(UnravelLevels({L::kAllValidItem, L::kAllValidList}, {2}, {}, 1, 1)
                  .status().IsCorruption());
}

}  // namespace
}  // namespace lance::encoding
