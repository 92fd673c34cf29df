// Writing an IVF segment whose partitions' rows changed but whose model did not: the
// compaction remap (rows dropped, re-addressed) and the optimize merge (rows added) both
// write auxiliary.idx anew with the old global buffers (the PQ codebook) and a new partition
// table, and copy index.idx (the centroids). Internal to the index layer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/file/file_reader.h"
#include "lance/index/index_store.h"

namespace lance::index::vector {

// The global buffer that auxiliary.idx's "lance:ivf" metadata names (the IVF partition table).
// Errors: Corruption naming `path` when it names none.
Result<int> IvfBufferOf(const file::FileReader& reader, const std::string& path);

struct RewrittenIvfSizes {
  uint64_t auxiliary = 0;  // bytes of the new auxiliary.idx
  uint64_t index = 0;      // bytes of index.idx (copied)
};

// Writes `to`'s auxiliary.idx: `columns` (`n` rows of `schema`, the storage as `aux`, `from`'s
// auxiliary.idx, lays it out) and `aux`'s global buffers as they were but the IVF partition
// table, whose offsets and lengths are rebuilt from `lengths` (rows per partition, in order);
// then copies `from`'s index.idx. Errors: Corruption (a damaged IVF buffer), IOError.
Result<RewrittenIvfSizes> WriteRewrittenIvf(const IndexStore& from, IndexStore& to, const file::FileReader& aux,
                                            const SchemaPtr& schema, int64_t n, std::vector<ArrayPtr> columns,
                                            const std::vector<uint32_t>& lengths);

}  // namespace lance::index::vector
