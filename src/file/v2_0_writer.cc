// 2.0 data files (footer 0.3) in the plain 2.0 encodings (older_writers.h); read back by
// src/encoding/legacy.cc.
#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "encoding/proto/encodings_v2_0.pb.h"
#include "file/older_writers.h"
#include "file/proto/deterministic.h"
#include "file/proto/file_schema.pb.h"
#include "file/proto/file_v2.pb.h"
#include "lance/core/bit_util.h"
#include "lance/file/lance_schema.h"

namespace lance::file::internal {

namespace {

namespace pb20 = ::lance::encodings;
using AE = pb20::ArrayEncoding;

constexpr int64_t kAlignment = 64;

bool FlatType(const DataType& t) {
  return t.is_fixed_width() && t.id() != TypeId::kDictionary && t.bit_width() > 0 &&
         (t.bit_width() == 1 || t.bit_width() % 8 == 0);
}

// One page being built: its encoding and buffers (buffer index = position).
struct PageBuild {
  AE encoding;
  std::vector<std::string> buffers;

  void Flat(AE* e, uint64_t bits, std::string bytes) {
    auto* f = e->mutable_flat();
    f->set_bits_per_value(bits);
    f->mutable_buffer()->set_buffer_index(static_cast<uint32_t>(buffers.size()));
    f->mutable_buffer()->set_buffer_type(pb20::Buffer::page);
    buffers.push_back(std::move(bytes));
  }

  // nullable{...} around the values of `a` (a flat type or a fixed-size list of them).
  void Nullable(AE* e, const Array& a) {
    auto* n = e->mutable_nullable();
    if (a.type_id() == TypeId::kNull || (a.length > 0 && a.null_count == a.length)) {
      n->mutable_all_nulls();
      return;
    }
    AE* values;
    if (a.null_count == 0) {
      values = n->mutable_no_nulls()->mutable_values();
    } else {
      auto* some = n->mutable_some_nulls();
      std::string bits(static_cast<size_t>((a.length + 7) / 8), '\0');
      bit_util::CopyBitmap(a.validity(), a.offset, a.length, reinterpret_cast<uint8_t*>(bits.data()), 0);
      Flat(some->mutable_validity(), 1, std::move(bits));
      values = some->mutable_values();
    }
    Values(values, a);
  }

  void Values(AE* e, const Array& a) {
    if (a.type_id() == TypeId::kFixedSizeList) {
      const int64_t size = a.type->list_size();
      auto* fsl = e->mutable_fixed_size_list();
      fsl->set_dimension(static_cast<uint32_t>(size));
      Nullable(fsl->mutable_items(), *a.children[0]->Slice(a.offset * size, a.length * size));
      return;
    }
    std::string bytes;
    AppendFixedValues(a, &bytes);
    Flat(e, static_cast<uint64_t>(a.type->bit_width()), std::move(bytes));
  }

  void Binary(AE* e, const Array& a) {
    auto* b = e->mutable_binary();
    std::string data;
    std::vector<uint64_t> ends;
    for (int64_t i = 0; i < a.length; ++i) {
      if (a.IsValid(i)) {
        const std::string_view v = a.GetView(i);
        data.append(v.data(), v.size());
      }
      ends.push_back(data.size());
    }
    // lance 12 sets the adjustment (bytes + 1) on every page, with or without nulls.
    const uint64_t adjust = data.size() + 1;
    for (int64_t i = 0; i < a.length; ++i) {
      if (a.IsNull(i)) ends[static_cast<size_t>(i)] += adjust;
    }
    std::string indices(reinterpret_cast<const char*>(ends.data()), ends.size() * 8);
    Flat(b->mutable_indices()->mutable_nullable()->mutable_no_nulls()->mutable_values(), 64,
         std::move(indices));
    Flat(b->mutable_bytes(), 8, std::move(data));
    b->set_null_adjustment(adjust);
  }

