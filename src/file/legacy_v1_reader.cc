#include "file/legacy_v1_reader.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "file/proto/file_schema.pb.h"
#include "file/proto/file_v1.pb.h"
#include "lance/core/bit_util.h"

namespace lance::file {

namespace {

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

enum V1Encoding { kNone = 0, kPlain = 1, kVarBinary = 2, kDictionary = 3 };

// Rows [start, start + len) of one batch (relative to the batch), in output order.
struct Run {
  int batch = 0;
  int64_t start = 0;
  int64_t len = 0;
};

int64_t TotalRows(const std::vector<Run>& runs) {
  int64_t n = 0;
  for (const auto& r : runs) n += r.len;
  return n;
}

bool IsFixedWidth(const DataType& t) {
  switch (t.id()) {
    case TypeId::kBool:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kHalfFloat:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kFixedSizeBinary:
    case TypeId::kDate32:
    case TypeId::kDate64:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return true;
    default:
      return false;
  }
}

}  // namespace

struct LegacyV1Reader::Layout {
  struct Node {
    LanceField lf;
    int encoding = kNone;
    int64_t dict_offset = 0;
    int64_t dict_length = 0;
    DataTypePtr type;
    std::vector<int> children;
  };
  std::vector<Node> nodes;  // pre-order
  std::vector<int> top;     // top-level nodes, in schema order
  int32_t min_id = 0;
  int32_t max_id = 0;
  int num_batches = 0;
  std::vector<int64_t> batch_rows;
  std::vector<std::pair<int64_t, int64_t>> pages;  // [(id - min_id) * num_batches + batch]
  std::vector<ArrayPtr> dictionaries;              // per node (dictionary fields only)

  std::pair<int64_t, int64_t> page(int node, int batch) const {
    const int64_t k = (static_cast<int64_t>(nodes[static_cast<size_t>(node)].lf.id) - min_id) *
                          num_batches + batch;
    return pages[static_cast<size_t>(k)];
  }
};

namespace {

// Reads of one Layout through a reader's fetch function.
class V1Decoder {
 public:
  V1Decoder(const LegacyV1Reader::Layout& layout, int64_t size,
            const LegacyV1Reader::FetchFn& fetch)
      : layout_(layout), size_(size), fetch_(fetch) {}

  // Fetches `ranges` (each checked against the file) in one call; empty ranges give empty
  // buffers without a read.
  Result<std::vector<BufferPtr>> Fetch(const std::vector<io::Range>& ranges) const {
    std::vector<io::Range> wanted;
    for (const auto& r : ranges) {
      if (r.offset < 0 || r.length < 0 || r.offset > size_ || r.length > size_ - r.offset) {
        return Status::Corruption("legacy lance file: range [{}, +{}) outside the {} byte file",
                                  r.offset, r.length, size_);
      }
      if (r.length > 0) wanted.push_back(r);
    }
    std::vector<BufferPtr> got;
    if (!wanted.empty()) {
      LANCE_ASSIGN_OR_RAISE(got, fetch_(wanted));
      if (got.size() != wanted.size()) {
        return Status::IOError("legacy lance file: asked for {} ranges, got {}", wanted.size(),
                               got.size());
      }
    }
    std::vector<BufferPtr> out;
    size_t next = 0;
    for (const auto& r : ranges) {
      if (r.length == 0) {
        out.push_back(BufferFromString(""));
        continue;
      }
      if (got[next]->size() != r.length) {
        return Status::IOError("legacy lance file: short read of {} bytes at {}", r.length,
                               r.offset);
      }
      out.push_back(got[next++]);
    }
    return out;
  }

