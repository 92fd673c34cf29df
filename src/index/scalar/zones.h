// What the zone-based scalar indexes (ZONEMAP, BLOOMFILTER) share, as lance 12 lays it out:
// a zone is a run of at most `capacity` consecutive training rows of one fragment (rows in
// address order; zones never span fragments), stored as three uint64 columns `fragment_id`,
// `zone_start` (the row offset of its first row in the fragment) and `zone_length` (last
// offset - first offset + 1: deleted rows inside the run are spanned, not counted). A query
// answers the whole span of every zone that may hold a match; the planner rechecks.
// The exact null rows of the index are a RowSet in a global buffer named by the schema
// metadata key `null_bitmap`.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/builder.h"
#include "lance/core/result.h"
#include "lance/file/file_reader.h"
#include "lance/index/index_store.h"
#include "lance/index/row_set.h"

namespace lance::index::scalar {

struct ZoneBound {
  uint64_t fragment_id = 0;
  uint64_t start = 0;
  uint64_t length = 0;
  // Row addresses [first, end).
  uint64_t first() const { return (fragment_id << 32) + start; }
  uint64_t end() const { return first() + length; }
};

// One zone of the training rows: positions [begin, end) of the concatenated values.
struct ZoneCut {
  int64_t begin = 0;
  int64_t end = 0;
  ZoneBound bound;
};

// Cuts `row_ids` (addresses, in scan order) into zones of at most `capacity` rows.
// Errors: InvalidArgument (capacity 0, offsets not ascending within a fragment).
Result<std::vector<ZoneCut>> CutZones(const std::vector<uint64_t>& row_ids, uint64_t capacity);

// The uint64 column `name` of `batch` (not null). Errors: Corruption naming `path`.
Result<const Array*> ZoneColumn(const RecordBatch& batch, const std::string& name,
                                TypeId type, const std::string& path);

// The zone bounds of `batch` (its fragment_id / zone_start / zone_length columns).
// Errors: Corruption naming `path` (missing or mistyped columns, a zone past 2^32 rows).
Result<std::vector<ZoneBound>> ReadZoneBounds(const RecordBatch& batch, const std::string& path);

// The unsigned integer value of schema metadata `key` of `reader`, or `fallback` when absent.
// Errors: Corruption naming `path` (present but not a number).
Result<uint64_t> MetadataNumber(const file::FileReader& reader, const std::string& key,
                                uint64_t fallback, const std::string& path);

// The exact null rows when the file names them (metadata null_bitmap = global buffer index),
// else nullopt. Errors: Corruption naming `path`.
Result<std::optional<RowSet>> ReadNullBitmap(const file::FileReader& reader, const std::string& path);

// Finishes `builders` into `cols` (appended in order). Errors: the builders'.
Status FinishColumns(std::initializer_list<ArrayBuilder*> builders, std::vector<ArrayPtr>* cols);

// Writes the zone file `file` of `store`: one batch of `cols` under schema `s` (whose metadata
// says null_bitmap = 1) and the exact null rows as global buffer 1. Returns the file's size.
// Errors: the writer's, Internal when the buffer does not land as number 1.
Result<uint64_t> WriteZoneFile(IndexStore& store, const char* file, const SchemaPtr& s,
                               std::vector<ArrayPtr> cols, int64_t zones, const RowSet& null_rows);

}  // namespace lance::index::scalar
