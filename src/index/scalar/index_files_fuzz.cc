// libFuzzer target: the files of a scalar index segment are untrusted. Input: one selector
// byte (mod 8: 0 BTREE, 1 BITMAP, 2 LABEL_LIST, 3 a bare RowSet, 4 ZONEMAP, 5 BLOOMFILTER,
// keyed as int32 when selector / 8 is even, else utf8, 6 NGRAM, 7 a bare RowSet in the
// RoaringTreemap form of NGRAM posting lists), then for BTREE a u32 LE length L and
// L bytes of page_lookup.lance followed by page_data.lance; for the others the one file's
// bytes. Opening and every kind of query must end in a Status.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "lance/index/index_store.h"
#include "lance/index/row_set.h"
#include "lance/index/scalar/bitmap.h"
#include "lance/index/scalar/bloom_filter.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/label_list.h"
#include "lance/index/scalar/ngram.h"
#include "lance/index/scalar/zone_map.h"
#include "lance/io/memory_object_store.h"

namespace {

using namespace lance::index;
using namespace lance::index::scalar;

void Query(const ScalarIndex& index) {
  const ScalarValue probes[] = {ScalarValue::Int(5), ScalarValue::Float(0.5),
                                ScalarValue::Bytes("c3"), ScalarValue::Bool(true), ScalarValue::Null()};
  for (const auto& v : probes) {
    for (const IndexQuery& q :
         {IndexQuery(ScalarQuery::Equals(v)), IndexQuery(ScalarQuery::LessThan(v)),
          IndexQuery(ScalarQuery::GreaterEq(v)), IndexQuery(ScalarQuery::In({v, ScalarValue::Int(1)})),
          IndexQuery(ScalarQuery::StartsWith("c")), IndexQuery(LabelListQuery::HasAll({v, ScalarValue::Bytes("t1")})),
          IndexQuery(LabelListQuery::HasAny({v}))}) {
      if (!index.CanAnswer(q)) continue;
      (void)index.Search(q);
    }
  }
  for (const char* needle : {"abc", "c3 x", "APPLE", "t1t", "zzz"}) {
    const IndexQuery q = TextQuery{needle};
    if (index.CanAnswer(q)) (void)index.Search(q);
  }
  (void)index.Search(ScalarQuery::IsNull());
  (void)index.Search(ScalarQuery::IsNotNull());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t kind = data[0] % 8;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (kind == 3) {
    auto s = RowSet::Deserialize(rest, "fuzz");
    if (s.ok()) {
      auto again = RowSet::Deserialize(s->Serialize(), "again");
      if (!again.ok() || !(*again == *s)) __builtin_trap();
    }
    return 0;
  }
  if (kind == 7) {
    auto s = RowSet::DeserializeTreemap(rest, "fuzz");
    if (s.ok()) {
      auto again = RowSet::DeserializeTreemap(s->SerializeTreemap(), "again");
      if (!again.ok() || !(*again == *s)) __builtin_trap();
    }
    return 0;
  }
  auto mem = lance::io::MemoryObjectStore::Make();
  auto fuzz_cache = lance::index::IndexCache::Make(1 << 20);  // held here: stores hold it weakly
  auto store = IndexStore::Make(mem, "idx", fuzz_cache);
  lance::Result<std::shared_ptr<ScalarIndex>> index = lance::Status::OK();
  if (kind == 0) {
    if (rest.size() < 4) return 0;
    uint32_t n = 0;
    std::memcpy(&n, rest.data(), 4);
    rest.remove_prefix(4);
    if (n > rest.size()) return 0;
    if (!mem->Put(store->PathOf(kBTreeLookupFile), rest.substr(0, n)).ok()) return 0;
    if (!mem->Put(store->PathOf(kBTreePagesFile), rest.substr(n)).ok()) return 0;
    index = OpenBTreeIndex(store);
  } else if (kind == 4) {
    if (!mem->Put(store->PathOf(kZoneMapFile), rest).ok()) return 0;
    index = OpenZoneMapIndex(store);
  } else if (kind == 5) {
    if (!mem->Put(store->PathOf(kBloomFilterFile), rest).ok()) return 0;
    index = OpenBloomFilterIndex(store, (data[0] / 8) % 2 == 0 ? lance::int32() : lance::utf8());
  } else if (kind == 6) {
    if (!mem->Put(store->PathOf(kNGramFile), rest).ok()) return 0;
    index = OpenNGramIndex(store);
  } else {
    if (!mem->Put(store->PathOf(kBitmapFile), rest).ok()) return 0;
    index = kind == 1 ? OpenBitmapIndex(store) : OpenLabelListIndex(store);
  }
  if (index.ok()) Query(**index);
  return 0;
}
