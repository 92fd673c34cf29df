// Legacy "v1" data files (footer 0.2), the mirror of legacy_v1_reader.cc (older_writers.h).
#include <algorithm>
#include <cstring>
#include <optional>
#include <type_traits>

#include <fmt/format.h>

#include "file/older_writers.h"
#include "file/proto/deterministic.h"
#include "file/proto/file_schema.pb.h"
#include "file/proto/file_v1.pb.h"
#include "lance/core/bit_util.h"
#include "lance/core/int128.h"
#include "lance/file/lance_schema.h"

namespace lance::file::internal {

namespace {

// Rows per v1 batch (lance's max_rows_per_group for v1 files).
constexpr int64_t kV1BatchRows = 1024;

bool V1FixedWidth(const DataType& t) {
  if (t.id() == TypeId::kFixedSizeList) return V1FixedWidth(*t.value_type());
  return t.is_fixed_width() && t.id() != TypeId::kDictionary && t.bit_width() > 0 &&
         (t.bit_width() == 1 || t.bit_width() % 8 == 0);
}

// The types lance 12's v1 writer keeps page statistics for (observed on its appends into the
// vectordb 0.4.20 and lancedb 0.14.1 goldens): numbers but half floats, booleans, (large) utf8 /
// binary, dates and decimal128; not timestamps, times, durations, fixed-size binaries or
// lists, dictionaries, nulls, nor any field under a list.
bool V1HasStatistics(const DataType& t) {
  switch (t.id()) {
    case TypeId::kInt8: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
    case TypeId::kUInt8: case TypeId::kUInt16: case TypeId::kUInt32: case TypeId::kUInt64:
    case TypeId::kFloat: case TypeId::kDouble: case TypeId::kBool: case TypeId::kString:
    case TypeId::kBinary: case TypeId::kLargeString: case TypeId::kLargeBinary: case TypeId::kDate32:
    case TypeId::kDate64: case TypeId::kDecimal128:
      return true;
    default:
      return false;
  }
}

// One field's statistics, one entry per batch: its null count and the smallest and largest
// non-null value (the value's bytes: little-endian fixed width, "\0" / "\1" for booleans, the
// bytes of a string); nullopt when the batch has no non-null value (a float NaN is skipped,
// and a zero min / max is -0 / +0, as lance 12 stores them).
struct FieldStatistics {
  size_t width = 0;  // bytes of a fixed-width value
  std::vector<int64_t> null_counts;
  std::vector<std::optional<std::string>> mins, maxs;
};

template <typename T>
void MinMaxOf(const Array& a, std::optional<std::string>* lo, std::optional<std::string>* hi) {
  std::optional<T> mn, mx;
  const T* v = a.Values<T>();
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.IsValid(i)) continue;
    const T x = v[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (x != x) continue;
    }
    if (!mn || x < *mn) mn = x;
    if (!mx || *mx < x) mx = x;
  }
  if constexpr (std::is_floating_point_v<T>) {
    // A zero bound is stored as -0 (min) and +0 (max), whichever zeros the batch holds.
    if (mn && *mn == 0) mn = -T(0);
    if (mx && *mx == 0) mx = T(0);
  }
  auto bytes = [](const std::optional<T>& x) -> std::optional<std::string> {
    if (!x) return std::nullopt;
    return std::string(reinterpret_cast<const char*>(&*x), sizeof(T));
  };
  *lo = bytes(mn);
  *hi = bytes(mx);
}

