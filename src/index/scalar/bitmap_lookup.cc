#include "index/scalar/bitmap_lookup.h"

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/index/scalar/value.h"

namespace lance::index::scalar {

Result<std::unique_ptr<BitmapLookup>> BitmapLookup::Open(std::shared_ptr<IndexStore> store,
                                                         const std::string& file) {
  LANCE_ASSIGN_OR_RAISE(auto reader, store->OpenFile(file));
  const auto& schema = reader->schema();
  if (schema->num_fields() < 2 || !IsIndexableKeyType(*schema->field(0)->type()) ||
      !schema->field(1)->type()->is_binary_like()) {
    return Status::Corruption("{}: schema {} (expected keys: <key type>, bitmaps: binary)",
                              store->DisplayPathOf(file), schema->ToString());
  }
  auto out = std::unique_ptr<BitmapLookup>(new BitmapLookup());
  out->store_ = store;
  out->file_ = file;
  out->type_ = schema->field(0)->type();
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr keys, reader->ReadAll({0}));
  const Array& k = *keys->column(0);
  int64_t null_row = -1;
  for (int64_t i = 0; i < k.length; ++i) {
    if (k.IsNull(i)) {
      null_row = i;
    } else {
      out->keys_[ValueAt(k, i)] = i;
    }
  }
  if (null_row >= 0) {
    LANCE_ASSIGN_OR_RAISE(auto rows, out->Load(null_row));
    out->null_rows_ = *rows;
  }
  return out;
}

Result<std::shared_ptr<const RowSet>> BitmapLookup::Load(int64_t row) const {
  return store_->GetPage<RowSet>(
      fmt::format("bitmap/{}/{}", file_, row),
      [&]() -> Result<std::pair<std::shared_ptr<const RowSet>, int64_t>> {
        LANCE_ASSIGN_OR_RAISE(auto reader, store_->OpenFile(file_));
        LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->ReadRange(row, 1, {1}));
        const Array& a = *b->column(0);
        if (a.length != 1 || !a.type->is_binary_like()) {
          return Status::Corruption("{}: row {} of bitmaps did not read as one binary value",
                                    store_->DisplayPathOf(file_), row);
        }
        auto set = std::make_shared<RowSet>();
        if (a.IsValid(0)) {
          LANCE_ASSIGN_OR_RAISE(*set, RowSet::Deserialize(a.GetView(0),
                                                          fmt::format("{} row {}", store_->DisplayPathOf(file_), row)));
        }
        const int64_t bytes = set->MemoryBytes();
        return std::pair<std::shared_ptr<const RowSet>, int64_t>(std::move(set), bytes);
      });
}

Result<RowSet> BitmapLookup::RowsOf(const ScalarValue& key) const {
  if (key.is_null()) return null_rows_;
  auto it = keys_.find(key);
  if (it == keys_.end()) return RowSet();
  LANCE_ASSIGN_OR_RAISE(auto rows, Load(it->second));
  return *rows;
}

template <typename Fn>
Status BitmapLookup::ForEachInRange(const std::optional<RangeBound>& lo,
                                    const std::optional<RangeBound>& hi, Fn&& fn) const {
  if ((lo && lo->value.is_null()) || (hi && hi->value.is_null())) return Status::OK();
  auto it = lo ? (lo->inclusive ? keys_.lower_bound(lo->value) : keys_.upper_bound(lo->value))
               : keys_.begin();
  for (; it != keys_.end(); ++it) {
    if (hi) {
      const int c = Compare(it->first, hi->value);
      if (c > 0 || (c == 0 && !hi->inclusive)) break;
    }
    LANCE_ASSIGN_OR_RAISE(auto rows, Load(it->second));
    fn(*rows);
  }
  return Status::OK();
}

template <typename Fn>
Status BitmapLookup::ForEachWithPrefix(const std::string& prefix, Fn&& fn) const {
  for (auto it = keys_.lower_bound(ScalarValue::Bytes(prefix)); it != keys_.end(); ++it) {
    if (it->first.kind() != ScalarValue::Kind::kBytes || !it->first.bytes().starts_with(prefix)) break;
    LANCE_ASSIGN_OR_RAISE(auto rows, Load(it->second));
    fn(*rows);
  }
  return Status::OK();
}

Result<RowSet> BitmapLookup::RowsInRange(const std::optional<RangeBound>& lo,
                                         const std::optional<RangeBound>& hi) const {
  RowSet out;
  LANCE_RETURN_NOT_OK(ForEachInRange(lo, hi, [&](const RowSet& rows) { out |= rows; }));
  return out;
}

Result<RowSet> BitmapLookup::RowsWithPrefix(const std::string& prefix) const {
  RowSet out;
  LANCE_RETURN_NOT_OK(ForEachWithPrefix(prefix, [&](const RowSet& rows) { out |= rows; }));
  return out;
}

Result<uint64_t> BitmapLookup::CountOf(const ScalarValue& key) const {
  if (key.is_null()) return null_rows_.Cardinality();
  auto it = keys_.find(key);
  if (it == keys_.end()) return uint64_t{0};
  LANCE_ASSIGN_OR_RAISE(auto rows, Load(it->second));
  return rows->Cardinality();
}

Result<uint64_t> BitmapLookup::CountInRange(const std::optional<RangeBound>& lo,
                                            const std::optional<RangeBound>& hi) const {
  uint64_t n = 0;
  LANCE_RETURN_NOT_OK(ForEachInRange(lo, hi, [&](const RowSet& rows) { n += rows.Cardinality(); }));
  return n;
}

Result<uint64_t> BitmapLookup::CountWithPrefix(const std::string& prefix) const {
  uint64_t n = 0;
  LANCE_RETURN_NOT_OK(ForEachWithPrefix(prefix, [&](const RowSet& rows) { n += rows.Cardinality(); }));
  return n;
}

Result<int64_t> WriteBitmapLookup(IndexStore& store, const std::string& file,
                                  const DataTypePtr& type,
                                  const std::map<ScalarValue, RowSet, ScalarValueLess>& groups,
                                  const std::vector<std::pair<std::string, std::string>>& extra,
                                  const std::string* global_buffer) {
  std::vector<std::pair<std::string, std::string>> meta = {
      {"lance:index_stats", fmt::format("{{\"num_bitmaps\":{}}}", groups.size())}};
  meta.insert(meta.end(), extra.begin(), extra.end());
  auto s = schema({field("keys", type, true), field("bitmaps", binary(), true)},
                  std::make_shared<KeyValueMetadata>(std::move(meta)));
  std::vector<ScalarValue> keys;
  BinaryBuilder bitmaps(binary());
  for (const auto& [k, rows] : groups) {
    keys.push_back(k);
    LANCE_RETURN_NOT_OK(bitmaps.Append(rows.Serialize()));
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr key_arr, MakeKeyArray(type, keys));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr bm_arr, bitmaps.Finish());
  LANCE_ASSIGN_OR_RAISE(auto writer, store.CreateFile(file, s));
  if (global_buffer) LANCE_RETURN_NOT_OK(writer->AddGlobalBuffer(*global_buffer).status());
  LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(s, key_arr->length, {key_arr, bm_arr}));
  LANCE_RETURN_NOT_OK(writer->Write(*batch));
  LANCE_ASSIGN_OR_RAISE(auto summary, writer->Finish());
  return summary.size_bytes;
}

}  // namespace lance::index::scalar
