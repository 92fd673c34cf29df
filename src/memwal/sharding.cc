// Sharding specs, the bucket hash of Appendix 3, lancedb's shard ids and batch routing.
#include "lance/memwal/sharding.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <set>
#include <unordered_map>

#include "memwal/gather.h"

namespace lance::memwal {

namespace {

// --- murmur3 pieces, exactly as Appendix 3 writes them (wrapping u32 arithmetic) -------------

uint32_t MixK1(uint32_t k) { return std::rotl(k * 0xcc9e2d51u, 15) * 0x1b873593u; }
uint32_t MixH1(uint32_t h, uint32_t k) { return std::rotl(h ^ k, 13) * 5u + 0xe6546b64u; }
uint32_t Fmix(uint32_t h, uint32_t len) {
  h ^= len;
  h = (h ^ (h >> 16)) * 0x85ebca6bu;
  h = (h ^ (h >> 13)) * 0xc2b2ae35u;
  return h ^ (h >> 16);
}

// Names the spec rules out as MemWAL transforms.
const std::set<std::string, std::less<>>& RefusedTransforms() {
  static const std::set<std::string, std::less<>> kRefused = {"year",         "month", "day",
                                                              "hour",         "multi_bucket",
                                                              "truncate"};
  return kRefused;
}

bool BucketSourceType(TypeId id) {
  switch (id) {
    case TypeId::kBool:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDate32:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kString:
    case TypeId::kLargeString:
      return true;
    default:
      return false;
  }
}

bool IdentitySourceType(TypeId id) {
  switch (id) {
    case TypeId::kBool:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kString:
    case TypeId::kLargeString:
      return true;
    default:
      return false;
  }
}

// The top-level field with Lance field id `id`, or null.
const Field* FieldWithId(const Schema& schema, int32_t id) {
  for (const auto& f : schema.fields()) {
    if (f->id() == id) return f.get();
  }
  return nullptr;
}

Result<int32_t> ParseNumBuckets(const ShardingField& f) {
  auto it = f.parameters.find(std::string(kNumBucketsParameter));
  if (it == f.parameters.end()) {
    return Status::InvalidArgument("sharding field '{}': the bucket transform needs the "
                                   "parameter num_buckets",
                                   f.field_id);
  }
  const std::string& text = it->second;
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxBuckets) {
    return Status::InvalidArgument("sharding field '{}': num_buckets is '{}', expected an "
                                   "integer in [1, {}]",
                                   f.field_id, text, kMaxBuckets);
  }
  return static_cast<int32_t>(n);
}

template <typename T>
std::string LittleEndianBytes(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));  // the build targets little-endian machines only
  return out;
}

std::string Int32Bytes(int32_t v) { return LittleEndianBytes(v); }

}  // namespace

// --- hash ------------------------------------------------------------------------------------

uint32_t BucketHashInt32(int32_t v) {
  return Fmix(MixH1(0, MixK1(static_cast<uint32_t>(v))), 4);
}

uint32_t BucketHashInt64(int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  const uint32_t low = static_cast<uint32_t>(u);
  const uint32_t high = static_cast<uint32_t>(u >> 32);
  return Fmix(MixH1(MixH1(0, MixK1(low)), MixK1(high)), 8);
}

uint32_t BucketHashBytes(std::string_view bytes) {
  uint32_t h = 0;
  const size_t n = bytes.size();
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t chunk = uint32_t{static_cast<uint8_t>(bytes[i])} |
                           (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) |
                           (uint32_t{static_cast<uint8_t>(bytes[i + 2])} << 16) |
                           (uint32_t{static_cast<uint8_t>(bytes[i + 3])} << 24);
    h = MixH1(h, MixK1(chunk));
  }
  for (; i < n; ++i) {
    const int32_t signed_byte = static_cast<int8_t>(static_cast<uint8_t>(bytes[i]));
    h = MixH1(h, MixK1(static_cast<uint32_t>(signed_byte)));
  }
  return Fmix(h, static_cast<uint32_t>(n));
}

uint32_t BucketHashFloat32(float v) {
  uint32_t bits;
  if (v == 0.0f) {
    bits = 0;
  } else if (std::isnan(v)) {
    bits = 0x7fc00000u;
  } else {
    bits = std::bit_cast<uint32_t>(v);
  }
  return BucketHashInt32(static_cast<int32_t>(bits));
}

