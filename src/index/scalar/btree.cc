#include "lance/index/scalar/btree.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "index/scalar/key_sort.h"
#include "lance/columnar/builder.h"
#include "lance/core/bit_util.h"

namespace lance::index::scalar {

namespace {

struct PageRecord {
  ScalarValue max;
  uint32_t page = 0;
};

// One loaded page of page_data.lance.
struct BTreePage {
  ArrayPtr values;
  ArrayPtr ids;
  int64_t bytes = 0;
};

int64_t ArrayBytes(const Array& a) {
  int64_t n = 0;
  for (const auto& b : a.buffers) n += b ? b->size() : 0;
  for (const auto& c : a.children) n += ArrayBytes(*c);
  return n;
}

bool IsBytesType(const DataType& t) { return t.is_binary_like(); }

class BTreeIndex final : public ScalarIndex {
 public:
  BTreeIndex(std::shared_ptr<IndexStore> store, DataTypePtr type, int64_t batch_size,
             int64_t num_rows)
      : ScalarIndex(std::move(store)), type_(std::move(type)), batch_size_(batch_size),
        num_rows_(num_rows) {}

  Status Load(const RecordBatch& lookup) {
    if (lookup.num_columns() < 4) {
      return Status::Corruption("{}: {} columns (expected min, max, null_count, page_idx)",
                                store_->DisplayPathOf(kBTreeLookupFile), lookup.num_columns());
    }
    const Array& mins = *lookup.column(0);
    const Array& maxs = *lookup.column(1);
    const Array& nulls = *lookup.column(2);
    const Array& pages = *lookup.column(3);
    if (nulls.type->id() != TypeId::kUInt32 || pages.type->id() != TypeId::kUInt32 ||
        !mins.type->Equals(*maxs.type) || !IsIndexableKeyType(*mins.type)) {
      return Status::Corruption("{}: columns of types {}, {}, {}, {} (expected min/max of a key "
                                "type, uint32, uint32)",
                                store_->DisplayPathOf(kBTreeLookupFile), mins.type->ToString(),
                                maxs.type->ToString(), nulls.type->ToString(),
                                pages.type->ToString());
    }
    const int64_t num_pages = (num_rows_ + batch_size_ - 1) / batch_size_;
    for (int64_t i = 0; i < lookup.num_rows(); ++i) {
      const uint32_t page = pages.Values<uint32_t>()[i];
      if (pages.IsNull(i) || nulls.IsNull(i) || page >= num_pages) {
        return Status::Corruption("{}: row {} names page {} of {} pages",
                                  store_->DisplayPathOf(kBTreeLookupFile), i, page, num_pages);
      }
      ScalarValue min = ValueAt(mins, i);
      ScalarValue max = ValueAt(maxs, i);
      if (!max.is_null()) tree_[min].push_back(PageRecord{max, page});
      if (nulls.Values<uint32_t>()[i] > 0) null_pages_.push_back(page);
    }
    if (lookup.num_rows() > 0) tree_[ValueAt(maxs, lookup.num_rows() - 1)];
    return Status::OK();
  }

  std::string_view type_name() const override { return "BTREE"; }
  const DataTypePtr& value_type() const override { return type_; }

  bool CanAnswer(const IndexQuery& query) const override {
    const auto* q = std::get_if<ScalarQuery>(&query);
    if (q == nullptr) return false;
    return q->op != ScalarQuery::Op::kPrefix || IsBytesType(*type_);
  }

  std::optional<uint64_t> EstimateRows(const IndexQuery& query) const override {
    if (!CanAnswer(query)) return std::nullopt;
    return static_cast<uint64_t>(PagesFor(std::get<ScalarQuery>(query)).size()) *
           static_cast<uint64_t>(batch_size_);
  }

