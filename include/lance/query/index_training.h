// The rows a scalar index trains on, read through the query layer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/index/scalar/scalar_index.h"
#include "lance/table/snapshot.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::query {

// The live rows of column `column` (a top-level field) of `snapshot`, with their row ids
// (row addresses without stable row ids), in scan order -- what the reference trains on.
// `fragments`: only these fragments (unset: every fragment of the version). `pool`: where the
// scan runs (null: ThreadPool::Default()). Errors: InvalidArgument (no such column), the scan's.
Result<index::scalar::TrainingData> CollectTrainingData(
    std::shared_ptr<const table::Snapshot> snapshot, const std::string& column,
    const std::optional<std::vector<uint64_t>>& fragments = std::nullopt, ThreadPool* pool = nullptr);

}  // namespace lance::query
