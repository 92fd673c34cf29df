// Sharding: how rows of a MemWAL table map to shards (mem_wal.md "Sharding Specs", Appendix 3).
//
// A ShardingSpec (spec_id > 0) holds ShardingFields; each field computes one shard value from
// source columns (Lance field ids) with a built-in transform:
//   unsharded  no source, always int32 0 (one shard);
//   bucket     one source, parameter num_buckets in [1, 1024]: int32
//              (murmur3_32(value, seed 0) & INT32_MAX) % num_buckets, nulls -> bucket 0;
//              sources bool, int8..uint64, float32/64, date32, time32/64, timestamp, utf8,
//              large_utf8;
//   identity   one source (bool, int8..uint64, utf8, large_utf8): the value itself.
// year, month, day, hour, multi_bucket and truncate are named by the spec as not MemWAL
// transforms and are refused; custom `expression`s are reserved and refused.
//
// Shard field values are raw Arrow scalar bytes: integers little-endian at their own width,
// bool one byte 0/1, strings their UTF-8 bytes; `result_type` names the type with the names
// lance 12 writes ("boolean", "int8".."uint64", "utf8", "large_utf8"; bucket/unsharded "int32").
//
// Shard ids: the Lance spec leaves them to the writer; lancedb (which drives lance 12's
// MemWAL) derives UUIDv5s in the namespace 4c534d57-5249-5445-5f53-484152443031 ("LSMWRITE_SHARD01")
// of "bucket-{n}", "identity-" + raw value bytes, or "unsharded". ShardRouter uses the same
// names, so rows route to the very shard directories a lancedb writer uses. That convention
// covers single-field specs only, which is all lancedb installs; ShardRouter refuses others.
//
// Everything here is a pure function or an immutable value, safe to share between threads.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/memwal/uuid.h"

namespace lance::memwal {

// --- the bucket hash (Appendix 3: murmur3 x86 32-bit, seed 0) -----------------------------

uint32_t BucketHashInt32(int32_t v);
uint32_t BucketHashInt64(int64_t v);
uint32_t BucketHashBytes(std::string_view bytes);
// -0.0 and +0.0 hash as bits 0, every NaN as the canonical quiet NaN, then as int32 / int64.
uint32_t BucketHashFloat32(float v);
uint32_t BucketHashFloat64(double v);
// (hash & INT32_MAX) % num_buckets. REQUIRES: num_buckets >= 1.
int32_t BucketOfHash(uint32_t hash, int32_t num_buckets);

inline constexpr int32_t kMaxBuckets = 1024;

// The bucket of every element of `values` (nulls -> 0), for a source type `bucket` accepts.
// Errors: InvalidArgument (num_buckets outside [1, 1024]), NotSupported (type).
Result<std::vector<int32_t>> ComputeBuckets(const Array& values, int32_t num_buckets);

// --- the spec model ------------------------------------------------------------------------

inline constexpr std::string_view kTransformUnsharded = "unsharded";
inline constexpr std::string_view kTransformBucket = "bucket";
inline constexpr std::string_view kTransformIdentity = "identity";
inline constexpr std::string_view kNumBucketsParameter = "num_buckets";

struct ShardingField {
  std::string field_id;
  std::vector<int32_t> source_ids;  // Lance field ids of the source columns
  std::optional<std::string> transform;
  std::optional<std::string> expression;
  std::string result_type;
  std::map<std::string, std::string> parameters;

  friend bool operator==(const ShardingField&, const ShardingField&) = default;
};

struct ShardingSpec {
  uint32_t spec_id = 0;
  std::vector<ShardingField> fields;

  friend bool operator==(const ShardingSpec&, const ShardingSpec&) = default;
};

// The specs lancedb's setLsmWriteSpec installs (spec id 1, one field with field_id "bucket"
// whatever the transform, as lance 12 writes it). `column` is the source's Lance field id and
// `type` its Arrow type. Errors: as ValidateShardingSpec.
Result<ShardingSpec> BucketSpec(int32_t column, const DataType& type, int32_t num_buckets);
Result<ShardingSpec> IdentitySpec(int32_t column, const DataType& type);
ShardingSpec UnshardedSpec();

// The result_type name of `type` ("boolean", "int8", .., "uint64", "utf8", "large_utf8").
// Errors: NotSupported for any other type.
Result<std::string> ShardResultTypeName(const DataType& type);

// Checks `spec` against the table schema `schema` (Field::id() = Lance field id): spec_id > 0,
// at least one field, unique field ids, a known transform with the right sources, parameters
// and result_type. Errors: InvalidArgument naming the field and what was expected (refused
// transform names say so), NotSupported for custom expressions and unsupported source types.
Status ValidateShardingSpec(const ShardingSpec& spec, const Schema& schema);

// --- shard ids (lancedb's convention) -------------------------------------------------------

// 4c534d57-5249-5445-5f53-484152443031.
Uuid LancedbShardNamespace();
Uuid BucketShardId(int32_t bucket);
Uuid IdentityShardId(std::string_view raw_value);
Uuid UnshardedShardId();

// --- routing -------------------------------------------------------------------------------

struct ShardFieldValue {
  std::string field_id;
  std::string value;  // raw Arrow scalar bytes

  friend bool operator==(const ShardFieldValue&, const ShardFieldValue&) = default;
};

// One shard a row routes to.
struct ShardTarget {
  Uuid shard_id;
  uint32_t spec_id = 0;
  std::vector<ShardFieldValue> field_values;  // one per ShardingField, in spec order

  friend bool operator==(const ShardTarget&, const ShardTarget&) = default;
};

// The rows of one input batch that go to one shard, in input order.
struct ShardSlice {
  ShardTarget shard;
  std::vector<int64_t> rows;  // positions in the input batch
  RecordBatchPtr batch;       // those rows
};

class ShardRouter {
 public:
  // Binds a single-field spec to the table schema (Field::id() = Lance field id); batches are
  // matched to the source columns by name. Errors: as ValidateShardingSpec; NotSupported for
  // specs of several fields (no shard-id convention exists for them).
  static Result<ShardRouter> Make(ShardingSpec spec, const Schema& schema);

  const ShardingSpec& spec() const { return spec_; }

  struct Routing {
    std::vector<ShardTarget> shards;  // distinct, in order of first appearance
    std::vector<uint32_t> row_shard;  // per input row: index into shards
  };
  // Errors: InvalidArgument when the batch lacks the source column, has it with another type,
  // or holds a null identity value.
  Result<Routing> Route(const RecordBatch& batch) const;
  // Route, then one slice per shard (shards in order of first appearance).
  Result<std::vector<ShardSlice>> Split(const RecordBatchPtr& batch) const;
  // Every shard the spec can route to (unsharded: one; bucket: one per bucket, in bucket order),
  // as Route names them. NotSupported for identity: its shards are the values that come.
  Result<std::vector<ShardTarget>> AllShards() const;

 private:
  ShardRouter() = default;
  ShardTarget Target(Uuid id, std::string value) const;
  ShardingSpec spec_;
  std::string transform_;
  std::string source_name_;  // empty for unsharded
  DataTypePtr source_type_;
  int32_t num_buckets_ = 0;
};

// The raw scalar bytes of element `i` of an identity-transform source. Errors: InvalidArgument
// for nulls, NotSupported for types identity does not take.
Result<std::string> IdentityValueBytes(const Array& values, int64_t i);

}  // namespace lance::memwal