  // Ranges: the pages they touch (EstimateRows). Values: the pages strictly inside a value's
  // span hold nothing else, and its two end pages are shared, so s pages count s - 1 pages of
  // rows; a value inside one page counts as one row, the unique key an equality lookup is for
  // (by pages, an IN-list of 100 ids would count 100 pages of rows and look broad).
  Result<std::optional<uint64_t>> EstimateMatches(const IndexQuery& query) const override {
    if (!CanAnswer(query)) return std::optional<uint64_t>();
    const ScalarQuery& q = std::get<ScalarQuery>(query);
    if (q.op != ScalarQuery::Op::kEquals && q.op != ScalarQuery::Op::kIn) return EstimateRows(query);
    auto rows_of = [&](const ScalarValue& v) -> uint64_t {
      if (v.is_null()) return 0;
      const uint64_t s = PagesBetween(RangeBound{v, true}, RangeBound{v, true}).size();
      return s <= 1 ? s : (s - 1) * static_cast<uint64_t>(batch_size_);
    };
    uint64_t n = 0;
    if (q.op == ScalarQuery::Op::kEquals) {
      n = rows_of(q.value);
    } else {
      for (const ScalarValue& v : q.values) n += rows_of(v);
    }
    return std::optional<uint64_t>(n);
  }

  Result<SearchResult> Search(const IndexQuery& query, const SearchOptions& options) const override {
    if (!CanAnswer(query)) {
      return Status::NotSupported("BTREE index on {} cannot answer this query", type_->ToString());
    }
    const ScalarQuery& q = std::get<ScalarQuery>(query);
    SearchResult out;
    // The ids of every page first, inserted once: a page's ids come in value order (scattered
    // rows), and inserting page by page would splice each page into the bitmap built so far.
    std::vector<uint64_t> ids;
    if (q.op == ScalarQuery::Op::kIn) {
      LANCE_RETURN_NOT_OK(SearchIn(q, &ids));
    } else {
      for (uint32_t p : PagesFor(q)) LANCE_RETURN_NOT_OK(SearchPage(q, p, &ids));
    }
    out.rows.InsertMany(ids.data(), ids.size());
    if (fill_null_rows && q.op != ScalarQuery::Op::kIsNull && q.op != ScalarQuery::Op::kIsNotNull) {
      ids.clear();
      for (uint32_t p : null_pages_) {
        LANCE_RETURN_NOT_OK(SearchPage(ScalarQuery::IsNull(), p, &ids));
      }
      out.null_rows.InsertMany(ids.data(), ids.size());
    }
    if (options.fragments) {
      out.rows.RetainFragments(*options.fragments);
      out.null_rows.RetainFragments(*options.fragments);
    }
    return out;
  }

 private:
  using Tree = std::map<ScalarValue, std::vector<PageRecord>, ScalarValueLess>;

  // Pages that may hold a value in the range (the reference's pages_between: start at the
  // last page whose min is below the lower bound).
  std::vector<uint32_t> PagesBetween(const std::optional<RangeBound>& lo,
                                     const std::optional<RangeBound>& hi) const {
    std::optional<ScalarValue> start;  // inclusive tree key to start at; nullopt = begin
    if (lo) {
      auto it = tree_.lower_bound(lo->value);
      if (it != tree_.begin()) start = std::prev(it)->first;
    }
    if (start && hi && Compare(*start, hi->value) > 0) return {};
    if (lo && hi) {
      const int c = Compare(lo->value, hi->value);
      if (c > 0 || (c == 0 && !(lo->inclusive && hi->inclusive))) {
        // The reference still scans [x, x) ranges; they can match nothing.
        if (c > 0) return {};
      }
    }
    auto begin = start ? tree_.lower_bound(*start) : tree_.begin();
    auto end = hi ? tree_.upper_bound(hi->value) : tree_.end();
    std::vector<uint32_t> out;
    for (auto it = begin; it != end && it != tree_.end(); ++it) {
      for (const PageRecord& r : it->second) {
        if (lo) {
          const int c = Compare(r.max, lo->value);
          if (c < 0 || (c == 0 && !lo->inclusive)) continue;
        }
        out.push_back(r.page);
      }
    }
    return out;
  }