uint32_t BucketHashFloat64(double v) {
  uint64_t bits;
  if (v == 0.0) {
    bits = 0;
  } else if (std::isnan(v)) {
    bits = 0x7ff8000000000000ull;
  } else {
    bits = std::bit_cast<uint64_t>(v);
  }
  return BucketHashInt64(static_cast<int64_t>(bits));
}

int32_t BucketOfHash(uint32_t hash, int32_t num_buckets) {
  return static_cast<int32_t>((hash & 0x7fffffffu) % static_cast<uint32_t>(num_buckets));
}

Result<std::vector<int32_t>> ComputeBuckets(const Array& values, int32_t num_buckets) {
  if (num_buckets < 1 || num_buckets > kMaxBuckets) {
    return Status::InvalidArgument("num_buckets is {}, expected [1, {}]", num_buckets,
                                   kMaxBuckets);
  }
  const int64_t n = values.length;
  std::vector<int32_t> out(static_cast<size_t>(n), 0);
  auto each = [&](auto hash_of) {
    for (int64_t i = 0; i < n; ++i) {
      if (values.IsValid(i)) out[static_cast<size_t>(i)] = BucketOfHash(hash_of(i), num_buckets);
    }
  };
  switch (values.type_id()) {
    case TypeId::kBool:
      each([&](int64_t i) { return BucketHashInt32(values.BoolValue(i) ? 1 : 0); });
      break;
    case TypeId::kInt8:
      each([&](int64_t i) { return BucketHashInt32(values.Values<int8_t>()[i]); });
      break;
    case TypeId::kInt16:
      each([&](int64_t i) { return BucketHashInt32(values.Values<int16_t>()[i]); });
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      each([&](int64_t i) { return BucketHashInt32(values.Values<int32_t>()[i]); });
      break;
    case TypeId::kUInt8:
      each([&](int64_t i) { return BucketHashInt32(values.Values<uint8_t>()[i]); });
      break;
    case TypeId::kUInt16:
      each([&](int64_t i) { return BucketHashInt32(values.Values<uint16_t>()[i]); });
      break;
    case TypeId::kUInt32:
      each([&](int64_t i) {
        return BucketHashInt32(static_cast<int32_t>(values.Values<uint32_t>()[i]));
      });
      break;
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      each([&](int64_t i) { return BucketHashInt64(values.Values<int64_t>()[i]); });
      break;
    case TypeId::kUInt64:
      each([&](int64_t i) {
        return BucketHashInt64(static_cast<int64_t>(values.Values<uint64_t>()[i]));
      });
      break;
    case TypeId::kFloat:
      each([&](int64_t i) { return BucketHashFloat32(values.Values<float>()[i]); });
      break;
    case TypeId::kDouble:
      each([&](int64_t i) { return BucketHashFloat64(values.Values<double>()[i]); });
      break;
    case TypeId::kString:
    case TypeId::kLargeString:
      each([&](int64_t i) { return BucketHashBytes(values.GetView(i)); });
      break;
    default:
      return Status::NotSupported("the bucket transform does not take {} values (it takes "
                                  "bool, integers, float32/64, date32, time, timestamp, utf8, "
                                  "large_utf8)",
                                  values.type->ToString());
  }
  return out;
}

// --- spec model ------------------------------------------------------------------------------

Result<std::string> ShardResultTypeName(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBool: return std::string("boolean");
    case TypeId::kInt8: return std::string("int8");
    case TypeId::kInt16: return std::string("int16");
    case TypeId::kInt32: return std::string("int32");
    case TypeId::kInt64: return std::string("int64");
    case TypeId::kUInt8: return std::string("uint8");
    case TypeId::kUInt16: return std::string("uint16");
    case TypeId::kUInt32: return std::string("uint32");
    case TypeId::kUInt64: return std::string("uint64");
    case TypeId::kString: return std::string("utf8");
    case TypeId::kLargeString: return std::string("large_utf8");
    default:
      return Status::NotSupported("{} has no MemWAL shard result type name", type.ToString());
  }
}