// Appends batch statistics of `a` (REQUIRES: V1HasStatistics(*a.type)) to `st`.
void CollectStatistics(const Array& a, FieldStatistics* st) {
  st->null_counts.push_back(a.null_count);
  std::optional<std::string> lo, hi;
  switch (a.type_id()) {
    case TypeId::kInt8: MinMaxOf<int8_t>(a, &lo, &hi); break;
    case TypeId::kInt16: MinMaxOf<int16_t>(a, &lo, &hi); break;
    case TypeId::kInt32: case TypeId::kDate32: MinMaxOf<int32_t>(a, &lo, &hi); break;
    case TypeId::kInt64: case TypeId::kDate64: MinMaxOf<int64_t>(a, &lo, &hi); break;
    case TypeId::kUInt8: MinMaxOf<uint8_t>(a, &lo, &hi); break;
    case TypeId::kUInt16: MinMaxOf<uint16_t>(a, &lo, &hi); break;
    case TypeId::kUInt32: MinMaxOf<uint32_t>(a, &lo, &hi); break;
    case TypeId::kUInt64: MinMaxOf<uint64_t>(a, &lo, &hi); break;
    case TypeId::kFloat: MinMaxOf<float>(a, &lo, &hi); break;
    case TypeId::kDouble: MinMaxOf<double>(a, &lo, &hi); break;
    case TypeId::kDecimal128: MinMaxOf<Int128>(a, &lo, &hi); break;
    case TypeId::kBool: {
      bool any_false = false, any_true = false;
      for (int64_t i = 0; i < a.length; ++i) {
        if (!a.IsValid(i)) continue;
        (a.BoolValue(i) ? any_true : any_false) = true;
      }
      if (any_false || any_true) {
        lo = std::string(1, any_false ? '\0' : '\1');
        hi = std::string(1, any_true ? '\1' : '\0');
      }
      break;
    }
    default: {  // utf8 / binary: bytewise order
      std::optional<std::string_view> mn, mx;
      for (int64_t i = 0; i < a.length; ++i) {
        if (!a.IsValid(i)) continue;
        const std::string_view x = a.GetView(i);
        if (!mn || x < *mn) mn = x;
        if (!mx || *mx < x) mx = x;
      }
      if (mn) lo = std::string(*mn);
      if (mx) hi = std::string(*mx);
    }
  }
  st->mins.push_back(std::move(lo));
  st->maxs.push_back(std::move(hi));
}

}  // namespace

// The values of rows [0, a.length) of a fixed-width array (bool: bits from bit 0; a
// fixed-size list: its flattened items), validity ignored. REQUIRES: V1FixedWidth(*a.type).
void AppendFixedValues(const Array& a, std::string* out) {
  if (a.type_id() == TypeId::kFixedSizeList) {
    const int64_t size = a.type->list_size();
    AppendFixedValues(*a.children[0]->Slice(a.offset * size, a.length * size), out);
    return;
  }
  const int bits = a.type->bit_width();
  if (bits == 1) {
    const size_t at = out->size();
    out->resize(at + static_cast<size_t>((a.length + 7) / 8), '\0');
    if (a.length > 0) {
      bit_util::CopyBitmap(a.buffers[1]->data(), a.offset, a.length,
                           reinterpret_cast<uint8_t*>(out->data() + at), 0);
    }
    return;
  }
  const int64_t w = bits / 8;
  out->append(reinterpret_cast<const char*>(a.buffers[1]->data() + a.offset * w),
              static_cast<size_t>(a.length * w));
}

namespace {

::lance::file::Field ToProto(const LanceField& lf) {
  ::lance::file::Field f;
  f.set_name(lf.name);
  f.set_id(lf.id);
  f.set_parent_id(lf.parent_id);
  f.set_logical_type(lf.logical_type);
  f.set_nullable(lf.nullable);
  for (const auto& [k, v] : lf.metadata) (*f.mutable_metadata())[k] = v;
  return f;
}

class V1Writer final : public OlderFileWriter {
 public:
  V1Writer() : OlderFileWriter("legacy lance file") {}

  Status Init(std::shared_ptr<io::ObjectStore> store, std::string path, const SchemaPtr& schema) {
    LANCE_RETURN_NOT_OK(Begin(std::move(store), std::move(path), schema));
    min_id_ = max_id_ = fields_.empty() ? 0 : fields_[0].id;
    for (const auto& f : fields_) {
      min_id_ = std::min(min_id_, f.id);
      max_id_ = std::max(max_id_, f.id);
    }
    if (fields_.empty() || min_id_ < 0) {
      return Status::InvalidArgument("legacy lance file '{}': no fields or negative field ids", path_);
    }
    protos_.resize(fields_.size());
    dictionaries_.resize(fields_.size());
    stats_.resize(fields_.size());
    size_t k = 0;
    for (const auto& f : schema_->fields()) LANCE_RETURN_NOT_OK(Check(*f->type(), f->name(), /*under_list=*/false, &k));
    return OpenOutput();
  }

  Status Write(const RecordBatch& batch) override {
    LANCE_RETURN_NOT_OK(CheckBatch(batch));
    for (int64_t start = 0; start < batch.num_rows(); start += kV1BatchRows) {
      const int64_t n = std::min(kV1BatchRows, batch.num_rows() - start);
      pages_.emplace_back(static_cast<size_t>(max_id_ - min_id_ + 1), std::make_pair(int64_t{0}, int64_t{0}));
      size_t k = 0;
      for (int i = 0; i < batch.num_columns(); ++i) {
        LANCE_RETURN_NOT_OK(WriteField(*batch.column(i)->Slice(start, n), &k));
      }
      num_rows_ += n;
      batch_offsets_.push_back(static_cast<int32_t>(num_rows_));
    }
    return Status::OK();
  }

