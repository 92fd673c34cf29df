#include "lance/index/scalar/bitmap.h"

#include "index/scalar/bitmap_lookup.h"
#include "index/scalar/key_sort.h"

namespace lance::index::scalar {

namespace {

class BitmapIndex final : public ScalarIndex {
 public:
  BitmapIndex(std::shared_ptr<IndexStore> store, std::unique_ptr<BitmapLookup> lookup)
      : ScalarIndex(std::move(store)), lookup_(std::move(lookup)) {}

  std::string_view type_name() const override { return "BITMAP"; }
  const DataTypePtr& value_type() const override { return lookup_->value_type(); }

  bool CanAnswer(const IndexQuery& query) const override {
    const auto* q = std::get_if<ScalarQuery>(&query);
    if (q == nullptr) return false;
    return q->op != ScalarQuery::Op::kPrefix || value_type()->is_binary_like();
  }

  Result<std::optional<uint64_t>> EstimateMatches(const IndexQuery& query) const override {
    if (!CanAnswer(query)) return std::optional<uint64_t>();
    const ScalarQuery& q = std::get<ScalarQuery>(query);
    uint64_t n = 0;
    switch (q.op) {
      case ScalarQuery::Op::kEquals:
        if (!q.value.is_null()) {
          LANCE_ASSIGN_OR_RAISE(n, lookup_->CountOf(q.value));
        }
        break;
      case ScalarQuery::Op::kIn:
        for (const ScalarValue& v : q.values) {
          if (v.is_null()) continue;
          LANCE_ASSIGN_OR_RAISE(uint64_t k, lookup_->CountOf(v));
          n += k;
        }
        break;
      case ScalarQuery::Op::kRange: {
        LANCE_ASSIGN_OR_RAISE(n, lookup_->CountInRange(q.lower, q.upper));
        break;
      }
      case ScalarQuery::Op::kIsNull:
        n = lookup_->null_rows().Cardinality();
        break;
      case ScalarQuery::Op::kIsNotNull: {
        LANCE_ASSIGN_OR_RAISE(n, lookup_->CountInRange(std::nullopt, std::nullopt));
        break;
      }
      case ScalarQuery::Op::kPrefix: {
        LANCE_ASSIGN_OR_RAISE(n, lookup_->CountWithPrefix(q.value.bytes()));
        break;
      }
    }
    return std::optional<uint64_t>(n);
  }

  Result<SearchResult> Search(const IndexQuery& query, const SearchOptions& options) const override {
    if (!CanAnswer(query)) return Status::NotSupported("BITMAP index cannot answer this query");
    const ScalarQuery& q = std::get<ScalarQuery>(query);
    SearchResult out;
    switch (q.op) {
      case ScalarQuery::Op::kEquals: {
        if (!q.value.is_null()) {
          LANCE_ASSIGN_OR_RAISE(out.rows, lookup_->RowsOf(q.value));
        }
        break;
      }
      case ScalarQuery::Op::kIn: {
        for (const ScalarValue& v : q.values) {
          if (v.is_null()) continue;
          LANCE_ASSIGN_OR_RAISE(RowSet r, lookup_->RowsOf(v));
          out.rows |= r;
        }
        break;
      }
      case ScalarQuery::Op::kRange: {
        LANCE_ASSIGN_OR_RAISE(out.rows, lookup_->RowsInRange(q.lower, q.upper));
        break;
      }
      case ScalarQuery::Op::kIsNull:
        out.rows = lookup_->null_rows();
        break;
      case ScalarQuery::Op::kIsNotNull: {
        LANCE_ASSIGN_OR_RAISE(out.rows, lookup_->RowsInRange(std::nullopt, std::nullopt));
        break;
      }
      case ScalarQuery::Op::kPrefix: {
        LANCE_ASSIGN_OR_RAISE(out.rows, lookup_->RowsWithPrefix(q.value.bytes()));
        break;
      }
    }
    if (fill_null_rows && q.op != ScalarQuery::Op::kIsNull && q.op != ScalarQuery::Op::kIsNotNull) {
      out.null_rows = lookup_->null_rows();
    }
    if (options.fragments) {
      out.rows.RetainFragments(*options.fragments);
      out.null_rows.RetainFragments(*options.fragments);
    }
    return out;
  }

 private:
  std::unique_ptr<BitmapLookup> lookup_;
};

}  // namespace

Result<std::shared_ptr<ScalarIndex>> OpenBitmapIndex(std::shared_ptr<IndexStore> store) {
  LANCE_ASSIGN_OR_RAISE(auto lookup, BitmapLookup::Open(store, kBitmapFile));
  return std::make_shared<BitmapIndex>(std::move(store), std::move(lookup));
}

Result<TrainedIndex> TrainBitmapIndex(IndexStore& store, const TrainingData& data) {
  LANCE_ASSIGN_OR_RAISE(ArrayPtr values, ConcatTrainingValues(data));
  if (!IsIndexableKeyType(*values->type)) {
    return Status::InvalidArgument("a BITMAP index cannot key a column of type {}",
                                   values->type->ToString());
  }
  std::map<ScalarValue, RowSet, ScalarValueLess> groups;
  // One pass over the rows (a pass per group would read every row id once per value).
  const ValueGroups by_value = GroupValues(*values);
  const auto ids = GatherByGroup(by_value, data.row_ids.data());
  for (size_t g = 0; g < ids.size(); ++g) {
    groups[ValueAt(*values, by_value.first[g])].InsertMany(ids[g].data(), ids[g].size());
  }
  LANCE_ASSIGN_OR_RAISE(int64_t size, WriteBitmapLookup(store, kBitmapFile, values->type, groups, {}, nullptr));
  TrainedIndex out;
  out.type_name = "BITMAP";
  out.details_type_url = "/lance.table.BitmapIndexDetails";
  out.index_version = 0;
  out.files = {{kBitmapFile, static_cast<uint64_t>(size)}};
  return out;
}

}  // namespace lance::index::scalar