  // Field `node` read as `type` for `runs`. `mult` scales the page's row count (the items of
  // fixed-size lists live in their list's page).
  Result<ArrayPtr> Read(int node, const DataTypePtr& type, const std::vector<Run>& runs,
                        int64_t mult = 1) const {
    const auto& n = layout_.nodes[static_cast<size_t>(node)];
    const int64_t total = TotalRows(runs);
    switch (type->id()) {
      case TypeId::kNull:
        LANCE_RETURN_NOT_OK(CheckRuns(node, runs, 0));
        return Array::Make(type, total, {});
      case TypeId::kStruct: {
        if (static_cast<int>(n.children.size()) != type->num_fields()) {
          return Status::Corruption("legacy lance file: struct field {} has {} children, its type {}",
                                    n.lf.id, n.children.size(), type->num_fields());
        }
        std::vector<ArrayPtr> children;
        for (int i = 0; i < type->num_fields(); ++i) {
          LANCE_ASSIGN_OR_RAISE(auto child, Read(n.children[static_cast<size_t>(i)],
                                                 type->field(i)->type(), runs));
          children.push_back(std::move(child));
        }
        return Array::Make(type, total, {nullptr}, std::move(children));
      }
      case TypeId::kList:
      case TypeId::kLargeList:
        return ReadList(node, type, runs);
      case TypeId::kFixedSizeList: {
        const int64_t size = type->list_size();
        if (size < 0) return Status::Corruption("legacy lance file: fixed_size_list of size {}", size);
        std::vector<Run> items;
        for (const auto& r : runs) items.push_back({r.batch, r.start * size, r.len * size});
        const DataTypePtr& item_type = type->value_type();
        if (!IsFixedWidth(*item_type) && item_type->id() != TypeId::kFixedSizeList) {
          return Status::NotSupported("legacy lance file: fixed_size_list of {} (field {})",
                                      item_type->ToString(), n.lf.id);
        }
        LANCE_ASSIGN_OR_RAISE(auto values, Read(node, item_type, items, mult * size));
        return Array::Make(type, total, {nullptr}, {std::move(values)});
      }
      case TypeId::kString:
      case TypeId::kLargeString:
      case TypeId::kBinary:
      case TypeId::kLargeBinary:
        return ReadBinary(node, type, runs, n.lf.nullable);
      case TypeId::kDictionary: {
        if (n.encoding != kDictionary) {
          return Status::Corruption("legacy lance file: dictionary field {} has encoding {}",
                                    n.lf.id, n.encoding);
        }
        const ArrayPtr& dict = layout_.dictionaries[static_cast<size_t>(node)];
        if (!dict) return Status::Corruption("legacy lance file: field {} has no dictionary", n.lf.id);
        LANCE_ASSIGN_OR_RAISE(auto keys, ReadFixed(node, type->index_type(), runs, mult));
        const int width = type->index_type()->bit_width() / 8;
        const uint8_t* k = keys->buffers[1]->data();
        for (int64_t i = 0; i < total; ++i) {
          int64_t key = 0;
          switch (width) {
            case 1: key = type->index_type()->is_signed_integer() ? Load<int8_t>(k + i) : Load<uint8_t>(k + i); break;
            case 2: key = type->index_type()->is_signed_integer() ? Load<int16_t>(k + 2 * i) : Load<uint16_t>(k + 2 * i); break;
            case 4: key = type->index_type()->is_signed_integer() ? Load<int32_t>(k + 4 * i) : Load<uint32_t>(k + 4 * i); break;
            default: key = Load<int64_t>(k + 8 * i); break;
          }
          if (key < 0 || key >= dict->length) {
            return Status::Corruption("legacy lance file: field {} key {} outside its {} entry dictionary",
                                      n.lf.id, key, dict->length);
          }
        }
        return Array::Make(type, total, {nullptr, keys->buffers[1]}, {}, 0, dict);
      }
      default:
        if (IsFixedWidth(*type)) return ReadFixed(node, type, runs, mult);
        return Status::NotSupported("legacy lance file: field {} of type {}", n.lf.id,
                                    type->ToString());
    }
  }

  // Every run within the rows of its batch's page (times `mult`, plus `extra`).
  Status CheckRuns(int node, const std::vector<Run>& runs, int64_t extra, int64_t mult = 1) const {
    for (const auto& r : runs) {
      const auto [pos, len] = layout_.page(node, r.batch);
      if (pos < 0 || len < 0) {
        return Status::Corruption("legacy lance file: field {} batch {} page ({}, {})",
                                  layout_.nodes[static_cast<size_t>(node)].lf.id, r.batch, pos, len);
      }
      if (len > std::numeric_limits<int64_t>::max() / std::max<int64_t>(mult, 1) ||
          r.start < 0 || r.len < 0 || r.start + r.len + extra > len * mult) {
        return Status::Corruption(
            "legacy lance file: field {} batch {}: rows [{}, {}) outside its page of {}",
            layout_.nodes[static_cast<size_t>(node)].lf.id, r.batch, r.start, r.start + r.len,
            len * mult - extra);
      }
    }
    return Status::OK();
  }

