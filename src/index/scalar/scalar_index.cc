#include "lance/index/scalar/scalar_index.h"

#include "lance/index/scalar/bitmap.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/label_list.h"
#include "lance/io/object_store.h"

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

}  // namespace lance::index::scalar