  // IN (...): the values sorted and deduplicated, each sent only to the pages whose range
  // may hold it (not every value to every page), and the values of one page found in one
  // forward walk over it (each search starts where the previous value's rows ended).
  Status SearchIn(const ScalarQuery& q, std::vector<uint64_t>* out) const {
    std::vector<const ScalarValue*> vals;
    for (const ScalarValue& v : q.values) {
      if (!v.is_null()) vals.push_back(&v);
    }
    std::sort(vals.begin(), vals.end(), [](const ScalarValue* a, const ScalarValue* b) { return Compare(*a, *b) < 0; });
    vals.erase(std::unique(vals.begin(), vals.end(),
                           [](const ScalarValue* a, const ScalarValue* b) { return Compare(*a, *b) == 0; }),
               vals.end());
    std::vector<std::pair<uint32_t, uint32_t>> page_value;  // (page, index into vals)
    for (size_t k = 0; k < vals.size(); ++k) {
      for (uint32_t p : PagesBetween(RangeBound{*vals[k], true}, RangeBound{*vals[k], true})) {
        page_value.emplace_back(p, static_cast<uint32_t>(k));
      }
    }
    std::sort(page_value.begin(), page_value.end());
    for (size_t i = 0; i < page_value.size();) {
      const uint32_t page = page_value[i].first;
      LANCE_ASSIGN_OR_RAISE(std::shared_ptr<const BTreePage> p, LoadPage(page));
      const Array& v = *p->values;
      const uint64_t* ids = p->ids->Values<uint64_t>();
      int64_t from = 0;
      for (; i < page_value.size() && page_value[i].first == page; ++i) {
        const ScalarValue& x = *vals[page_value[i].second];
        auto [b, e] = EqualRange(v, from, [&](int64_t r) { return CompareAt(v, r, x); });
        if (e > b) out->insert(out->end(), ids + b, ids + e);
        from = e;
      }
    }
    return Status::OK();
  }

  std::vector<uint32_t> PagesFor(const ScalarQuery& q) const {
    std::vector<uint32_t> pages;
    switch (q.op) {
      case ScalarQuery::Op::kEquals:
        if (q.value.is_null()) return {};
        return PagesBetween(RangeBound{q.value, true}, RangeBound{q.value, true});
      case ScalarQuery::Op::kIn:
        for (const ScalarValue& v : q.values) {
          if (v.is_null()) continue;
          auto p = PagesBetween(RangeBound{v, true}, RangeBound{v, true});
          pages.insert(pages.end(), p.begin(), p.end());
        }
        break;
      case ScalarQuery::Op::kRange:
        if ((q.lower && q.lower->value.is_null()) || (q.upper && q.upper->value.is_null())) return {};
        return PagesBetween(q.lower, q.upper);
      case ScalarQuery::Op::kIsNull:
        return null_pages_;
      case ScalarQuery::Op::kIsNotNull:
        return PagesBetween(std::nullopt, std::nullopt);
      case ScalarQuery::Op::kPrefix: {
        std::optional<RangeBound> hi;
        if (auto succ = PrefixSuccessor(q.value.bytes())) {
          hi = RangeBound{ScalarValue::Bytes(*succ), false};
        }
        return PagesBetween(RangeBound{q.value, true}, hi);
      }
    }
    std::sort(pages.begin(), pages.end());
    pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
    return pages;
  }

  Result<std::shared_ptr<const BTreePage>> LoadPage(uint32_t page) const {
    return store_->GetPage<BTreePage>(
        fmt::format("btree/{}", page),
        [&]() -> Result<std::pair<std::shared_ptr<const BTreePage>, int64_t>> {
          LANCE_ASSIGN_OR_RAISE(auto reader, store_->OpenFile(kBTreePagesFile));
          if (reader->num_rows() != num_rows_ && num_rows_ >= 0) {
            // num_rows_ was taken from this file at open; a mismatch means it changed.
          }
          const int64_t start = static_cast<int64_t>(page) * batch_size_;
          if (start >= reader->num_rows()) {
            return Status::Corruption("{}: page {} starts at row {} of {}",
                                      store_->DisplayPathOf(kBTreePagesFile), page, start,
                                      reader->num_rows());
          }
          const int64_t len = std::min(batch_size_, reader->num_rows() - start);
          LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->ReadRange(start, len, {0, 1}));
          auto p = std::make_shared<BTreePage>();
          p->values = b->column(0);
          p->ids = b->column(1);
          if (!p->values->type->Equals(*type_) || p->ids->type->id() != TypeId::kUInt64) {
            return Status::Corruption("{}: page columns of types {}, {} (expected {}, uint64)",
                                      store_->DisplayPathOf(kBTreePagesFile), p->values->type->ToString(),
                                      p->ids->type->ToString(), type_->ToString());
          }
          p->bytes = ArrayBytes(*p->values) + ArrayBytes(*p->ids) + 128;
          const int64_t bytes = p->bytes;
          return std::pair<std::shared_ptr<const BTreePage>, int64_t>(std::move(p), bytes);
        });
  }