  Result<ArrayPtr> ReadFixed(int node, const DataTypePtr& type, const std::vector<Run>& runs,
                             int64_t mult) const {
    LANCE_RETURN_NOT_OK(CheckRuns(node, runs, 0, mult));
    const int64_t total = TotalRows(runs);
    const int bits = type->bit_width();
    if (bits <= 0 || (bits != 1 && bits % 8 != 0)) {
      return Status::NotSupported("legacy lance file: fixed-width type {}", type->ToString());
    }
    std::vector<io::Range> ranges;
    for (const auto& r : runs) {
      const int64_t pos = layout_.page(node, r.batch).first;
      if (bits == 1) {
        const int64_t first = r.start / 8;
        const int64_t end = (r.start + r.len + 7) / 8;
        ranges.push_back({pos + first, r.len == 0 ? 0 : end - first});
      } else {
        ranges.push_back({pos + r.start * (bits / 8), r.len * (bits / 8)});
      }
    }
    LANCE_ASSIGN_OR_RAISE(auto got, Fetch(ranges));
    if (bits == 1) {
      LANCE_ASSIGN_OR_RAISE(BufferPtr out, AllocateBuffer((total + 7) / 8, true));
      int64_t at = 0;
      for (size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].len == 0) continue;
        bit_util::CopyBitmap(got[i]->data(), runs[i].start % 8, runs[i].len, out->mutable_data(), at);
        at += runs[i].len;
      }
      return Array::Make(type, total, {nullptr, std::move(out)});
    }
    if (runs.size() == 1) return Array::Make(type, total, {nullptr, got[0]});
    BufferBuilder values;
    for (const auto& b : got) LANCE_RETURN_NOT_OK(values.Append(b->data(), b->size()));
    LANCE_ASSIGN_OR_RAISE(BufferPtr buf, values.Finish());
    return Array::Make(type, total, {nullptr, std::move(buf)});
  }

  Result<ArrayPtr> ReadBinary(int node, const DataTypePtr& type, const std::vector<Run>& runs,
                              bool nullable) const {
    const auto& n = layout_.nodes[static_cast<size_t>(node)];
    if (n.encoding != kVarBinary) {
      return Status::Corruption("legacy lance file: {} field {} has encoding {} (expected var_binary)",
                                type->ToString(), n.lf.id, n.encoding);
    }
    LANCE_RETURN_NOT_OK(CheckRuns(node, runs, 0));
    // Positions: rows + 1 absolute file offsets from the page position.
    std::vector<io::Range> ranges;
    for (const auto& r : runs) {
      ranges.push_back({layout_.page(node, r.batch).first + r.start * 8, (r.len + 1) * 8});
    }
    LANCE_ASSIGN_OR_RAISE(auto positions, Fetch(ranges));
    std::vector<io::Range> bytes;
    for (size_t i = 0; i < runs.size(); ++i) {
      const uint8_t* p = positions[i]->data();
      int64_t prev = Load<int64_t>(p);
      const int64_t first = prev;
      for (int64_t k = 1; k <= runs[i].len; ++k) {
        const int64_t cur = Load<int64_t>(p + 8 * k);
        if (cur < prev) {
          return Status::Corruption("legacy lance file: field {} batch {}: positions go back ({} after {})",
                                    n.lf.id, runs[i].batch, cur, prev);
        }
        prev = cur;
      }
      bytes.push_back({first, prev - first});
    }
    LANCE_ASSIGN_OR_RAISE(auto data, Fetch(bytes));
    const int64_t total = TotalRows(runs);
    const bool large = type->has_large_offsets();
    BufferBuilder offsets, values, validity;
    LANCE_RETURN_NOT_OK(offsets.Reserve((total + 1) * (large ? 8 : 4)));
    int64_t nulls = 0;
    std::vector<uint8_t> valid(static_cast<size_t>((total + 7) / 8), 0);
    int64_t at = 0;
    int64_t row = 0;
    auto put = [&](int64_t v) -> Status {
      if (large) return offsets.AppendValue(v);
      if (v > std::numeric_limits<int32_t>::max()) {
        return Status::Corruption("legacy lance file: field {}: {} bytes do not fit {}", n.lf.id,
                                  v, type->ToString());
      }
      return offsets.AppendValue(static_cast<int32_t>(v));
    };
    LANCE_RETURN_NOT_OK(put(0));
    for (size_t i = 0; i < runs.size(); ++i) {
      const uint8_t* p = positions[i]->data();
      const int64_t base = Load<int64_t>(p);
      for (int64_t k = 1; k <= runs[i].len; ++k, ++row) {
        const int64_t lo = Load<int64_t>(p + 8 * (k - 1));
        const int64_t hi = Load<int64_t>(p + 8 * k);
        if (nullable && hi == lo) {
          ++nulls;
        } else {
          bit_util::SetBit(valid.data(), row);
        }
        LANCE_RETURN_NOT_OK(put(at + hi - base));
      }
      at += data[i]->size();
      LANCE_RETURN_NOT_OK(values.Append(data[i]->data(), data[i]->size()));
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr off, offsets.Finish());
    LANCE_ASSIGN_OR_RAISE(BufferPtr val, values.Finish());
    BufferPtr bitmap;
    if (nulls > 0) {
      LANCE_ASSIGN_OR_RAISE(bitmap, CopyBuffer(std::string_view(
                                        reinterpret_cast<const char*>(valid.data()), valid.size())));
    }
    auto arr = Array::Make(type, total, {std::move(bitmap), std::move(off), std::move(val)});
    return arr;
  }

