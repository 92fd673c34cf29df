// What merging flushed generations into the base table did (dataset::MergeMemWalGenerations,
// lance/dataset/memwal_merge.h, which reads the rows through the query layer and commits).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/memwal/uuid.h"

namespace lance::memwal {

struct MergeReport {
  struct Merged {
    Uuid shard;
    uint64_t generation = 0;
    uint64_t version = 0;  // the base version that holds it
    int64_t rows_upserted = 0;
    int64_t rows_deleted = 0;  // base rows replaced or deleted
  };
  std::vector<Merged> merged;
  int64_t skipped = 0;  // generations already merged (earlier, or by a concurrent merger)
};

}  // namespace lance::memwal