  // Rows [lo, hi) of a sorted page whose values satisfy `cmp(value) == 0` where cmp is
  // monotone (-1 before, 0 inside, 1 after).
  template <typename Cmp>
  static std::pair<int64_t, int64_t> EqualRange(const Array& v, Cmp cmp) {
    return EqualRange(v, 0, cmp);
  }
  // The same over rows [from, length) (cmp(i) < 0 for every i < from).
  template <typename Cmp>
  static std::pair<int64_t, int64_t> EqualRange(const Array& v, int64_t from, Cmp cmp) {
    int64_t lo = from, hi = v.length;
    while (lo < hi) {  // first with cmp >= 0
      const int64_t mid = lo + (hi - lo) / 2;
      if (cmp(mid) < 0) lo = mid + 1; else hi = mid;
    }
    int64_t b = lo, e = v.length;
    while (b < e) {  // first with cmp > 0
      const int64_t mid = b + (e - b) / 2;
      if (cmp(mid) <= 0) b = mid + 1; else e = mid;
    }
    return {lo, b};
  }

  // Appends the ids of page `page` matching `q` to `out`.
  Status SearchPage(const ScalarQuery& q, uint32_t page, std::vector<uint64_t>* out) const {
    LANCE_ASSIGN_OR_RAISE(std::shared_ptr<const BTreePage> p, LoadPage(page));
    const Array& v = *p->values;
    const uint64_t* ids = p->ids->Values<uint64_t>();
    auto add = [&](int64_t b, int64_t e) {
      if (e > b) out->insert(out->end(), ids + b, ids + e);
    };
    auto add_equal = [&](const ScalarValue& x) {
      auto [b, e] = EqualRange(v, [&](int64_t i) { return CompareAt(v, i, x); });
      add(b, e);
    };
    switch (q.op) {
      case ScalarQuery::Op::kEquals:
        add_equal(q.value);
        break;
      case ScalarQuery::Op::kIn:
        for (const ScalarValue& x : q.values) {
          if (!x.is_null()) add_equal(x);
        }
        break;
      case ScalarQuery::Op::kIsNull:
        for (int64_t i = 0; i < v.length; ++i) {
          if (v.IsNull(i)) out->push_back(ids[i]);
        }
        break;
      case ScalarQuery::Op::kIsNotNull:
        for (int64_t i = 0; i < v.length; ++i) {
          if (v.IsValid(i)) out->push_back(ids[i]);
        }
        break;
      case ScalarQuery::Op::kRange: {
        // -1 below the range (nulls included), 0 inside, 1 above: monotone on a sorted page
        // (on a damaged, unsorted one the rows are wrong, never out of bounds).
        auto cmp = [&](int64_t i) {
          if (v.IsNull(i)) return -1;
          if (q.lower) {
            const int c = CompareAt(v, i, q.lower->value);
            if (c < 0 || (c == 0 && !q.lower->inclusive)) return -1;
          }
          if (q.upper) {
            const int c = CompareAt(v, i, q.upper->value);
            if (c > 0 || (c == 0 && !q.upper->inclusive)) return 1;
          }
          return 0;
        };
        auto [b, e] = EqualRange(v, cmp);
        add(b, e);
        break;
      }
      case ScalarQuery::Op::kPrefix: {
        const std::string& prefix = q.value.bytes();
        auto cmp = [&](int64_t i) {
          if (v.IsNull(i)) return -1;
          std::string_view x = v.GetView(i);
          const int c = x.substr(0, std::min(x.size(), prefix.size())).compare(prefix);
          if (c != 0) return c < 0 ? -1 : 1;
          return x.size() < prefix.size() ? -1 : 0;
        };
        auto [b, e] = EqualRange(v, cmp);
        add(b, e);
        break;
      }
    }
    return Status::OK();
  }

  DataTypePtr type_;
  int64_t batch_size_;
  int64_t num_rows_;
  Tree tree_;
  std::vector<uint32_t> null_pages_;
};

}  // namespace

