#include "lance/index/scalar/zone_map.h"

#include <cmath>

#include <fmt/format.h>

#include "index/scalar/key_sort.h"
#include "index/scalar/zones.h"
#include "lance/columnar/builder.h"

namespace lance::index::scalar {

namespace {

bool IsNaN(const ScalarValue& v) { return v.kind() == ScalarValue::Kind::kFloat && std::isnan(v.float_value()); }

struct Zone {
  ScalarValue min, max;  // null: no non-null value
  uint32_t null_count = 0;
  uint32_t nan_count = 0;
  ZoneBound bound;
};

class ZoneMapIndex final : public ScalarIndex {
 public:
  ZoneMapIndex(std::shared_ptr<IndexStore> store, DataTypePtr type, std::vector<Zone> zones,
               std::optional<RowSet> nulls)
      : ScalarIndex(std::move(store)), type_(std::move(type)), zones_(std::move(zones)),
        nulls_(std::move(nulls)) {}

  std::string_view type_name() const override { return "ZONEMAP"; }
  const DataTypePtr& value_type() const override { return type_; }

  bool CanAnswer(const IndexQuery& query) const override {
    const auto* q = std::get_if<ScalarQuery>(&query);
    if (q == nullptr) return false;
    return q->op != ScalarQuery::Op::kPrefix || type_->is_binary_like();
  }

  std::optional<uint64_t> EstimateRows(const IndexQuery& query) const override {
    if (!CanAnswer(query)) return std::nullopt;
    uint64_t n = 0;
    for (const Zone& z : zones_) {
      if (MayMatch(z, std::get<ScalarQuery>(query))) n += z.bound.length;
    }
    return n;
  }

  Result<SearchResult> Search(const IndexQuery& query, const SearchOptions& options) const override {
    if (!CanAnswer(query)) return Status::NotSupported("ZONEMAP index on {} cannot answer this query", type_->ToString());
    const ScalarQuery& q = std::get<ScalarQuery>(query);
    SearchResult out;
    out.exact = false;
    if (q.op == ScalarQuery::Op::kIsNull && nulls_) {
      out.rows = *nulls_;
    } else {
      for (const Zone& z : zones_) {
        if (MayMatch(z, q)) out.rows.InsertRange(z.bound.first(), z.bound.end());
      }
    }
    if (options.fragments) out.rows.RetainFragments(*options.fragments);
    return out;
  }

 private:
  // Whether the zone may hold a value that is not null and not NaN (its extrema are unknown
  // when min is null: only when its span is longer than its nulls and NaNs).
  static bool HasComparable(const Zone& z) {
    if (!z.min.is_null() && !IsNaN(z.min)) return true;
    return z.min.is_null() && z.bound.length > uint64_t{z.null_count} + z.nan_count;
  }

  static bool InZone(const Zone& z, const ScalarValue& v) {
    if (v.is_null()) return z.null_count > 0;
    if (IsNaN(v)) return z.nan_count > 0;
    if (z.min.is_null()) return HasComparable(z);
    if (IsNaN(z.min)) return false;  // only NaNs
    return Compare(v, z.min) >= 0 && Compare(v, z.max) <= 0;
  }

  static bool MayMatch(const Zone& z, const ScalarQuery& q) {
    switch (q.op) {
      case ScalarQuery::Op::kIsNull: return z.null_count > 0;
      case ScalarQuery::Op::kIsNotNull: return z.bound.length > z.null_count;
      case ScalarQuery::Op::kEquals: return !q.value.is_null() && InZone(z, q.value);
      case ScalarQuery::Op::kIn:
        for (const ScalarValue& v : q.values) {
          if (!v.is_null() && InZone(z, v)) return true;
        }
        return false;
      case ScalarQuery::Op::kRange: {
        if ((q.lower && q.lower->value.is_null()) || (q.upper && q.upper->value.is_null())) return false;
        if (z.min.is_null()) return HasComparable(z);
        // NaN sorts above every number (total order), so a NaN max keeps the zone for any
        // lower bound but NaN-exclusive, and NaN bounds compare as the reference's do.
        if (q.lower) {
          const int c = Compare(z.max, q.lower->value);
          if (c < 0 || (c == 0 && !q.lower->inclusive)) return false;
        }
        if (q.upper) {
          const int c = Compare(z.min, q.upper->value);
          if (c > 0 || (c == 0 && !q.upper->inclusive)) return false;
        }
        return true;
      }
      case ScalarQuery::Op::kPrefix: {
        if (q.value.bytes().empty()) return z.bound.length > z.null_count;
        if (z.min.is_null()) return HasComparable(z);
        if (Compare(z.max, q.value) < 0) return false;
        auto next = PrefixSuccessor(q.value.bytes());
        return !next || Compare(z.min, ScalarValue::Bytes(*next)) < 0;
      }
    }
    return true;
  }