  Result<WriteSummary> Finish() override {
    LANCE_RETURN_NOT_OK(CheckNotFinished());
    // Dictionary values (shared by every batch), then the page table.
    for (size_t k = 0; k < fields_.size(); ++k) {
      if (!dictionaries_[k]) continue;
      const Array& d = *dictionaries_[k];
      int64_t at = 0;
      if (d.type->is_binary_like()) {
        LANCE_ASSIGN_OR_RAISE(at, WriteBinary(d));
      } else {
        std::string bytes;
        AppendFixedValues(d, &bytes);
        at = pos_;
        LANCE_RETURN_NOT_OK(Put(bytes));
      }
      protos_[k].mutable_dictionary()->set_offset(at);
      protos_[k].mutable_dictionary()->set_length(d.length);
    }
    const int64_t page_table = pos_;
    std::string table;
    const size_t ids = static_cast<size_t>(max_id_ - min_id_ + 1);
    for (size_t id = 0; id < ids; ++id) {
      for (const auto& batch : pages_) {
        table.append(reinterpret_cast<const char*>(&batch[id].first), 8);
        table.append(reinterpret_cast<const char*>(&batch[id].second), 8);
      }
    }
    LANCE_RETURN_NOT_OK(Put(table));
    LANCE_ASSIGN_OR_RAISE(std::optional<::lance::file::Metadata::StatisticsMetadata> statistics, WriteStatistics());
    ::lance::file::V1EmbeddedSchema embedded;
    for (size_t k = 0; k < fields_.size(); ++k) {
      ::lance::file::Field f = ToProto(fields_[k]);
      f.set_encoding(protos_[k].encoding());
      if (protos_[k].has_dictionary()) *f.mutable_dictionary() = protos_[k].dictionary();
      *embedded.add_fields() = std::move(f);
    }
    if (schema_->metadata()) {
      for (const auto& [k, v] : schema_->metadata()->pairs()) (*embedded.mutable_schema_metadata())[k] = v;
    }
    const int64_t schema_pos = pos_;
    LANCE_RETURN_NOT_OK(PutMessage(::lance::proto::SerializeDeterministic(embedded)));
    ::lance::file::Metadata meta;
    meta.set_manifest_position(static_cast<uint64_t>(schema_pos));
    meta.add_batch_offsets(0);
    for (int32_t o : batch_offsets_) meta.add_batch_offsets(o);
    meta.set_page_table_position(static_cast<uint64_t>(page_table));
    if (statistics) *meta.mutable_statistics() = std::move(*statistics);
    const int64_t meta_pos = pos_;
    LANCE_RETURN_NOT_OK(PutMessage(::lance::proto::SerializeDeterministic(meta)));
    std::string footer;
    const uint64_t mp = static_cast<uint64_t>(meta_pos);
    const uint16_t version[2] = {0, 2};
    footer.append(reinterpret_cast<const char*>(&mp), 8);
    footer.append(reinterpret_cast<const char*>(version), 4);
    footer.append(kMagic, 4);
    return Close(footer, FileVersion{0, 2}, static_cast<int>(fields_.size()));
  }

 private:
  // Encodings per field (pre-order, `*k` advanced) and the types v1 cannot hold.
  Status Check(const DataType& t, const std::string& name, bool under_list, size_t* k) {
    const size_t me = (*k)++;
    auto& p = protos_[me];
    if (!under_list && V1HasStatistics(t)) {
      stats_[me].emplace();
      stats_[me]->width = t.id() == TypeId::kBool || t.is_binary_like() ? 0 : static_cast<size_t>(t.bit_width() / 8);
    }
    switch (t.id()) {
      case TypeId::kStruct:
        for (const auto& c : t.fields()) LANCE_RETURN_NOT_OK(Check(*c->type(), c->name(), under_list, k));
        return Status::OK();
      case TypeId::kList:
      case TypeId::kLargeList:
        p.set_encoding(::lance::file::PLAIN);
        return Check(*t.value_type(), t.value_field()->name(), /*under_list=*/true, k);
      case TypeId::kNull:
        return Status::OK();
      case TypeId::kDictionary:
        if (!t.dictionary_value_type()->is_binary_like() && !V1FixedWidth(*t.dictionary_value_type())) {
          return Status::NotSupported("legacy lance file: field '{}' is a dictionary of {}", name,
                                      t.dictionary_value_type()->ToString());
        }
        p.set_encoding(::lance::file::DICTIONARY);
        return Status::OK();
      default:
        if (t.is_binary_like()) {
          p.set_encoding(::lance::file::VAR_BINARY);
          return Status::OK();
        }
        if (V1FixedWidth(t)) {
          p.set_encoding(::lance::file::PLAIN);
          return Status::OK();
        }
        return Status::NotSupported("legacy lance file: field '{}' of type {} cannot be written in a "
                                    "v1 file",
                                    name, t.ToString());
    }
  }

