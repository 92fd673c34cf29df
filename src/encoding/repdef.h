// Repetition/definition levels of Lance 2.1+ structural encodings, turned back into Arrow
// nesting (validity bitmaps and list offsets), one layer per struct/list/leaf on the path from
// a top-level field down to a leaf column.
//
// Layers are listed innermost first on disk (lance.encodings21.RepDefLayer). Definition codes
// are handed out from the innermost layer outwards starting at 1: a nullable item/struct takes
// one code (null); a nullable list one (null); an emptyable list one (empty); a list with both
// takes two (null, then empty). Definition 0 means "valid all the way down". With R list
// layers, repetition R starts a new top-level row and repetition r < R continues the list
// layer that is r steps out from the innermost one (0 = the innermost list continues). Items
// under a null or empty list are invisible: they carry levels but no value. Pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "lance/core/result.h"
#include "encoding/data_block.h"

namespace lance::encoding {

// The kinds of RepDefLayer (values match the protobuf enum).
enum class LayerKind : int {
  kAllValidItem = 1,
  kAllValidList = 2,
  kNullableItem = 3,
  kNullableList = 4,
  kEmptyableList = 5,
  kNullAndEmptyList = 6,
};

inline bool IsListLayer(LayerKind k) {
  return k == LayerKind::kAllValidList || k == LayerKind::kNullableList ||
         k == LayerKind::kEmptyableList || k == LayerKind::kNullAndEmptyList;
}

// Layer `i` (outermost first) of a decoded column: how many slots it has, which are valid
// (empty = all), and for list layers the offsets of each slot into the next layer.
struct LayerSlots {
  bool is_list = false;
  int64_t length = 0;
  std::vector<uint8_t> validity;  // 1 = valid; empty when every slot is valid
  std::vector<int64_t> offsets;   // list layers: length + 1 entries, offsets[0] == 0

  // Appends `other` (the same layer of the next page) after this one.
  void Append(const LayerSlots& other);
};

// Whether an item with definition level `def` carries a value (is not under a null/empty list).
// `layers` innermost first. Errors: Corruption for a code no layer defines.
Result<bool> IsVisibleDefinition(const std::vector<LayerKind>& layers, uint16_t def);

// Rebuilds the layers of one page. `layers` innermost first; `rep`/`def` one entry per level
// or empty when absent (then every level is a valid new row); `num_values` the number of
// visible values decoded for the page. Returns the layers outermost first; the last one is the
// leaf, whose slots line up one-to-one with the visible values.
// Errors: Corruption when the levels, row count and value count disagree.
// `general`: always take the general walk (tests compare it with the unrolled one-list path).
Result<std::vector<LayerSlots>> UnravelLevels(const std::vector<LayerKind>& layers,
                                              const std::vector<uint16_t>& rep,
                                              const std::vector<uint16_t>& def,
                                              int64_t num_rows, int64_t num_values, bool general = false);

}  // namespace lance::encoding
