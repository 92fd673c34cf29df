// Writing an IVF segment whose partitions' rows changed but whose model did not: the
// compaction remap (rows dropped, re-addressed) and the optimize merge (rows added) both
// write auxiliary.idx anew with the old global buffers (the PQ codebook) and a new partition
// table, and copy index.idx (the centroids). Internal to the index layer.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/file/file_reader.h"
#include "lance/index/index_store.h"

namespace lance::index::vector {

// The global buffer that auxiliary.idx's "lance:ivf" metadata names (the IVF partition table).
// Errors: Corruption naming `path` when it names none.
Result<int> IvfBufferOf(const file::FileReader& reader, const std::string& path);

// The double serde_json (lance 12's JSON reader, built without its float_roundtrip feature)
// makes of the JSON number `text`: its digits as a u64 rounded to double, then multiplied or
// divided once by a power of ten -- up to one ulp off the nearest double for 17 digits.
// Anything else (more than 19 digits) is read by strtod.
double SerdeJsonDouble(std::string_view text);

// `schema` with auxiliary.idx's storage_metadata as lance 12 writes it again when it rewrites a
// segment from the quantizer it read: SQ bounds {start, end} read as SerdeJsonDouble reads them
// and printed shortest. Other metadata (and a schema without SQ bounds) is kept as it is.
SchemaPtr ReserializedStorageSchema(const SchemaPtr& schema);

struct RewrittenIvfSizes {
  uint64_t auxiliary = 0;  // bytes of the new auxiliary.idx
  uint64_t index = 0;      // bytes of index.idx (copied)
};

// Writes `to`'s auxiliary.idx: `columns` (`n` rows of `schema`, the storage as `aux`, `from`'s
// auxiliary.idx, lays it out) and `aux`'s global buffers as they were but the IVF partition
// table, whose offsets and lengths are rebuilt from `lengths` (rows per partition, in order);
// then copies `from`'s index.idx, or, given `write_index` (an HNSW index: its graphs are built
// anew, hnsw_rebuild.h), has it write `to`'s index.idx and return its size.
// Errors: Corruption (a damaged IVF buffer), IOError, those of `write_index`.
Result<RewrittenIvfSizes> WriteRewrittenIvf(const IndexStore& from, IndexStore& to, const file::FileReader& aux,
                                            const SchemaPtr& schema, int64_t n, std::vector<ArrayPtr> columns,
                                            const std::vector<uint32_t>& lengths,
                                            const std::function<Result<uint64_t>(IndexStore&)>& write_index = nullptr);

}  // namespace lance::index::vector