Result<ShardingSpec> BucketSpec(int32_t column, const DataType& type, int32_t num_buckets) {
  if (!BucketSourceType(type.id())) {
    return Status::NotSupported("bucket sharding cannot hash {} values", type.ToString());
  }
  if (num_buckets < 1 || num_buckets > kMaxBuckets) {
    return Status::InvalidArgument("num_buckets is {}, expected [1, {}]", num_buckets,
                                   kMaxBuckets);
  }
  ShardingField f;
  f.field_id = "bucket";
  f.source_ids = {column};
  f.transform = std::string(kTransformBucket);
  f.result_type = "int32";
  f.parameters[std::string(kNumBucketsParameter)] = std::to_string(num_buckets);
  return ShardingSpec{1, {std::move(f)}};
}

Result<ShardingSpec> IdentitySpec(int32_t column, const DataType& type) {
  if (!IdentitySourceType(type.id())) {
    return Status::NotSupported("identity sharding cannot use {} values as shard values",
                                type.ToString());
  }
  ShardingField f;
  f.field_id = "bucket";
  f.source_ids = {column};
  f.transform = std::string(kTransformIdentity);
  LANCE_ASSIGN_OR_RAISE(f.result_type, ShardResultTypeName(type));
  return ShardingSpec{1, {std::move(f)}};
}

ShardingSpec UnshardedSpec() {
  ShardingField f;
  f.field_id = "bucket";
  f.transform = std::string(kTransformUnsharded);
  f.result_type = "int32";
  return ShardingSpec{1, {std::move(f)}};
}

Status ValidateShardingSpec(const ShardingSpec& spec, const Schema& schema) {
  if (spec.spec_id == 0) {
    return Status::InvalidArgument("sharding spec: spec_id must be positive (0 marks manually "
                                   "created shards)");
  }
  if (spec.fields.empty()) {
    return Status::InvalidArgument("sharding spec {}: no sharding fields", spec.spec_id);
  }
  std::set<std::string> ids;
  for (const ShardingField& f : spec.fields) {
    if (f.field_id.empty()) {
      return Status::InvalidArgument("sharding spec {}: a sharding field has an empty field_id",
                                     spec.spec_id);
    }
    if (!ids.insert(f.field_id).second) {
      return Status::InvalidArgument("sharding spec {}: field_id '{}' appears twice",
                                     spec.spec_id, f.field_id);
    }
    if (f.transform && f.expression) {
      return Status::InvalidArgument("sharding field '{}': transform and expression are "
                                     "mutually exclusive",
                                     f.field_id);
    }
    if (f.expression) {
      return Status::NotSupported("sharding field '{}': custom expressions ('{}') are reserved "
                                  "by the MemWAL spec; use a built-in transform",
                                  f.field_id, *f.expression);
    }
    if (!f.transform) {
      return Status::InvalidArgument("sharding field '{}': neither transform nor expression",
                                     f.field_id);
    }
    const std::string& t = *f.transform;
    if (RefusedTransforms().count(t)) {
      return Status::InvalidArgument("sharding field '{}': '{}' is not a MemWAL sharding "
                                     "transform (the spec refuses year, month, day, hour, "
                                     "multi_bucket and truncate; use unsharded, bucket or "
                                     "identity)",
                                     f.field_id, t);
    }
    if (t == kTransformUnsharded) {
      if (!f.source_ids.empty()) {
        return Status::InvalidArgument("sharding field '{}': unsharded takes no source "
                                       "columns, found {}",
                                       f.field_id, f.source_ids.size());
      }
      if (f.result_type != "int32") {
        return Status::InvalidArgument("sharding field '{}': unsharded yields int32, "
                                       "result_type is '{}'",
                                       f.field_id, f.result_type);
      }
      continue;
    }
    if (t != kTransformBucket && t != kTransformIdentity) {
      return Status::InvalidArgument("sharding field '{}': unknown transform '{}' (expected "
                                     "unsharded, bucket or identity)",
                                     f.field_id, t);
    }
    if (f.source_ids.size() != 1) {
      return Status::InvalidArgument("sharding field '{}': {} takes exactly one source column, "
                                     "found {}",
                                     f.field_id, t, f.source_ids.size());
    }
    const Field* src = FieldWithId(schema, f.source_ids[0]);
    if (src == nullptr) {
      return Status::InvalidArgument("sharding field '{}': source field id {} is not a "
                                     "top-level column of the table",
                                     f.field_id, f.source_ids[0]);
    }
    if (t == kTransformBucket) {
      LANCE_RETURN_NOT_OK(ParseNumBuckets(f).status());
      if (!BucketSourceType(src->type()->id())) {
        return Status::NotSupported("sharding field '{}': bucket cannot hash column '{}' of "
                                    "type {}",
                                    f.field_id, src->name(), src->type()->ToString());
      }
      if (f.result_type != "int32") {
        return Status::InvalidArgument("sharding field '{}': bucket yields int32, result_type "
                                       "is '{}'",
                                       f.field_id, f.result_type);
      }
    } else {
      if (!IdentitySourceType(src->type()->id())) {
        return Status::NotSupported("sharding field '{}': identity cannot use column '{}' of "
                                    "type {} as a shard value",
                                    f.field_id, src->name(), src->type()->ToString());
      }
      LANCE_ASSIGN_OR_RAISE(std::string want, ShardResultTypeName(*src->type()));
      if (f.result_type != want) {
        return Status::InvalidArgument("sharding field '{}': identity of column '{}' yields "
                                       "'{}', result_type is '{}'",
                                       f.field_id, src->name(), want, f.result_type);
      }
    }
  }
  return Status::OK();
}

