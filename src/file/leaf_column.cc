// LeafColumn: shredding rows into levels, events and values, and turning them into pages.
#include "file/leaf_column.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "lance/core/bit_util.h"
#include "lance/core/reserve.h"

namespace lance::file {

namespace {

using encoding::LayerKind;

// Definition events recorded while shredding, independent of the page's layers:
// 0 = valid all the way down, else 1 + 2 * depth + (1 if an empty list, 0 if null), depth
// counted from the top-level field (0) down to the leaf.
inline uint16_t NullEvent(int depth) { return static_cast<uint16_t>(1 + 2 * depth); }
inline uint16_t EmptyEvent(int depth) { return static_cast<uint16_t>(2 + 2 * depth); }

}  // namespace

Status LeafColumn::UseDictionary(const Array& a) {
  if (a.dictionary == dict_src) return Status::OK();
  const Array& d = *a.dictionary;
  dict_remap.assign(static_cast<size_t>(d.length), -1);
  if (dict_items.num_values == 0 && !dict_adopted) {
    for (int64_t j = 0; j < d.length; ++j) {
      if (d.IsValid(j)) {
        LANCE_RETURN_NOT_OK(AppendItem(DictItem(d, j)));
        dict_remap[static_cast<size_t>(j)] = j;
      } else {
        LANCE_RETURN_NOT_OK(dict_items.AppendEmpty(1));
      }
    }
    dict_adopted = a.dictionary;
  } else if (dict_adopted && d.Equals(*dict_adopted)) {
    for (int64_t j = 0; j < d.length; ++j) {
      if (d.IsValid(j)) dict_remap[static_cast<size_t>(j)] = j;
    }
  } else {
    if (dict_adopted) {
      // First merge: index the page's items (first occurrence wins).
      for (int64_t j = dict_items.num_values - 1; j >= 0; --j) {
        const bool valid = dict_adopted->IsValid(j);
        if (valid) dict_index[std::string(DictItem(*dict_adopted, j))] = j;
      }
      dict_adopted = nullptr;
    }
    for (int64_t j = 0; j < d.length; ++j) {
      if (!d.IsValid(j)) continue;
      const std::string_view v = DictItem(d, j);
      auto [it, fresh] = dict_index.emplace(std::string(v), dict_items.num_values);
      if (fresh) LANCE_RETURN_NOT_OK(AppendItem(v));
      dict_remap[static_cast<size_t>(j)] = it->second;
    }
  }
  if (dict_items.num_values > 0 && static_cast<uint64_t>(dict_items.num_values - 1) > index_max) {
    return Status::InvalidArgument("dictionary of {} distinct items does not fit index type {}",
                                   dict_items.num_values, leaf_type->index_type()->ToString());
  }
  dict_src = a.dictionary;
  return Status::OK();
}

int64_t LeafColumn::DictIndexOf(const Array& a, int64_t i) {
  if (!a.IsValid(i)) return -1;
  const int64_t k = a.DictionaryIndex(i);
  if (k < 0 || k >= static_cast<int64_t>(dict_remap.size())) {
    if (dict_error.ok()) {
      dict_error = Status::InvalidArgument("dictionary index {} out of range (dictionary of {} items)", k,
                                           dict_remap.size());
    }
    return -1;
  }
  return dict_remap[static_cast<size_t>(k)];
}

Status LeafColumn::AppendValue(const Array& a, int64_t i) {
  switch (values.kind) {
    case DataBlock::Kind::kFixed:
      if (values.bits_per_value == 1) {
        return values.AppendBits(a.buffers[1]->data(), a.offset + i, 1);
      } else {
        const int64_t w = values.bits_per_value / 8;
        return values.AppendFixedBytes(a.buffers[1]->data() + (a.offset + i) * w, 1);
      }
    case DataBlock::Kind::kVariable:
      return values.AppendVariable(a.GetView(i));
    case DataBlock::Kind::kFixedSizeList:
      return AppendFsl(a, i, 1);
  }
  return Status::OK();
}

Status LeafColumn::AppendFixedValues(DataBlock& block, const BufferPtr& src, int64_t begin, int64_t n) {
  const int64_t w = block.bits_per_value / 8;
  if (block.num_values == 0 && n > 0) {
    block.data = encoding::Bytes::Adopt(SliceBuffer(src, begin, n * w));
    adopted = true;
    adopted_from = src;
    adopted_begin = begin;
  } else if (adopted_from != nullptr && adopted_from == src &&
             adopted_begin + static_cast<int64_t>(block.data.size()) == begin) {
    block.data = encoding::Bytes::Adopt(SliceBuffer(src, adopted_begin, static_cast<int64_t>(block.data.size()) + n * w));
  } else {
    adopted_from = nullptr;
    return block.AppendFixedBytes(src->data() + begin, n);
  }
  block.num_values += n;
  return Status::OK();
}

Status LeafColumn::AppendFsl(const Array& a, int64_t i, int64_t n) {
  const Array& c = *a.children[0];
  const int64_t dim = values.dimension;
  const int64_t first = (a.offset + i) * dim;
  DataBlock& ch = *values.child;
  if (ch.bits_per_value == 1) {
    LANCE_RETURN_NOT_OK(ch.AppendBits(c.buffers[1]->data(), c.offset + first, n * dim));
  } else if (n > 1) {  // a run of lists (Shred's flat path): the values may be a view
    LANCE_RETURN_NOT_OK(AppendFixedValues(ch, c.buffers[1], (c.offset + first) * (ch.bits_per_value / 8), n * dim));
  } else {  // one list of a nested column (Visit)
    adopted_from = nullptr;
    LANCE_RETURN_NOT_OK(ch.AppendFixedBytes(c.buffers[1]->data() + (c.offset + first) * (ch.bits_per_value / 8), n * dim));
  }
  bool child_nulls = !values.child_validity.empty();
  for (int64_t k = 0; !child_nulls && c.null_count > 0 && k < n * dim; ++k) {
    child_nulls = !c.IsValid(first + k) && a.IsValid(i + k / dim);
  }
  if (child_nulls) {
    if (values.child_validity.empty()) {
      values.child_validity.assign(static_cast<size_t>(ch.num_values - n * dim), 1);
    }
    // Items under a null list are placeholders: valid, so they need no validity buffer.
    for (int64_t j = 0; j < n; ++j) {
      const bool parent_valid = a.IsValid(i + j);
      for (int64_t k = 0; k < dim; ++k) {
        values.child_validity.push_back(!parent_valid || c.IsValid(first + j * dim + k) ? 1 : 0);
      }
    }
  }
  values.num_values += n;
  return Status::OK();
}

Status LeafColumn::Visit(int d, const Array& a, int64_t i, uint16_t r) {
  if (d == depth() - 1) {
    if (is_dict) {
      if (a.dictionary != dict_src) {
        Status st = UseDictionary(a);
        if (!st.ok()) {
          if (dict_error.ok()) dict_error = std::move(st);
          return Status::OK();
        }
      }
      const int64_t k = DictIndexOf(a, i);
      Emit(r, k < 0 ? NullEvent(d) : 0);
      return AppendIndex(k);
    }
    if (!a.IsValid(i)) {
      Emit(r, NullEvent(d));
      return values.AppendEmpty(1);
    }
    Emit(r, 0);
    return AppendValue(a, i);
  }
  const TypeId id = ids[static_cast<size_t>(d)];
  if (!a.IsValid(i)) {
    Emit(r, NullEvent(d));
    if (!list_below[static_cast<size_t>(d)]) return values.AppendEmpty(1);
    return Status::OK();
  }
  if (id == TypeId::kStruct) {
    return Visit(d + 1, *a.children[static_cast<size_t>(child[static_cast<size_t>(d)])], a.offset + i, r);
  }
  const int64_t b = a.ValueOffset(i), e = a.ValueOffset(i + 1);
  if (b == e) {
    Emit(r, EmptyEvent(d));
    return Status::OK();
  }
  const Array& c = *a.children[0];
  const uint16_t cont = static_cast<uint16_t>(continue_rep[static_cast<size_t>(d)]);
  for (int64_t j = b; j < e; ++j) LANCE_RETURN_NOT_OK(Visit(d + 1, c, j, j == b ? r : cont));
  return Status::OK();
}

Status LeafColumn::Reserve(const Array& col, int64_t start, int64_t page_bytes) {
  if (depth() != 1 || is_dict || values.kind != DataBlock::Kind::kVariable ||
      col.type_id() == TypeId::kNull || start >= col.length) {
    return Status::OK();
  }
  const int64_t bytes = col.ValueOffset(col.length) - col.ValueOffset(start);
  const auto want = static_cast<size_t>(std::min(bytes, page_bytes + page_bytes / 4)) + values.data.size();
  if (want > values.data.capacity()) return values.data.Reserve(want);
  return Status::OK();
}

Status LeafColumn::Shred(const Array& a) {
  if (is_dict && depth() == 1) {
    LANCE_RETURN_NOT_OK(UseDictionary(a));
    const int64_t n = a.length;
    ReserveMore(events, static_cast<size_t>(n));
    LANCE_RETURN_NOT_OK(values.data.Reserve(values.data.size() + static_cast<size_t>(n * index_bytes)));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = DictIndexOf(a, i);
      events.push_back(k < 0 ? NullEvent(0) : 0);
      any_event |= k < 0;
      LANCE_RETURN_NOT_OK(AppendIndex(k));
    }
    rows += n;
    return std::exchange(dict_error, Status::OK());
  }
  if (depth() == 1 && a.type_id() != TypeId::kNull) {
    // Flat top-level leaf: bulk copies.
    // Levels are kept only once a null arrives (until then every level is 0, implied).
    const int64_t n = a.length;
    if (a.null_count > 0) {
      if (!any_event) events.assign(static_cast<size_t>(rows), 0);
      ReserveMore(events, static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) events.push_back(a.IsValid(i) ? 0 : NullEvent(0));
      any_event = true;
    } else if (any_event) {
      events.insert(events.end(), static_cast<size_t>(n), 0);
    }
    switch (values.kind) {
      case DataBlock::Kind::kFixed:
        if (values.bits_per_value == 1) {
          LANCE_RETURN_NOT_OK(values.AppendBits(a.buffers[1]->data(), a.offset, n));
        } else {
          LANCE_RETURN_NOT_OK(AppendFixedValues(values, a.buffers[1], a.offset * (values.bits_per_value / 8), n));
        }
        break;
      case DataBlock::Kind::kVariable: {
        const int64_t begin = n > 0 ? a.ValueOffset(0) : 0;
        const int64_t end = n > 0 ? a.ValueOffset(n) : 0;
        const int64_t shift = static_cast<int64_t>(values.data.size()) - begin;
        LANCE_RETURN_NOT_OK(values.data.Append(reinterpret_cast<const char*>(a.buffers[2]->data()) + begin,
                                               static_cast<size_t>(end - begin)));
        ReserveMore(values.offsets, static_cast<size_t>(n));
        for (int64_t i = 1; i <= n; ++i) values.offsets.push_back(a.ValueOffset(i) + shift);
        values.num_values += n;
        break;
      }
      case DataBlock::Kind::kFixedSizeList:
        LANCE_RETURN_NOT_OK(AppendFsl(a, 0, n));
        break;
    }
    rows += n;
    return Status::OK();
  }
  for (int64_t i = 0; i < a.length; ++i) {
    LANCE_RETURN_NOT_OK(Visit(0, a, i, static_cast<uint16_t>(num_lists)));
  }
  rows += a.length;
  return std::exchange(dict_error, Status::OK());
}

