// Repetition/definition levels -> Arrow layers, on hand-made level streams.
#include "encoding/repdef.h"

#include <gtest/gtest.h>

#include <random>

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

// The unrolled path for one list over a leaf gives the general walk's slots (and its errors)
// for every list and item kind, on random level streams, valid and not.
TEST(UnravelLevels, OneListPathEqualsTheGeneralWalk) {
  const L items[] = {L::kAllValidItem, L::kNullableItem};
  const L lists[] = {L::kAllValidList, L::kNullableList, L::kEmptyableList, L::kNullAndEmptyList};
  std::mt19937 rng(7);
  int compared = 0, errors = 0;
  for (L item : items) {
    for (L list : lists) {
      const std::vector<L> layers = {item, list};
      const uint16_t codes = static_cast<uint16_t>(1 + (item == L::kNullableItem) +
                                                   (list == L::kNullableList || list == L::kEmptyableList) +
                                                   2 * (list == L::kNullAndEmptyList));
      for (int round = 0; round < 300; ++round) {
        const size_t n = rng() % 40;
        std::vector<uint16_t> rep(n), def;
        for (auto& r : rep) r = static_cast<uint16_t>(rng() % 3 == 0 ? 0 : 1);
        if (!rep.empty() && rng() % 4 != 0) rep[0] = 1;
        if (rng() % 20 == 0 && n > 0) rep[rng() % n] = 2;  // too deep
        if (codes > 1 || rng() % 2) {
          def.resize(n);
          for (auto& d : def) d = static_cast<uint16_t>(rng() % (codes + (rng() % 30 == 0)));
        }
        // Rows and values as the levels say (sometimes off by one, to reach the errors).
        int64_t rows = 0, values = 0;
        for (size_t i = 0; i < n; ++i) rows += rep[i] == 1;
        auto probe = UnravelLevels(layers, rep, def, rows, 0, true);
        if (!probe.ok()) {
          const std::string msg = probe.status().message();
          const auto at = msg.find("levels describe ");
          if (at != std::string::npos) values = std::atoll(msg.c_str() + at + 16);
        }
        if (rng() % 10 == 0) values += 1;
        auto a = UnravelLevels(layers, rep, def, rows, values, true);
        auto b = UnravelLevels(layers, rep, def, rows, values, false);
        ASSERT_EQ(a.ok(), b.ok()) << (a.ok() ? b.status().ToString() : a.status().ToString());
        if (!a.ok()) {
          ++errors;
          continue;
        }
        ++compared;
        ASSERT_EQ(a->size(), b->size());
        for (size_t j = 0; j < a->size(); ++j) {
          EXPECT_EQ((*a)[j].is_list, (*b)[j].is_list);
          EXPECT_EQ((*a)[j].length, (*b)[j].length);
          EXPECT_EQ((*a)[j].validity, (*b)[j].validity) << "layer " << j;
          EXPECT_EQ((*a)[j].offsets, (*b)[j].offsets) << "layer " << j;
        }
      }
    }
  }
  EXPECT_GT(compared, 1000);
  EXPECT_GT(errors, 50);
}

}  // namespace
}  // namespace lance::encoding
