#include "capi/scan_config.h"

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
  // The query layer's streaming scan: batches are read as the consumer pulls them.
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(config.dataset, p.options));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  return Apply(p, std::move(reader));
}

}  // namespace lance::capi
