// LSM reads of a MemWAL table (lance/memwal/lsm_read.h says what is read and which row wins):
// the base table and every shard's unmerged flushed generations read through the query
// layer's scanner, the WAL tail (strong consistency) from storage, last write wins by
// primary key.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/lsm_read.h"

namespace lance::query {

// Every visible row (base order for base rows that survive, then the newer rows in source
// order). Errors: IOError, Corruption.
Result<std::vector<RecordBatchPtr>> LsmScan(const std::shared_ptr<io::ObjectStore>& store,
                                            const std::string& root,
                                            const memwal::LsmReadOptions& options = {},
                                            memwal::LsmReadStats* stats = nullptr);

}  // namespace lance::query
