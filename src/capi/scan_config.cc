#include "capi/scan_config.h"

#include "capi/error.h"
#include "capi/projection.h"

namespace lance::capi {

Result<std::unique_ptr<RecordBatchReader>> OpenScan(const ScanConfig& config) {
  if (config.index_segments && !config.has_nearest) {
    return Invalid("index_segments requires nearest() to be configured");
  }
  const table::Snapshot& ds = *config.dataset;
  Projection p = MakeProjection(ds, config.columns, config.with_row_id);
  p.options.filter = config.filter.value_or("");
  p.options.offset = config.offset.value_or(0);
  p.options.limit = config.limit;
  p.options.fragment_ids = config.fragment_ids;
  p.options.batch_size = config.batch_size > 0 ? config.batch_size : kDefaultBatchSize;
  LANCE_ASSIGN_OR_RAISE(SchemaPtr schema, OutputSchema(ds, p));
  // The table API scans into memory today; the batches are then handed out one by one.
  LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches, ds.Scan(p.options));
  for (auto& b : batches) b = Apply(p, b);
  return std::unique_ptr<RecordBatchReader>(
      std::make_unique<VectorRecordBatchReader>(std::move(schema), std::move(batches)));
}

}  // namespace lance::capi
