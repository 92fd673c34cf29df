#include "lance/index/scalar/label_list.h"

#include <algorithm>
#include <charconv>

#include "index/scalar/bitmap_lookup.h"
#include "index/scalar/key_sort.h"
#include "lance/index/scalar/bitmap.h"

namespace lance::index::scalar {

namespace {

constexpr const char* kListNullsKey = kLabelListNullsKey;

class LabelListIndex final : public ScalarIndex {
 public:
  LabelListIndex(std::shared_ptr<IndexStore> store, std::unique_ptr<BitmapLookup> lookup,
                 RowSet list_nulls)
      : ScalarIndex(std::move(store)), lookup_(std::move(lookup)), list_nulls_(std::move(list_nulls)) {}

  std::string_view type_name() const override { return "LABEL_LIST"; }
  const DataTypePtr& value_type() const override { return lookup_->value_type(); }

  bool CanAnswer(const IndexQuery& query) const override {
    const auto* q = std::get_if<LabelListQuery>(&query);
    return q != nullptr && !q->labels.empty();
  }

  Result<SearchResult> Search(const IndexQuery& query, const SearchOptions& options) const override {
    if (!CanAnswer(query)) {
      return Status::NotSupported("LABEL_LIST index answers array_has_any / array_has_all with at "
                                  "least one label");
    }
    const LabelListQuery& q = std::get<LabelListQuery>(query);
    SearchResult out;
    bool first = true;
    for (const ScalarValue& label : q.labels) {
      RowSet r;
      if (!label.is_null()) {
        LANCE_ASSIGN_OR_RAISE(r, lookup_->RowsOf(label));
      }
      if (first) {
        out.rows = std::move(r);
        first = false;
      } else if (q.op == LabelListQuery::Op::kHasAny) {
        out.rows |= r;
      } else {
        out.rows &= r;
      }
    }
    if (fill_null_rows) out.null_rows = list_nulls_;
    if (options.fragments) {
      out.rows.RetainFragments(*options.fragments);
      out.null_rows.RetainFragments(*options.fragments);
    }
    return out;
  }

 private:
  std::unique_ptr<BitmapLookup> lookup_;
  RowSet list_nulls_;
};

}  // namespace

Result<std::shared_ptr<ScalarIndex>> OpenLabelListIndex(std::shared_ptr<IndexStore> store) {
  LANCE_ASSIGN_OR_RAISE(auto lookup, BitmapLookup::Open(store, kBitmapFile));
  LANCE_ASSIGN_OR_RAISE(auto reader, store->OpenFile(kBitmapFile));
  RowSet nulls;
  const auto& meta = reader->schema()->metadata();
  if (meta) {
    if (auto idx = meta->Get(kListNullsKey)) {
      int buffer = 0;
      auto [p, ec] = std::from_chars(idx->data(), idx->data() + idx->size(), buffer);
      if (ec != std::errc() || p != idx->data() + idx->size() || buffer <= 0 ||
          buffer >= reader->num_global_buffers()) {
        return Status::Corruption("{}: {} = '{}' (expected a global buffer index below {})",
                                  store->PathOf(kBitmapFile), kListNullsKey, *idx,
                                  reader->num_global_buffers());
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, reader->ReadGlobalBuffer(buffer));
      LANCE_ASSIGN_OR_RAISE(nulls, RowSet::Deserialize(bytes->view(), store->PathOf(kBitmapFile) +
                                                                          " list nulls"));
    }
  }
  return std::make_shared<LabelListIndex>(std::move(store), std::move(lookup), std::move(nulls));
}

Result<TrainedIndex> TrainLabelListIndex(IndexStore& store, const TrainingData& data) {
  LANCE_ASSIGN_OR_RAISE(ArrayPtr lists, ConcatTrainingValues(data));
  const DataType& t = *lists->type;
  if ((t.id() != TypeId::kList && t.id() != TypeId::kLargeList) ||
      !IsIndexableKeyType(*t.value_type())) {
    return Status::InvalidArgument("a LABEL_LIST index needs a list of a key type, not {}",
                                   t.ToString());
  }
  const Array& items = *lists->children[0];
  // The row of every item of a non-null list, then the items grouped by value.
  const int64_t first = lists->length > 0 ? lists->ValueOffset(0) : 0;
  const int64_t last = lists->length > 0 ? lists->ValueOffset(lists->length) : 0;
  // kNoRow: an item of a null list (it counts for no label).
  constexpr uint64_t kNoRow = UINT64_MAX;
  std::vector<uint64_t> item_rows(static_cast<size_t>(last - first), kNoRow);
  std::vector<uint64_t> null_rows;
  auto spread = [&](const auto* offsets) {
    uint64_t* out = item_rows.data();
    for (int64_t i = 0; i < lists->length; ++i) {
      const uint64_t row = data.row_ids[static_cast<size_t>(i)];
      if (lists->IsNull(i)) {
        null_rows.push_back(row);
        continue;
      }
      for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) out[j - first] = row;
    }
  };
  if (t.has_large_offsets()) {
    spread(lists->buffers[1]->data_as<int64_t>() + lists->offset);
  } else {
    spread(lists->buffers[1]->data_as<int32_t>() + lists->offset);
  }
  RowSet list_nulls;
  list_nulls.InsertMany(null_rows.data(), null_rows.size());
  const ArrayPtr used = items.Slice(first, last - first);
  std::map<ScalarValue, RowSet, ScalarValueLess> groups;
  // One pass over the items (a pass per label would read every item's row once per label).
  const ValueGroups by_label = GroupValues(*used);
  const auto ids = GatherByGroup(by_label, item_rows.data(), kNoRow);
  for (size_t g = 0; g < ids.size(); ++g) {
    if (!ids[g].empty()) groups[ValueAt(*used, by_label.first[g])].InsertMany(ids[g].data(), ids[g].size());
  }
  const std::string nulls = list_nulls.Serialize();
  LANCE_ASSIGN_OR_RAISE(int64_t size, WriteBitmapLookup(store, kBitmapFile, t.value_type(), groups,
                                                        {{kListNullsKey, "1"}}, &nulls));
  TrainedIndex out;
  out.type_name = "LABEL_LIST";
  out.details_type_url = "/lance.table.LabelListIndexDetails";
  out.index_version = 1;
  out.files = {{kBitmapFile, static_cast<uint64_t>(size)}};
  return out;
}

}  // namespace lance::index::scalar
