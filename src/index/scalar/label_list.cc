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
                                  store->DisplayPathOf(kBitmapFile), kListNullsKey, *idx,
                                  reader->num_global_buffers());
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, reader->ReadGlobalBuffer(buffer));
      LANCE_ASSIGN_OR_RAISE(nulls, RowSet::Deserialize(bytes->view(), store->DisplayPathOf(kBitmapFile) +
                                                                          " list nulls"));
    }
  }
  return std::make_shared<LabelListIndex>(std::move(store), std::move(lookup), std::move(nulls));
}

Result<TrainedIndex> TrainLabelListIndex(IndexStore& store, const TrainingData& data) {
  LANCE_ASSIGN_OR_RAISE(DataTypePtr type, TrainingValueType(data));
  const DataType& t = *type;
  if ((t.id() != TypeId::kList && t.id() != TypeId::kLargeList) ||
      !IsIndexableKeyType(*t.value_type())) {
    return Status::InvalidArgument("a LABEL_LIST index needs a list of a key type, not {}",
                                   t.ToString());
  }
  // Chunk by chunk, straight from the scanned chunks (not a copy of them all): the row of every
  // item of a non-null list, the chunk's items grouped by value, and each group's rows appended
  // to its label's (chunks in order, so every label's rows stay in position order).
  // kNoRow: an item of a null list (it counts for no label).
  constexpr uint64_t kNoRow = UINT64_MAX;
  // Each label's rows, a piece per chunk (moved, not copied; joined once at the end).
  std::map<ScalarValue, std::vector<std::vector<uint64_t>>, ScalarValueLess> label_rows;
  std::vector<uint64_t> null_rows;
  std::vector<uint64_t> item_rows;
  size_t pos = 0;  // of the chunk's first list among all
  for (const ArrayPtr& chunk : data.values) {
    const Array& lists = *chunk;
    if (lists.length == 0) continue;
    const int64_t first = lists.ValueOffset(0);
    const int64_t last = lists.ValueOffset(lists.length);
    item_rows.assign(static_cast<size_t>(last - first), kNoRow);
    auto spread = [&](const auto* offsets) {
      uint64_t* out = item_rows.data();
      for (int64_t i = 0; i < lists.length; ++i) {
        const uint64_t row = data.row_ids[pos + static_cast<size_t>(i)];
        if (lists.IsNull(i)) {
          null_rows.push_back(row);
          continue;
        }
        for (int64_t j = offsets[i]; j < offsets[i + 1]; ++j) out[j - first] = row;
      }
    };
    if (t.has_large_offsets()) {
      spread(lists.buffers[1]->data_as<int64_t>() + lists.offset);
    } else {
      spread(lists.buffers[1]->data_as<int32_t>() + lists.offset);
    }
    pos += static_cast<size_t>(lists.length);
    const ArrayPtr used = lists.children[0]->Slice(first, last - first);
    // One pass over the items (a pass per label would read every item's row once per label).
    const ValueGroups by_label = GroupValues(*used);
    auto ids = GatherByGroup(by_label, item_rows.data(), kNoRow);
    for (size_t g = 0; g < ids.size(); ++g) {
      if (!ids[g].empty()) label_rows[ValueAt(*used, by_label.first[g])].push_back(std::move(ids[g]));
    }
  }
  RowSet list_nulls;
  list_nulls.InsertMany(null_rows.data(), null_rows.size());
  std::map<ScalarValue, RowSet, ScalarValueLess> groups;
  std::vector<uint64_t> rows;
  for (auto& [label, pieces] : label_rows) {
    size_t n = 0;
    for (const auto& piece : pieces) n += piece.size();
    rows.clear();
    rows.reserve(n);
    for (auto& piece : pieces) {
      rows.insert(rows.end(), piece.begin(), piece.end());
      piece = std::vector<uint64_t>();
    }
    groups[label].InsertMany(rows.data(), rows.size());
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
