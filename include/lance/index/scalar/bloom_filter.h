// BLOOMFILTER: a split-block bloom filter per zone of rows
// (docs/format/table/index/scalar/bloom_filter.md), as lance 12.0.0 writes it (index
// version 0): `bloomfilter.lance` with one row per zone, columns `fragment_id`, `zone_start`,
// `zone_length` (uint64, zones.h), `has_null` (bool), `bloom_filter_data` (binary: the
// filter's blocks, split_block_bloom.h); schema metadata `bloomfilter_item` (the zone size
// and expected items, default "8192"), `bloomfilter_probability` (default "0.00057", giving
// 32 KiB filters) and `null_bitmap` = "1", global buffer 1 being the exact null rows (a RowSet).
// Details: /lance.index.pb.BloomFilterIndexDetails (empty).
//
// A value's hash is XXH64 (seed 0) of its bytes: integers, floats, dates, times and
// timestamps little-endian at the column's width, strings and binary their bytes. Booleans
// are not indexed (as in lance 12).
//
// Inexact: answers =, IN and IS NULL with every row of the zones whose filter may hold a
// value (IS NULL: the zones with nulls); the planner rechecks. The zone list is read at open.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lance/index/scalar/scalar_index.h"

namespace lance::index::scalar {

inline constexpr const char* kBloomFilterFile = "bloomfilter.lance";
inline constexpr uint64_t kBloomFilterDefaultItems = 8192;
inline constexpr double kBloomFilterDefaultProbability = 0.00057;

// `key_type`: the type of the indexed column (the file does not record it), used to hash the
// values a query asks for. Errors: InvalidArgument (a type the index cannot key), Corruption.
Result<std::shared_ptr<ScalarIndex>> OpenBloomFilterIndex(std::shared_ptr<IndexStore> store,
                                                          DataTypePtr key_type);

// The bytes lance 12 hashes for `v` as a key of a column of type `type`; nullopt when `v`
// has no value of that type (3.5 for an integer column, a string for a number).
std::optional<std::string> BloomKeyBytes(const ScalarValue& v, const DataType& type);

// Errors: InvalidArgument (a type the index cannot key, zero items, a probability outside
// [0, 1)), IOError.
Result<TrainedIndex> TrainBloomFilterIndex(IndexStore& store, const TrainingData& data,
                                           uint64_t number_of_items = kBloomFilterDefaultItems,
                                           double probability = kBloomFilterDefaultProbability);

}  // namespace lance::index::scalar