Result<std::shared_ptr<ScalarIndex>> OpenBTreeIndex(std::shared_ptr<IndexStore> store) {
  LANCE_ASSIGN_OR_RAISE(auto lookup_file, store->OpenFile(kBTreeLookupFile));
  const auto& schema = lookup_file->schema();
  int64_t batch_size = kBTreeDefaultBatchSize;
  if (schema->metadata()) {
    if (auto bs = schema->metadata()->Get("batch_size")) {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(bs->data(), bs->data() + bs->size(), v);
      if (ec == std::errc() && p == bs->data() + bs->size() && v > 0) batch_size = v;
    }
  }
  if (schema->num_fields() < 4) {
    return Status::Corruption("{}: {} fields (expected min, max, null_count, page_idx)",
                              store->DisplayPathOf(kBTreeLookupFile), schema->num_fields());
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr lookup, lookup_file->ReadAll());
  // The number of rows of page_data.lance bounds the page numbers; it is known once that
  // file is open, which a lookup with pages needs anyway.
  int64_t num_rows = 0;
  if (lookup->num_rows() > 0) {
    LANCE_ASSIGN_OR_RAISE(auto pages_file, store->OpenFile(kBTreePagesFile));
    num_rows = pages_file->num_rows();
  }
  auto index = std::make_shared<BTreeIndex>(store, schema->field(0)->type(), batch_size, num_rows);
  LANCE_RETURN_NOT_OK(index->Load(*lookup));
  return index;
}

namespace {

// Writes n sorted entries, `values` and their row ids `ids` (whole columns), as page_data.lance
// in pages of options.batch_size rows and their lookup as page_lookup.lance. Each page is a
// slice of the two arrays, so the file writer adopts their buffers as they are and copies
// nothing before it encodes.
Result<TrainedIndex> WriteBTree(IndexStore& store, const DataTypePtr& type, const ArrayPtr& values,
                                const ArrayPtr& ids, const BTreeTrainOptions& options) {
  const int64_t n = values->length;
  file::WriteOptions file_options = options.file_options;
  if (file_options.pool == nullptr) file_options.pool = options.pool;
  auto data_schema = schema({field("values", type, true), field("ids", uint64(), false)});
  LANCE_ASSIGN_OR_RAISE(auto pages, store.CreateFile(kBTreePagesFile, data_schema, file_options));
  std::vector<ScalarValue> mins, maxs;
  NumericBuilder<uint32_t> null_counts(uint32()), page_idx(uint32());
  uint32_t page = 0;
  for (int64_t start = 0; start < n; start += options.batch_size, ++page) {
    const int64_t len = std::min(options.batch_size, n - start);
    ArrayPtr v = values->Slice(start, len);
    LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(data_schema, len, {v, ids->Slice(start, len)}));
    LANCE_RETURN_NOT_OK(pages->Write(*batch));
    mins.push_back(ValueAt(*v, 0));
    maxs.push_back(ValueAt(*v, len - 1));
    int64_t nulls = 0;
    if (v->null_count > 0) {
      for (int64_t i = 0; i < len && v->IsNull(i); ++i) ++nulls;
    }
    LANCE_RETURN_NOT_OK(null_counts.Append(static_cast<uint32_t>(nulls)));
    LANCE_RETURN_NOT_OK(page_idx.Append(page));
  }
  LANCE_ASSIGN_OR_RAISE(auto pages_summary, pages->Finish());

  auto lookup_schema = schema({field("min", type, true), field("max", type, true),
                               field("null_count", uint32(), false), field("page_idx", uint32(), false)},
                              MakeMetadata({{"batch_size", std::to_string(options.batch_size)},
                                            {"range_partitioned", "false"}}));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr min_arr, MakeKeyArray(type, mins));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr max_arr, MakeKeyArray(type, maxs));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr nc_arr, null_counts.Finish());
  LANCE_ASSIGN_OR_RAISE(ArrayPtr pi_arr, page_idx.Finish());
  LANCE_ASSIGN_OR_RAISE(auto lookup_batch, RecordBatch::Make(lookup_schema, min_arr->length,
                                                            {min_arr, max_arr, nc_arr, pi_arr}));
  LANCE_ASSIGN_OR_RAISE(auto lookup, store.CreateFile(kBTreeLookupFile, lookup_schema, file_options));
  LANCE_RETURN_NOT_OK(lookup->Write(*lookup_batch));
  LANCE_ASSIGN_OR_RAISE(auto lookup_summary, lookup->Finish());

  TrainedIndex out;
  out.type_name = "BTREE";
  out.details_type_url = "/lance.table.BTreeIndexDetails";
  out.index_version = 0;
  out.files = {{kBTreePagesFile, static_cast<uint64_t>(pages_summary.size_bytes)},
               {kBTreeLookupFile, static_cast<uint64_t>(lookup_summary.size_bytes)}};
  return out;
}

