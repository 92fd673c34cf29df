#include "lance/file/file_writer.h"

#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <future>
#include <functional>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "encoding/proto/encodings_v2_0.pb.h"
#include "encoding/proto/encodings_v2_1.pb.h"
#include "file/proto/file_schema.pb.h"
#include "file/proto/file_v2.pb.h"
#include "lance/core/bit_util.h"
#include "lance/core/thread_pool.h"
#include "encoding/encoder.h"
#include "lance/file/lance_schema.h"

namespace lance::file {

namespace {

using encoding::DataBlock;
using encoding::LayerKind;

constexpr int64_t kPageAlignment = 64;

bool IsListType(TypeId id) {
  return id == TypeId::kList || id == TypeId::kLargeList || id == TypeId::kMap;
}

bool IsStructural(TypeId id) { return id == TypeId::kStruct || IsListType(id); }

// Definition events recorded while shredding, independent of the page's layers:
// 0 = valid all the way down, else 1 + 2 * depth + (1 if an empty list, 0 if null), depth
// counted from the top-level field (0) down to the leaf.
inline uint16_t NullEvent(int depth) { return static_cast<uint16_t>(1 + 2 * depth); }
inline uint16_t EmptyEvent(int depth) { return static_cast<uint16_t>(2 + 2 * depth); }

std::string PackAny(std::string_view url, const google::protobuf::Message& msg) {
  google::protobuf::Any any;
  any.set_type_url(std::string(url));
  any.set_value(msg.SerializeAsString());
  return any.SerializeAsString();
}

// The bytes holding a block's values (a fixed-size list's child values).
encoding::Bytes& ValueBytes(DataBlock& b) {
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

  void AppendItem(std::string_view v) {
    if (dict_items.kind == DataBlock::Kind::kVariable) {
      dict_items.AppendVariable(v);
    } else {
      dict_items.AppendFixedBytes(reinterpret_cast<const uint8_t*>(v.data()), 1);
    }
  }

  // Makes dict_remap map the indices of `a` (a dictionary array) into the page's dictionary.
  Status UseDictionary(const Array& a) {
    if (a.dictionary == dict_src) return Status::OK();
    const Array& d = *a.dictionary;
    dict_remap.assign(static_cast<size_t>(d.length), -1);
    if (dict_items.num_values == 0 && !dict_adopted) {
      for (int64_t j = 0; j < d.length; ++j) {
        if (d.IsValid(j)) {
          AppendItem(DictItem(d, j));
          dict_remap[static_cast<size_t>(j)] = j;
        } else {
          dict_items.AppendEmpty(1);
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
        if (fresh) AppendItem(v);
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

  // Page index of dictionary element i of `a`, or -1 when the element is null (as a row or
  // as an item). REQUIRES: UseDictionary(a) succeeded.
  int64_t DictIndexOf(const Array& a, int64_t i) {
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

  void AppendIndex(int64_t k) {
    const uint64_t u = static_cast<uint64_t>(k < 0 ? 0 : k);
    values.AppendFixedBytes(reinterpret_cast<const uint8_t*>(&u), 1);  // little-endian low bytes
  }

  // Appends value i of leaf array `a` to the values.
  void AppendValue(const Array& a, int64_t i) {
    switch (values.kind) {
      case DataBlock::Kind::kFixed:
        if (values.bits_per_value == 1) {
          values.AppendBits(a.buffers[1]->data(), a.offset + i, 1);
        } else {
          const int64_t w = values.bits_per_value / 8;
          values.AppendFixedBytes(a.buffers[1]->data() + (a.offset + i) * w, 1);
        }
        return;
      case DataBlock::Kind::kVariable:
        values.AppendVariable(a.GetView(i));
        return;
      case DataBlock::Kind::kFixedSizeList:
        AppendFsl(a, i, 1);
        return;
    }
  }

  // Appends n fixed-size lists starting at i.
  void AppendFsl(const Array& a, int64_t i, int64_t n) {
    const Array& c = *a.children[0];
    const int64_t dim = values.dimension;
    const int64_t first = (a.offset + i) * dim;
    DataBlock& ch = *values.child;
    if (ch.bits_per_value == 1) {
      ch.AppendBits(c.buffers[1]->data(), c.offset + first, n * dim);
    } else {
      ch.AppendFixedBytes(c.buffers[1]->data() + (c.offset + first) * (ch.bits_per_value / 8), n * dim);
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
  }

  // Shreds element i of `a`, the node at `d`, whose first level has repetition r.
  void Visit(int d, const Array& a, int64_t i, uint16_t r) {
    if (d == depth() - 1) {
      if (is_dict) {
        if (a.dictionary != dict_src) {
          Status st = UseDictionary(a);
          if (!st.ok()) {
            if (dict_error.ok()) dict_error = std::move(st);
            return;
          }
        }
        const int64_t k = DictIndexOf(a, i);
        Emit(r, k < 0 ? NullEvent(d) : 0);
        AppendIndex(k);
        return;
      }
      if (!a.IsValid(i)) {
        Emit(r, NullEvent(d));
        values.AppendEmpty(1);
      } else {
        Emit(r, 0);
        AppendValue(a, i);
      }
      return;
    }
    const TypeId id = ids[static_cast<size_t>(d)];
    if (!a.IsValid(i)) {
      Emit(r, NullEvent(d));
      if (!list_below[static_cast<size_t>(d)]) values.AppendEmpty(1);
      return;
    }
    if (id == TypeId::kStruct) {
      Visit(d + 1, *a.children[static_cast<size_t>(child[static_cast<size_t>(d)])], a.offset + i, r);
      return;
    }
    const int64_t b = a.ValueOffset(i), e = a.ValueOffset(i + 1);
    if (b == e) {
      Emit(r, EmptyEvent(d));
      return;
    }
    const Array& c = *a.children[0];
    const uint16_t cont = static_cast<uint16_t>(continue_rep[static_cast<size_t>(d)]);
    for (int64_t j = b; j < e; ++j) Visit(d + 1, c, j, j == b ? r : cont);
  }

  // Before the rows [start, col.length) of the top-level array `col` arrive in pieces: room
  // for as many of their variable-width bytes as the page can take, so that the pieces do not
  // grow (copy) the page's buffer again and again.
  void Reserve(const Array& col, int64_t start, int64_t page_bytes) {
    if (depth() != 1 || is_dict || values.kind != DataBlock::Kind::kVariable ||
        col.type_id() == TypeId::kNull || start >= col.length) {
      return;
    }
    const int64_t bytes = col.ValueOffset(col.length) - col.ValueOffset(start);
    const auto want = static_cast<size_t>(std::min(bytes, page_bytes + page_bytes / 4)) + values.data.size();
    if (want > values.data.capacity()) values.data.reserve(want);
  }

  // Appends rows [0, a.length) of the top-level array.
  Status Shred(const Array& a) {
    if (is_dict && depth() == 1) {
      LANCE_RETURN_NOT_OK(UseDictionary(a));
      const int64_t n = a.length;
      events.reserve(events.size() + static_cast<size_t>(n));
      values.data.reserve(values.data.size() + static_cast<size_t>(n * index_bytes));
      for (int64_t i = 0; i < n; ++i) {
        const int64_t k = DictIndexOf(a, i);
        events.push_back(k < 0 ? NullEvent(0) : 0);
        any_event |= k < 0;
        AppendIndex(k);
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
        events.reserve(events.size() + static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) events.push_back(a.IsValid(i) ? 0 : NullEvent(0));
        any_event = true;
      } else if (any_event) {
        events.insert(events.end(), static_cast<size_t>(n), 0);
      }
      switch (values.kind) {
        case DataBlock::Kind::kFixed:
          if (values.bits_per_value == 1) {
            values.AppendBits(a.buffers[1]->data(), a.offset, n);
          } else {
            // The first values of a page: the page reads the array's bytes in place, and so
            // it does while the next pieces continue the same buffer (Write cuts a large batch
            // into pieces); anything else is copied. The encoders only read values.
            const int64_t w = values.bits_per_value / 8;
            const BufferPtr& src = a.buffers[1];
            const int64_t begin = a.offset * w;
            if (values.num_values == 0 && n > 0) {
              values.data = encoding::Bytes::Adopt(SliceBuffer(src, begin, n * w));
              adopted = true;
              adopted_from = src;
              adopted_begin = begin;
            } else if (adopted_from != nullptr && adopted_from == src &&
                       adopted_begin + static_cast<int64_t>(values.data.size()) == begin) {
              values.data = encoding::Bytes::Adopt(
                  SliceBuffer(src, adopted_begin, static_cast<int64_t>(values.data.size()) + n * w));
            } else {
              adopted_from = nullptr;
              values.AppendFixedBytes(src->data() + begin, n);
              break;
            }
            values.num_values += n;
          }
          break;
        case DataBlock::Kind::kVariable: {
          const int64_t begin = n > 0 ? a.ValueOffset(0) : 0;
          const int64_t end = n > 0 ? a.ValueOffset(n) : 0;
          const int64_t shift = static_cast<int64_t>(values.data.size()) - begin;
          values.data.append(reinterpret_cast<const char*>(a.buffers[2]->data()) + begin,
                             static_cast<size_t>(end - begin));
          values.offsets.reserve(values.offsets.size() + static_cast<size_t>(n));
          for (int64_t i = 1; i <= n; ++i) values.offsets.push_back(a.ValueOffset(i) + shift);
          values.num_values += n;
          break;
        }
        case DataBlock::Kind::kFixedSizeList:
          AppendFsl(a, 0, n);
          break;
      }
      rows += n;
      return Status::OK();
    }
    for (int64_t i = 0; i < a.length; ++i) Visit(0, a, i, static_cast<uint16_t>(num_lists));
    rows += a.length;
    return std::exchange(dict_error, Status::OK());
  }

  // Turns the buffered rows into a page and clears them.
  Result<encoding::LeafPage> TakePage() {
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
};

// A page taken from a column, encoded (possibly on a worker thread) and waiting to be written
// in the order the pages were taken.
struct PendingPage {
  size_t column = 0;
  int64_t first_row = 0;
  encoding::LeafPage page;  // owns the bytes an encoded page may borrow
  bool adopted = false;      // page.values views an input buffer (LeafColumn::adopted)
  encoding::PageEncodeOptions options;
  Result<encoding::EncodedPage> encoded = Status::Internal("page not encoded");
};

// Estimated bytes of an array's buffers (whole buffers, slices count fully).
int64_t ArrayBytes(const Array& a) {
  int64_t n = 0;
  for (const auto& b : a.buffers) n += b ? b->size() : 0;
  for (const auto& c : a.children) n += ArrayBytes(*c);
  return n;
}

}  // namespace

struct FileWriter::Impl {
  std::shared_ptr<io::ObjectStore> store;
  std::string path;
  SchemaPtr input_schema;
  SchemaPtr schema;
  std::vector<LanceField> lance_fields;
  WriteOptions options;
  std::unique_ptr<io::ObjectWriter> out;
  int64_t pos = 0;
  int64_t num_rows = 0;
  std::vector<LeafColumn> columns;
  bool finished = false;
  bool aborted = false;
  // Pages being encoded on the pool, oldest first; written strictly in this order, so the
  // file's bytes do not depend on the threads.
  std::deque<std::future<std::unique_ptr<PendingPage>>> pending;

  // The pool to encode on, or null to encode inline (options, or a caller that is itself a
  // worker of the pool: waiting for our pages there could starve it).
  ThreadPool* Pool() const {
    if (!options.use_threads) return nullptr;
    ThreadPool* p = ThreadPool::Default();
    return p->IsWorkerThread() || p->InForkedChild() ? nullptr : p;
  }

  Status WriteBytes(const void* data, int64_t n) {
    if (n == 0) return Status::OK();
    LANCE_RETURN_NOT_OK(out->Write(data, n));
    pos += n;
    return Status::OK();
  }

  Status Align() {
    static const char kZeros[kPageAlignment] = {};
    const int64_t pad = bit_util::RoundUpToMultipleOf64(pos) - pos;
    return WriteBytes(kZeros, pad);
  }

  Status AddLeaves(int field_index, const FieldPtr& f, LeafColumn proto) {
    const DataType& t = *f->type();
    const int d = proto.depth();
    proto.ids.push_back(t.id());
    if (IsStructural(t.id())) {
      if (IsListType(t.id())) {
        proto.continue_rep.push_back(0);
        ++proto.num_lists;
      } else {
        proto.continue_rep.push_back(-1);
      }
      if (t.num_fields() == 0) {
        return Status::InvalidArgument("field '{}': structs without children cannot be written", f->name());
      }
      for (int c = 0; c < t.num_fields(); ++c) {
        LeafColumn next = proto;
        next.child.push_back(c);
        LANCE_RETURN_NOT_OK(AddLeaves(field_index, t.field(c), std::move(next)));
      }
      return Status::OK();
    }
    (void)d;
    proto.continue_rep.push_back(-1);
    proto.child.push_back(-1);
    proto.leaf_type = f->type();
    if (t.id() == TypeId::kDictionary) {
      // Indices of the index type's width, items of the value type (checked by the schema).
      const DataType& it = *t.index_type();
      proto.is_dict = true;
      proto.index_bytes = it.bit_width() / 8;
      const bool is_signed = it.id() == TypeId::kInt8 || it.id() == TypeId::kInt16 ||
                             it.id() == TypeId::kInt32 || it.id() == TypeId::kInt64;
      proto.index_max = proto.index_bytes >= 8
                            ? (is_signed ? uint64_t{INT64_MAX} : UINT64_MAX)
                            : (uint64_t{1} << (proto.index_bytes * 8 - (is_signed ? 1 : 0))) - 1;
      LANCE_ASSIGN_OR_RAISE(proto.dict_items, encoding::DataBlockPrototype(*t.dictionary_value_type()));
      if (proto.dict_items.kind == DataBlock::Kind::kFixedSizeList ||
          (proto.dict_items.kind == DataBlock::Kind::kFixed && proto.dict_items.bits_per_value % 8 != 0)) {
        return Status::NotSupported("field '{}': dictionary of {}", f->name(),
                                    t.dictionary_value_type()->ToString());
      }
    }
    LANCE_ASSIGN_OR_RAISE(DataBlock prototype,
                          proto.is_dict ? Result<DataBlock>(DataBlock::Fixed(proto.index_bytes * 8))
                                        : encoding::DataBlockPrototype(t));
    if (prototype.kind == DataBlock::Kind::kFixedSizeList &&
        prototype.child->kind != DataBlock::Kind::kFixed) {
      return Status::NotSupported("field '{}': fixed_size_list of {}", f->name(),
                                  t.value_type()->ToString());
    }
    proto.values = std::move(prototype);
    // Repetition of a non-first list element: lists counted from the innermost (0).
    int lists_seen = 0;
    for (size_t k = 0; k < proto.ids.size(); ++k) {
      if (IsListType(proto.ids[k]) && k + 1 < proto.ids.size()) {
        proto.continue_rep[k] = proto.num_lists - 1 - lists_seen;
        ++lists_seen;
      }
    }
    proto.list_below.assign(proto.ids.size(), 0);
    bool below = false;
    for (size_t k = proto.ids.size(); k-- > 0;) {
      below |= k + 1 < proto.ids.size() && IsListType(proto.ids[k]);
      proto.list_below[k] = below ? 1 : 0;
    }
    if (proto.num_lists > 0xFFF) return Status::NotSupported("field '{}' nests too deeply", f->name());
    proto.field_index = field_index;
    columns.push_back(std::move(proto));
    return Status::OK();
  }

  // Takes the column's buffered rows as a page and encodes it, on the pool when there is one;
  // writes the pages that are done (and waits for the oldest when too many are pending).
  Status FlushPage(size_t ci) {
    LeafColumn& c = columns[ci];
    auto job = std::make_unique<PendingPage>();
    job->column = ci;
    job->first_row = c.first_row;
    job->adopted = std::exchange(c.adopted, false);
    LANCE_ASSIGN_OR_RAISE(job->page, c.TakePage());
    encoding::LeafPage& page = job->page;
    const DataType& storage = c.is_dict ? *c.leaf_type->dictionary_value_type() : *c.leaf_type;
    if (storage.id() == TypeId::kLargeString || storage.id() == TypeId::kLargeBinary) {
      page.offset_bits = 64;
    }
    encoding::PageEncodeOptions& opt = job->options;
    opt.minor_version = options.version.minor;
    opt.max_chunk_values = options.max_chunk_values;
    opt.compress = options.compress;
    ThreadPool* pool = Pool();
    if (pool == nullptr) {
      job->encoded = encoding::EncodePage(job->page, job->options);
      return WritePage(*job);
    }
    pending.push_back(pool->Submit([job = std::move(job)]() mutable {
      job->encoded = encoding::EncodePage(job->page, job->options);
      return std::move(job);
    }));
    return WritePending(static_cast<size_t>(pool->num_threads()) + 1);
  }

  // Writes the oldest pending pages: every one that is done, and more (waiting for them) until
  // at most `keep` remain.
  Status WritePending(size_t keep) {
    while (!pending.empty() &&
           (pending.size() > keep ||
            pending.front().wait_for(std::chrono::seconds(0)) == std::future_status::ready)) {
      std::unique_ptr<PendingPage> job = pending.front().get();
      pending.pop_front();
      LANCE_RETURN_NOT_OK(WritePage(*job));
    }
    return Status::OK();
  }

  Status WritePage(PendingPage& job) {
    LeafColumn& c = columns[job.column];
    const encoding::LeafPage& page = job.page;
    const int64_t first_row = job.first_row;
    const auto& encoded = job.encoded;
    if (!encoded.ok()) {
      return encoded.status().WithContext(
          fmt::format("field '{}'", schema->field(c.field_index)->name()));
    }
    auto* pm = c.meta.add_pages();
    for (size_t i = 0; i < encoded->buffers.size(); ++i) {
      const std::string_view b = encoded->buffer(i);
      LANCE_RETURN_NOT_OK(Align());
      pm->add_buffer_offsets(static_cast<uint64_t>(pos));
      pm->add_buffer_sizes(b.size());
      LANCE_RETURN_NOT_OK(WriteBytes(b.data(), static_cast<int64_t>(b.size())));
    }
    if (page.num_rows > UINT32_MAX) return Status::NotSupported("page of {} rows", page.num_rows);
    pm->set_length(static_cast<uint32_t>(page.num_rows));
    pm->set_priority(static_cast<uint64_t>(first_row));
    pm->mutable_encoding()->mutable_direct()->set_encoding(
        PackAny("/lance.encodings21.PageLayout", encoded->layout));
    // The page is written (the store copies what it is given): its value bytes can hold the
    // column's next page.
    encoding::Bytes& used = ValueBytes(job.page.values);
    if (!job.adopted && used.capacity() >= (size_t{1} << 20) && used.capacity() > c.spare.capacity()) {
      used.resize_for_overwrite(0);
      c.spare = std::move(used);
    }
    return Status::OK();
  }

  Status WriteFooter() {
    // Global buffer 0: the file descriptor (before the column metadata, as lance writes it).
    ::lance::file::FileDescriptor fd;
    auto* s = fd.mutable_schema();
    for (const auto& lf : lance_fields) {
      auto* f = s->add_fields();
      f->set_name(lf.name);
      f->set_id(lf.id);
      f->set_parent_id(lf.parent_id);
      f->set_logical_type(lf.logical_type);
      f->set_nullable(lf.nullable);
      const std::string& t = lf.logical_type;
      if (t.rfind("dict:", 0) == 0) {
        // As lance 12: dictionary encoding, with an empty Dictionary message.
        f->set_encoding(::lance::file::DICTIONARY);
        f->mutable_dictionary();
      } else if (t == "string" || t == "large_string" || t == "binary" || t == "large_binary") {
        f->set_encoding(::lance::file::VAR_BINARY);
      } else if (t != "struct") {
        f->set_encoding(::lance::file::PLAIN);
      }
      for (const auto& [k, v] : lf.metadata) (*f->mutable_metadata())[k] = v;
    }
    if (schema->metadata()) {
      for (const auto& [k, v] : schema->metadata()->pairs()) (*s->mutable_metadata())[k] = v;
    }
    fd.set_length(static_cast<uint64_t>(num_rows));
    const std::string fd_bytes = fd.SerializeAsString();
    LANCE_RETURN_NOT_OK(Align());
    const int64_t fd_pos = pos;
    LANCE_RETURN_NOT_OK(WriteBytes(fd_bytes.data(), static_cast<int64_t>(fd_bytes.size())));

    // Column metadata blocks.
    ::lance::encodings::ColumnEncoding column_encoding;
    column_encoding.mutable_values();
    const std::string column_encoding_any = PackAny("/lance.encodings.ColumnEncoding", column_encoding);
    LANCE_RETURN_NOT_OK(Align());
    const int64_t column_meta_start = pos;
    std::vector<std::pair<uint64_t, uint64_t>> cmo;
    for (auto& c : columns) {
      c.meta.mutable_encoding()->mutable_direct()->set_encoding(column_encoding_any);
      const std::string bytes = c.meta.SerializeAsString();
      cmo.emplace_back(static_cast<uint64_t>(pos), bytes.size());
      LANCE_RETURN_NOT_OK(WriteBytes(bytes.data(), static_cast<int64_t>(bytes.size())));
    }
    std::string tables;
    const int64_t cmo_start = pos;
    for (const auto& [p, n] : cmo) {
      tables.append(reinterpret_cast<const char*>(&p), 8);
      tables.append(reinterpret_cast<const char*>(&n), 8);
    }
    const int64_t gbo_start = cmo_start + static_cast<int64_t>(tables.size());
    const uint64_t gb[2] = {static_cast<uint64_t>(fd_pos), fd_bytes.size()};
    tables.append(reinterpret_cast<const char*>(gb), 16);
    const uint64_t footer64[3] = {static_cast<uint64_t>(column_meta_start),
                                  static_cast<uint64_t>(cmo_start), static_cast<uint64_t>(gbo_start)};
    tables.append(reinterpret_cast<const char*>(footer64), 24);
    const uint32_t counts[2] = {1, static_cast<uint32_t>(columns.size())};
    tables.append(reinterpret_cast<const char*>(counts), 8);
    const uint16_t version[2] = {options.version.major, options.version.minor};
    tables.append(reinterpret_cast<const char*>(version), 4);
    tables.append(kMagic, 4);
    return WriteBytes(tables.data(), static_cast<int64_t>(tables.size()));
  }
};

FileWriter::FileWriter() = default;

FileWriter::~FileWriter() {
  if (impl_ && !impl_->finished) Abort();
}

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::shared_ptr<io::ObjectStore> store,
                                                     std::string path, SchemaPtr schema,
                                                     WriteOptions options) {
  if (!store) return Status::InvalidArgument("FileWriter::Open: no object store");
  if (!schema) return Status::InvalidArgument("FileWriter::Open: no schema");
  if (options.version.major != 2 || (options.version.minor != 1 && options.version.minor != 2)) {
    return Status::InvalidArgument("lance file writer: version {}.{} (expected 2.1 or 2.2)",
                                   options.version.major, options.version.minor);
  }
  if (options.max_chunk_values < 1 || options.max_chunk_values > 4096 ||
      (options.max_chunk_values & (options.max_chunk_values - 1)) != 0) {
    return Status::InvalidArgument("lance file writer: max_chunk_values {} is not a power of two <= 4096",
                                   options.max_chunk_values);
  }
  if (options.max_page_bytes < 1) {
    return Status::InvalidArgument("lance file writer: max_page_bytes {}", options.max_page_bytes);
  }
  std::unique_ptr<FileWriter> w(new FileWriter());
  w->impl_ = std::make_unique<Impl>();
  Impl& im = *w->impl_;
  im.store = std::move(store);
  im.path = std::move(path);
  im.input_schema = schema;
  im.options = options;
  LANCE_ASSIGN_OR_RAISE(im.lance_fields, LanceFieldsFromSchema(*schema, &im.schema));
  for (int i = 0; i < im.schema->num_fields(); ++i) {
    auto st = im.AddLeaves(i, im.schema->field(i), LeafColumn{});
    if (!st.ok()) return st.WithContext("lance file '" + im.path + "'");
  }
  LANCE_ASSIGN_OR_RAISE(im.out, im.store->OpenWriter(im.path));
  return w;
}

Status FileWriter::Write(const RecordBatch& batch) {
  Impl& im = *impl_;
  if (im.finished || im.aborted) return Status::InvalidArgument("lance file writer: already finished");
  const ::lance::Schema& s = *batch.schema();
  if (s.num_fields() != im.input_schema->num_fields()) {
    return Status::InvalidArgument("lance file '{}': batch has {} fields, the file {}", im.path,
                                   s.num_fields(), im.input_schema->num_fields());
  }
  for (int i = 0; i < s.num_fields(); ++i) {
    const ::lance::Field& a = *s.field(i);
    const ::lance::Field& b = *im.input_schema->field(i);
    if (a.name() != b.name() || !a.type()->Equals(*b.type())) {
      return Status::InvalidArgument("lance file '{}': batch field {} is '{}: {}', expected '{}: {}'",
                                     im.path, i, a.name(), a.type()->ToString(), b.name(),
                                     b.type()->ToString());
    }
  }
  const int64_t n = batch.num_rows();
  if (n == 0) return Status::OK();
  int64_t bytes = 0;
  for (const auto& c : batch.columns()) bytes += ArrayBytes(*c);
  const int64_t per_row = std::max<int64_t>(1, bytes / n);
  const int64_t piece = std::clamp<int64_t>(im.options.max_page_bytes / per_row, 1, n);
  ThreadPool* pool = im.Pool();
  std::vector<Status> shredded(im.columns.size());
  for (int64_t start = 0; start < n; start += piece) {
    const int64_t len = std::min(piece, n - start);
    // Columns shred independently (on the pool too); pages are then taken in column order.
    auto shred = [&](int64_t i) {
      LeafColumn& c = im.columns[static_cast<size_t>(i)];
      const ArrayPtr col = batch.column(c.field_index);
      c.Reserve(*col, start, im.options.max_page_bytes);
      const ArrayPtr part = len == n ? col : col->Slice(start, len);
      shredded[static_cast<size_t>(i)] = c.Shred(*part);
    };
    const auto num_columns = static_cast<int64_t>(im.columns.size());
    if (pool != nullptr && num_columns > 1) {
      ParallelFor(pool, num_columns, shred);
    } else {
      for (int64_t i = 0; i < num_columns; ++i) shred(i);
    }
    for (size_t i = 0; i < im.columns.size(); ++i) {
      LeafColumn& c = im.columns[i];
      LANCE_RETURN_NOT_OK(shredded[i].WithContext(
          fmt::format("lance file '{}': field '{}'", im.path, im.schema->field(c.field_index)->name())));
      if (c.BufferedBytes() >= im.options.max_page_bytes) {
        LANCE_RETURN_NOT_OK(im.FlushPage(i));
      }
    }
    im.num_rows += len;
  }
  return Status::OK();
}

Result<WriteSummary> FileWriter::Finish() {
  Impl& im = *impl_;
  if (im.finished || im.aborted) return Status::InvalidArgument("lance file writer: already finished");
  for (size_t i = 0; i < im.columns.size(); ++i) {
    if (im.columns[i].rows > 0) LANCE_RETURN_NOT_OK(im.FlushPage(i));
  }
  LANCE_RETURN_NOT_OK(im.WritePending(0));
  LANCE_RETURN_NOT_OK(im.WriteFooter());
  LANCE_RETURN_NOT_OK(im.out->Close());
  im.finished = true;
  WriteSummary summary;
  summary.num_rows = im.num_rows;
  summary.size_bytes = im.pos;
  summary.num_columns = static_cast<int>(im.columns.size());
  summary.version = im.options.version;
  summary.schema = im.schema;
  return summary;
}

void FileWriter::Abort() {
  if (!impl_ || impl_->finished || impl_->aborted) return;
  impl_->aborted = true;
  for (auto& f : impl_->pending) f.wait();
  impl_->pending.clear();
  if (impl_->out) (void)impl_->out->Abort();
}

const SchemaPtr& FileWriter::schema() const { return impl_->schema; }

}  // namespace lance::file
