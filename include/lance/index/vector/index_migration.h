// What lance 12 does, on every commit, to the vector index entries older writers left in the
// manifest (observed on its commits into the goldens of tests/golden/legacy and the upstream
// corpus: protoc --decode_raw of the index section before and after):
//
// * details: an entry typed "/lance.table.VectorIndexDetails" (lance 0.19-0.33) with no value,
//   or with no details at all on a fixed-size-list column (before lance 0.19.3), is recorded
//   as "/lance.index.pb.VectorIndexDetails" with the metric and the quantizer read from the
//   index files (IVF_PQ: num_bits and num_sub_vectors; IVF_FLAT: flat);
// * fragment bitmap: recomputed from the row ids the index holds when the entry has none, when
//   entries of the same name list a fragment twice (upstream v0.21.0/bad_index_fragment_bitmap),
//   or when the version committed on was written by lance before 0.8.15 or records no writer
//   (v0.8.14/corrupt_index: those writers could store a wrong bitmap).
//
// Vector indexes in the v3 layout (ivf_index.h) and the legacy IVF_PQ layout of lance before 0.2x
// (index.idx ending in a legacy footer and the old Index message) are read; entries of other
// kinds, system indexes and indexes under another base path are left as stored.
#pragma once

#include "lance/core/status.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"

namespace lance::index::vector {

// Migrates the entries of `m` (the manifest a commit is about to publish on the table at
// `location`), `previous` being the version it is committed on (null for a new table).
// Errors: those of reading an index file that has to be read (NotFound, Corruption).
Status MigrateVectorIndexEntries(const table::TableLocation& location, const table::Manifest* previous,
                                 table::Manifest* m);

}  // namespace lance::index::vector
