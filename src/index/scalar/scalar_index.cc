#include "lance/index/scalar/scalar_index.h"

#include "lance/index/fm/fm_index.h"
#include "lance/index/scalar/bitmap.h"
#include "lance/index/scalar/bloom_filter.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/label_list.h"
#include "lance/index/scalar/ngram.h"
#include "lance/index/scalar/zone_map.h"
#include "lance/io/object_store.h"

namespace lance::index::scalar {

Result<std::shared_ptr<ScalarIndex>> OpenScalarIndex(std::shared_ptr<IndexStore> store,
                                                     const table::IndexInfo& info,
                                                     const DataTypePtr& key_type) {
  const std::string type = table::IndexTypeName(info);
  if (type == "BTREE") return OpenBTreeIndex(std::move(store));
  if (type == "BITMAP") return OpenBitmapIndex(std::move(store));
  if (type == "LABEL_LIST") return OpenLabelListIndex(std::move(store));
  if (type == "ZONEMAP") return OpenZoneMapIndex(std::move(store));
  if (type == "NGRAM") return OpenNGramIndex(std::move(store));
  if (type == "FM") return fm::OpenFmIndex(std::move(store));
  if (type == "BLOOMFILTER") {
    if (!key_type) {
      return Status::NotSupported("index '{}': a BLOOMFILTER is opened with the type of its column", info.name);
    }
    return OpenBloomFilterIndex(std::move(store), key_type);
  }
  return Status::NotSupported("index '{}': no scalar reader for type '{}' ({})", info.name, type,
                              info.details_type_url);
}

bool IsExactIndexType(std::string_view type_name) {
  return type_name != "ZONEMAP" && type_name != "BLOOMFILTER" && type_name != "NGRAM";
}

}  // namespace lance::index::scalar
