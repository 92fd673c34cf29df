// ZONEMAP: min / max / null count / NaN count per zone of rows
// (docs/format/table/index/scalar/zonemap.md), as lance 12.0.0 writes it (index version 0):
// `zonemap.lance` with one row per zone, columns `min`, `max` (the column's type, nullable:
// null when the zone has no non-null value), `null_count`, `nan_count` (uint32), then
// `fragment_id`, `zone_start`, `zone_length` (uint64, zones.h); schema metadata
// `rows_per_zone` (default "8192") and `null_bitmap` = "1", global buffer 1 being the exact
// null rows (a RowSet). A zone's max is NaN when it holds a NaN; its min is the smallest
// non-NaN value. Details: /lance.table.ZoneMapIndexDetails {rows_per_zone = 1,
// use_seeds = 2 (lance 12's default: true for strings / binary, false for narrow types),
// has_null_bitmap = 3}.
//
// Inexact: Search returns every row of the zones that may hold a match (`exact` false) and
// the planner rechecks the predicate on them. Answers =, ranges, IN, IS [NOT] NULL and
// LIKE 'prefix%' (strings / binary). The whole zone list is read at open.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lance/index/scalar/scalar_index.h"

namespace lance::index::scalar {

inline constexpr const char* kZoneMapFile = "zonemap.lance";
inline constexpr uint64_t kZoneMapDefaultRowsPerZone = 8192;

Result<std::shared_ptr<ScalarIndex>> OpenZoneMapIndex(std::shared_ptr<IndexStore> store);

// ZoneMapIndexDetails bytes as JSON: {"rows_per_zone":N,"use_seeds":B,"has_null_bitmap":B},
// the fields present only. Errors: Corruption (not such a message).
Result<std::string> ZoneMapDetailsJson(std::string_view details);

// Errors: InvalidArgument (a type the index cannot key, rows_per_zone 0, rows not in address
// order), IOError.
Result<TrainedIndex> TrainZoneMapIndex(IndexStore& store, const TrainingData& data,
                                       uint64_t rows_per_zone = kZoneMapDefaultRowsPerZone);

}  // namespace lance::index::scalar
