// CollectTrainingData (index_training.h): a scan of one column with _rowid.
#include "lance/query/index_training.h"

#include "lance/query/scanner.h"

namespace lance::query {

Result<index::scalar::TrainingData> CollectTrainingData(
    std::shared_ptr<const table::Snapshot> snapshot, const std::string& column,
    const std::optional<std::vector<uint64_t>>& fragments, ThreadPool* pool) {
  const auto& schema = snapshot->schema();
  const int idx = schema->GetFieldIndex(column);
  if (idx < 0) return Status::InvalidArgument("no column '{}' to index", column);
  ScanOptions o;
  o.columns = {column, kRowIdColumn};
  o.fragment_ids = fragments;
  o.use_index = false;
  o.pool = pool;
  index::scalar::TrainingData out;
  out.type = schema->field(idx)->type();
  LANCE_ASSIGN_OR_RAISE(Scanner scanner, Scanner::Make(std::move(snapshot), std::move(o)));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->Next());
    if (!b) break;
    out.values.push_back(b->column(0));
    const Array& ids = *b->column(1);
    const uint64_t* p = ids.Values<uint64_t>();
    out.row_ids.insert(out.row_ids.end(), p, p + ids.length);
  }
  return out;
}

}  // namespace lance::query
