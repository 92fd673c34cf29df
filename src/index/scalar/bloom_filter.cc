#include "lance/index/scalar/bloom_filter.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "index/scalar/key_sort.h"
#include "index/scalar/zones.h"
#include "lance/columnar/builder.h"
#include "lance/index/split_block_bloom.h"

namespace lance::index::scalar {

namespace {

constexpr const char* kItemsKey = "bloomfilter_item";
constexpr const char* kProbabilityKey = "bloomfilter_probability";

// Byte width of the integer-like storage of `t`; 0 for anything else.
int IntWidth(const DataType& t) {
  switch (t.id()) {
    case TypeId::kInt8: case TypeId::kUInt8: return 1;
    case TypeId::kInt16: case TypeId::kUInt16: return 2;
    case TypeId::kInt32: case TypeId::kUInt32: case TypeId::kDate32: case TypeId::kTime32: return 4;
    case TypeId::kInt64: case TypeId::kUInt64: case TypeId::kDate64: case TypeId::kTime64:
    case TypeId::kTimestamp: case TypeId::kDuration: return 8;
    default: return 0;
  }
}

bool Unsigned(const DataType& t) {
  return t.id() == TypeId::kUInt8 || t.id() == TypeId::kUInt16 || t.id() == TypeId::kUInt32 ||
         t.id() == TypeId::kUInt64;
}

bool Hashable(const DataType& t) {
  return IntWidth(t) > 0 || t.id() == TypeId::kFloat || t.id() == TypeId::kDouble || t.is_binary_like();
}

std::string LittleEndian(uint64_t v, int width) {
  std::string out(static_cast<size_t>(width), '\0');
  for (int i = 0; i < width; ++i) out[static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

// The bytes of row i of a hashable array (not null).
std::string_view RowBytes(const Array& a, int64_t i, std::string* scratch) {
  if (a.type->is_binary_like()) return a.GetView(i);
  const int width = a.type_id() == TypeId::kFloat ? 4 : a.type_id() == TypeId::kDouble ? 8 : IntWidth(*a.type);
  const uint8_t* base = a.buffers[1]->data() + (a.offset + i) * width;
  scratch->assign(reinterpret_cast<const char*>(base), static_cast<size_t>(width));
  return *scratch;
}

struct Zone {
  ZoneBound bound;
  bool has_null = false;
  SplitBlockBloomFilter filter;
};

class BloomFilterIndex final : public ScalarIndex {
 public:
  BloomFilterIndex(std::shared_ptr<IndexStore> store, DataTypePtr type, std::vector<Zone> zones,
                   std::optional<RowSet> nulls)
      : ScalarIndex(std::move(store)), type_(std::move(type)), zones_(std::move(zones)),
        nulls_(std::move(nulls)) {}

  std::string_view type_name() const override { return "BLOOMFILTER"; }
  const DataTypePtr& value_type() const override { return type_; }

  bool CanAnswer(const IndexQuery& query) const override {
    const auto* q = std::get_if<ScalarQuery>(&query);
    return q != nullptr && (q->op == ScalarQuery::Op::kEquals || q->op == ScalarQuery::Op::kIn ||
                            q->op == ScalarQuery::Op::kIsNull);
  }

  std::optional<uint64_t> EstimateRows(const IndexQuery& query) const override {
    if (!CanAnswer(query)) return std::nullopt;
    const auto hashes = Hashes(std::get<ScalarQuery>(query));
    uint64_t n = 0;
    for (const Zone& z : zones_) {
      if (MayMatch(z, hashes)) n += z.bound.length;
    }
    return n;
  }

  Result<SearchResult> Search(const IndexQuery& query, const SearchOptions& options) const override {
    if (!CanAnswer(query)) return Status::NotSupported("BLOOMFILTER index cannot answer this query");
    const ScalarQuery& q = std::get<ScalarQuery>(query);
    SearchResult out;
    out.exact = false;
    if (q.op == ScalarQuery::Op::kIsNull && nulls_) {
      out.rows = *nulls_;
    } else {
      const auto hashes = Hashes(q);
      for (const Zone& z : zones_) {
        if (MayMatch(z, hashes)) out.rows.InsertRange(z.bound.first(), z.bound.end());
      }
    }
    if (options.fragments) out.rows.RetainFragments(*options.fragments);
    return out;
  }

 private:
  struct Probe {
    bool nulls = false;           // the query matches null rows (IS NULL)
    std::vector<uint64_t> hashes;  // values probed
  };

  Probe Hashes(const ScalarQuery& q) const {
    Probe p;
    if (q.op == ScalarQuery::Op::kIsNull) {
      p.nulls = true;
      return p;
    }
    std::vector<ScalarValue> values = q.op == ScalarQuery::Op::kIn ? q.values : std::vector<ScalarValue>{q.value};
    for (const ScalarValue& v : values) {
      if (v.is_null()) continue;  // = NULL / IN (NULL) is never TRUE
      if (auto bytes = BloomKeyBytes(v, *type_)) p.hashes.push_back(XxHash64(*bytes));
    }
    return p;
  }

  static bool MayMatch(const Zone& z, const Probe& p) {
    if (p.nulls) return z.has_null;
    for (uint64_t h : p.hashes) {
      if (z.filter.MightContainHash(h)) return true;
    }
    return false;
  }

  DataTypePtr type_;
  std::vector<Zone> zones_;
  std::optional<RowSet> nulls_;
};

}  // namespace

std::optional<std::string> BloomKeyBytes(const ScalarValue& v, const DataType& type) {
  using K = ScalarValue::Kind;
  if (type.is_binary_like()) {
    if (v.kind() != K::kBytes) return std::nullopt;
    return v.bytes();
  }
  if (type.id() == TypeId::kFloat || type.id() == TypeId::kDouble) {
    double d = 0;
    if (v.kind() == K::kFloat) {
      d = v.float_value();
    } else if (v.kind() == K::kInt) {
      d = static_cast<double>(v.int_value());
      if (static_cast<long double>(d) != static_cast<long double>(v.int_value())) return std::nullopt;
    } else if (v.kind() == K::kUInt) {
      d = static_cast<double>(v.uint_value());
      if (static_cast<long double>(d) != static_cast<long double>(v.uint_value())) return std::nullopt;
    } else {
      return std::nullopt;
    }
    if (type.id() == TypeId::kFloat) {
      const auto f = static_cast<float>(d);
      if (!std::isnan(d) && static_cast<double>(f) != d) return std::nullopt;
      uint32_t bits = 0;
      std::memcpy(&bits, &f, 4);
      return LittleEndian(bits, 4);
    }
    uint64_t bits = 0;
    std::memcpy(&bits, &d, 8);
    return LittleEndian(bits, 8);
  }
  const int width = IntWidth(type);
  if (width == 0) return std::nullopt;
  // The value as the column's integer, when it is one.
  __int128 x = 0;
  if (v.kind() == K::kInt) {
    x = v.int_value();
  } else if (v.kind() == K::kUInt) {
    x = static_cast<__int128>(v.uint_value());
  } else if (v.kind() == K::kFloat) {
    const double d = v.float_value();
    if (!(std::isfinite(d) && std::trunc(d) == d && std::fabs(d) < 1.8e19)) return std::nullopt;
    x = static_cast<__int128>(d);
  } else {
    return std::nullopt;
  }
  const int bits = width * 8;
  const __int128 lo = Unsigned(type) ? 0 : -(static_cast<__int128>(1) << (bits - 1));
  const __int128 hi = Unsigned(type) ? (static_cast<__int128>(1) << bits) - 1 : (static_cast<__int128>(1) << (bits - 1)) - 1;
  if (x < lo || x > hi) return std::nullopt;
  return LittleEndian(static_cast<uint64_t>(x), width);
}

Result<std::shared_ptr<ScalarIndex>> OpenBloomFilterIndex(std::shared_ptr<IndexStore> store,
                                                          DataTypePtr key_type) {
  const std::string path = store->DisplayPathOf(kBloomFilterFile);
  if (!key_type || !Hashable(*key_type)) {
    return Status::InvalidArgument("{}: a BLOOMFILTER cannot key a column of type {}", path,
                                   key_type ? key_type->ToString() : "(none)");
  }
  LANCE_ASSIGN_OR_RAISE(auto reader, store->OpenFile(kBloomFilterFile));
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->ReadAll());
  LANCE_ASSIGN_OR_RAISE(std::vector<ZoneBound> bounds, ReadZoneBounds(*batch, path));
  LANCE_ASSIGN_OR_RAISE(const Array* has_null, ZoneColumn(*batch, "has_null", TypeId::kBool, path));
  const int data_i = batch->schema()->GetFieldIndex("bloom_filter_data");
  if (data_i < 0 || batch->column(data_i)->type_id() != TypeId::kBinary) {
    return Status::Corruption("{}: no binary column 'bloom_filter_data'", path);
  }
  const Array& data = *batch->column(data_i);
  std::vector<Zone> zones;
  zones.reserve(bounds.size());
  for (size_t i = 0; i < bounds.size(); ++i) {
    const auto row = static_cast<int64_t>(i);
    if (!data.IsValid(row)) return Status::Corruption("{}: zone {} has no bloom filter", path, i);
    LANCE_ASSIGN_OR_RAISE(SplitBlockBloomFilter f,
                          SplitBlockBloomFilter::Deserialize(data.GetView(row), fmt::format("{} zone {}", path, i)));
    zones.push_back(Zone{bounds[i], has_null->BoolValue(row), std::move(f)});
  }
  LANCE_ASSIGN_OR_RAISE(std::optional<RowSet> null_rows, ReadNullBitmap(*reader, path));
  return std::make_shared<BloomFilterIndex>(store, std::move(key_type), std::move(zones), std::move(null_rows));
}

Result<TrainedIndex> TrainBloomFilterIndex(IndexStore& store, const TrainingData& data, uint64_t number_of_items,
                                           double probability) {
  LANCE_ASSIGN_OR_RAISE(ArrayPtr values, ConcatTrainingValues(data));
  const DataTypePtr& type = values->type;
  if (!Hashable(*type)) {
    return Status::InvalidArgument("a BLOOMFILTER index cannot key a column of type {}", type->ToString());
  }
  if (number_of_items == 0) return Status::InvalidArgument("BLOOMFILTER: number_of_items 0 (expected at least 1)");
  LANCE_ASSIGN_OR_RAISE(SplitBlockBloomFilter empty, SplitBlockBloomFilter::ForItems(number_of_items, probability));
  LANCE_ASSIGN_OR_RAISE(std::vector<ZoneCut> cuts, CutZones(data.row_ids, number_of_items));
  NumericBuilder<uint64_t> frags(uint64()), starts(uint64()), lengths(uint64());
  BooleanBuilder has_nulls;
  BinaryBuilder filters(binary());
  RowSet null_rows;
  std::string scratch;
  for (const ZoneCut& c : cuts) {
    SplitBlockBloomFilter f = empty;
    bool any_null = false;
    for (int64_t i = c.begin; i < c.end; ++i) {
      if (values->IsNull(i)) {
        any_null = true;
        null_rows.Insert(data.row_ids[static_cast<size_t>(i)]);
        continue;
      }
      f.InsertHash(XxHash64(RowBytes(*values, i, &scratch)));
    }
    LANCE_RETURN_NOT_OK(frags.Append(c.bound.fragment_id));
    LANCE_RETURN_NOT_OK(starts.Append(c.bound.start));
    LANCE_RETURN_NOT_OK(lengths.Append(c.bound.length));
    LANCE_RETURN_NOT_OK(has_nulls.Append(any_null));
    LANCE_RETURN_NOT_OK(filters.Append(f.Serialize()));
  }
  // Rust's f64 Display: the shortest form that reads back ("0.00057").
  const std::string prob = fmt::format("{}", probability);
  auto s = schema({field("fragment_id", uint64(), false), field("zone_start", uint64(), false),
                   field("zone_length", uint64(), false), field("has_null", boolean(), false),
                   field("bloom_filter_data", binary(), false)},
                  MakeMetadata({{kItemsKey, std::to_string(number_of_items)}, {kProbabilityKey, prob},
                                {"null_bitmap", "1"}}));
  std::vector<ArrayPtr> cols;
  LANCE_RETURN_NOT_OK(FinishColumns({&frags, &starts, &lengths, &has_nulls, &filters}, &cols));
  LANCE_ASSIGN_OR_RAISE(uint64_t size, WriteZoneFile(store, kBloomFilterFile, s, std::move(cols),
                                                     static_cast<int64_t>(cuts.size()), null_rows));
  TrainedIndex out;
  out.type_name = "BLOOMFILTER";
  out.details_type_url = "/lance.index.pb.BloomFilterIndexDetails";
  out.index_version = 0;
  out.files = {{kBloomFilterFile, size}};
  return out;
}

}  // namespace lance::index::scalar
