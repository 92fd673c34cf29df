// Row-level kernels (compute.h): one gather over runs of consecutive source rows, and the
// take / take-chunked / drop entry points that describe their rows as such runs.
#include "lance/columnar/compute.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace lance {

namespace {

// `length` consecutive rows of `source` from row `start`, landing at the next output rows.
struct Run {
  const Array* source;
  int64_t start;
  int64_t length;
};

enum class Layout { kFixed, kBool, kBinary, kFixedList, kSlices };

Layout LayoutOf(const Array& a) {
  const DataType& t = *a.type;
  if (t.id() == TypeId::kBool) return Layout::kBool;
  if (t.is_binary_like()) return Layout::kBinary;
  if (t.id() == TypeId::kFixedSizeList && a.children.size() == 1) return Layout::kFixedList;
  const int bits = t.bit_width();
  if (t.is_fixed_width() && t.id() != TypeId::kDictionary && a.children.empty() && bits >= 8 &&
      bits % 8 == 0) {
    return Layout::kFixed;
  }
  return Layout::kSlices;
}

uint8_t* Mutable(const BufferPtr& b) { return std::const_pointer_cast<Buffer>(b)->mutable_data(); }

// The validity bitmap of the gathered rows; null when no source row is null.
Result<BufferPtr> GatherValidity(const std::vector<Run>& runs, int64_t total) {
  bool nulls = false;
  for (const Run& r : runs) nulls = nulls || (r.source->null_count > 0 && r.source->validity());
  if (!nulls) return BufferPtr();
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, AllocateBuffer(bit_util::BytesForBits(total), /*zero_fill=*/true));
  uint8_t* v = Mutable(out);
  int64_t at = 0;
  for (const Run& r : runs) {
    if (r.source->validity() == nullptr) {
      bit_util::SetBitsTo(v, at, r.length, true);
    } else {
      bit_util::CopyBitmap(r.source->validity(), r.source->offset + r.start, r.length, v, at);
    }
    at += r.length;
  }
  return out;
}

Result<ArrayPtr> GatherFixed(const DataTypePtr& type, const std::vector<Run>& runs, int64_t total,
                             BufferPtr validity) {
  const int64_t w = type->bit_width() / 8;
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, AllocateBuffer(total * w));
  uint8_t* dst = Mutable(values);
  int64_t at = 0;
  for (const Run& r : runs) {
    const uint8_t* src = r.source->buffers[1]->data() + (r.source->offset + r.start) * w;
    if (r.length == 1) {
      switch (w) {  // single rows (a take in random order) without a library call
        case 1: dst[at] = *src; break;
        case 2: std::memcpy(dst + at * 2, src, 2); break;
        case 4: std::memcpy(dst + at * 4, src, 4); break;
        case 8: std::memcpy(dst + at * 8, src, 8); break;
        default: std::memcpy(dst + at * w, src, static_cast<size_t>(w));
      }
    } else {
      std::memcpy(dst + at * w, src, static_cast<size_t>(r.length * w));
    }
    at += r.length;
  }
  return Array::Make(type, total, {std::move(validity), std::move(values)});
}

Result<ArrayPtr> GatherBool(const DataTypePtr& type, const std::vector<Run>& runs, int64_t total,
                            BufferPtr validity) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBuffer(bit_util::BytesForBits(total), /*zero_fill=*/true));
  uint8_t* b = Mutable(bits);
  int64_t at = 0;
  for (const Run& r : runs) {
    if (r.length == 1) {
      if (r.source->BoolValue(r.start)) bit_util::SetBit(b, at);
    } else {
      bit_util::CopyBitmap(r.source->buffers[1]->data(), r.source->offset + r.start, r.length, b, at);
    }
    at += r.length;
  }
  return Array::Make(type, total, {std::move(validity), std::move(bits)});
}

template <typename O>
Result<ArrayPtr> GatherBinary(const DataTypePtr& type, const std::vector<Run>& runs, int64_t total,
                              BufferPtr validity) {
  int64_t bytes = 0;
  for (const Run& r : runs) {
    bytes += r.source->ValueOffset(r.start + r.length) - r.source->ValueOffset(r.start);
  }
  if (bytes > static_cast<int64_t>(std::numeric_limits<O>::max())) {
    return Status::InvalidArgument("take: {} bytes of {} values exceed its 32-bit offsets", bytes,
                                   type->ToString());
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr offsets, AllocateBuffer((total + 1) * static_cast<int64_t>(sizeof(O))));
  LANCE_ASSIGN_OR_RAISE(BufferPtr data, AllocateBuffer(std::max<int64_t>(bytes, 1)));
  O* od = reinterpret_cast<O*>(Mutable(offsets));
  uint8_t* dd = Mutable(data);
  int64_t at = 0;   // output row
  int64_t pos = 0;  // output byte
  od[0] = 0;
  for (const Run& r : runs) {
    const Array& s = *r.source;
    const O* so = s.buffers[1]->data_as<O>() + s.offset + r.start;
    const int64_t first = so[0];
    const int64_t last = so[r.length];
    if (last > first) {
      std::memcpy(dd + pos, s.buffers[2]->data() + first, static_cast<size_t>(last - first));
    }
    const int64_t shift = pos - first;
    for (int64_t i = 1; i <= r.length; ++i) od[at + i] = static_cast<O>(so[i] + shift);
    at += r.length;
    pos += last - first;
  }
  return Array::Make(type, total, {std::move(validity), std::move(offsets), std::move(data)});
}

