// Test helper shared by the table tests: a portable Roaring bitmap of fragment ids, as the
// manifest's index section stores an index's fragment bitmap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <roaring/roaring.h>

namespace lance::table {

inline std::string Bitmap(std::vector<uint32_t> ids) {
  roaring_bitmap_t* bm = roaring_bitmap_of_ptr(ids.size(), ids.data());
  std::string out(roaring_bitmap_portable_size_in_bytes(bm), '\0');
  roaring_bitmap_portable_serialize(bm, out.data());
  roaring_bitmap_free(bm);
  return out;
}

}  // namespace lance::table
