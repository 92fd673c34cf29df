// libFuzzer target: the two files of a vector index are untrusted. The input is split at its
// first 4 bytes (little-endian length of index.idx); both parts go into a memory store and
// IvfIndex::Open and the legacy IVF_PQ reader (on index.idx) must end in a Status, and an index
// IvfIndex accepts must search without crashing.
// (IVF_HNSW_SQ: the graph walk, with and without a keep predicate, and its exact scan of few
// passing rows; IVF_RQ: the RaBitQ metadata, packed codes and factors, and the estimator.)
// Seeds (fuzz/corpus/ivf_index_fuzz): the golden IVF_FLAT, IVF_PQ, IVF_HNSW_SQ and IVF_RQ
// indexes of tests/golden/vector_index packed the same way, our IVF_SQ and IVF_HNSW_FLAT of 200
// 8-d vectors, and a legacy IVF_PQ index.idx of tests/golden/legacy (vectordb 0.4.20) with an
// empty auxiliary.idx.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "index/vector/legacy_ivf_pq.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/io/memory_object_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lance::index::vector;
  if (size < 4) return 0;
  uint32_t n = 0;
  std::memcpy(&n, data, 4);
  const std::string_view rest(reinterpret_cast<const char*>(data) + 4, size - 4);
  if (n > rest.size()) return 0;
  auto store = lance::io::MemoryObjectStore::Make();
  if (!store->Put("i/index.idx", rest.substr(0, n)).ok()) return 0;
  if (!store->Put("i/auxiliary.idx", rest.substr(n)).ok()) return 0;
  // index.idx as the legacy IVF_PQ file older lance wrote (legacy_ivf_pq.h): metadata, row ids.
  auto legacy = ReadLegacyIvfPq(*store, "i/index.idx");
  if (legacy.ok() && legacy->has_value()) (void)ReadLegacyIvfPqRowIds(*store, "i/index.idx", **legacy);
  auto index = IvfIndex::Open(store, "i");
  if (!index.ok() || (*index)->dim() > 4096) return 0;
  AnnQuery q;
  q.vector.assign((*index)->dim(), 0.25f);
  q.nprobes = 2;
  (void)(*index)->Search(q);
  q.ef = 20;
  (void)(*index)->Search(q, [](uint64_t row) { return row % 3 == 0; });
  (void)(*index)->Search(q, [](uint64_t row) { return row % 50 == 0; });
  return 0;
}