  // A leaf of a flat / fixed-size list / binary / dictionary / null type.
  Status Leaf(AE* e, const Array& a) {
    if (a.type->is_binary_like()) {
      Binary(e, a);
      return Status::OK();
    }
    if (a.type_id() == TypeId::kDictionary) {
      // As lance 12: a null row points at a null item appended to the dictionary, the
      // indices have no validity.
      auto* d = e->mutable_dictionary();
      auto keys = std::make_shared<Array>(a);
      keys->type = a.type->index_type();
      keys->dictionary = nullptr;
      ArrayPtr items = a.dictionary;
      if (a.null_count > 0) {
        const int kw = keys->type->bit_width() / 8;
        std::string k(reinterpret_cast<const char*>(keys->buffers[1]->data()) + a.offset * kw,
                      static_cast<size_t>(a.length * kw));
        const int64_t null_item = items->length;
        for (int64_t i = 0; i < a.length; ++i) {
          if (a.IsNull(i)) std::memcpy(k.data() + i * kw, &null_item, static_cast<size_t>(kw));
        }
        keys = std::make_shared<Array>(*Array::Make(keys->type, a.length, {nullptr, BufferFromString(std::move(k))}));
        LANCE_ASSIGN_OR_RAISE(ArrayPtr null_item_array, MakeArrayOfNulls(items->type, 1));
        LANCE_ASSIGN_OR_RAISE(items, Concatenate({items, null_item_array}));
      }
      Nullable(d->mutable_indices(), *keys);
      LANCE_RETURN_NOT_OK(Leaf(d->mutable_items(), *items));
      d->set_num_dictionary_items(static_cast<uint32_t>(items->length));
      return Status::OK();
    }
    Nullable(e, a);
    return Status::OK();
  }
};

class V20Writer final : public OlderFileWriter {
 public:
  V20Writer() : OlderFileWriter("lance 2.0 file") {}

  Status Init(std::shared_ptr<io::ObjectStore> store, std::string path, const SchemaPtr& schema) {
    LANCE_RETURN_NOT_OK(Begin(std::move(store), std::move(path), schema));
    columns_.resize(fields_.size());
    size_t k = 0;
    for (const auto& f : schema_->fields()) LANCE_RETURN_NOT_OK(Check(*f->type(), f->name(), &k));
    return OpenOutput();
  }

  Status Write(const RecordBatch& batch) override {
    LANCE_RETURN_NOT_OK(CheckBatch(batch));
    if (batch.num_rows() == 0) return Status::OK();
    size_t k = 0;
    for (int i = 0; i < batch.num_columns(); ++i) LANCE_RETURN_NOT_OK(WriteField(*batch.column(i), &k));
    num_rows_ += batch.num_rows();
    return Status::OK();
  }

  Result<WriteSummary> Finish() override {
    LANCE_RETURN_NOT_OK(CheckNotFinished());
    const std::string fd_bytes = EncodeFileDescriptor(fields_, *schema_, num_rows_);
    LANCE_RETURN_NOT_OK(Align());
    const int64_t fd_pos = pos_;
    LANCE_RETURN_NOT_OK(Put(fd_bytes));

    pb20::ColumnEncoding column_encoding;
    column_encoding.mutable_values();
    google::protobuf::Any any;
    any.set_type_url("/lance.encodings.ColumnEncoding");
    any.set_value(::lance::proto::SerializeDeterministic(column_encoding));
    const std::string column_encoding_any = ::lance::proto::SerializeDeterministic(any);
    LANCE_RETURN_NOT_OK(Align());
    const int64_t column_meta_start = pos_;
    std::string tables;
    for (auto& c : columns_) {
      c.mutable_encoding()->mutable_direct()->set_encoding(column_encoding_any);
      const std::string bytes = ::lance::proto::SerializeDeterministic(c);
      const uint64_t p = static_cast<uint64_t>(pos_), n = bytes.size();
      tables.append(reinterpret_cast<const char*>(&p), 8);
      tables.append(reinterpret_cast<const char*>(&n), 8);
      LANCE_RETURN_NOT_OK(Put(bytes));
    }
    const int64_t cmo_start = pos_;
    const int64_t gbo_start = cmo_start + static_cast<int64_t>(tables.size());
    const uint64_t gb[2] = {static_cast<uint64_t>(fd_pos), fd_bytes.size()};
    tables.append(reinterpret_cast<const char*>(gb), 16);
    const uint64_t footer64[3] = {static_cast<uint64_t>(column_meta_start),
                                  static_cast<uint64_t>(cmo_start), static_cast<uint64_t>(gbo_start)};
    tables.append(reinterpret_cast<const char*>(footer64), 24);
    const uint32_t counts[2] = {1, static_cast<uint32_t>(columns_.size())};
    tables.append(reinterpret_cast<const char*>(counts), 8);
    const uint16_t version[2] = {0, 3};
    tables.append(reinterpret_cast<const char*>(version), 4);
    tables.append(kMagic, 4);
    return Close(tables, FileVersion{0, 3}, static_cast<int>(columns_.size()));
  }

