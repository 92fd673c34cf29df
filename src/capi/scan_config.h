// What a LanceScanner records (lance-c applies every setting when the scan starts) and how a
// scan is started from it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/query/nearest.h"
#include "lance/query/text_search.h"
#include "lance/table/snapshot.h"

namespace lance::capi {

// lance's default scan batch size (rows), used when the scanner sets none.
inline constexpr int64_t kDefaultBatchSize = 8192;

struct ScanConfig {
  std::shared_ptr<const table::Snapshot> dataset;  // the version the scanner reads
  std::shared_ptr<index::IndexCache> index_cache;  // its handle's (Dataset::index_cache)
  std::optional<std::vector<std::string>> columns;
  std::optional<std::string> filter;
  std::optional<int64_t> limit;
  std::optional<int64_t> offset;
  int64_t batch_size = 0;  // <= 0: kDefaultBatchSize
  bool with_row_id = false;
  std::optional<std::vector<uint64_t>> fragment_ids;
  // Search settings, recorded as lance-c records them and applied when the scan starts:
  // lance_scanner_nearest sets `nearest` (the query cast to float32) and has_nearest; the
  // knobs below tune it. lance_scanner_full_text_search sets `fts` (a match query, operator
  // OR, over the named column or the only indexed one) and has_fts; the scan's limit is its k.
  bool has_nearest = false;
  std::optional<query::NearestOptions> nearest;
  bool has_fts = false;
  std::optional<query::FullTextQuery> fts;
  std::optional<std::vector<std::array<uint8_t, 16>>> index_segments;
  std::optional<uint32_t> nprobes, refine_factor, ef;
  std::optional<int32_t> metric;
  std::optional<bool> use_index;
  bool prefilter = false;
};

// Starts the scan `config` describes. Errors: InvalidArgument for unknown columns, a filter
// that does not parse or bind, a negative limit or offset, index segments without a nearest
// query; the reads' errors.
Result<std::unique_ptr<RecordBatchReader>> OpenScan(const ScanConfig& config);

}  // namespace lance::capi
