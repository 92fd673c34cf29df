// Remapping a scalar index after a compaction moved its rows (tables without stable row ids,
// where an index stores row addresses): the index's entries are rewritten into a new segment
// with every address of a moved row replaced by its new address and the rows the compaction
// dropped (deleted ones) left out, as lance 12's compaction does by default.
//
// What lance 12 does per type (checked on the files its compaction writes):
//   BTREE       page_data.lance re-cut into pages of the old batch size from the remapped
//               (value, address) pairs, page_lookup.lance written anew from those pages;
//   BITMAP      every key's row set remapped (keys kept, even one left without rows);
//   LABEL_LIST  as BITMAP, and the row set of the null lists (global buffer 1);
//   NGRAM       every token's posting list remapped;
//   ZONEMAP, BLOOMFILTER  not remapped (lance 12's can_remap is false): the compaction leaves
//               them as they are, covering the fragments they covered.
//   FM          not remapped either (lance 12's Rewrite leaves it; its optimize() retrains it).
// IVF vector indexes are remapped by index/vector/remap.h (with this RowAddressMap), INVERTED
// (full-text) ones by index/fts/inverted_writer.h RemapInvertedIndex.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "lance/core/result.h"
#include "lance/index/index_store.h"
#include "lance/index/row_set.h"
#include "lance/index/scalar/scalar_index.h"
#include "lance/table/manifest.h"

namespace lance::index::scalar {

// Old row address -> new row address, for the rows of the fragments a compaction replaced.
// Addresses of other fragments map to themselves.
class RowAddressMap {
 public:
  static constexpr uint64_t kRemoved = UINT64_MAX;

  // Where the rows of old fragment `fragment` went: `new_addresses[offset]` (kRemoved: the
  // row is gone, e.g. it was deleted). Offsets past the end are gone too.
  void SetFragment(uint32_t fragment, std::vector<uint64_t> new_addresses);
  bool Moves(uint32_t fragment) const { return moved_.count(fragment) != 0; }
  bool empty() const { return moved_.empty(); }
  // The new address of `address` (itself when its fragment did not move; kRemoved).
  uint64_t Map(uint64_t address) const;
  // `rows` with every address mapped and the removed ones left out.
  RowSet Map(const RowSet& rows) const;

 private:
  std::unordered_map<uint32_t, std::vector<uint64_t>> moved_;
};

// Whether a compaction remaps an index of this kind (BTREE, BITMAP, LABEL_LIST, NGRAM: true;
// ZONEMAP, BLOOMFILTER and every other kind: false).
bool RemappedOnCompaction(const table::IndexInfo& info);

// Whether a compaction trains an index of this kind again over the fragments it covers after
// the rewrite (ZONEMAP, BLOOMFILTER: their zones are runs of row positions, which the rewrite
// moves, so their files cannot be remapped; training reads one column and is cheap). lance 12
// leaves them covering the vanished fragments until an optimize of the indexes.
bool RetrainedOnCompaction(const table::IndexInfo& info);

// Writes the remapped copy of the segment `info` (read from `from`) into `to` and returns its
// files, details and index version (those of the old segment's type).
// Errors: NotSupported (RemappedOnCompaction is false, or a layout this library does not
// write, such as a range-partitioned BTree: the compaction then leaves the index as it is),
// Corruption (a damaged index file, naming it), IOError.
Result<TrainedIndex> RemapScalarIndex(const table::IndexInfo& info, IndexStore& from, IndexStore& to,
                                      const RowAddressMap& map);

}  // namespace lance::index::scalar
