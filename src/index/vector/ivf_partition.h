// IvfPartition: one IVF partition's storage as a search reads it (IvfIndex::Partition).
//
// An index opened by partition (IvfIndex::OpenByPartition) keeps each partition as its own
// IndexCache entry, charged MemoryBytes(): a segment larger than the cache keeps the partitions
// its queries probe most (least recently used leave first), as lance 12's index cache keys
// partitions. A search holds the partitions it probes for its duration, so an eviction never
// frees data in use. An index read whole (IvfIndex::Open) holds every partition itself.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "index/vector/hnsw.h"
#include "lance/columnar/buffer.h"

namespace lance::index::vector {

// A partition's array of T: either a view into the bytes the file reader returned (kept alive
// by `hold`: on a local store a slice of the memory-mapped auxiliary file, so a cold partition
// costs page faults on the page cache instead of a read into fresh memory and a copy), or owned
// (a layout the file does not store, e.g. PQ codes transposed the other way).
template <typename T>
class PartitionArray {
 public:
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T& operator[](size_t i) const { return data_[i]; }

  // Views [first, first + n), which `hold` keeps alive.
  void View(const T* first, size_t n, std::shared_ptr<const void> hold) {
    own_.clear();
    own_.shrink_to_fit();
    data_ = first;
    size_ = n;
    hold_ = std::move(hold);
  }
  // n owned values (zero), writable through the returned pointer until the partition is shared.
  T* Own(size_t n) {
    hold_.reset();
    own_.assign(n, T{});
    data_ = own_.data();
    size_ = n;
    return own_.data();
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
  std::vector<T> own_;
  std::shared_ptr<const void> hold_;
};

struct IvfPartition {
  PartitionArray<uint64_t> row_ids;          // the partition's rows, in stored order
  PartitionArray<uint8_t> codes;             // IVF_HNSW_PQ (and IVF_PQ read whole): row-major rows x num_sub_vectors
  PartitionArray<uint8_t> transposed_codes;  // IVF_PQ: sub-vector-major (lance's layout, the scan's)
  PartitionArray<float> vectors;             // IVF_FLAT / IVF_HNSW_FLAT: rows x dim (cosine: normalised)
  PartitionArray<uint8_t> binary_vectors;    // hamming IVF_FLAT: rows x dim
  PartitionArray<uint8_t> sq_codes;          // IVF_SQ / IVF_HNSW_SQ: rows x dim
  HnswGraph graph;                           // IVF_HNSW_*: the partition's graph

  size_t size() const { return row_ids.size(); }
  // What the index cache charges: every byte the partition spans, viewed or owned (a viewed
  // partition keeps its file pages mapped while cached).
  int64_t MemoryBytes() const {
    size_t n = sizeof(IvfPartition) + row_ids.size() * sizeof(uint64_t) + codes.size() +
               transposed_codes.size() + vectors.size() * sizeof(float) + binary_vectors.size() +
               sq_codes.size();
    for (const HnswGraph::Level& l : graph.levels) {
      n += (l.starts.size() + l.ids.size() + l.nodes.size()) * sizeof(uint32_t) + l.distances.size() * sizeof(float);
    }
    return static_cast<int64_t>(n);
  }
};

}  // namespace lance::index::vector
