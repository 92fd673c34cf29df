#include "capi/projection.h"

namespace lance::capi {

namespace {

// A reader's batches without their columns (their rows kept).
class NoColumnsReader final : public RecordBatchReader {
 public:
  explicit NoColumnsReader(std::unique_ptr<RecordBatchReader> input)
      : input_(std::move(input)), schema_(::lance::schema({}, input_->schema()->metadata())) {}
  SchemaPtr schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    LANCE_ASSIGN_OR_RAISE(auto b, input_->Next());
    if (!b) return b;
    return std::make_shared<RecordBatch>(schema_, b->num_rows(), std::vector<ArrayPtr>{});
  }

 private:
  std::unique_ptr<RecordBatchReader> input_;
  SchemaPtr schema_;
};

}  // namespace

Projection MakeProjection(const std::optional<std::vector<std::string>>& columns, bool with_row_id) {
  Projection p;
  p.options.with_row_id = with_row_id;
  if (!columns) return p;
  if (columns->empty() && !with_row_id) {
    p.options.columns = {"_rowaddr"};
    p.no_columns = true;
    return p;
  }
  p.options.columns = *columns;
  if (columns->empty()) p.options.columns = {"_rowid"};
  return p;
}

Result<SchemaPtr> OutputSchema(const std::shared_ptr<const table::Snapshot>& dataset,
                               const Projection& p) {
  LANCE_ASSIGN_OR_RAISE(SchemaPtr scanned, query::Planner(dataset).OutputSchema(p.options));
  if (p.no_columns) return schema({}, scanned->metadata());
  return scanned;
}

std::unique_ptr<RecordBatchReader> Apply(const Projection& p,
                                         std::unique_ptr<RecordBatchReader> reader) {
  if (!p.no_columns) return reader;
  return std::make_unique<NoColumnsReader>(std::move(reader));
}

}  // namespace lance::capi
