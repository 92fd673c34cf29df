// The shredder of the file writer: one leaf column of a top-level field, turning the rows of
// Arrow arrays into the repetition levels, definition events and visible values of the leaf's
// next page (encoding::LeafPage), with Arrow dictionary leaves kept as indices into a page
// dictionary. FileWriter (file_writer.cc) feeds it batches and takes its pages. Internal to
// the file layer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "encoding/data_block.h"
#include "encoding/encoder.h"
#include "file/proto/file_v2.pb.h"
#include "lance/columnar/array.h"
#include "lance/core/result.h"

namespace lance::file {

using encoding::DataBlock;

inline bool IsListType(TypeId id) {
  return id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kMap;
}

inline bool IsStructural(TypeId id) { return id == TypeId::kStruct || IsListType(id); }

// The bytes holding a block's values (a fixed-size list's child values).
inline encoding::Bytes& ValueBytes(DataBlock& b) {
  return b.kind == DataBlock::Kind::kFixedSizeList ? b.child->data : b.data;
}

// One leaf column: its path from the top-level field and the rows buffered for its next page.
struct LeafColumn {
  int field_index = 0;             // top-level field
  std::vector<TypeId> ids;         // type of each node, top-level first, leaf last
  std::vector<int> child;          // child index to descend at each structural node
  std::vector<int> continue_rep;   // list nodes: repetition of a non-first element
  std::vector<uint8_t> list_below;  // a list at this depth or deeper
  DataTypePtr leaf_type;
  int num_lists = 0;

  // Arrow dictionary leaves: `values` holds indices of the index type's width into
  // `dict_items`, the page's dictionary. A page adopts the first batch's dictionary as it is
  // (unused and duplicate items kept, as lance 12 does); a batch with another dictionary is
  // merged into it by value. Items that are null become null rows.
  bool is_dict = false;
  int index_bytes = 0;
  uint64_t index_max = 0;
  DataBlock dict_items;
  ArrayPtr dict_src;      // the dictionary `dict_remap` maps from
  ArrayPtr dict_adopted;  // the dictionary the page adopted, while nothing was merged into it
  std::vector<int64_t> dict_remap;  // batch dictionary index -> page index, -1 for null items
  std::unordered_map<std::string, int64_t> dict_index;  // item bytes -> page index, once merged
  Status dict_error;
  // The value bytes of a written page, kept for the next page (fresh memory costs the kernel
  // a page clear per 4 KiB touched: a fifth of the writer's time on 1M rows).
  encoding::Bytes spare;
  // The buffered values are (or began as) a view of an input array's buffer, not memory of
  // ours to keep as `spare`.
  bool adopted = false;
  BufferPtr adopted_from;     // the input buffer `values` still views, if any
  int64_t adopted_begin = 0;  // where in it the view starts (bytes)

  // Buffered rows.
  std::vector<uint16_t> rep;
  std::vector<uint16_t> events;
  bool any_event = false;
  DataBlock values;
  int64_t rows = 0;
  int64_t first_row = 0;  // row number of the first buffered row
  ::lance::file::v2::ColumnMetadata meta;

  // A column down the same path so far, for the schema walk to branch at a struct: the path
  // only. REQUIRES: nothing of the leaf set or buffered yet.
  LeafColumn Branch() const {
    LeafColumn c;
    c.field_index = field_index;
    c.ids = ids;
    c.child = child;
    c.continue_rep = continue_rep;
    c.list_below = list_below;
    c.num_lists = num_lists;
    return c;
  }

  int depth() const { return static_cast<int>(ids.size()); }

  int64_t BufferedBytes() const {
    // (Flat leaves keep no levels until a null arrives: they count as if they did.)
    const bool implied = depth() == 1 && !is_dict && !any_event;
    int64_t b = static_cast<int64_t>(values.data.size()) +
                static_cast<int64_t>(rep.size() + (implied ? static_cast<size_t>(rows) : events.size())) * 2;
    if (values.kind == DataBlock::Kind::kVariable) b += static_cast<int64_t>(values.offsets.size()) * 8;
    if (values.child) b += static_cast<int64_t>(values.child->data.size() + values.child_validity.size());
    if (is_dict) b += static_cast<int64_t>(dict_items.data.size() + dict_items.offsets.size() * 8);
    return b;
  }

  void Emit(uint16_t r, uint16_t e) {
    if (num_lists > 0) rep.push_back(r);
    events.push_back(e);
    any_event |= e != 0;
  }

  std::string_view DictItem(const Array& d, int64_t j) const {
    if (dict_items.kind == DataBlock::Kind::kVariable) return d.GetView(j);
    const int64_t w = dict_items.bits_per_value / 8;
    return {reinterpret_cast<const char*>(d.buffers[1]->data()) + (d.offset + j) * w, static_cast<size_t>(w)};
  }

  Status AppendItem(std::string_view v) {
    if (dict_items.kind == DataBlock::Kind::kVariable) return dict_items.AppendVariable(v);
    return dict_items.AppendFixedBytes(reinterpret_cast<const uint8_t*>(v.data()), 1);
  }

  // Makes dict_remap map the indices of `a` (a dictionary array) into the page's dictionary.
  Status UseDictionary(const Array& a);

  // Page index of dictionary element i of `a`, or -1 when the element is null (as a row or
  // as an item). REQUIRES: UseDictionary(a) succeeded.
  int64_t DictIndexOf(const Array& a, int64_t i);

  Status AppendIndex(int64_t k) {
    const uint64_t u = static_cast<uint64_t>(k < 0 ? 0 : k);
    return values.AppendFixedBytes(reinterpret_cast<const uint8_t*>(&u), 1);  // little-endian low bytes
  }

  // Appends value i of leaf array `a` to the values.
  Status AppendValue(const Array& a, int64_t i);

  // Appends n fixed-size lists starting at i.
  Status AppendFsl(const Array& a, int64_t i, int64_t n);
  // Appends n values of `block` (fixed width, whole bytes) from `src` at byte `begin`: the
  // first values of a page view the input buffer in place, and so do the next ones while they
  // continue it (Write cuts a large batch into pieces); anything else is copied. The encoders
  // only read values.
  Status AppendFixedValues(DataBlock& block, const BufferPtr& src, int64_t begin, int64_t n);

  // Shreds element i of `a`, the node at `d`, whose first level has repetition r.
  Status Visit(int d, const Array& a, int64_t i, uint16_t r);

  // Before the rows [start, col.length) of the top-level array `col` arrive in pieces: room
  // for as many of their variable-width bytes as the page can take, so that the pieces do not
  // grow (copy) the page's buffer again and again.
  Status Reserve(const Array& col, int64_t start, int64_t page_bytes);

  // Appends rows [0, a.length) of the top-level array.
  Status Shred(const Array& a);

  // Turns the buffered rows into a page and clears them.
  Result<encoding::LeafPage> TakePage();
};

}  // namespace lance::file