  DataTypePtr type_;
  std::vector<Zone> zones_;
  std::optional<RowSet> nulls_;
};

// ZoneMapIndexDetails {rows_per_zone = 1, use_seeds = 2, has_null_bitmap = 3}, every field set.
std::string ZoneMapDetails(uint64_t rows_per_zone, bool use_seeds) {
  std::string out = "\x08";
  for (uint64_t v = rows_per_zone;; v >>= 7) {
    if (v < 0x80) {
      out.push_back(static_cast<char>(v));
      break;
    }
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
  }
  out += use_seeds ? std::string("\x10\x01", 2) : std::string("\x10\x00", 2);
  out += std::string("\x18\x01", 2);
  return out;
}

// lance 12 enables seeds by default for variable-width and wide types only.
bool DefaultUseSeeds(const DataType& t) {
  if (t.is_binary_like()) return true;
  if (t.id() == TypeId::kFixedSizeBinary) return t.byte_width() > 8;
  return false;
}

}  // namespace

Result<std::shared_ptr<ScalarIndex>> OpenZoneMapIndex(std::shared_ptr<IndexStore> store) {
  const std::string path = store->DisplayPathOf(kZoneMapFile);
  LANCE_ASSIGN_OR_RAISE(auto reader, store->OpenFile(kZoneMapFile));
  const auto& schema = reader->schema();
  const int min_i = schema->GetFieldIndex("min");
  const int max_i = schema->GetFieldIndex("max");
  if (min_i < 0 || max_i < 0 || !IsIndexableKeyType(*schema->field(min_i)->type()) ||
      !schema->field(min_i)->type()->Equals(*schema->field(max_i)->type())) {
    return Status::Corruption("{}: schema {} (expected min and max of one key type)", path, schema->ToString());
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->ReadAll());
  LANCE_ASSIGN_OR_RAISE(std::vector<ZoneBound> bounds, ReadZoneBounds(*batch, path));
  LANCE_ASSIGN_OR_RAISE(const Array* nulls, ZoneColumn(*batch, "null_count", TypeId::kUInt32, path));
  LANCE_ASSIGN_OR_RAISE(const Array* nans, ZoneColumn(*batch, "nan_count", TypeId::kUInt32, path));
  const Array& mins = *batch->column(min_i);
  const Array& maxs = *batch->column(max_i);
  std::vector<Zone> zones(bounds.size());
  for (size_t i = 0; i < zones.size(); ++i) {
    const auto row = static_cast<int64_t>(i);
    Zone& z = zones[i];
    z.bound = bounds[i];
    z.min = ValueAt(mins, row);
    z.max = ValueAt(maxs, row);
    z.null_count = nulls->Values<uint32_t>()[row];
    z.nan_count = nans->Values<uint32_t>()[row];
    if (z.min.is_null() != z.max.is_null() || (!z.min.is_null() && Compare(z.min, z.max) > 0)) {
      return Status::Corruption("{}: zone {} has min {} and max {}", path, i, z.min.ToString(), z.max.ToString());
    }
  }
  LANCE_ASSIGN_OR_RAISE(std::optional<RowSet> null_rows, ReadNullBitmap(*reader, path));
  return std::make_shared<ZoneMapIndex>(store, schema->field(min_i)->type(), std::move(zones), std::move(null_rows));
}

Result<std::string> ZoneMapDetailsJson(std::string_view details) {
  std::string out;
  size_t i = 0;
  auto varint = [&](uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && i < details.size(); shift += 7) {
      const auto b = static_cast<uint8_t>(details[i++]);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  };
  while (i < details.size()) {
    uint64_t key = 0, value = 0;
    if (!varint(&key) || (key & 7) != 0 || !varint(&value)) {
      return Status::Corruption("ZoneMapIndexDetails: field at byte {} is not a varint field 1-3", i);
    }
    const uint64_t field = key >> 3;
    const char* name = field == 1 ? "rows_per_zone" : field == 2 ? "use_seeds" : field == 3 ? "has_null_bitmap" : nullptr;
    if (name == nullptr) continue;  // a field added after lance 12
    out += fmt::format("{}\"{}\":{}", out.empty() ? "" : ",", name,
                       field == 1 ? std::to_string(value) : std::string(value ? "true" : "false"));
  }
  return "{" + out + "}";
}

Result<TrainedIndex> TrainZoneMapIndex(IndexStore& store, const TrainingData& data, uint64_t rows_per_zone) {
  LANCE_ASSIGN_OR_RAISE(ArrayPtr values, ConcatTrainingValues(data));
  const DataTypePtr& type = values->type;
  if (!IsIndexableKeyType(*type)) {
    return Status::InvalidArgument("a ZONEMAP index cannot key a column of type {}", type->ToString());
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<ZoneCut> cuts, CutZones(data.row_ids, rows_per_zone));
  std::vector<ScalarValue> mins, maxs;
  NumericBuilder<uint32_t> null_counts(uint32()), nan_counts(uint32());
  NumericBuilder<uint64_t> frags(uint64()), starts(uint64()), lengths(uint64());
  RowSet null_rows;
  const bool floating = type->is_floating();
  for (const ZoneCut& c : cuts) {
    int64_t lo = -1, hi = -1;
    uint32_t n_null = 0, n_nan = 0;
    for (int64_t i = c.begin; i < c.end; ++i) {
      if (values->IsNull(i)) {
        ++n_null;
        null_rows.Insert(data.row_ids[static_cast<size_t>(i)]);
        continue;
      }
      if (floating && IsNaN(ValueAt(*values, i))) {
        ++n_nan;
        continue;
      }
      if (lo < 0 || CompareElements(*values, i, lo) < 0) lo = i;
      if (hi < 0 || CompareElements(*values, i, hi) > 0) hi = i;
    }
    ScalarValue min = lo >= 0 ? ValueAt(*values, lo) : ScalarValue::Null();
    ScalarValue max = hi >= 0 ? ValueAt(*values, hi) : ScalarValue::Null();
    if (n_nan > 0) {
      max = ScalarValue::Float(std::nan(""));
      if (lo < 0) min = max;  // only NaNs
    }
    mins.push_back(std::move(min));
    maxs.push_back(std::move(max));
    LANCE_RETURN_NOT_OK(null_counts.Append(n_null));
    LANCE_RETURN_NOT_OK(nan_counts.Append(n_nan));
    LANCE_RETURN_NOT_OK(frags.Append(c.bound.fragment_id));
    LANCE_RETURN_NOT_OK(starts.Append(c.bound.start));
    LANCE_RETURN_NOT_OK(lengths.Append(c.bound.length));
  }
  auto s = schema({field("min", type, true), field("max", type, true), field("null_count", uint32(), false),
                   field("nan_count", uint32(), false), field("fragment_id", uint64(), false),
                   field("zone_start", uint64(), false), field("zone_length", uint64(), false)},
                  MakeMetadata({{"rows_per_zone", std::to_string(rows_per_zone)}, {"null_bitmap", "1"}}));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr min_arr, MakeKeyArray(type, mins));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr max_arr, MakeKeyArray(type, maxs));
  std::vector<ArrayPtr> cols = {min_arr, max_arr};
  LANCE_RETURN_NOT_OK(FinishColumns({&null_counts, &nan_counts, &frags, &starts, &lengths}, &cols));
  LANCE_ASSIGN_OR_RAISE(uint64_t size, WriteZoneFile(store, kZoneMapFile, s, std::move(cols),
                                                     static_cast<int64_t>(cuts.size()), null_rows));
  TrainedIndex out;
  out.type_name = "ZONEMAP";
  out.details_type_url = "/lance.table.ZoneMapIndexDetails";
  out.details = ZoneMapDetails(rows_per_zone, DefaultUseSeeds(*type));
  out.index_version = 0;
  out.files = {{kZoneMapFile, size}};
  return out;
}

}  // namespace lance::index::scalar