Result<encoding::LeafPage> LeafColumn::TakePage() {
  const int D = depth();
  std::vector<uint8_t> has_null(static_cast<size_t>(D), 0), has_empty(static_cast<size_t>(D), 0);
  if (any_event) {
    std::vector<uint8_t> seen(static_cast<size_t>(2 * D + 1), 0);
    for (uint16_t e : events) seen[e] = 1;
    for (int d = 0; d < D; ++d) {
      has_null[static_cast<size_t>(d)] = seen[NullEvent(d)];
      has_empty[static_cast<size_t>(d)] = seen[EmptyEvent(d)];
    }
  }
  encoding::LeafPage page;
  page.num_rows = rows;
  // A list under an outer layer that has nulls or empties is written nullable even when none
  // of its own lists is null, as lance 12 writes it: lance 12 cannot read an all-valid list
  // layer between a null outer struct and null items ("Structural validity has 4 entries for
  // an array with 3 values").
  std::vector<uint8_t> outer_event(static_cast<size_t>(D), 0);
  for (int d = 1; d < D; ++d) {
    const auto o = static_cast<size_t>(d - 1);
    outer_event[static_cast<size_t>(d)] = outer_event[o] | has_null[o] | has_empty[o];
  }
  std::vector<uint16_t> code(static_cast<size_t>(2 * D + 1), 0);
  uint16_t next = 1;
  for (int d = D - 1; d >= 0; --d) {
    const bool is_list = d < D - 1 && IsListType(ids[static_cast<size_t>(d)]);
    const bool e = has_empty[static_cast<size_t>(d)];
    const bool n = has_null[static_cast<size_t>(d)] ||
                   (is_list && !e && outer_event[static_cast<size_t>(d)] != 0);
    LayerKind kind;
    if (is_list) {
      kind = n && e ? LayerKind::kNullAndEmptyList
                    : n ? LayerKind::kNullableList
                        : e ? LayerKind::kEmptyableList : LayerKind::kAllValidList;
    } else {
      kind = n ? LayerKind::kNullableItem : LayerKind::kAllValidItem;
    }
    if (n) code[NullEvent(d)] = next++;
    if (e) code[EmptyEvent(d)] = next++;
    page.layers.push_back(kind);
  }
  if (any_event) {
    page.def.resize(events.size());
    for (size_t i = 0; i < events.size(); ++i) page.def[i] = code[events[i]];
  }
  page.rep = std::move(rep);
  page.values = std::move(values);
  if (is_dict) {
    page.has_dictionary = true;
    page.dictionary = std::move(dict_items);
    dict_items = DataBlock::EmptyLike(page.dictionary);
    dict_src = nullptr;
    dict_adopted = nullptr;
    dict_remap.clear();
    dict_index.clear();
  }
  rep = {};
  events = {};
  any_event = false;
  adopted_from = nullptr;
  values = DataBlock::EmptyLike(page.values);
  if (spare.capacity() > 0) ValueBytes(values) = std::move(spare);
  first_row += rows;
  rows = 0;
  return page;
}

}  // namespace lance::file