// --- shard ids -------------------------------------------------------------------------------

Uuid LancedbShardNamespace() {
  static const Uuid kNamespace = *Uuid::Parse("4c534d57-5249-5445-5f53-484152443031");
  return kNamespace;
}

Uuid BucketShardId(int32_t bucket) {
  return Uuid::V5(LancedbShardNamespace(), "bucket-" + std::to_string(bucket));
}

Uuid IdentityShardId(std::string_view raw_value) {
  std::string name = "identity-";
  name.append(raw_value);
  return Uuid::V5(LancedbShardNamespace(), name);
}

Uuid UnshardedShardId() { return Uuid::V5(LancedbShardNamespace(), "unsharded"); }

// --- routing ---------------------------------------------------------------------------------

Result<std::string> IdentityValueBytes(const Array& values, int64_t i) {
  if (values.IsNull(i)) {
    return Status::InvalidArgument("identity sharding: row {} has a null shard value (identity "
                                   "shard values must be non-null)",
                                   i);
  }
  switch (values.type_id()) {
    case TypeId::kBool: return std::string(1, values.BoolValue(i) ? '\x01' : '\x00');
    case TypeId::kInt8: return LittleEndianBytes(values.Values<int8_t>()[i]);
    case TypeId::kInt16: return LittleEndianBytes(values.Values<int16_t>()[i]);
    case TypeId::kInt32: return LittleEndianBytes(values.Values<int32_t>()[i]);
    case TypeId::kInt64: return LittleEndianBytes(values.Values<int64_t>()[i]);
    case TypeId::kUInt8: return LittleEndianBytes(values.Values<uint8_t>()[i]);
    case TypeId::kUInt16: return LittleEndianBytes(values.Values<uint16_t>()[i]);
    case TypeId::kUInt32: return LittleEndianBytes(values.Values<uint32_t>()[i]);
    case TypeId::kUInt64: return LittleEndianBytes(values.Values<uint64_t>()[i]);
    case TypeId::kString:
    case TypeId::kLargeString:
      return std::string(values.GetView(i));
    default:
      return Status::NotSupported("identity sharding cannot use {} values",
                                  values.type->ToString());
  }
}

Result<ShardRouter> ShardRouter::Make(ShardingSpec spec, const Schema& schema) {
  LANCE_RETURN_NOT_OK(ValidateShardingSpec(spec, schema));
  if (spec.fields.size() != 1) {
    return Status::NotSupported("sharding spec {} has {} fields; shard ids are derived (as "
                                "lancedb does) for single-field specs only",
                                spec.spec_id, spec.fields.size());
  }
  ShardRouter r;
  const ShardingField& f = spec.fields[0];
  r.transform_ = *f.transform;
  if (r.transform_ != kTransformUnsharded) {
    const Field* src = FieldWithId(schema, f.source_ids[0]);
    r.source_name_ = src->name();
    r.source_type_ = src->type();
    if (r.transform_ == kTransformBucket) {
      LANCE_ASSIGN_OR_RAISE(r.num_buckets_, ParseNumBuckets(f));
    }
  }
  r.spec_ = std::move(spec);
  return r;
}