  // The statistics section (after the page table): for the j-th field with statistics (in
  // pre-order), a struct field named by its field id with id 4j and its children null_count
  // (int64), min_value and max_value (the field's type) with ids 4j + 1 ... 4j + 3; one row per
  // batch in plain / var_binary pages, then their page table (one batch, ids 0 ... 4n - 1).
  // None when no field has statistics.
  Result<std::optional<::lance::file::Metadata::StatisticsMetadata>> WriteStatistics() {
    ::lance::file::Metadata::StatisticsMetadata out;
    std::vector<std::pair<int64_t, int64_t>> pages;
    const int64_t batches = static_cast<int64_t>(batch_offsets_.size());
    auto add_field = [&](const std::string& name, int32_t parent, const std::string& logical_type, bool nullable,
                         ::lance::file::Encoding encoding) {
      ::lance::file::Field f;
      f.set_name(name);
      f.set_id(static_cast<int32_t>(out.schema_size()));
      f.set_parent_id(parent);
      f.set_logical_type(logical_type);
      f.set_nullable(nullable);
      f.set_encoding(encoding);
      out.add_fields(f.id());
      *out.add_schema() = std::move(f);
    };
    for (size_t k = 0; k < fields_.size(); ++k) {
      if (!stats_[k]) continue;
      const FieldStatistics& st = *stats_[k];
      const int32_t parent = static_cast<int32_t>(out.schema_size());
      add_field(std::to_string(fields_[k].id), -1, "struct", false, ::lance::file::NONE);
      pages.emplace_back(0, 0);
      add_field("null_count", parent, "int64", false, ::lance::file::PLAIN);
      pages.emplace_back(pos_, batches);
      LANCE_RETURN_NOT_OK(Put(std::string_view(reinterpret_cast<const char*>(st.null_counts.data()),
                                               st.null_counts.size() * 8)));
      const bool binary = protos_[k].encoding() == ::lance::file::VAR_BINARY;
      for (const auto* values : {&st.mins, &st.maxs}) {
        add_field(values == &st.mins ? "min_value" : "max_value", parent, fields_[k].logical_type, true,
                  binary ? ::lance::file::VAR_BINARY : ::lance::file::PLAIN);
        if (binary) {
          LANCE_ASSIGN_OR_RAISE(int64_t at, WriteBinaryValues(batches, [&](int64_t b) {
            const auto& v = (*values)[static_cast<size_t>(b)];
            return v ? std::optional<std::string_view>(*v) : std::nullopt;
          }));
          pages.emplace_back(at, batches);
        } else if (fields_[k].logical_type == "bool") {
          std::string bits(static_cast<size_t>((batches + 7) / 8), '\0');
          for (int64_t b = 0; b < batches; ++b) {
            const auto& v = (*values)[static_cast<size_t>(b)];
            if (v && (*v)[0] == '\1') bits[static_cast<size_t>(b / 8)] |= static_cast<char>(1 << (b % 8));
          }
          pages.emplace_back(pos_, batches);
          LANCE_RETURN_NOT_OK(Put(bits));
        } else {
          std::string bytes;  // a batch without values stores zeros (v1 stores no nulls here)
          for (const auto& v : *values) bytes += v ? *v : std::string(st.width, '\0');
          pages.emplace_back(pos_, batches);
          LANCE_RETURN_NOT_OK(Put(bytes));
        }
      }
    }
    if (out.schema_size() == 0) return std::optional<::lance::file::Metadata::StatisticsMetadata>();
    out.set_page_table_position(static_cast<uint64_t>(pos_));
    std::string table;
    for (const auto& [at, len] : pages) {
      table.append(reinterpret_cast<const char*>(&at), 8);
      table.append(reinterpret_cast<const char*>(&len), 8);
    }
    LANCE_RETURN_NOT_OK(Put(table));
    return std::optional<::lance::file::Metadata::StatisticsMetadata>(std::move(out));
  }

  Status PutMessage(const std::string& msg) {
    const uint32_t len = static_cast<uint32_t>(msg.size());
    LANCE_RETURN_NOT_OK(Put(std::string_view(reinterpret_cast<const char*>(&len), 4)));
    return Put(msg);
  }

