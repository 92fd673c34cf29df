#include "capi/projection.h"

namespace lance::capi {

Projection MakeProjection(const table::Snapshot& dataset,
                          const std::optional<std::vector<std::string>>& columns, bool with_row_id) {
  Projection p;
  if (!columns) {
    p.options.with_row_id = with_row_id;
    return p;
  }
  // Which system columns are asked for, and where each requested name comes from.
  enum Kind { kData, kRowId, kRowAddr };
  std::vector<std::pair<Kind, int>> wanted;
  for (const auto& name : *columns) {
    if (name == "_rowid") {
      p.options.with_row_id = true;
      wanted.emplace_back(kRowId, 0);
    } else if (name == "_rowaddr") {
      p.options.with_row_addr = true;
      wanted.emplace_back(kRowAddr, 0);
    } else {
      wanted.emplace_back(kData, static_cast<int>(p.options.columns.size()));
      p.options.columns.push_back(name);
    }
  }
  const bool append_row_id = with_row_id && !p.options.with_row_id;
  if (append_row_id) {
    p.options.with_row_id = true;
    wanted.emplace_back(kRowId, 0);
  }
  // Scanned layout: data columns (every column when none is named), _rowid, _rowaddr.
  const int n_data = p.options.columns.empty() ? dataset.schema()->num_fields()
                                               : static_cast<int>(p.options.columns.size());
  const int row_id_at = n_data;
  const int row_addr_at = n_data + (p.options.with_row_id ? 1 : 0);
  for (const auto& [kind, index] : wanted) {
    p.pick.push_back(kind == kData ? index : kind == kRowId ? row_id_at : row_addr_at);
  }
  const int scanned = row_addr_at + (p.options.with_row_addr ? 1 : 0);
  p.identity = static_cast<int>(p.pick.size()) == scanned && !p.options.columns.empty();
  for (int i = 0; p.identity && i < scanned; ++i) p.identity = p.pick[static_cast<size_t>(i)] == i;
  return p;
}

Result<SchemaPtr> OutputSchema(const table::Snapshot& dataset, const Projection& p) {
  LANCE_ASSIGN_OR_RAISE(SchemaPtr scanned, dataset.ProjectedSchema(p.options));
  if (p.identity) return scanned;
  std::vector<FieldPtr> fields;
  for (int c : p.pick) fields.push_back(scanned->field(c));
  return schema(std::move(fields), scanned->metadata());
}

RecordBatchPtr Apply(const Projection& p, const RecordBatchPtr& batch) {
  if (p.identity) return batch;
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> cols;
  for (int c : p.pick) {
    fields.push_back(batch->schema()->field(c));
    cols.push_back(batch->column(c));
  }
  return std::make_shared<RecordBatch>(schema(std::move(fields), batch->schema()->metadata()),
                                       batch->num_rows(), std::move(cols));
}

}  // namespace lance::capi
