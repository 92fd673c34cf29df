#include "lance/index/vector/vector_catalog.h"

#include <deque>
#include <mutex>
#include <utility>

#include "lance/index/index_metadata.h"
#include "lance/index/index_store.h"

namespace lance::index::vector {

namespace {

constexpr const char* kVectorDetailsUrl = "/lance.index.pb.VectorIndexDetails";
// Indexes kept open: enough for a few columns / tables searched in turn.
constexpr size_t kKeptIndexes = 4;

struct OpenedIndexes {
  struct Entry {
    const io::ObjectStore* store;
    std::string dir;
    std::shared_ptr<const IvfIndex> index;
  };
  std::mutex mu;
  std::deque<Entry> recent;  // most recently used first
};

OpenedIndexes& Opened() {
  static OpenedIndexes* opened = new OpenedIndexes();
  return *opened;
}

}  // namespace

const table::IndexInfo* FindVectorIndex(const table::Manifest& manifest, int32_t field_id) {
  for (const auto& idx : manifest.indices) {
    if (idx.details_type_url == kVectorDetailsUrl && idx.fields.size() == 1 && idx.fields[0] == field_id) {
      return &idx;
    }
  }
  return nullptr;
}

Result<std::shared_ptr<const IvfIndex>> OpenVectorIndex(const table::TableLocation& location,
                                                        const table::IndexInfo& info) {
  const std::string dir = IndexDirectory(location, info.uuid);
  OpenedIndexes& opened = Opened();
  {
    std::lock_guard<std::mutex> lock(opened.mu);
    for (auto it = opened.recent.begin(); it != opened.recent.end(); ++it) {
      if (it->store == location.store().get() && it->dir == dir) {
        auto entry = std::move(*it);
        opened.recent.erase(it);
        opened.recent.push_front(std::move(entry));
        return opened.recent.front().index;
      }
    }
  }
  // Opened outside the lock (loads the whole storage); two callers may both open it.
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<IvfIndex> index, IvfIndex::Open(OpenIndexStore(location, info)));
  std::lock_guard<std::mutex> lock(opened.mu);
  opened.recent.push_front({location.store().get(), dir, index});
  while (opened.recent.size() > kKeptIndexes) opened.recent.pop_back();
  return std::shared_ptr<const IvfIndex>(std::move(index));
}

}  // namespace lance::index::vector