  Result<ArrayPtr> ReadList(int node, const DataTypePtr& type, const std::vector<Run>& runs) const {
    const auto& n = layout_.nodes[static_cast<size_t>(node)];
    if (n.children.size() != 1) {
      return Status::Corruption("legacy lance file: list field {} has {} children", n.lf.id,
                                n.children.size());
    }
    const bool large = type->id() == TypeId::kLargeList;
    const int w = large ? 8 : 4;
    // The page holds rows + 1 offsets.
    LANCE_RETURN_NOT_OK(CheckRuns(node, runs, 1));
    std::vector<io::Range> ranges;
    for (const auto& r : runs) {
      ranges.push_back({layout_.page(node, r.batch).first + r.start * w, (r.len + 1) * w});
    }
    LANCE_ASSIGN_OR_RAISE(auto positions, Fetch(ranges));
    auto at = [&](size_t i, int64_t k) -> int64_t {
      const uint8_t* p = positions[i]->data();
      return large ? Load<int64_t>(p + 8 * k) : Load<int32_t>(p + 4 * k);
    };
    const int64_t total = TotalRows(runs);
    std::vector<Run> items;
    BufferBuilder offsets;
    int64_t count = 0;
    if (large) {
      LANCE_RETURN_NOT_OK(offsets.AppendValue<int64_t>(0));
    } else {
      LANCE_RETURN_NOT_OK(offsets.AppendValue<int32_t>(0));
    }
    for (size_t i = 0; i < runs.size(); ++i) {
      const int64_t first = at(i, 0);
      int64_t prev = first;
      if (first < 0) {
        return Status::Corruption("legacy lance file: list field {} offset {}", n.lf.id, first);
      }
      for (int64_t k = 1; k <= runs[i].len; ++k) {
        const int64_t cur = at(i, k);
        if (cur < prev) {
          return Status::Corruption("legacy lance file: list field {} batch {}: offsets go back ({} after {})",
                                    n.lf.id, runs[i].batch, cur, prev);
        }
        const int64_t next = count + (cur - first);
        if (!large && next > std::numeric_limits<int32_t>::max()) {
          return Status::Corruption("legacy lance file: list field {}: {} items", n.lf.id, next);
        }
        if (large) {
          LANCE_RETURN_NOT_OK(offsets.AppendValue<int64_t>(next));
        } else {
          LANCE_RETURN_NOT_OK(offsets.AppendValue<int32_t>(static_cast<int32_t>(next)));
        }
        prev = cur;
      }
      count += prev - first;
      items.push_back({runs[i].batch, first, prev - first});
    }
    LANCE_ASSIGN_OR_RAISE(auto values, Read(n.children[0], type->value_type(), items));
    LANCE_ASSIGN_OR_RAISE(BufferPtr off, offsets.Finish());
    return Array::Make(type, total, {nullptr, std::move(off)}, {std::move(values)});
  }

 private:
  const LegacyV1Reader::Layout& layout_;
  int64_t size_;
  const LegacyV1Reader::FetchFn& fetch_;
};

// Reads `len` bytes at `pos` from the tail when it holds them, else through `fetch`.
Result<BufferPtr> ReadAt(const BufferPtr& tail, int64_t tail_offset, int64_t size,
                         const LegacyV1Reader::FetchFn& fetch, int64_t pos, int64_t len,
                         const char* what) {
  if (pos < 0 || len < 0 || pos > size || len > size - pos) {
    return Status::Corruption("legacy lance file: {} [{}, +{}) outside the {} byte file", what, pos,
                              len, size);
  }
  if (pos >= tail_offset) return SliceBuffer(tail, pos - tail_offset, len);
  if (len == 0) return BufferFromString("");
  LANCE_ASSIGN_OR_RAISE(auto got, fetch({io::Range{pos, len}}));
  if (got.size() != 1 || got[0]->size() != len) {
    return Status::IOError("legacy lance file: short read of the {}", what);
  }
  return got[0];
}

