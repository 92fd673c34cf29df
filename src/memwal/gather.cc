#include "memwal/gather.h"

namespace lance::memwal::internal {

Result<RecordBatchPtr> TakeRows(const RecordBatchPtr& batch, const std::vector<int64_t>& rows) {
  if (rows.size() == static_cast<size_t>(batch->num_rows())) {
    bool identity = true;
    for (size_t i = 0; i < rows.size() && identity; ++i) identity = rows[i] == static_cast<int64_t>(i);
    if (identity) return batch;
  }
  // Runs [start, start + len) of consecutive source rows.
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t r : rows) {
    if (r < 0 || r >= batch->num_rows()) {
      return Status::InvalidArgument("row {} out of range (the batch has {} rows)", r,
                                     batch->num_rows());
    }
    if (!runs.empty() && runs.back().first + runs.back().second == r) {
      ++runs.back().second;
    } else {
      runs.emplace_back(r, 1);
    }
  }
  std::vector<ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(batch->num_columns()));
  for (int c = 0; c < batch->num_columns(); ++c) {
    const ArrayPtr& col = batch->column(c);
    if (runs.empty()) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr empty, MakeEmptyArray(col->type));
      columns.push_back(std::move(empty));
      continue;
    }
    if (runs.size() == 1) {
      columns.push_back(col->Slice(runs[0].first, runs[0].second));
      continue;
    }
    std::vector<ArrayPtr> pieces;
    pieces.reserve(runs.size());
    for (const auto& [start, len] : runs) pieces.push_back(col->Slice(start, len));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr joined, Concatenate(pieces));
    columns.push_back(std::move(joined));
  }
  return std::make_shared<RecordBatch>(batch->schema(), static_cast<int64_t>(rows.size()),
                                       std::move(columns));
}

}  // namespace lance::memwal::internal