// data.row_ids as a uint64 array, viewed, not copied (it must not outlive data).
ArrayPtr RowIdArray(const std::vector<uint64_t>& row_ids) {
  const auto n = static_cast<int64_t>(row_ids.size());
  auto buf = std::make_shared<Buffer>(reinterpret_cast<const uint8_t*>(row_ids.data()),
                                      n * static_cast<int64_t>(sizeof(uint64_t)));
  return Array::Make(uint64(), n, {nullptr, std::move(buf)});
}

// Null-free fixed-width chunks as one array: the chunk itself when there is one, a view when
// their value bytes lie end to end in memory (slices of one decoded buffer; the view keeps the
// chunks alive), else one copy of them all.
Result<ArrayPtr> OneFixedArray(const DataTypePtr& type, const std::vector<ArrayPtr>& chunks) {
  const int64_t width = type->bit_width() / 8;
  std::vector<ArrayPtr> parts;
  int64_t n = 0;
  for (const ArrayPtr& c : chunks) {
    if (c->length == 0) continue;
    parts.push_back(c);
    n += c->length;
  }
  if (parts.size() == 1) return parts[0];
  auto begin_of = [&](const Array& c) { return c.buffers[1]->data() + c.offset * width; };
  bool adjacent = !parts.empty();
  for (size_t i = 1; i < parts.size() && adjacent; ++i) {
    adjacent = begin_of(*parts[i]) == begin_of(*parts[i - 1]) + parts[i - 1]->length * width;
  }
  BufferPtr buf;
  if (adjacent) {
    const uint8_t* first = begin_of(*parts[0]);
    buf = std::make_shared<Buffer>(first, n * width, std::make_shared<std::vector<ArrayPtr>>(parts));
  } else {
    LANCE_ASSIGN_OR_RAISE(buf, AllocateBuffer(n * width));
    uint8_t* out = buf->mutable_data();
    for (const ArrayPtr& c : parts) {
      std::memcpy(out, begin_of(*c), static_cast<size_t>(c->length * width));
      out += c->length * width;
    }
  }
  return Array::Make(type, n, {nullptr, std::move(buf)});
}