  void SetPage(size_t k, int64_t pos, int64_t len) {
    pages_.back()[static_cast<size_t>(fields_[k].id - min_id_)] = {pos, len};
  }

  // The bytes of every value, then length + 1 absolute positions; returns where they start.
  Result<int64_t> WriteBinary(const Array& a) {
    return WriteBinaryValues(a.length, [&](int64_t i) {
      return a.IsValid(i) ? std::optional<std::string_view>(a.GetView(i)) : std::nullopt;
    });
  }

  // The same for `n` values given by `value(i)` (nullopt: null, stored empty).
  template <typename ValueFn>
  Result<int64_t> WriteBinaryValues(int64_t n, ValueFn&& value) {
    std::string data;
    std::vector<int64_t> positions{pos_};
    for (int64_t i = 0; i < n; ++i) {
      if (auto v = value(i)) data.append(v->data(), v->size());
      positions.push_back(pos_ + static_cast<int64_t>(data.size()));
    }
    LANCE_RETURN_NOT_OK(Put(data));
    const int64_t at = pos_;
    LANCE_RETURN_NOT_OK(Put(std::string_view(reinterpret_cast<const char*>(positions.data()),
                                             positions.size() * 8)));
    return at;
  }

  Status WriteField(const Array& a, size_t* k) {
    const size_t me = (*k)++;
    const DataType& t = *a.type;
    if (stats_[me]) CollectStatistics(a, &*stats_[me]);
    switch (t.id()) {
      case TypeId::kStruct:
        SetPage(me, 0, 0);
        for (const auto& c : a.children) LANCE_RETURN_NOT_OK(WriteField(*c->Slice(a.offset, a.length), k));
        return Status::OK();
      case TypeId::kNull:
        SetPage(me, pos_, a.length);
        return Status::OK();
      case TypeId::kList:
      case TypeId::kLargeList: {
        const int64_t first = a.length > 0 ? a.ValueOffset(0) : 0;
        std::string offsets;
        for (int64_t i = 0; i <= a.length; ++i) {
          const int64_t o = a.ValueOffset(i) - first;
          if (t.id() == TypeId::kLargeList) {
            offsets.append(reinterpret_cast<const char*>(&o), 8);
          } else {
            const auto o32 = static_cast<int32_t>(o);
            offsets.append(reinterpret_cast<const char*>(&o32), 4);
          }
        }
        SetPage(me, pos_, a.length + 1);
        LANCE_RETURN_NOT_OK(Put(offsets));
        const int64_t end = a.length > 0 ? a.ValueOffset(a.length) : first;
        return WriteField(*a.children[0]->Slice(first, end - first), k);
      }
      case TypeId::kDictionary: {
        if (!dictionaries_[me]) {
          dictionaries_[me] = a.dictionary;
        } else if (!dictionaries_[me]->Equals(*a.dictionary)) {
          return Status::NotSupported("legacy lance file '{}': field '{}' has batches with different "
                                      "dictionaries (a v1 file holds one)",
                                      path_, fields_[me].name);
        }
        auto keys = std::make_shared<Array>(a);
        keys->type = t.index_type();
        keys->dictionary = nullptr;
        std::string bytes;
        AppendFixedValues(*keys, &bytes);
        SetPage(me, pos_, a.length);
        return Put(bytes);
      }
      default:
        if (t.is_binary_like()) {
          LANCE_ASSIGN_OR_RAISE(int64_t at, WriteBinary(a));
          SetPage(me, at, a.length);
          return Status::OK();
        }
        std::string bytes;
        AppendFixedValues(a, &bytes);
        SetPage(me, pos_, a.length);
        return Put(bytes);
    }
  }

  std::vector<::lance::file::Field> protos_;  // encoding / dictionary per field
  std::vector<ArrayPtr> dictionaries_;
  std::vector<std::optional<FieldStatistics>> stats_;  // per field, when it has statistics
  int32_t min_id_ = 0, max_id_ = 0;
  std::vector<int32_t> batch_offsets_;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> pages_;  // per batch, per id
};

}  // namespace

Result<std::unique_ptr<OlderFileWriter>> OpenV1Writer(std::shared_ptr<io::ObjectStore> store,
                                                      std::string path, SchemaPtr schema,
                                                      const WriteOptions& /*options*/) {
  auto w = std::make_unique<V1Writer>();
  LANCE_RETURN_NOT_OK(w->Init(std::move(store), std::move(path), schema));
  return std::unique_ptr<OlderFileWriter>(std::move(w));
}

}  // namespace lance::file::internal