 private:
  Status Check(const DataType& t, const std::string& name, size_t* k) {
    ++*k;
    switch (t.id()) {
      case TypeId::kStruct:
        for (const auto& c : t.fields()) LANCE_RETURN_NOT_OK(Check(*c->type(), c->name(), k));
        return Status::OK();
      case TypeId::kList:
      case TypeId::kLargeList:
        return Check(*t.value_type(), t.value_field()->name(), k);
      case TypeId::kNull:
        return Status::OK();
      case TypeId::kFixedSizeList: {
        const DataTypePtr* item = &t.value_type();
        while ((*item)->id() == TypeId::kFixedSizeList) item = &(*item)->value_type();
        if (FlatType(**item)) return Status::OK();
        break;
      }
      case TypeId::kDictionary:
        if (t.dictionary_value_type()->is_binary_like() || FlatType(*t.dictionary_value_type())) {
          return Status::OK();
        }
        break;
      default:
        if (t.is_binary_like() || FlatType(t)) return Status::OK();
        break;
    }
    return Status::NotSupported("lance 2.0 file: field '{}' of type {} cannot be written in a 2.0 "
                                "file",
                                name, t.ToString());
  }

  Status Align() {
    static const char kZeros[kAlignment] = {};
    const int64_t pad = bit_util::RoundUpToMultipleOf64(pos_) - pos_;
    return Put(std::string_view(kZeros, static_cast<size_t>(pad)));
  }

  Status AddPage(size_t column, int64_t rows, PageBuild page) {
    auto* pm = columns_[column].add_pages();
    for (const auto& b : page.buffers) {
      LANCE_RETURN_NOT_OK(Align());
      pm->add_buffer_offsets(static_cast<uint64_t>(pos_));
      pm->add_buffer_sizes(b.size());
      LANCE_RETURN_NOT_OK(Put(b));
    }
    if (rows > UINT32_MAX) return Status::NotSupported("lance 2.0 file: page of {} rows", rows);
    pm->set_length(static_cast<uint32_t>(rows));
    pm->set_priority(static_cast<uint64_t>(num_rows_));
    google::protobuf::Any any;
    any.set_type_url("/lance.encodings.ArrayEncoding");
    any.set_value(::lance::proto::SerializeDeterministic(page.encoding));
    pm->mutable_encoding()->mutable_direct()->set_encoding(::lance::proto::SerializeDeterministic(any));
    return Status::OK();
  }

  Status WriteField(const Array& a, size_t* k) {
    const size_t me = (*k)++;
    PageBuild page;
    switch (a.type_id()) {
      case TypeId::kStruct:
        page.encoding.mutable_struct_();
        LANCE_RETURN_NOT_OK(AddPage(me, a.length, std::move(page)));
        for (const auto& c : a.children) LANCE_RETURN_NOT_OK(WriteField(*c->Slice(a.offset, a.length), k));
        return Status::OK();
      case TypeId::kList:
      case TypeId::kLargeList: {
        const int64_t first = a.length > 0 ? a.ValueOffset(0) : 0;
        const int64_t items = a.length > 0 ? a.ValueOffset(a.length) - first : 0;
        // lance 12 divides by the adjustment (items + 1): set on every page.
        const uint64_t adjust = static_cast<uint64_t>(items) + 1;
        std::vector<uint64_t> ends;
        for (int64_t i = 0; i < a.length; ++i) {
          ends.push_back(static_cast<uint64_t>(a.ValueOffset(i + 1) - first) + (a.IsNull(i) ? adjust : 0));
        }
        auto* list = page.encoding.mutable_list();
        page.Flat(list->mutable_offsets()->mutable_nullable()->mutable_no_nulls()->mutable_values(), 64,
                  std::string(reinterpret_cast<const char*>(ends.data()), ends.size() * 8));
        list->set_null_offset_adjustment(adjust);
        list->set_num_items(static_cast<uint64_t>(items));
        LANCE_RETURN_NOT_OK(AddPage(me, a.length, std::move(page)));
        return WriteField(*a.children[0]->Slice(first, items), k);
      }
      default:
        LANCE_RETURN_NOT_OK(page.Leaf(&page.encoding, a));
        return AddPage(me, a.length, std::move(page));
    }
  }

  std::vector<::lance::file::v2::ColumnMetadata> columns_;  // one per field, pre-order
};

}  // namespace

Result<std::unique_ptr<OlderFileWriter>> OpenV20Writer(std::shared_ptr<io::ObjectStore> store,
                                                       std::string path, SchemaPtr schema,
                                                       const WriteOptions& /*options*/) {
  auto w = std::make_unique<V20Writer>();
  LANCE_RETURN_NOT_OK(w->Init(std::move(store), std::move(path), schema));
  return std::unique_ptr<OlderFileWriter>(std::move(w));
}

}  // namespace lance::file::internal
