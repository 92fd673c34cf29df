// Internal: the executor shared by every GetRanges/ReadRanges implementation.
#pragma once

#include <functional>
#include <vector>

#include "lance/io/object_store.h"

namespace lance::io::internal {

// Plans `ranges` with CoalesceRanges, runs `read` once per merged read in parallel on `pool`
// (ParallelFor: safe from pool threads), and returns result i as a zero-copy slice for
// ranges[i]. Returns the error of the first failing merged read (in offset order).
// REQUIRES: the caller has bounds-checked every range.
Result<std::vector<BufferPtr>> ReadCoalesced(
    const std::vector<Range>& ranges, const CoalesceOptions& options, ThreadPool* pool,
    const std::function<Result<BufferPtr>(const Range&)>& read);

// The error GetRange/ReadAt return for a range outside an object of `size` bytes, or OK.
Status CheckRangeInObject(std::string_view path, int64_t offset, int64_t length, int64_t size);

}  // namespace lance::io::internal