// The rows of `runs` (all sources of type `type`, `total` rows in all) as one new array.
Result<ArrayPtr> Gather(const DataTypePtr& type, const std::vector<Run>& runs, int64_t total) {
  if (total == 0) return MakeEmptyArray(type);
  if (runs.size() == 1) return runs[0].source->Slice(runs[0].start, runs[0].length);
  Layout layout = LayoutOf(*runs[0].source);
  for (const Run& r : runs) {
    if (LayoutOf(*r.source) != layout) layout = Layout::kSlices;
  }
  if (layout == Layout::kSlices) {
    std::vector<ArrayPtr> pieces;
    pieces.reserve(runs.size());
    for (const Run& r : runs) pieces.push_back(r.source->Slice(r.start, r.length));
    return Concatenate(pieces);
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, GatherValidity(runs, total));
  if (layout == Layout::kFixedList) {
    // A run of lists is a run of list_size times as many child values: one gather of the
    // child (a vector column copies its floats per run, not an array per run).
    const int64_t size = type->list_size();
    std::vector<Run> child_runs;
    child_runs.reserve(runs.size());
    for (const Run& r : runs) {
      child_runs.push_back({r.source->children[0].get(), (r.source->offset + r.start) * size, r.length * size});
    }
    LANCE_ASSIGN_OR_RAISE(ArrayPtr child, Gather(runs[0].source->children[0]->type, child_runs, total * size));
    return Array::Make(type, total, {std::move(validity)}, {std::move(child)});
  }
  switch (layout) {
    case Layout::kFixed: return GatherFixed(type, runs, total, std::move(validity));
    case Layout::kBool: return GatherBool(type, runs, total, std::move(validity));
    default:
      if (type->has_large_offsets()) return GatherBinary<int64_t>(type, runs, total, std::move(validity));
      return GatherBinary<int32_t>(type, runs, total, std::move(validity));
  }
}

// Appends row `row` of `source` to `runs`, extending the last run when it continues it.
void AddRow(std::vector<Run>* runs, const Array* source, int64_t row) {
  if (!runs->empty()) {
    Run& last = runs->back();
    if (last.source == source && last.start + last.length == row) {
      ++last.length;
      return;
    }
  }
  runs->push_back({source, row, 1});
}

}  // namespace

Result<ArrayPtr> TakeArray(const ArrayPtr& array, const std::vector<int64_t>& indices) {
  std::vector<Run> runs;
  for (int64_t i : indices) {
    if (i < 0 || i >= array->length) {
      return Status::InvalidArgument("take: row {} out of range (length {})", i, array->length);
    }
    AddRow(&runs, array.get(), i);
  }
  if (runs.size() == 1 && runs[0].start == 0 && runs[0].length == array->length) return array;
  return Gather(array->type, runs, static_cast<int64_t>(indices.size()));
}

Result<ArrayPtr> TakeChunked(const std::vector<std::pair<int64_t, ArrayPtr>>& chunks,
                             const std::vector<int64_t>& rows, const DataTypePtr& type) {
  std::vector<Run> runs;
  size_t k = 0;  // chunk of the previous row: rows usually ascend
  for (int64_t r : rows) {
    if (k >= chunks.size() || r < chunks[k].first || r >= chunks[k].first + chunks[k].second->length) {
      auto it = std::upper_bound(chunks.begin(), chunks.end(), r,
                                 [](int64_t row, const auto& c) { return row < c.first; });
      if (it == chunks.begin()) return Status::InvalidArgument("take: row {} is in no chunk", r);
      k = static_cast<size_t>(it - chunks.begin()) - 1;
      if (r >= chunks[k].first + chunks[k].second->length) {
        return Status::InvalidArgument("take: row {} is in no chunk", r);
      }
    }
    AddRow(&runs, chunks[k].second.get(), r - chunks[k].first);
  }
  if (runs.size() == 1 && runs[0].start == 0 && runs[0].length == runs[0].source->length) {
    for (const auto& c : chunks) {
      if (c.second.get() == runs[0].source) return c.second;
    }
  }
  return Gather(type, runs, static_cast<int64_t>(rows.size()));
}