// Fixed-width keys whose order key gives back their bits (ValuesFromOrderKeys): (key, row id)
// pairs sorted by key then row id, and both columns made from the pairs in order (no gather of
// values or row ids by position, no concatenation of the chunks). Nulls come first by row id,
// their slots keeping the bytes they had. Returns nullopt for other types.
Result<std::optional<TrainedIndex>> WriteSortedKeys(IndexStore& store, const DataTypePtr& type,
                                                    const TrainingData& data, const BTreeTrainOptions& options) {
  const int width = type->bit_width() / 8;
  {
    const KeyRow probe{0, 0};
    uint64_t sink = 0;
    if (type->id() == TypeId::kBool || width < 1 || width > 8 ||
        !ValuesFromOrderKeys(*type, &probe, 1, reinterpret_cast<uint8_t*>(&sink))) {
      return std::optional<TrainedIndex>();
    }
  }
  for (const ArrayPtr& c : data.values) {
    if (c->length > 0 && (c->buffers.size() < 2 || !c->buffers[1])) return std::optional<TrainedIndex>();
  }
  std::vector<KeyRow> nulls;  // {row id, the slot's bytes}
  std::vector<KeyRow> keys;
  keys.reserve(data.row_ids.size());
  std::vector<uint64_t> chunk_keys;
  size_t pos = 0;
  for (const ArrayPtr& c : data.values) {
    if (c->length == 0) continue;
    if (!OrderKeys(*c, &chunk_keys)) return std::optional<TrainedIndex>();
    const uint8_t* slots = c->buffers[1]->data() + c->offset * width;
    for (int64_t i = 0; i < c->length; ++i, ++pos) {
      const uint64_t row = data.row_ids[pos];
      if (c->null_count > 0 && c->IsNull(i)) {
        uint64_t bits = 0;
        std::memcpy(&bits, slots + i * width, static_cast<size_t>(width));
        nulls.push_back(KeyRow{row, bits});
      } else {
        keys.push_back(KeyRow{chunk_keys[static_cast<size_t>(i)], row});
      }
    }
  }
  chunk_keys = std::vector<uint64_t>();
  std::sort(nulls.begin(), nulls.end(), [](const KeyRow& a, const KeyRow& b) { return a.key < b.key; });
  SortKeyRows(keys, options.pool);
  TiesByRow(keys);
  const int64_t num_nulls = static_cast<int64_t>(nulls.size());
  const int64_t n = num_nulls + static_cast<int64_t>(keys.size());
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, AllocateBuffer(n * width));
  LANCE_ASSIGN_OR_RAISE(BufferPtr ids, AllocateBuffer(n * static_cast<int64_t>(sizeof(uint64_t))));
  uint8_t* v = values->mutable_data();
  uint64_t* r = ids->mutable_data_as<uint64_t>();
  BufferPtr validity;
  if (num_nulls > 0) {  // rows [0, num_nulls) are the nulls
    LANCE_ASSIGN_OR_RAISE(validity, AllocateBuffer((n + 7) / 8, true));
    bit_util::SetBitsTo(validity->mutable_data(), num_nulls, n - num_nulls, true);
    for (int64_t i = 0; i < num_nulls; ++i) {
      const KeyRow& x = nulls[static_cast<size_t>(i)];
      std::memcpy(v + i * width, &x.row, static_cast<size_t>(width));
      r[i] = x.key;
    }
  }
  nulls = std::vector<KeyRow>();
  (void)ValuesFromOrderKeys(*type, keys.data(), n - num_nulls, v + num_nulls * width);
  for (int64_t i = num_nulls; i < n; ++i) r[i] = keys[static_cast<size_t>(i - num_nulls)].row;
  keys = std::vector<KeyRow>();
  ArrayPtr value_array = Array::Make(type, n, {std::move(validity), std::move(values)});
  ArrayPtr id_array = Array::Make(uint64(), n, {nullptr, std::move(ids)});
  Result<TrainedIndex> written = WriteBTree(store, type, value_array, id_array, options);
  if (!written.ok()) return written.status();
  return std::optional<TrainedIndex>(std::move(*written));
}

}  // namespace

Result<TrainedIndex> TrainBTreeIndex(IndexStore& store, const TrainingData& data,
                                     const BTreeTrainOptions& options) {
  if (options.batch_size <= 0) return Status::InvalidArgument("BTREE batch size {}", options.batch_size);
  LANCE_ASSIGN_OR_RAISE(DataTypePtr type, TrainingValueType(data));
  if (!IsIndexableKeyType(*type)) {
    return Status::InvalidArgument("a BTREE index cannot key a column of type {}", type->ToString());
  }
  if (type->bit_width() >= 8 && InIndexOrder(data.values, data.row_ids)) {
    // Already in index order (an id column): written as it is.
    LANCE_ASSIGN_OR_RAISE(ArrayPtr values, OneFixedArray(type, data.values));
    return WriteBTree(store, type, values, RowIdArray(data.row_ids), options);
  }
  LANCE_ASSIGN_OR_RAISE(std::optional<TrainedIndex> by_keys, WriteSortedKeys(store, type, data, options));
  if (by_keys) return std::move(*by_keys);
  // Byte strings, bools, float16 / float32: a permutation of the concatenated values, and
  // both columns gathered by it.
  LANCE_ASSIGN_OR_RAISE(ArrayPtr values, ConcatTrainingValues(data));
  const std::vector<int64_t> perm = SortPermutation(*values, data.row_ids);
  LANCE_ASSIGN_OR_RAISE(ArrayPtr sorted, GatherKeys(*values, perm));
  const int64_t n = values->length;
  LANCE_ASSIGN_OR_RAISE(BufferPtr id_buf, AllocateBuffer(n * static_cast<int64_t>(sizeof(uint64_t))));
  uint64_t* ids = id_buf->mutable_data_as<uint64_t>();
  for (size_t i = 0; i < perm.size(); ++i) ids[i] = data.row_ids[static_cast<size_t>(perm[i])];
  ArrayPtr id_array = Array::Make(uint64(), n, {nullptr, std::move(id_buf)});
  return WriteBTree(store, type, sorted, id_array, options);
}

}  // namespace lance::index::scalar
