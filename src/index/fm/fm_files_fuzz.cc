// libFuzzer target: an FM-index partition file (part_0_fm.lance) is untrusted. Input: the
// file's bytes. Opening it and searching must end in a Status (Corruption naming the file),
// never a crash, an out-of-bounds read or an endless locate walk.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lance/index/fm/fm_index.h"
#include "lance/index/index_store.h"
#include "lance/io/memory_object_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lance::index;
  auto mem = lance::io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "idx");
  if (!mem->Put(store->PathOf(fm::FmPartitionFile(0)), std::string_view(reinterpret_cast<const char*>(data), size)).ok()) {
    return 0;
  }
  auto index = fm::OpenFmIndex(store);
  if (!index.ok()) return 0;
  for (const char* needle : {"a", "an", "apple", " ", "", "zzzz", "\xff"}) {
    (void)(*index)->Search(scalar::TextQuery{needle});
  }
  return 0;
}