Result<ShardRouter::Routing> ShardRouter::Route(const RecordBatch& batch) const {
  Routing out;
  const size_t n = static_cast<size_t>(batch.num_rows());
  out.row_shard.assign(n, 0);
  auto target = [this](Uuid id, std::string value) { return Target(id, std::move(value)); };
  if (transform_ == kTransformUnsharded) {
    if (n > 0) out.shards.push_back(target(UnshardedShardId(), Int32Bytes(0)));
    return out;
  }
  ArrayPtr col = batch.GetColumnByName(source_name_);
  if (!col) {
    return Status::InvalidArgument("routing: the batch has no column '{}' (the source of "
                                   "sharding field '{}')",
                                   source_name_, spec_.fields[0].field_id);
  }
  if (!col->type->Equals(*source_type_)) {
    return Status::InvalidArgument("routing: column '{}' is {} in the batch but {} in the "
                                   "table",
                                   source_name_, col->type->ToString(), source_type_->ToString());
  }
  if (transform_ == kTransformBucket) {
    LANCE_ASSIGN_OR_RAISE(std::vector<int32_t> buckets, ComputeBuckets(*col, num_buckets_));
    std::vector<int32_t> slot(static_cast<size_t>(num_buckets_), -1);
    for (size_t i = 0; i < n; ++i) {
      const int32_t b = buckets[i];
      if (slot[static_cast<size_t>(b)] < 0) {
        slot[static_cast<size_t>(b)] = static_cast<int32_t>(out.shards.size());
        out.shards.push_back(target(BucketShardId(b), Int32Bytes(b)));
      }
      out.row_shard[i] = static_cast<uint32_t>(slot[static_cast<size_t>(b)]);
    }
    return out;
  }
  std::unordered_map<std::string, uint32_t> slot;
  for (size_t i = 0; i < n; ++i) {
    LANCE_ASSIGN_OR_RAISE(std::string v, IdentityValueBytes(*col, static_cast<int64_t>(i)));
    auto [it, inserted] = slot.try_emplace(v, static_cast<uint32_t>(out.shards.size()));
    if (inserted) out.shards.push_back(target(IdentityShardId(v), v));
    out.row_shard[i] = it->second;
  }
  return out;
}

ShardTarget ShardRouter::Target(Uuid id, std::string value) const {
  return ShardTarget{id, spec_.spec_id, {ShardFieldValue{spec_.fields[0].field_id, std::move(value)}}};
}

Result<std::vector<ShardTarget>> ShardRouter::AllShards() const {
  if (transform_ == kTransformUnsharded) return std::vector<ShardTarget>{Target(UnshardedShardId(), Int32Bytes(0))};
  if (transform_ != kTransformBucket) {
    return Status::NotSupported("sharding spec {}: the shards of an {} transform are the values "
                                "written, not known in advance",
                                spec_.spec_id, transform_);
  }
  std::vector<ShardTarget> out;
  for (int32_t b = 0; b < num_buckets_; ++b) out.push_back(Target(BucketShardId(b), Int32Bytes(b)));
  return out;
}

Result<std::vector<ShardSlice>> ShardRouter::Split(const RecordBatchPtr& batch) const {
  LANCE_ASSIGN_OR_RAISE(Routing routing, Route(*batch));
  std::vector<ShardSlice> out(routing.shards.size());
  for (size_t s = 0; s < out.size(); ++s) out[s].shard = routing.shards[s];
  for (size_t i = 0; i < routing.row_shard.size(); ++i) {
    out[routing.row_shard[i]].rows.push_back(static_cast<int64_t>(i));
  }
  for (ShardSlice& s : out) {
    LANCE_ASSIGN_OR_RAISE(s.batch, internal::TakeRows(batch, s.rows));
  }
  return out;
}

}  // namespace lance::memwal