Result<RecordBatchPtr> TakeRows(const RecordBatch& batch, const std::vector<int64_t>& indices) {
  std::vector<ArrayPtr> cols;
  cols.reserve(static_cast<size_t>(batch.num_columns()));
  for (int c = 0; c < batch.num_columns(); ++c) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr a, TakeArray(batch.column(c), indices));
    cols.push_back(std::move(a));
  }
  return std::make_shared<RecordBatch>(batch.schema(), static_cast<int64_t>(indices.size()),
                                       std::move(cols));
}

Result<ArrayPtr> DropElements(const ArrayPtr& array, const std::vector<uint32_t>& drop) {
  if (drop.empty()) return array;
  const int64_t n = array->length;
  if (static_cast<int64_t>(drop.back()) >= n) {
    return Status::InvalidArgument("drop rows: row {} of {}", drop.back(), n);
  }
  std::vector<Run> runs;
  int64_t start = 0;
  for (uint32_t d : drop) {
    if (static_cast<int64_t>(d) > start) runs.push_back({array.get(), start, d - start});
    start = static_cast<int64_t>(d) + 1;
  }
  if (n > start) runs.push_back({array.get(), start, n - start});
  return Gather(array->type, runs, n - static_cast<int64_t>(drop.size()));
}

Result<std::optional<ArrayPtr>> NullAtRows(const ArrayPtr& array, const std::vector<uint32_t>& rows) {
  if (rows.empty() || array->type_id() == TypeId::kNull) return std::optional<ArrayPtr>(array);
  if (array->buffers.empty()) return std::optional<ArrayPtr>();
  const Array& a = *array;
  if (static_cast<int64_t>(rows.back()) >= a.length) {
    return Status::InvalidArgument("null rows: row {} of {}", rows.back(), a.length);
  }
  const int64_t bits = a.offset + a.length;
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, AllocateBuffer(bit_util::BytesForBits(bits)));
  uint8_t* v = Mutable(validity);
  if (a.validity() != nullptr) {
    std::memcpy(v, a.validity(), static_cast<size_t>(bit_util::BytesForBits(bits)));
  } else {
    std::memset(v, 0xff, static_cast<size_t>(bit_util::BytesForBits(bits)));
  }
  for (uint32_t r : rows) bit_util::ClearBit(v, a.offset + static_cast<int64_t>(r));
  std::vector<BufferPtr> buffers = a.buffers;
  buffers[0] = std::move(validity);
  return std::optional<ArrayPtr>(
      Array::Make(a.type, a.length, std::move(buffers), a.children, a.offset, a.dictionary));
}

Result<RecordBatchPtr> ConcatenateBatches(const SchemaPtr& schema,
                                          const std::vector<RecordBatchPtr>& batches) {
  int64_t rows = 0;
  for (const auto& b : batches) rows += b->num_rows();
  std::vector<ArrayPtr> cols;
  for (int c = 0; c < schema->num_fields(); ++c) {
    if (batches.size() == 1) {
      cols.push_back(batches[0]->column(c));
      continue;
    }
    if (batches.empty()) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr e, MakeEmptyArray(schema->field(c)->type()));
      cols.push_back(std::move(e));
      continue;
    }
    std::vector<ArrayPtr> parts;
    parts.reserve(batches.size());
    for (const auto& b : batches) parts.push_back(b->column(c));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr a, Concatenate(parts));
    cols.push_back(std::move(a));
  }
  return std::make_shared<RecordBatch>(schema, rows, std::move(cols));
}

bool SameStorageType(const DataType& a, const DataType& b) {
  if (a.id() != b.id() || a.byte_width() != b.byte_width() || a.list_size() != b.list_size() ||
      a.precision() != b.precision() || a.scale() != b.scale() || a.num_fields() != b.num_fields()) {
    return false;
  }
  if (a.id() == TypeId::kDictionary || a.id() == TypeId::kTimestamp || a.id() == TypeId::kTime32 ||
      a.id() == TypeId::kTime64 || a.id() == TypeId::kDuration) {
    return a.Equals(b);
  }
  for (int i = 0; i < a.num_fields(); ++i) {
    if (!SameStorageType(*a.field(i)->type(), *b.field(i)->type())) return false;
  }
  return true;
}

ArrayPtr Relabel(const ArrayPtr& array, const DataTypePtr& type) {
  if (array->type->Equals(*type)) return array;
  auto out = std::make_shared<Array>(*array);
  out->type = type;
  if (type->id() == TypeId::kStruct) {
    for (size_t i = 0; i < out->children.size(); ++i) {
      out->children[i] = Relabel(out->children[i], type->field(static_cast<int>(i))->type());
    }
  } else if (type->is_list_like() && !out->children.empty()) {
    out->children[0] = Relabel(out->children[0], type->value_field()->type());
  }
  return out;
}

}  // namespace lance