// A u32 length + message at `pos`.
Result<BufferPtr> ReadMessage(const BufferPtr& tail, int64_t tail_offset, int64_t size,
                              const LegacyV1Reader::FetchFn& fetch, int64_t pos, const char* what) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr len_bytes, ReadAt(tail, tail_offset, size, fetch, pos, 4, what));
  const uint32_t len = Load<uint32_t>(len_bytes->data());
  return ReadAt(tail, tail_offset, size, fetch, pos + 4, len, what);
}

// Builds a layout's nodes and types from Lance fields (pre-order).
Status BuildNodes(const google::protobuf::RepeatedPtrField<::lance::file::Field>& pb_fields,
                  std::vector<std::pair<std::string, std::string>> metadata,
                  LegacyV1Reader::Layout* layout, SchemaPtr* schema) {
  std::vector<LanceField> fields;
  for (const auto& f : pb_fields) {
    LegacyV1Reader::Layout::Node n;
    n.lf.name = f.name();
    n.lf.id = f.id();
    n.lf.parent_id = f.parent_id();
    n.lf.logical_type = f.logical_type();
    n.lf.nullable = f.nullable();
    for (const auto& [k, v] : f.metadata()) n.lf.metadata.emplace_back(k, v);
    std::sort(n.lf.metadata.begin(), n.lf.metadata.end());
    n.encoding = static_cast<int>(f.encoding());
    if (f.has_dictionary()) {
      n.dict_offset = f.dictionary().offset();
      n.dict_length = f.dictionary().length();
    }
    fields.push_back(n.lf);
    layout->nodes.push_back(std::move(n));
  }
  if (fields.empty()) return Status::Corruption("legacy lance file: the schema has no fields");
  std::sort(metadata.begin(), metadata.end());
  LANCE_ASSIGN_OR_RAISE(*schema, SchemaFromLanceFields(fields, std::move(metadata)));
  // Children in order of appearance, as SchemaFromLanceFields builds them.
  auto& nodes = layout->nodes;
  layout->min_id = nodes[0].lf.id;
  layout->max_id = nodes[0].lf.id;
  for (size_t i = 0; i < nodes.size(); ++i) {
    layout->min_id = std::min(layout->min_id, nodes[i].lf.id);
    layout->max_id = std::max(layout->max_id, nodes[i].lf.id);
    if (nodes[i].lf.parent_id < 0) {
      layout->top.push_back(static_cast<int>(i));
      continue;
    }
    for (size_t j = 0; j < nodes.size(); ++j) {
      if (nodes[j].lf.id == nodes[i].lf.parent_id) {
        nodes[j].children.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  if (static_cast<int>(layout->top.size()) != (*schema)->num_fields()) {
    return Status::Corruption("legacy lance file: {} top-level fields, the schema has {}",
                              layout->top.size(), (*schema)->num_fields());
  }
  // Types down the tree (a fixed-size list's item has no field of its own).
  std::function<Status(int, const DataTypePtr&)> attach = [&](int node, const DataTypePtr& type) -> Status {
    auto& n = nodes[static_cast<size_t>(node)];
    n.type = type;
    if (type->id() == TypeId::kStruct || type->id() == TypeId::kList ||
        type->id() == TypeId::kLargeList) {
      if (static_cast<int>(n.children.size()) != type->num_fields()) {
        return Status::Corruption("legacy lance file: field {} ('{}') has {} children, its type {}",
                                  n.lf.id, n.lf.name, n.children.size(), type->ToString());
      }
      for (int i = 0; i < type->num_fields(); ++i) {
        LANCE_RETURN_NOT_OK(attach(n.children[static_cast<size_t>(i)], type->field(i)->type()));
      }
    } else if (!n.children.empty()) {
      return Status::Corruption("legacy lance file: leaf field {} has children", n.lf.id);
    }
    return Status::OK();
  };
  for (size_t k = 0; k < layout->top.size(); ++k) {
    LANCE_RETURN_NOT_OK(attach(layout->top[k], (*schema)->field(static_cast<int>(k))->type()));
  }
  layout->dictionaries.resize(nodes.size());
  return Status::OK();
}

// Loads the page table: (max - min + 1) x batches x (i64, i64).
Status LoadPageTable(const BufferPtr& tail, int64_t tail_offset, int64_t size,
                     const LegacyV1Reader::FetchFn& fetch, int64_t position,
                     LegacyV1Reader::Layout* layout) {
  const int64_t ids = static_cast<int64_t>(layout->max_id) - layout->min_id + 1;
  if (layout->min_id < 0 || ids <= 0 || ids > size / 16 + 1) {
    return Status::Corruption("legacy lance file: field ids {}..{} for a {} byte file",
                              layout->min_id, layout->max_id, size);
  }
  const int64_t entries = ids * layout->num_batches;
  if (layout->num_batches > 0 && entries / layout->num_batches != ids) {
    return Status::Corruption("legacy lance file: page table too large");
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr table,
                        ReadAt(tail, tail_offset, size, fetch, position, entries * 16, "page table"));
  layout->pages.resize(static_cast<size_t>(entries));
  for (int64_t k = 0; k < entries; ++k) {
    layout->pages[static_cast<size_t>(k)] = {Load<int64_t>(table->data() + 16 * k),
                                             Load<int64_t>(table->data() + 16 * k + 8)};
  }
  return Status::OK();
}

// The bytes a page needs before its reads (positions of strings and lists, fixed-width values),
// so Open can refuse pages outside the file.
Result<int64_t> PageBytes(const LegacyV1Reader::Layout::Node& n, int64_t length) {
  const DataType& t = *n.type;
  if (length < 0) return Status::Corruption("legacy lance file: field {} page of {} rows", n.lf.id, length);
  int64_t per = 0;
  DataTypePtr leaf = n.type;
  int64_t mult = 1;
  while (leaf->id() == TypeId::kFixedSizeList) {
    mult *= std::max(leaf->list_size(), 0);
    leaf = leaf->value_type();
  }
  if (t.id() == TypeId::kStruct || t.id() == TypeId::kNull) return 0;
  if (t.is_binary_like()) {
    per = 8;
    if (length > std::numeric_limits<int64_t>::max() / 8 - 1) {
      return Status::Corruption("legacy lance file: field {} page of {} rows", n.lf.id, length);
    }
    return (length + 1) * 8;
  }
  if (t.id() == TypeId::kList) per = 4 * 8;
  if (t.id() == TypeId::kLargeList) per = 8 * 8;
  if (t.id() == TypeId::kDictionary) per = t.index_type()->bit_width();
  if (per == 0) per = leaf->bit_width();
  if (per <= 0) return 0;
  if (mult > 0 && length > std::numeric_limits<int64_t>::max() / 64 / mult) {
    return Status::Corruption("legacy lance file: field {} page of {} rows", n.lf.id, length);
  }
  return (length * mult * per + 7) / 8;
}

}  // namespace

bool LegacyV1Reader::IsV1Footer(const uint8_t* footer_end) {
  return std::memcmp(footer_end - 4, kMagic, 4) == 0 && Load<uint16_t>(footer_end - 8) == 0 &&
         Load<uint16_t>(footer_end - 6) < 3;
}

LegacyV1Reader::~LegacyV1Reader() = default;

Result<std::unique_ptr<LegacyV1Reader>> LegacyV1Reader::Open(int64_t size, BufferPtr tail,
                                                             int64_t tail_offset, FetchFn fetch) {
  if (size < kV1FooterSize || !tail || tail_offset < 0 || tail->size() != size - tail_offset ||
      tail->size() < kV1FooterSize) {
    return Status::Corruption("legacy lance file: {} bytes, smaller than the {} byte footer", size,
                              kV1FooterSize);
  }
  const uint8_t* end = tail->data() + tail->size();
  if (!IsV1Footer(end)) return Status::Corruption("legacy lance file: no v1 footer");
  std::unique_ptr<LegacyV1Reader> r(new LegacyV1Reader());
  r->size_ = size;
  r->fetch_ = fetch;
  r->version_.major = Load<uint16_t>(end - 8);
  r->version_.minor = Load<uint16_t>(end - 6);
  const uint64_t meta_pos = Load<uint64_t>(end - 16);
  if (meta_pos > static_cast<uint64_t>(size - kV1FooterSize)) {
    return Status::Corruption("legacy lance file: metadata position {} past {}", meta_pos,
                              size - kV1FooterSize);
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr meta_bytes,
                        ReadMessage(tail, tail_offset, size, fetch, static_cast<int64_t>(meta_pos), "metadata"));
  ::lance::file::Metadata meta;
  if (!meta.ParseFromArray(meta_bytes->data(), static_cast<int>(meta_bytes->size()))) {
    return Status::Corruption("legacy lance file: the metadata at {} is not a Metadata message", meta_pos);
  }
  // Batches.
  r->batch_start_.push_back(0);
  if (meta.batch_offsets_size() > 0 && meta.batch_offsets(0) != 0) {
    return Status::Corruption("legacy lance file: batch offsets start at {}", meta.batch_offsets(0));
  }
  for (int i = 1; i < meta.batch_offsets_size(); ++i) {
    if (meta.batch_offsets(i) < meta.batch_offsets(i - 1)) {
      return Status::Corruption("legacy lance file: batch offsets go back ({} after {})",
                                meta.batch_offsets(i), meta.batch_offsets(i - 1));
    }
    r->batch_start_.push_back(meta.batch_offsets(i));
  }
  // Schema: embedded by every writer that stored one (the table's own manifest has it too).
  if (meta.manifest_position() == 0) {
    return Status::NotSupported("legacy lance file: no embedded schema (manifest position 0)");
  }
  if (meta.manifest_position() > static_cast<uint64_t>(size)) {
    return Status::Corruption("legacy lance file: schema position {} past the file", meta.manifest_position());
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr schema_bytes,
                        ReadMessage(tail, tail_offset, size, fetch,
                                    static_cast<int64_t>(meta.manifest_position()), "embedded schema"));
  ::lance::file::V1EmbeddedSchema embedded;
  if (!embedded.ParseFromArray(schema_bytes->data(), static_cast<int>(schema_bytes->size()))) {
    return Status::Corruption("legacy lance file: the embedded schema is not a manifest");
  }
  r->main_ = std::make_unique<Layout>();
  Layout& L = *r->main_;
  std::vector<std::pair<std::string, std::string>> md(embedded.schema_metadata().begin(),
                                                      embedded.schema_metadata().end());
  LANCE_RETURN_NOT_OK(BuildNodes(embedded.fields(), std::move(md), &L, &r->schema_));
  L.num_batches = r->num_batches();
  for (int b = 0; b < L.num_batches; ++b) {
    L.batch_rows.push_back(r->batch_start_[static_cast<size_t>(b) + 1] - r->batch_start_[static_cast<size_t>(b)]);
  }
  LANCE_RETURN_NOT_OK(LoadPageTable(tail, tail_offset, size, fetch,
                                    static_cast<int64_t>(meta.page_table_position()), &L));
  // Pages inside the file; one column per field with pages.
  for (size_t i = 0; i < L.nodes.size(); ++i) {
    const auto& n = L.nodes[i];
    if (n.type->id() == TypeId::kStruct) continue;
    ColumnInfo col;
    for (int b = 0; b < L.num_batches; ++b) {
      const auto [pos, len] = L.page(static_cast<int>(i), b);
      LANCE_ASSIGN_OR_RAISE(int64_t bytes, PageBytes(n, len));
      if (pos < 0 || pos > size || bytes > size - pos) {
        return Status::Corruption("legacy lance file: field {} batch {} page [{}, +{}) outside the file",
                                  n.lf.id, b, pos, bytes);
      }
      PageInfo page;
      page.num_rows = len;
      page.priority = r->batch_start_[static_cast<size_t>(b)];
      page.buffers.emplace_back(static_cast<uint64_t>(pos), static_cast<uint64_t>(bytes));
      page.encoding_url = "v1";
      const char* enc = n.encoding == kPlain ? "plain" : n.encoding == kVarBinary ? "var_binary"
                        : n.encoding == kDictionary ? "dictionary" : "none";
      page.description = std::string(enc) + "(" + n.lf.logical_type + ")";
      col.pages.push_back(std::move(page));
    }
    r->columns_.push_back(std::move(col));
  }
  // Dictionaries, once.
  for (size_t i = 0; i < L.nodes.size(); ++i) {
    const auto& n = L.nodes[i];
    if (n.type->id() != TypeId::kDictionary) continue;
    Layout dict_layout;
    Layout::Node vn;
    vn.lf.id = 0;
    vn.lf.nullable = false;
    vn.encoding = n.type->dictionary_value_type()->is_binary_like() ? kVarBinary : kPlain;
    vn.type = n.type->dictionary_value_type();
    dict_layout.nodes.push_back(vn);
    dict_layout.num_batches = 1;
    dict_layout.pages.push_back({n.dict_offset, n.dict_length});
    dict_layout.dictionaries.resize(1);
    V1Decoder dec(dict_layout, size, r->fetch_);
    auto values = dec.Read(0, vn.type, {Run{0, 0, n.dict_length}});
    if (!values.ok()) return values.status().WithContext("dictionary of field " + std::to_string(n.lf.id));
    L.dictionaries[i] = std::move(*values);
  }
  // Statistics.
  if (meta.has_statistics() && meta.statistics().schema_size() > 0) {
    r->stats_ = std::make_unique<Layout>();
    SchemaPtr stats_schema;
    LANCE_RETURN_NOT_OK(BuildNodes(meta.statistics().schema(), {}, r->stats_.get(), &stats_schema));
    int32_t max_id = 0;
    for (int32_t id : meta.statistics().fields()) max_id = std::max(max_id, id);
    r->stats_->min_id = 0;
    r->stats_->max_id = std::max(max_id, r->stats_->max_id);
    r->stats_->num_batches = 1;
    r->stats_->batch_rows = {static_cast<int64_t>(r->num_batches())};
    LANCE_RETURN_NOT_OK(LoadPageTable(tail, tail_offset, size, fetch,
                                      static_cast<int64_t>(meta.statistics().page_table_position()),
                                      r->stats_.get()));
  }
  return r;
}

int64_t LegacyV1Reader::FieldBytes(int field_index) const {
  if (field_index < 0 || field_index >= static_cast<int>(main_->top.size())) return 0;
  int64_t bytes = 0;
  std::function<void(int)> add = [&](int node) {
    const auto& n = main_->nodes[static_cast<size_t>(node)];
    for (int b = 0; b < main_->num_batches; ++b) {
      auto got = PageBytes(n, main_->page(node, b).second);
      if (got.ok()) bytes += *got;
    }
    for (int c : n.children) add(c);
  };
  add(main_->top[static_cast<size_t>(field_index)]);
  return bytes;
}

Result<ArrayPtr> LegacyV1Reader::ReadField(int field_index) const {
  if (field_index < 0 || field_index >= static_cast<int>(main_->top.size())) {
    return Status::InvalidArgument("field index {} outside [0, {})", field_index, main_->top.size());
  }
  std::vector<Run> runs;
  for (int b = 0; b < num_batches(); ++b) runs.push_back({b, 0, main_->batch_rows[static_cast<size_t>(b)]});
  V1Decoder dec(*main_, size_, fetch_);
  const int node = main_->top[static_cast<size_t>(field_index)];
  return dec.Read(node, main_->nodes[static_cast<size_t>(node)].type, runs);
}

Result<ArrayPtr> LegacyV1Reader::TakeField(int field_index, const std::vector<int64_t>& rows) const {
  if (field_index < 0 || field_index >= static_cast<int>(main_->top.size())) {
    return Status::InvalidArgument("field index {} outside [0, {})", field_index, main_->top.size());
  }
  // Consecutive rows of one batch become one run.
  std::vector<Run> runs;
  for (int64_t row : rows) {
    if (row < 0 || row >= num_rows()) {
      return Status::InvalidArgument("row {} outside the file's {} rows", row, num_rows());
    }
    const auto it = std::upper_bound(batch_start_.begin(), batch_start_.end(), row);
    const int batch = static_cast<int>(it - batch_start_.begin()) - 1;
    const int64_t in_batch = row - batch_start_[static_cast<size_t>(batch)];
    if (!runs.empty() && runs.back().batch == batch && runs.back().start + runs.back().len == in_batch) {
      ++runs.back().len;
    } else {
      runs.push_back({batch, in_batch, 1});
    }
  }
  V1Decoder dec(*main_, size_, fetch_);
  const int node = main_->top[static_cast<size_t>(field_index)];
  return dec.Read(node, main_->nodes[static_cast<size_t>(node)].type, runs);
}

Result<RecordBatchPtr> LegacyV1Reader::Statistics() const {
  if (!stats_) return RecordBatchPtr{};
  V1Decoder dec(*stats_, size_, fetch_);
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> columns;
  const int64_t n = num_batches();
  for (int node : stats_->top) {
    const auto& nd = stats_->nodes[static_cast<size_t>(node)];
    LANCE_ASSIGN_OR_RAISE(auto arr, dec.Read(node, nd.type, {Run{0, 0, n}}));
    fields.push_back(field(nd.lf.name, nd.type, nd.lf.nullable));
    columns.push_back(std::move(arr));
  }
  return RecordBatch::Make(::lance::schema(std::move(fields)), n, std::move(columns));
}

}  // namespace lance::file
