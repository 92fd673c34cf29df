#include "lance/index/scalar/scalar_index.h"

#include "lance/index/scalar/bitmap.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/label_list.h"
#include "lance/io/object_store.h"
#include "lance/table/snapshot.h"

namespace lance::index::scalar {

Result<std::shared_ptr<ScalarIndex>> OpenScalarIndex(std::shared_ptr<IndexStore> store,
                                                     const table::IndexInfo& info) {
  const std::string type = table::IndexTypeName(info);
  if (type == "BTREE") return OpenBTreeIndex(std::move(store));
  if (type == "BITMAP") return OpenBitmapIndex(std::move(store));
  if (type == "LABEL_LIST") return OpenLabelListIndex(std::move(store));
  return Status::NotSupported("index '{}': no scalar reader for type '{}' ({})", info.name, type,
                              info.details_type_url);
}

Result<TrainingData> CollectTrainingData(const table::Snapshot& snapshot,
                                         const std::string& column,
                                         const std::optional<std::vector<uint64_t>>& fragments) {
  const auto& schema = snapshot.schema();
  const int idx = schema->GetFieldIndex(column);
  if (idx < 0) return Status::InvalidArgument("no column '{}' to index", column);
  table::ScanOptions opts;
  opts.columns = {column};
  opts.with_row_id = true;
  opts.fragment_ids = fragments;
  LANCE_ASSIGN_OR_RAISE(auto batches, snapshot.Scan(opts));
  TrainingData out;
  out.type = schema->field(idx)->type();
  for (const auto& b : batches) {
    out.values.push_back(b->column(0));
    const Array& ids = *b->column(1);
    const uint64_t* p = ids.Values<uint64_t>();
    out.row_ids.insert(out.row_ids.end(), p, p + ids.length);
  }
  return out;
}

}  // namespace lance::index::scalar
