#include "query/lsm_keys.h"

#include "lance/columnar/compute.h"

namespace lance::query::internal {

Status AddKeys(const memwal::PrimaryKeyEncoder& enc, const std::vector<RecordBatchPtr>& batches, KeySet* keys) {
  std::string key;
  for (const auto& b : batches) {
    LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc.KeyColumns(*b));
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      key.clear();
      enc.Encode(cols, r, &key);
      keys->insert(key);
    }
  }
  return Status::OK();
}

Result<std::vector<int64_t>> UnreplacedRows(const memwal::PrimaryKeyEncoder* enc, const RecordBatch& rows,
                                            const KeySet& newer, std::vector<std::string>* kept_keys) {
  std::vector<int64_t> keep;
  keep.reserve(static_cast<size_t>(rows.num_rows()));
  // Keys are encoded only when a newer source may replace rows or the caller keeps them.
  if (enc == nullptr || (newer.empty() && kept_keys == nullptr)) {
    for (int64_t r = 0; r < rows.num_rows(); ++r) keep.push_back(r);
    return keep;
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc->KeyColumns(rows));
  std::string key;
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    key.clear();
    enc->Encode(cols, r, &key);
    if (newer.count(key)) continue;
    keep.push_back(r);
    if (kept_keys) kept_keys->push_back(key);
  }
  return keep;
}

Result<RecordBatchPtr> KeptRows(const RecordBatch& rows, const std::vector<int64_t>& keep) {
  if (static_cast<int64_t>(keep.size()) == rows.num_rows()) return std::make_shared<RecordBatch>(rows);
  return TakeRows(rows, keep);
}

}  // namespace lance::query::internal
