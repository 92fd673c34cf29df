#include "capi/scan_config.h"

#include <limits>

#include "capi/error.h"
#include "capi/projection.h"

namespace lance::capi {

Result<std::unique_ptr<RecordBatchReader>> OpenScan(const ScanConfig& config) {
  if (config.index_segments && !config.has_nearest) {
    return Invalid("index_segments requires nearest() to be configured");
  }
  Projection p = MakeProjection(config.columns, config.with_row_id);
  p.options.filter = config.filter.value_or("");
  p.options.offset = config.offset.value_or(0);
  p.options.limit = config.limit;
  p.options.fragment_ids = config.fragment_ids;
  p.options.batch_size = config.batch_size > 0 ? config.batch_size : kDefaultBatchSize;
  p.options.use_index = config.use_index.value_or(true);
  p.options.index_cache = config.index_cache;
  if (config.nearest) {
    // lance-c applies the knobs to lance's Scanner::nearest; unset ones keep its defaults.
    if (config.index_segments) {
      return Status::NotSupported("restricting a nearest query to index segments is not implemented "
                                  "in lance-cpp (its vector indexes have one segment)");
    }
    query::NearestOptions n = *config.nearest;
    if (config.nprobes) n.nprobes = *config.nprobes;
    if (config.refine_factor) n.refine_factor = *config.refine_factor;
    if (config.ef) n.ef = *config.ef;
    if (config.metric) n.metric = static_cast<linalg::DistanceType>(*config.metric);
    n.use_index = config.use_index.value_or(true);
    n.prefilter = config.prefilter;
    p.options.nearest = std::move(n);
  }
  if (config.fts) {
    // lance's scanner takes its limit as the search's k and returns every match without one;
    // the rows come best first with `_score`.
    if (config.offset.value_or(0) != 0) {
      return Status::NotSupported("full-text search with an offset is not implemented in lance-cpp");
    }
    query::FullTextQuery q = *config.fts;
    q.k = config.limit ? *config.limit : std::numeric_limits<int32_t>::max();
    if (q.k < 1) return Invalid("full-text search: the limit must be at least 1");
    p.options.limit.reset();
    p.options.full_text = std::move(q);
  }
  // The query layer's streaming scan: batches are read as the consumer pulls them.
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(config.dataset, p.options));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  return Apply(p, std::move(reader));
}

}  // namespace lance::capi
