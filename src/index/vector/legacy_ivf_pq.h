// The IVF_PQ index file of lance before the v3 layout (lance 0.8 ... 0.2x; upstream corpus
// v0.8.14/corrupt_index, v0.21.0/bad_index_fragment_bitmap, the vectordb 0.4.20 and lancedb
// 0.14.1 goldens): index.idx alone, laid out as
//   partitions | metadata | u64 metadata position | u16 major | u16 minor (0.1) | "LANC"
// with, at the metadata position, a u32 length and the V1Index message (proto/ivf_v1.proto):
// the metric, the IVF stage (each partition's absolute file position and row count) and the
// PQ stage (num_bits, num_sub_vectors). A partition holds its rows' PQ codes (rows x
// num_sub_vectors bytes at 8 bits) followed by their u64 row ids.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/linalg/distance.h"

namespace lance::index::vector {

struct LegacyIvfPq {
  linalg::DistanceType metric = linalg::DistanceType::kL2;
  uint32_t num_bits = 8;
  uint32_t num_sub_vectors = 0;
  uint32_t dimension = 0;
  std::vector<uint64_t> offsets;  // absolute position of each partition
  std::vector<uint32_t> lengths;  // rows of each partition
};

// The metadata of `path` when it is a legacy IVF_PQ index file; nullopt when its footer is not
// a legacy one (a v3 index file). Errors: NotFound, Corruption (a legacy footer over a message
// that does not decode, has no IVF or PQ stage, or partitions outside the file).
Result<std::optional<LegacyIvfPq>> ReadLegacyIvfPq(io::ObjectStore& store, const std::string& path);

// Every row id the index holds, partition by partition. Errors: Corruption, I/O.
Result<std::vector<uint64_t>> ReadLegacyIvfPqRowIds(io::ObjectStore& store, const std::string& path,
                                                    const LegacyIvfPq& index);

}  // namespace lance::index::vector
